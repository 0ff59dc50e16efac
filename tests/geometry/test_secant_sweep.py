"""secant-table through the shared sweep runner: a two-worker LocalCluster gives the serial table."""

import pytest

from algebra.cli import main


@pytest.mark.slow  # a Dask LocalCluster
def test_local_cluster_table_equals_serial_table(tmp_path, capsys):
    args = ["secant-table", "--variety", "veronese", "--n-max", "3", "--degree-max", "4", "--no-progress"]
    assert main(args + ["--out", str(tmp_path / "serial")]) == 0
    assert main(args + ["--out", str(tmp_path / "dask"), "--workers", "2"]) == 0
    serial = (tmp_path / "serial" / "veronese_n3_deg4.csv").read_text()
    assert serial == (tmp_path / "dask" / "veronese_n3_deg4.csv").read_text()
    assert "3,4,5" in serial.replace('"', "")  # sigma_5(v_4(P^2)) is the Alexander-Hirschowitz exception


def test_bad_workers_is_refused(tmp_path, capsys):
    assert main(["secant-table", "--variety", "veronese", "--n-max", "2", "--degree-max", "2", "--workers", "0",
                 "--out", str(tmp_path)]) == 2
    assert "--workers" in capsys.readouterr().err
