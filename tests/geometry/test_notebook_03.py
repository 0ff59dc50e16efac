"""Notebook 03 executes end to end in fast mode."""

from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "03_geometry.ipynb"


def test_notebook_03_runs(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("matplotlib")
    pytest.importorskip("ipykernel")
    monkeypatch.setenv("NEUROALGEBRA_FAST", "1")
    monkeypatch.setenv("NEUROALGEBRA_OUT", str(tmp_path))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "fast mode: True" in text
    assert "n=3 degree=4 k=5: dim 14 < expected 15  [defective (certified)]" in text
    assert "(d, p, K) = (4, 3, 5): 29 < 30" in text and "all certified: True" in text
    assert "-> confirmed" in text and "round trip: True" in text
    assert "verdict: proximity bias" in text
    assert (tmp_path / "03_quadratic_defects.png").exists()
