"""Notebook 04 executes end to end in fast mode."""

import pytest
from tests.notebook_runner import execute_notebook


@pytest.mark.slow  # a notebook: only notebook 09 (the fastest) runs by default
def test_notebook_04_runs(tmp_path):
    _, text = execute_notebook("04_learning_coefficients.ipynb", tmp_path, needs=("matplotlib",))
    assert "two-layer mismatches: 0" in text
    assert "contains: True" in text
    assert (tmp_path / "04_newton_polygon.png").exists() and (tmp_path / "04_volume_fit.png").exists()
