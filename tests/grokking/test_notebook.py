"""Execute notebooks/07_grokking.ipynb in fast mode (NEUROALGEBRA_FAST=1)."""

import pytest
from tests.notebook_runner import execute_notebook


@pytest.mark.slow  # a notebook: only notebook 09 (the fastest) runs by default
def test_notebook_07_runs(tmp_path):
    _, text = execute_notebook("07_grokking.ipynb", tmp_path, needs=("matplotlib", "distributed"))
    assert "fast mode" in text
    assert "validation accuracy >= 0.95 at epoch" in text and "at epoch None" not in text
    assert "certified data dimension" in text
    assert (tmp_path / "grokking_nb.png").exists() and (tmp_path / "gsm_nb.png").exists()
    assert "certified rank" in text and "Basin verdict" in text
    assert "calibrated LLC v2, L_n (verdict)" in text and "Laplace of the paper's settings" in text
