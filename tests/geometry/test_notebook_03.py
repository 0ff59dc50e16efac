"""Notebook 03 executes end to end in fast mode."""

import pytest
from tests.notebook_runner import execute_notebook


@pytest.mark.slow  # a notebook: only notebook 09 (the fastest) runs by default
def test_notebook_03_runs(tmp_path):
    _, text = execute_notebook("03_geometry.ipynb", tmp_path, needs=("matplotlib",))
    assert "fast mode: True" in text
    assert "n=3 degree=4 k=5: dim 14 < expected 15  [defective (certified)]" in text
    assert "(d, p, K) = (4, 3, 5): 29 < 30" in text and "all certified: True" in text
    assert "-> confirmed" in text and "round trip: True" in text
    assert "verdict: proximity bias" in text
    assert (tmp_path / "03_quadratic_defects.png").exists()
