"""One runner for every sweep of the toolkit, on ``dask.distributed``.

A sweep is a function applied to a list of items (one task per item) whose
results are gathered into one table.  The same call runs in-process, on a
``LocalCluster`` on this machine (the default), or on any running Dask
scheduler given by its address, with identical results: each item carries
its own seed, nothing depends on which worker runs it or in which order.

API
---
``run_sweep(func, items, *, key=None, scheduler=None, workers=None, table=None, on_result=None, no_worker_timeout=None, progress=True, desc="sweep")``
    ``func(item) -> dict`` must be a module-level (picklable) function and
    ``items`` a list of JSON-serialisable dicts.  Returns one row per item,
    ``{**item, **func(item)}``, in the order of ``items``.

    * ``scheduler``: ``None`` starts a ``LocalCluster`` (``workers`` worker
      processes, one thread each; default: the number of CPUs) and closes
      it afterwards; ``"serial"`` runs in this process (no Dask); any other
      string is the address of a running scheduler (``tcp://host:8786``),
      used unchanged.
    * ``table``: a ``.jsonl`` file.  Each finished row is appended as it
      arrives; rows already in the file (same ``key``) are not run again, so
      an interrupted sweep resumes where it stopped.  Items that raised are
      reported (``SweepError`` after the others finish) and not recorded,
      so the next call retries them.
    * ``key(item) -> str`` identifies an item in the table (default: the
      item's canonical JSON).
    * ``on_result(key, row)``: called in this process with each row as its
      task finishes (completion order, after the row is in ``table``), so the
      caller can write it at once; rows read back from ``table`` are not
      passed again.  An exception it raises stops the sweep.
    * ``no_worker_timeout``: seconds a Dask sweep waits while the scheduler
      has no live worker before it stops with :class:`ClusterError` ``no live
      worker on ADDRESS for N s`` (default :data:`NO_WORKER_TIMEOUT`; the
      value a :class:`SchedulerAddress` carries when ``None``).  A lost
      connection to the scheduler stops it with :class:`ClusterError` too.
      Either way every row finished before has been recorded and handed to
      ``on_result``: a re-run with the same ``table`` does only the rest.
      Tasks of a worker that dies while others live are recomputed by Dask.
    * ``progress``: a tqdm bar over completed tasks.

The command line's ``--scheduler ADDRESS``, ``--workers N`` and
``--no-worker-timeout SECONDS`` (the same on every command that runs a
sweep) are added by :func:`algebra.cli.args.add_sweep_options`; the timeout
travels with the address as a :class:`SchedulerAddress`, so every command
that passes ``scheduler`` on unchanged honours it.  This module has no CLI part.

Errors: :class:`SweepError` (some items raised; the others finished) and
:class:`ClusterError` (the cluster went away: no live worker, or the
scheduler connection lost) are :class:`~algebra.errors.AlgebraError`, so
the command line prints the message and exits with status 1.

``write_csv(rows, path)`` writes the gathered table (union of the columns).

Workers limit BLAS to one thread per task (``threadpoolctl``) so that ``N``
workers use ``N`` cores, not ``N`` times the BLAS pool.

Examples
--------
>>> rows = run_sweep(_square, [{"x": 2}, {"x": 3}], scheduler="serial", progress=False)
>>> [r["y"] for r in rows]
[4, 9]
>>> seen = []
>>> _ = run_sweep(_square, [{"x": 2}, {"x": 3}], scheduler="serial", progress=False,
...               on_result=lambda k, row: seen.append(row["y"]))
>>> seen
[4, 9]
>>> run_sweep(_square, [{"x": 1}], workers=0, progress=False)
Traceback (most recent call last):
...
algebra.errors.InputError: invalid --workers=0: expected an integer >= 1
>>> run_sweep(_square, [{"x": 1}], scheduler="serial", no_worker_timeout=0, progress=False)
Traceback (most recent call last):
...
algebra.errors.InputError: invalid --no-worker-timeout=0: expected a number of seconds > 0
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import logging
import os
import time
from pathlib import Path

import algebra.inputs as inputs
from algebra.errors import AlgebraError, InputError
from algebra.files import write_atomic

__all__ = ["run_sweep", "write_csv", "SweepError", "ClusterError", "SchedulerAddress", "NO_WORKER_TIMEOUT", "item_key"]

#: Seconds a Dask sweep waits with no live worker before it stops.  A minute: long enough
#: for a worker to restart or a replacement to join, short enough that a dead cluster is
#: reported before a user gives up on a silent command.
NO_WORKER_TIMEOUT = 60.0

# How often the runner looks for live workers while no task finishes (at most this, and a
# quarter of the timeout, so a 2 s timeout is noticed within half a second of running out).
_POLL_SECONDS = 1.0


class SweepError(AlgebraError):
    """Some items of a sweep raised; ``failures`` maps their keys to the error text."""

    def __init__(self, failures: dict):
        self.failures = failures
        first = next(iter(failures.items()))
        super().__init__(f"{len(failures)} sweep item(s) failed; first {first[0]}: {first[1]}")


class ClusterError(AlgebraError):
    """The cluster of a Dask sweep went away: no live worker for the stated time, or the scheduler lost.

    Every row finished before was recorded (``table``, ``on_result``); ``finished`` and
    ``unfinished`` count the tasks of this call.
    """

    def __init__(self, message: str, *, scheduler: str, finished: int, unfinished: int):
        self.scheduler = scheduler
        self.finished = finished
        self.unfinished = unfinished
        super().__init__(f"{message}; {finished} task(s) finished and recorded, {unfinished} unfinished "
                         "(a re-run does only those)")


class SchedulerAddress(str):
    """A scheduler address that carries the sweep's ``no_worker_timeout`` (seconds, or ``None``: the default).

    It is the address string itself everywhere else, so a command that hands ``scheduler`` on to
    :func:`run_sweep` unchanged passes the timeout with it.

    Examples
    --------
    >>> a = SchedulerAddress("tcp://host:8786", no_worker_timeout=5)
    >>> a == "tcp://host:8786", a.no_worker_timeout
    (True, 5)
    """

    def __new__(cls, address: str, *, no_worker_timeout=None):
        self = super().__new__(cls, address)
        self.no_worker_timeout = no_worker_timeout
        return self


def _timeout(value) -> float:
    """A positive, finite number of seconds (``--no-worker-timeout``)."""
    return inputs.real(value, "--no-worker-timeout", low=0, low_open=True, allowed="a number of seconds > 0")


def _square(item: dict) -> dict:
    """Toy task used by the examples and tests."""
    return {"y": item["x"] ** 2}


def item_key(item: dict) -> str:
    """Canonical JSON of an item (sorted keys): the default identity in the table."""
    return json.dumps(item, sort_keys=True, default=str)


def _call(func, item):
    """Run one task with BLAS limited to one thread (a worker process owns one core)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        return func(item)
    with threadpool_limits(1):
        return func(item)


def _read_table(table: Path | None, key) -> dict:
    done = {}
    if table is None or not table.exists():
        return done
    with open(table) as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError:  # a line cut by a kill: that item reruns
                continue
            done[row["_key"]] = row
    return done


def _append(table: Path | None, row: dict) -> None:
    if table is None:
        return
    lead = ""
    if table.exists() and table.stat().st_size:
        with open(table, "rb") as fh:  # a line cut by a kill gets its own line ended first
            fh.seek(-1, os.SEEK_END)
            lead = "" if fh.read(1) == b"\n" else "\n"
    with open(table, "a") as fh:
        fh.write(lead + json.dumps(row, default=str) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def run_sweep(func, items, *, key=None, scheduler: str | None = None, workers: int | None = None,
              table=None, on_result=None, no_worker_timeout: float | None = None, progress: bool = True,
              desc: str = "sweep") -> list:
    """Apply ``func`` to every item, one Dask task per item; see the module docstring."""
    items = list(items)
    key = key or item_key
    if workers is not None:
        inputs.integer(workers, "--workers", minimum=1)
    if scheduler is not None and not isinstance(scheduler, str):
        raise InputError("--scheduler", scheduler, "'serial' or a scheduler address such as tcp://host:8786")
    if no_worker_timeout is None:
        no_worker_timeout = getattr(scheduler, "no_worker_timeout", None)
    no_worker_timeout = NO_WORKER_TIMEOUT if no_worker_timeout is None else _timeout(no_worker_timeout)
    keys = [key(it) for it in items]
    if len(set(keys)) != len(keys):
        raise InputError("items", len(items), "items with distinct keys")
    table = Path(table) if table is not None else None
    if table is not None:
        table.parent.mkdir(parents=True, exist_ok=True)
    done = _read_table(table, key)
    todo = [(k, it) for k, it in zip(keys, items) if k not in done]
    failures = {}
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(items), initial=len(items) - len(todo), desc=desc, unit="task")

    def record(k, it, result):
        row = {"_key": k, **it, **result}
        done[k] = row
        _append(table, row)  # the table first: it is what a resume reads
        if bar is not None:
            bar.update(1)
        if on_result is not None:
            on_result(k, {c: v for c, v in row.items() if c != "_key"})

    try:
        if todo and scheduler == "serial":
            for k, it in todo:
                try:
                    result = _call(func, it)
                except Exception as exc:  # noqa: BLE001 - reported below, retried next call
                    failures[k] = f"{type(exc).__name__}: {exc}"
                    continue
                record(k, it, result)
        elif todo:
            with _quiet_dask_logs():
                _run_on_dask(func, todo, record, failures, scheduler=scheduler, workers=workers,
                             no_worker_timeout=no_worker_timeout, desc=desc)
    finally:
        if bar is not None:
            bar.close()
    if failures:
        raise SweepError(failures)
    return [{c: v for c, v in done[k].items() if c != "_key"} for k in keys]


@contextlib.contextmanager
def _quiet_dask_logs():
    """Hold Dask's own loggers (and tornado's, which carries its comms) at CRITICAL while a sweep runs: a lost
    scheduler is reported once, as the one-line :class:`ClusterError`, not after distributed's 24-line
    reconnect tracebacks on stderr.  The levels are restored afterwards."""
    loggers = [logging.getLogger(name) for name in ("distributed", "tornado", "asyncio")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)


def _run_on_dask(func, todo, record, failures, *, scheduler, workers, no_worker_timeout, desc) -> None:
    """Submit one task per ``(key, item)`` of ``todo`` and ``record`` each as it finishes.

    The loop waits for the next finished task for at most a poll interval; when none
    finished it asks the scheduler how many workers it has, and stops with
    :class:`ClusterError` once it has had none for ``no_worker_timeout`` seconds.  Dask
    cancels every future when the scheduler connection is lost: that stops it too.
    """
    from dask.distributed import Client, LocalCluster, wait

    cluster = None
    if scheduler is None:
        n = workers or os.cpu_count() or 1
        # No dashboard, and the scheduler's HTTP server (health and metrics routes, started even without a
        # dashboard, by default on port 8787) on a free loopback port: a fixed port warned "Port 8787 is already
        # in use" on every concurrent run
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None,
                               scheduler_kwargs={"dashboard_address": "127.0.0.1:0"}, silence_logs=40)
        client = Client(cluster)
        address = cluster.scheduler_address
    else:
        address = str(scheduler)
        try:
            client = Client(address, timeout="10s")
        except OSError as exc:
            raise InputError("--scheduler", address, f"the address of a running Dask scheduler ({exc})") from None
    poll = min(_POLL_SECONDS, no_worker_timeout / 4)
    futures = {}
    try:
        futures = {client.submit(_call, func, it, key=f"{desc}-{i}-{abs(hash(k)) % 10**12}", pure=False): (k, it)
                   for i, (k, it) in enumerate(todo)}
        pending, finished = set(futures), 0

        def lost():
            return ClusterError(f"lost the connection to scheduler {address}", scheduler=address,
                                finished=finished, unfinished=len(todo) - finished - len(failures))

        last_live = time.monotonic()
        while pending:
            try:
                ready, pending = wait(pending, timeout=poll, return_when="FIRST_COMPLETED")
            except TimeoutError:
                ready = set()
            except Exception:  # noqa: BLE001 - FuturesCancelledError, a closed client: the scheduler is gone
                if client.status == "running":
                    raise
                raise lost() from None
            progressed = False
            for fut in ready:
                k, it = futures[fut]
                if fut.status == "cancelled" and client.status != "running":
                    raise lost()
                try:
                    result = fut.result(timeout=poll)
                except TimeoutError:
                    if fut.status != "error":  # its result went with its worker: Dask recomputes it, or no one can
                        pending.add(fut)
                        continue
                    failures[k] = f"TimeoutError: {fut.exception()}"
                except Exception as exc:  # noqa: BLE001 - a task that raised, or its fetch failed
                    if client.status != "running":
                        raise lost() from None
                    failures[k] = f"{type(exc).__name__}: {exc}"
                else:
                    finished += 1
                    record(k, it, result)
                progressed = True
            if progressed:
                last_live = time.monotonic()
                continue
            if client.status != "running":
                raise lost()
            try:
                live = len(client.nthreads())
            except Exception:  # noqa: BLE001 - the RPC failed: the scheduler is gone
                raise lost() from None
            now = time.monotonic()
            if live:
                last_live = now
            elif now - last_live >= no_worker_timeout:
                raise ClusterError(f"no live worker on {address} for {no_worker_timeout:g} s", scheduler=address,
                                   finished=finished, unfinished=len(todo) - finished - len(failures))
    finally:
        if futures and client.status == "running":
            try:
                client.cancel(list(futures))
            except Exception:  # noqa: BLE001 - best effort: the scheduler may be gone
                pass
        try:
            client.close(timeout=5)
        except Exception:  # noqa: BLE001 - closing a client whose scheduler is gone
            pass
        if cluster is not None:
            cluster.close()


def write_csv(rows, path) -> Path:
    """Write rows (dicts) as CSV with the union of their columns, in first-seen order."""
    path = Path(path)
    cols = []
    for r in rows:
        for c in r:
            if c not in cols and c != "_key":
                cols.append(c)
    buf = io.StringIO(newline="")
    w = csv.DictWriter(buf, fieldnames=cols)
    w.writeheader()
    for r in rows:
        w.writerow({c: r.get(c, "") for c in cols})
    return write_atomic(path, buf.getvalue().encode())  # a full disk leaves the old file or none
