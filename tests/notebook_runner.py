"""Execute a notebook of ``notebooks/`` in fast mode with nbclient (shared by the notebook tests)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def outputs_text(nb) -> str:
    """Every stream, markdown and plain-text output of the code cells, joined."""
    parts = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for out in cell.get("outputs", []):
            parts.append(out.get("text", ""))
            data = out.get("data", {})
            parts.append(data.get("text/markdown", ""))
            parts.append(data.get("text/plain", ""))
    return "\n".join(parts)


def execute_notebook(name: str, workdir, *, needs: tuple = (), env: dict | None = None, timeout: int = 300):
    """Run ``notebooks/<name>`` with ``NEUROALGEBRA_FAST=1`` in ``workdir``; return ``(nb, text)``.

    Skips (not fails) when nbformat, nbclient, ipykernel or one of ``needs`` is absent.
    ``NEUROALGEBRA_OUT`` points at ``workdir`` so figures land there.
    """
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    for module in needs:
        pytest.importorskip(module)
    saved = dict(os.environ)
    os.environ.update({"NEUROALGEBRA_FAST": "1", "NEUROALGEBRA_OUT": str(workdir), **(env or {})})
    try:
        nb = nbformat.read(NOTEBOOKS / name, as_version=4)
        # iopub_timeout: a cell's output may reach the client after its execute_reply; nbclient's
        # default (4 s) silently drops it on a loaded machine, so wait longer and fail if it never comes.
        nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3", iopub_timeout=120,
                                raise_on_iopub_timeout=True,
                                resources={"metadata": {"path": str(workdir)}}).execute()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return nb, outputs_text(nb)
