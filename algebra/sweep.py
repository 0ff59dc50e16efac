"""One runner for every sweep of the toolkit, on ``dask.distributed``.

A sweep is a function applied to a list of items (one task per item) whose
results are gathered into one table.  The same call runs in-process, on a
``LocalCluster`` on this machine (the default), or on any running Dask
scheduler given by its address, with identical results: each item carries
its own seed, nothing depends on which worker runs it or in which order.

API
---
``run_sweep(func, items, *, key=None, scheduler=None, workers=None, table=None, progress=True, desc="sweep")``
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
    * ``progress``: a tqdm bar over completed tasks.

The command line's ``--scheduler ADDRESS`` and ``--workers N`` (the same on
every command that runs a sweep) are added by
:func:`algebra.cli.args.add_sweep_options`; this module has no CLI part.

``write_csv(rows, path)`` writes the gathered table (union of the columns).

Workers limit BLAS to one thread per task (``threadpoolctl``) so that ``N``
workers use ``N`` cores, not ``N`` times the BLAS pool.

Examples
--------
>>> rows = run_sweep(_square, [{"x": 2}, {"x": 3}], scheduler="serial", progress=False)
>>> [r["y"] for r in rows]
[4, 9]
>>> run_sweep(_square, [{"x": 1}], workers=0, progress=False)
Traceback (most recent call last):
...
algebra.errors.InputError: invalid --workers=0: expected an integer >= 1
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

from algebra.errors import AlgebraError, InputError

__all__ = ["run_sweep", "write_csv", "SweepError", "item_key"]


class SweepError(AlgebraError):
    """Some items of a sweep raised; ``failures`` maps their keys to the error text."""

    def __init__(self, failures: dict):
        self.failures = failures
        first = next(iter(failures.items()))
        super().__init__(f"{len(failures)} sweep item(s) failed; first {first[0]}: {first[1]}")


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
              table=None, progress: bool = True, desc: str = "sweep") -> list:
    """Apply ``func`` to every item, one Dask task per item; see the module docstring."""
    items = list(items)
    key = key or item_key
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise InputError("--workers", workers, "an integer >= 1")
    if scheduler is not None and not isinstance(scheduler, str):
        raise InputError("--scheduler", scheduler, "'serial' or a scheduler address such as tcp://host:8786")
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
        _append(table, row)
        if bar is not None:
            bar.update(1)

    if todo and scheduler == "serial":
        for k, it in todo:
            try:
                record(k, it, _call(func, it))
            except Exception as exc:  # noqa: BLE001 - reported below, retried next call
                failures[k] = f"{type(exc).__name__}: {exc}"
    elif todo:
        from dask.distributed import Client, LocalCluster, as_completed

        cluster = None
        if scheduler is None:
            n = workers or os.cpu_count() or 1
            cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                   dashboard_address=None, silence_logs=40)
            client = Client(cluster)
        else:
            try:
                client = Client(scheduler, timeout="10s")
            except OSError as exc:
                raise InputError("--scheduler", scheduler, f"the address of a running Dask scheduler ({exc})") from None
        try:
            futures = {client.submit(_call, func, it, key=f"{desc}-{i}-{abs(hash(k)) % 10**12}", pure=False): (k, it)
                       for i, (k, it) in enumerate(todo)}
            for fut in as_completed(futures):
                k, it = futures[fut]
                try:
                    record(k, it, fut.result())
                except Exception as exc:  # noqa: BLE001
                    failures[k] = f"{type(exc).__name__}: {exc}"
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
    if bar is not None:
        bar.close()
    if failures:
        raise SweepError(failures)
    return [{c: v for c, v in done[k].items() if c != "_key"} for k in keys]


def write_csv(rows, path) -> Path:
    """Write rows (dicts) as CSV with the union of their columns, in first-seen order."""
    path = Path(path)
    cols = []
    for r in rows:
        for c in r:
            if c not in cols and c != "_key":
                cols.append(c)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols)
        w.writeheader()
        for r in rows:
            w.writerow({c: r.get(c, "") for c in cols})
    os.replace(tmp, path)
    return path
