"""Execute notebooks/02_certificates.ipynb in fast mode with nbclient."""

import pytest
from tests.notebook_runner import NOTEBOOKS, execute_notebook


@pytest.mark.slow  # a notebook: only notebook 09 (the fastest) runs by default
def test_certificates_notebook_runs():
    _, text = execute_notebook("02_certificates.ipynb", NOTEBOOKS)
    assert "VERIFIED - rank >= 29" in text
    assert text.count("NOT VERIFIED:") == 6
    assert "claim the paper's 30" in text and "sha256 does not match" in text
