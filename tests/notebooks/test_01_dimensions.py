"""Notebook 01 executes end to end in fast mode, and its table of known dimensions is consistent."""

import re

import pytest

from tests.notebook_runner import execute_notebook, outputs_text as _outputs

#: a notebook: only notebook 09 (the fastest) runs by default
pytestmark = pytest.mark.slow


def _table_rows(text: str) -> list:
    """Rows ``(label, P, known, lower, upper, certified)`` of the known-dimensions table."""
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[1].isdigit():
            label, P, known, lower, upper, cert, _mode = cells
            rows.append((label, int(P), int(known), int(lower), int(upper), cert))
    return rows


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    nb, _ = execute_notebook("01_dimensions.ipynb", tmp_path_factory.mktemp("nb01"))
    return nb


def test_notebook_01_runs_in_fast_mode(executed):
    text = _outputs(executed)
    assert "fast mode" in text and "full mode" not in text
    assert not any(o.get("output_type") == "error" for c in executed.cells if c.cell_type == "code" for o in c.get("outputs", []))


def test_notebook_01_shows_witness_and_symmetries(executed):
    text = _outputs(executed)
    det = re.search(r"det of the witness minor mod p: (\d+)", text)
    assert det is not None and int(det.group(1)) != 0
    assert re.search(r"\d+ symmetry fields; J @ X == 0 mod p: True", text)


def test_notebook_01_known_table_is_consistent(executed):
    rows = _table_rows(_outputs(executed))
    labels = [r[0] for r in rows]
    assert len(rows) >= 12
    for needle in ("AH exception", "d^2 + dd' - 1", "dd' + C(d+1,2) - 1", "2dk - k^2", "Example B.10, F:", "Example B.10, F':"):
        assert any(needle in label for label in labels), needle
    for label, P, known, lower, upper, cert in rows:
        assert lower <= known <= upper, label
        if cert == "yes":
            assert lower == upper == known, label
        else:
            assert lower < upper, label
    certified = {label: cert for label, *_, cert in rows}
    assert certified["shallow n=3 k=4 h=5 (AH exception)"] == "yes"  # the engine's Cramer rung (issue 10)
    assert sum(c == "yes" for c in certified.values()) >= 10
