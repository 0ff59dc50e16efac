"""Sweeps that survive their cluster (issue 24, item 2): results written as they finish, a resumable catalogue,
a clear stop when no worker is left or the scheduler is gone, lost workers' tasks recomputed.

The Dask tests run an in-process ``LocalCluster`` (``processes=False``) and are marked slow; the default run
keeps the serial checks of the same mechanisms (callback, interruption, resume, byte identity).
"""

from __future__ import annotations

import argparse
import contextlib
import threading
import time

import pytest

from algebra.certify import catalogue
from algebra.certify.catalogue import RESUME_TABLE, run_catalogue
from algebra.cli.args import add_sweep_options, sweep_options
from algebra.errors import AlgebraError, InputError
from algebra.sweep import ClusterError, SchedulerAddress, _square, run_sweep


class _Interrupted(BaseException):
    """Stands for a kill (like KeyboardInterrupt, it is no ``Exception``: the runner does not catch it)."""


def _slow_square(item: dict) -> dict:
    time.sleep(item.get("sleep", 0.2))
    return {"y": item["x"] ** 2}


_REAL_CERTIFY = catalogue._certify_item


def _slow_certify(item: dict) -> dict:
    """The catalogue's task, 0.1 s slower: a scheduler closed mid-sweep still has tasks to lose."""
    time.sleep(0.1)
    return _REAL_CERTIFY(item)


def _files(path) -> dict:
    return {p.name: p.read_bytes() for p in sorted(path.iterdir()) if p.is_file()}


@pytest.fixture
def small_catalogue(monkeypatch):
    """The fast catalogue cut to eleven cheap claims (one of them out of reach), for sub-second end-to-end runs."""
    full = catalogue._claims_by_id(True)
    ids = list(full)[:10] + [c for c in full if "d194" in c]
    assert len(ids) == 11
    monkeypatch.setattr(catalogue, "_claims_by_id", lambda fast: {c: full[c] for c in ids})
    return ids


def _interrupt_after(monkeypatch, k: int) -> list:
    """Make the catalogue's task raise :class:`_Interrupted` on its (k+1)-th call; returns the ids it was called on."""
    calls, real = [], catalogue._certify_item

    def task(item):
        if len(calls) == k:
            raise _Interrupted
        calls.append(item["id"])
        return real(item)

    monkeypatch.setattr(catalogue, "_certify_item", task)
    return calls


# -- fast: the serial route ---------------------------------------------------------------------------


def test_callback_sees_each_new_row_once_after_it_is_in_the_table(tmp_path):
    table = tmp_path / "t.jsonl"
    seen = []

    def on_result(key, row):
        seen.append((key, row))
        assert len(table.read_text().splitlines()) == len(seen)  # recorded before it is handed on

    items = [{"x": i} for i in range(4)]
    run_sweep(_square, items[:2], scheduler="serial", table=table, on_result=on_result, progress=False)
    rows = run_sweep(_square, items, scheduler="serial", table=table, on_result=on_result, progress=False)
    assert [r["y"] for r in rows] == [0, 1, 4, 9]
    assert [row["x"] for _, row in seen] == [0, 1, 2, 3]  # rows read back from the table are not passed again
    assert all("_key" not in row for _, row in seen)


def test_an_error_in_the_callback_stops_the_sweep_and_is_no_item_failure(tmp_path):
    def on_result(key, row):
        if row["x"] == 1:
            raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        run_sweep(_square, [{"x": i} for i in range(4)], scheduler="serial", table=tmp_path / "t.jsonl",
                  on_result=on_result, progress=False)
    assert len((tmp_path / "t.jsonl").read_text().splitlines()) == 2  # items 2 and 3 never ran


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), True, "5"])
def test_bad_no_worker_timeout_is_refused(bad):
    with pytest.raises(InputError, match="--no-worker-timeout"):
        run_sweep(_square, [{"x": 1}], scheduler="serial", no_worker_timeout=bad, progress=False)


def test_the_cli_option_travels_with_the_scheduler_address():
    parser = argparse.ArgumentParser()
    add_sweep_options(parser)
    opts = sweep_options(parser.parse_args(["--scheduler", "tcp://h:1", "--no-worker-timeout", "7"]))
    assert isinstance(opts["scheduler"], SchedulerAddress) and opts["scheduler"] == "tcp://h:1"
    assert opts["scheduler"].no_worker_timeout == 7 and set(opts) == {"scheduler", "workers"}
    assert sweep_options(parser.parse_args([]), serial=True)["scheduler"] == "serial"
    with pytest.raises(SystemExit):
        parser.parse_args(["--no-worker-timeout", "0"])


def test_interrupted_catalogue_keeps_its_finished_claims_and_resumes_byte_identically(tmp_path, monkeypatch,
                                                                                      small_catalogue):
    serial = tmp_path / "serial"
    run_catalogue(serial, fast=True, progress=False)
    out = tmp_path / "resumed"
    k = 4
    with monkeypatch.context() as m:
        calls = _interrupt_after(m, k)
        with pytest.raises(_Interrupted):
            run_catalogue(out, fast=True, progress=False)
    on_disk = _files(out)
    assert sorted(on_disk) == sorted([f"{c}.json" for c in calls] + [RESUME_TABLE])  # k certificates, no index
    assert len(calls) == k and all(on_disk[f"{c}.json"] == (serial / f"{c}.json").read_bytes() for c in calls)
    rerun = _interrupt_after(monkeypatch, 10**6)  # counts the calls, never interrupts
    run_catalogue(out, fast=True, progress=False)
    assert rerun == small_catalogue[k:]  # only the missing claims ran
    assert _files(out) == _files(serial)  # the table is gone, every byte as in one uninterrupted run


def test_a_resume_table_of_another_seed_is_not_reused(tmp_path, monkeypatch, small_catalogue):
    out = tmp_path / "out"
    with monkeypatch.context() as m:
        _interrupt_after(m, 3)
        with pytest.raises(_Interrupted):
            run_catalogue(out, fast=True, seed=1, progress=False)
    calls = _interrupt_after(monkeypatch, 10**6)
    run_catalogue(out, fast=True, seed=0, progress=False)
    assert calls == small_catalogue and not (out / RESUME_TABLE).exists()


# -- slow: an in-process LocalCluster -------------------------------------------------------------------


@pytest.fixture
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0",
                                  silence_logs=40) as c:
        yield c


@pytest.mark.slow  # a LocalCluster
def test_callback_sees_every_result_as_it_finishes(cluster):
    items = [{"x": i, "sleep": 0.05 * (6 - i)} for i in range(6)]
    seen = []
    rows = run_sweep(_slow_square, items, scheduler=cluster.scheduler_address, progress=False,
                     on_result=lambda key, row: seen.append((time.monotonic(), row["x"])))
    assert sorted(x for _, x in seen) == list(range(6)) and [r["y"] for r in rows] == [i * i for i in range(6)]
    assert [x for _, x in seen] != list(range(6))  # completion order (the last items sleep least), not item order


@pytest.mark.slow  # a LocalCluster, then the fast catalogue
def test_catalogue_on_a_cluster_writes_each_claim_at_once_and_matches_serial(tmp_path, monkeypatch, cluster):
    serial = tmp_path / "serial"
    run_catalogue(serial, fast=True, progress=False)
    out = tmp_path / "cluster"
    real, arrivals = catalogue._write_claim, []

    def write(out_dir, row):  # each claim is on disk before the next result arrives
        arrivals.append((len(list(out_dir.glob("*.json"))), sum(1 for r in arrivals if r[2])))
        arrivals[-1] += (row["certificate"] is not None,)
        real(out_dir, row)

    monkeypatch.setattr(catalogue, "_write_claim", write)
    entries = run_catalogue(out, fast=True, progress=False, scheduler=cluster.scheduler_address)
    during = arrivals[: len(entries)]  # then the final pass over the rows in catalogue order
    assert len(arrivals) == 2 * len(entries) and all(on_disk == before for on_disk, before, _ in during)
    assert _files(out) == _files(serial)


@pytest.mark.slow  # a LocalCluster and a 2 s timeout
def test_no_live_worker_stops_within_the_timeout_and_names_the_scheduler(cluster):
    items = [{"x": i, "sleep": 0.3} for i in range(12)]
    seen = []

    def on_result(key, row):
        seen.append(row["x"])
        if len(seen) == 1:
            cluster.scale(0)  # both workers go away with tasks still to run

    t0 = time.monotonic()
    with pytest.raises(ClusterError) as e:
        run_sweep(_slow_square, items, scheduler=cluster.scheduler_address, no_worker_timeout=2, progress=False,
                  on_result=on_result)
    assert time.monotonic() - t0 < 2 + 6
    assert f"no live worker on {cluster.scheduler_address} for 2 s" in str(e.value)
    assert e.value.finished == len(seen) >= 1 and e.value.unfinished == len(items) - len(seen)


@pytest.mark.slow  # a LocalCluster with no workers, through the command line
def test_certify_command_with_no_worker_exits_1_with_the_message(tmp_path, capsys):
    distributed = pytest.importorskip("distributed")
    from algebra.cli import main

    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=":0", silence_logs=40) as c:
        t0 = time.monotonic()
        rc = main(["certify", "--fast", "--quiet", "--out", str(tmp_path), "--scheduler", c.scheduler_address,
                   "--no-worker-timeout", "2"])
        assert time.monotonic() - t0 < 2 + 8
    assert rc == 1
    err = capsys.readouterr().err
    assert f"no live worker on {c.scheduler_address} for 2 s" in err and "Traceback" not in err


@pytest.mark.slow  # a LocalCluster whose scheduler is closed mid-sweep
def test_lost_scheduler_keeps_finished_claims_and_a_rerun_completes(tmp_path, monkeypatch, small_catalogue):
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0",
                                       silence_logs=40)
    try:
        out, serial, kept = _lose_the_scheduler(tmp_path, monkeypatch, cluster)
        assert len(kept) >= 3  # the claims finished before the scheduler died are on disk
        run_catalogue(out, fast=True, progress=False)  # the re-run (serial) completes the catalogue
        assert _files(out) == _files(serial)  # byte-identical to an uninterrupted serial run
    finally:
        with contextlib.suppress(TimeoutError):  # its scheduler is gone: closing the rest can only time out
            cluster.close(timeout=2)


def _lose_the_scheduler(tmp_path, monkeypatch, cluster):
    serial = tmp_path / "serial"
    run_catalogue(serial, fast=True, progress=False)
    real, written = catalogue._write_claim, []

    def write(out_dir, row):
        real(out_dir, row)
        written.append(row["entry"]["id"])
        if len(written) == 3:  # the scheduler dies after three claims are on disk
            threading.Thread(target=cluster.sync, args=(cluster.scheduler.close,), daemon=True).start()
            time.sleep(0.5)

    monkeypatch.setattr(catalogue, "_write_claim", write)
    monkeypatch.setattr(catalogue, "_certify_item", _slow_certify)
    out = tmp_path / "out"
    with pytest.raises(ClusterError) as e:
        run_catalogue(out, fast=True, progress=False, scheduler=cluster.scheduler_address)
    assert isinstance(e.value, AlgebraError) and f"lost the connection to scheduler {cluster.scheduler_address}" in str(e.value)
    kept = {c for c in written if (out / f"{c}.json").exists()}
    assert len(kept) >= 3 and e.value.finished == len(written)
    monkeypatch.setattr(catalogue, "_write_claim", real)
    return out, serial, kept


@pytest.mark.slow  # a LocalCluster losing one of its two workers
def test_a_lost_workers_tasks_are_recomputed(cluster):
    items = [{"x": i, "sleep": 0.2} for i in range(8)]
    seen = []

    def on_result(key, row):
        seen.append(row["x"])
        if len(seen) == 1:
            cluster.scale(1)  # one worker leaves; the other finishes everything

    rows = run_sweep(_slow_square, items, scheduler=cluster.scheduler_address, no_worker_timeout=3, progress=False,
                     on_result=on_result)
    assert [r["y"] for r in rows] == [i * i for i in range(8)] and sorted(seen) == list(range(8))
