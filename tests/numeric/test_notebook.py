"""Execute notebooks/05_llc_sampling.ipynb in fast mode (NEUROALGEBRA_FAST=1)."""

import os
from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "05_llc_sampling.ipynb"


def test_notebook_05_runs(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("matplotlib")
    monkeypatch.setenv("NEUROALGEBRA_FAST", "1")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    outputs = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                      for o in c.get("outputs", []))
    assert "fast mode" in outputs
    assert "divergent (chain, step)" in outputs
    assert "suspect" in outputs
    assert os.path.exists(tmp_path / "llc_suite_nb.png")
