"""Execute notebooks/02_certificates.ipynb in fast mode with nbclient."""

from __future__ import annotations

from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "02_certificates.ipynb"


def test_certificates_notebook_runs(monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    monkeypatch.setenv("NEUROALGEBRA_FAST", "1")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    text = "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "VERIFIED - rank >= 29" in text
    assert text.count("NOT VERIFIED:") == 6
    assert "claim the paper's 30" in text and "sha256 does not match" in text
