"""Execute notebooks/05_llc_sampling.ipynb in fast mode (NEUROALGEBRA_FAST=1)."""

import pytest
from tests.notebook_runner import execute_notebook


@pytest.mark.slow  # a notebook: only notebook 09 (the fastest) runs by default
def test_notebook_05_runs(tmp_path):
    _, text = execute_notebook("05_llc_sampling.ipynb", tmp_path, needs=("matplotlib",))
    assert "fast mode" in text
    assert "divergent (chain, step)" in text
    assert "suspect" in text
    assert (tmp_path / "llc_suite_nb.png").exists()
