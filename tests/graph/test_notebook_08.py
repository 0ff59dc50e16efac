"""Execute notebooks/08_graph_attention.ipynb in fast mode (NEUROALGEBRA_FAST=1)."""

import pytest
from tests.notebook_runner import execute_notebook


@pytest.mark.slow  # a notebook: only notebook 09 (the fastest) runs by default
def test_notebook_08_runs(tmp_path):
    _, text = execute_notebook("08_graph_attention.ipynb", tmp_path, needs=("matplotlib",))
    assert "fast mode" in text
    assert "isomorphic to the networkx graph: True" in text and "False" not in text.split("orthogonality")[0]
    assert "orthogonality verified: True" in text
    assert "radius 0: assumption 1 holds = False" in text
    assert "constant features: assumption 1 holds = False" in text
    assert "default design: holds=True" in text
    assert (tmp_path / "graph_q_spectrum.png").exists()
