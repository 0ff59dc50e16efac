"""Notebook 04 executes end to end in fast mode."""

import os
from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "04_learning_coefficients.ipynb"


def test_notebook_04_runs(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("matplotlib")
    pytest.importorskip("ipykernel")
    monkeypatch.setenv("NEUROALGEBRA_FAST", "1")
    monkeypatch.setenv("NEUROALGEBRA_OUT", str(tmp_path))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "two-layer mismatches: 0" in text
    assert "contains: True" in text
    assert (tmp_path / "04_newton_polygon.png").exists() and (tmp_path / "04_volume_fit.png").exists()
    assert os.environ["NEUROALGEBRA_FAST"] == "1"
