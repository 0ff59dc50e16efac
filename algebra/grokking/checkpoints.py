"""Committed checkpoints: a run's last memorising and first generalising parameters as a pinned data file.

Training is binary64 arithmetic through numpy's SIMD kernels and BLAS, so the
same run differs in the last bits of its weights from one CPU to another
(measured: AVX-512 against AVX2 kernels, most of the 1,632 weights of the
``small`` run, by at most 2.3e-15).  A certificate *at* a checkpoint must not
re-train it: :func:`write_basin_checkpoints` (``neuroalgebra grok basin RUN
--out FILE``) writes the two checkpoints a basin comparison needs, each weight
in ``float.hex`` spelling, and :func:`read_basin_checkpoints` reads them back
bit for bit, refusing a file whose sha256 is not the one its caller recorded.

A checkpoint's phase is decided exactly (:func:`exact_accuracies`): the
binary64 weights are dyadic rationals, so the predictions ``Y_hat + offset``
are compared in integers and no rounding decides an ``argmax``.

File format (JSON, keys sorted, one weight a line)::

    {"format": "neuroalgebra grokking checkpoints 1",
     "config": {the run's TrainConfig fields},
     "memorising": {"epoch": E, "theta": ["0x1.8p-1", ...]},
     "generalising": {"epoch": E, "theta": [...]}}
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, fields
from fractions import Fraction
from pathlib import Path

import numpy as np

from algebra.errors import CertificateError, InputError
from algebra.files import write_atomic
from algebra.grokking.local_rank import dyadic_point, short_hex
from algebra.grokking.network import parameter_count
from algebra.grokking.task import ModularAddition

__all__ = ["PHASES", "phase", "basin_epochs", "exact_accuracies", "BasinCheckpoints", "write_basin_checkpoints",
           "read_basin_checkpoints", "FORMAT", "ROLES"]

#: The first line of meaning of a checkpoints file (a reader refuses any other).
FORMAT = "neuroalgebra grokking checkpoints 1"

#: The two checkpoints a basin comparison reads, in the file and in this order.
ROLES = ("memorising", "generalising")

#: A checkpoint's phase from its accuracies: ``memorising`` (fits the training data, validation at most 0.5),
#: ``generalising`` (validation at least 0.95), ``transition`` otherwise (``untrained`` below 0.99 on training).
PHASES = ("memorising", "generalising", "transition", "untrained")


def phase(train_acc, val_acc) -> str:
    """The phase of a checkpoint (:data:`PHASES`); the accuracies are floats or exact fractions.

    Examples
    --------
    >>> phase(1.0, 0.03), phase(1.0, 0.99), phase(1.0, 0.7), phase(0.4, 0.1)
    ('memorising', 'generalising', 'transition', 'untrained')
    >>> phase(Fraction(1), Fraction(19, 20))   # exactly 0.95
    'generalising'
    """
    if train_acc < 0.99:
        return "untrained"
    if val_acc >= 0.95:
        return "generalising"
    return "memorising" if val_acc <= 0.5 else "transition"


def basin_epochs(rows) -> tuple:
    """``(last memorising epoch, first generalising epoch)`` of a run's ``loss_data`` rows, or ``None``.

    ``None`` when the run never reaches both phases, or generalises before it last memorises.

    Examples
    --------
    >>> rows = [{"epoch": e, "train_acc": t, "val_acc": v} for e, t, v in
    ...         [(0, 0.1, 0.0), (25, 1.0, 0.1), (50, 1.0, 0.3), (75, 1.0, 0.8), (100, 1.0, 0.96), (125, 1.0, 0.97)]]
    >>> basin_epochs(rows)
    (50, 100)
    >>> basin_epochs(rows[:4]) is None
    True
    """
    mem = [int(r["epoch"]) for r in rows if phase(r["train_acc"], r["val_acc"]) == "memorising"]
    gen = [int(r["epoch"]) for r in rows if phase(r["train_acc"], r["val_acc"]) == "generalising"]
    if not mem or not gen or gen[0] < mem[-1]:
        return None
    return mem[-1], gen[0]


def exact_accuracies(task: ModularAddition, width: int, theta) -> tuple:
    """``(train, validation)`` accuracy at ``theta`` as exact fractions (validation ``None`` when empty).

    The predictor is :meth:`algebra.grokking.network.CentredLoss.evaluate`'s: ``Y_hat + offset`` with the
    offset ``mean(Y) - mean(Y_hat)`` over the training samples, a sample counted when its largest output
    (the first on a tie, as ``numpy.argmax``) is the target.  With ``theta = M / 2^s`` exactly
    (:func:`~algebra.grokking.local_rank.dyadic_point`) every output times ``n_train 2^(3s)`` is an integer,
    computed here in Python integers, so the accuracies are the same on every machine.

    Examples
    --------
    >>> from algebra.grokking.task import modular_addition
    >>> from algebra.grokking.network import CentredLoss, init_params
    >>> t = modular_addition(5, 0.6)
    >>> th = init_params(5, 3, np.random.default_rng(0))
    >>> tr, va = exact_accuracies(t, 3, th)
    >>> tr, va
    (Fraction(1, 3), Fraction(0, 1))
    >>> fit = CentredLoss(5, 3, t.a[t.train], t.b[t.train], t.c[t.train])   # the float evaluation agrees
    >>> held = CentredLoss(5, 3, t.a[t.val], t.b[t.val], t.c[t.val])
    >>> float(tr) == fit.evaluate(th)[1], float(va) == held.evaluate(th, fit.offset(th))[1]
    (True, True)
    """
    p, K = task.p, int(width)
    theta = np.asarray(theta, dtype=float).ravel()
    if theta.size != parameter_count(p, K):
        raise InputError("theta", theta.size, f"3pK = {parameter_count(p, K)} entries")
    M, s = dyadic_point(theta)
    Mo = np.array(M, dtype=object)
    W, V = Mo[: 2 * p * K].reshape(2 * p, K), Mo[2 * p * K:].reshape(p, K)

    def outputs(idx):  # Y_hat 2^(3s) on the samples idx, (n, p) Python ints
        H = W[task.a[idx]] + W[p + task.b[idx]]
        return (H * H).dot(V.T)

    tr = np.asarray(task.train)
    Yt = outputs(tr)
    n = len(tr)
    counts = np.bincount(task.c[tr], minlength=p)
    # n 2^(3s) (Y_hat + mean Y - mean Y_hat) = n Y_hat' + 2^(3s) count_j - sum_train Y_hat'_j
    shift = [int(counts[j]) << (3 * s) for j in range(p)]
    col = [sum(Yt[:, j]) for j in range(p)]

    def accuracy(idx, Y):
        if len(idx) == 0:
            return None
        hits = 0
        for i, row in zip(idx, Y):
            scores = [n * row[j] + shift[j] - col[j] for j in range(p)]
            hits += scores.index(max(scores)) == int(task.c[i])
        return Fraction(hits, len(idx))

    va = np.asarray(task.val)
    return accuracy(tr, Yt), accuracy(va, outputs(va) if len(va) else [])


@dataclass(frozen=True)
class BasinCheckpoints:
    """A checkpoints file as read: the run's configuration (a dict of ``TrainConfig`` fields), and per role of
    :data:`ROLES` its epoch and ``theta`` (binary64, bit for bit the file's)."""

    path: Path
    sha256: str
    config: dict
    epochs: dict
    thetas: dict


def _render(config: dict, epochs: dict, thetas: dict) -> bytes:
    body = {"format": FORMAT, "config": config}
    for role in ROLES:
        body[role] = {"epoch": int(epochs[role]), "theta": [short_hex(v) for v in np.asarray(thetas[role]).ravel()]}
    return (json.dumps(body, sort_keys=True, indent=1) + "\n").encode()


def write_basin_checkpoints(run, path) -> BasinCheckpoints:
    """Write ``run``'s last memorising and first generalising checkpoints (:func:`basin_epochs`) to ``path``.

    ``run`` is a :class:`~algebra.grokking.runs.Run` (or its directory).  The file is written atomically and
    returned as read back (its sha256 is what a caller of :func:`read_basin_checkpoints` records).

    Raises
    ------
    InputError
        If the run never moves from memorising to generalising (``RUN``), or ``path`` is not writable.

    Examples
    --------
    >>> import tempfile
    >>> from algebra.grokking.runs import PRESETS, train
    >>> d = Path(tempfile.mkdtemp())
    >>> run = train(d / "run", PRESETS["tiny"])
    >>> ck = write_basin_checkpoints(run, d / "ck.json")
    >>> ck.epochs, bool(np.array_equal(ck.thetas["generalising"], run.theta(ck.epochs["generalising"])))
    ({'memorising': 500, 'generalising': 625}, True)
    >>> read_basin_checkpoints(d / "ck.json", ck.sha256).epochs == ck.epochs
    True
    """
    from algebra.grokking.runs import load_run

    run = load_run(run) if not hasattr(run, "config") else run
    picked = basin_epochs(run.loss_data())
    if picked is None:
        raise InputError("RUN", str(run.path), "a run that moves from memorising (validation accuracy <= 0.5) to "
                                               "generalising (>= 0.95)")
    epochs = dict(zip(ROLES, picked))
    data = _render(asdict(run.config), epochs, {r: run.theta(e) for r, e in epochs.items()})
    write_atomic(Path(path), data)
    return read_basin_checkpoints(path, hashlib.sha256(data).hexdigest())


def _refuse(path, why: str):
    return CertificateError(f"checkpoints file {path}: {why}")


def read_basin_checkpoints(path, sha256: str) -> BasinCheckpoints:
    """Read a checkpoints file whose sha256 must be ``sha256`` (module docstring).

    Raises
    ------
    CertificateError
        Naming the file: it is missing, its sha256 is not ``sha256``, or its content is not in the canonical
        form :func:`write_basin_checkpoints` writes.

    Examples
    --------
    >>> import tempfile
    >>> f = Path(tempfile.mkdtemp()) / "ck.json"
    >>> _ = f.write_text("{}")
    >>> read_basin_checkpoints(f, "0" * 64)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    algebra.errors.CertificateError: checkpoints file .../ck.json: sha256 44136fa3... is not the recorded 00000000...
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise _refuse(path, f"cannot be read ({exc.strerror or exc})") from None
    got = hashlib.sha256(data).hexdigest()
    if got != sha256:
        raise _refuse(path, f"sha256 {got[:8]}... is not the recorded {str(sha256)[:8]}...")
    try:
        body = json.loads(data)
        from algebra.grokking.runs import TrainConfig

        names = {f.name for f in fields(TrainConfig)}
        config = body["config"]
        if set(config) != names:
            raise ValueError(f"config fields {sorted(config)}, not {sorted(names)}")
        cfg = TrainConfig(**config).validated()
        P = parameter_count(cfg.p, cfg.width)
        epochs, thetas = {}, {}
        for role in ROLES:
            entry = body[role]
            theta = np.array([float.fromhex(h) for h in entry["theta"]], dtype=float)
            if theta.size != P or not np.all(np.isfinite(theta)):
                raise ValueError(f"{role} theta has {theta.size} entries, not {P} finite ones")
            epochs[role], thetas[role] = int(entry["epoch"]), theta
        canonical = _render(config, epochs, thetas)
    except (KeyError, TypeError, ValueError, InputError) as exc:
        raise _refuse(path, f"not a checkpoints file ({exc})") from None
    if body.get("format") != FORMAT or canonical != data:
        raise _refuse(path, f"not in the canonical form of {FORMAT!r}")
    return BasinCheckpoints(path, got, config, epochs, thetas)
