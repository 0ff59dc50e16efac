"""The LLC suite on the shared sweep runner: a two-worker LocalCluster reproduces the serial rows."""

import pytest

from algebra.numeric.calibration import FAST
from algebra.claims.llc_suites import run_suite
from algebra.numeric.suite import SuiteEntry

ENTRIES = [SuiteEntry("regular", (2, 1)), SuiteEntry("rrr", (1, 1, 1, 0))]


@pytest.mark.slow  # a Dask LocalCluster
def test_local_cluster_rows_equal_serial_rows():
    serial = run_suite(settings=FAST, seed=3, entries=ENTRIES, progress=False)
    dask = run_suite(settings=FAST, seed=3, entries=ENTRIES, progress=False, scheduler=None, workers=2)
    assert [r["model"] for r in serial] == [r["model"] for r in dask]
    for a, b in zip(serial, dask):
        assert (a["estimate"], a["stderr"], a["verdict"], a["seed"]) == (b["estimate"], b["stderr"], b["verdict"], b["seed"])
