"""Training runs as directories: ``params.csv``, ``loss_data.csv`` and checkpoints (App. H.1).

A run directory holds

``params.csv``
    one ``name,value`` row per hyperparameter, seed and dataset fact (the
    paper's repository keeps "a list of all model hyperparameters, seeds,
    dataset information" there);
``loss_data.csv``
    one row per checkpoint: ``epoch, train_loss, val_loss, train_acc,
    val_acc, llc_mean, llc_se`` (the LLC columns stay empty until
    ``grok llc`` fills them, see :mod:`algebra.grokking.evaluation`);
``checkpoints/epoch_NNNNNNN.npz``
    the parameters ``theta`` at that epoch;
``optimizer.npz``
    the optimiser state at the latest checkpoint (only the latest one is
    needed to resume, so it is not copied into every checkpoint);
``status.json``
    ``running`` or ``finished``, with the last epoch and the wall time.

``grok llc`` later adds ``evaluation.csv`` (one row per evaluated checkpoint) and
``evaluation_tasks.jsonl`` (its resumable task table), see :mod:`algebra.grokking.evaluation`.

Determinism and resumption.  All randomness comes from one seed: the
split is :func:`~algebra.grokking.task.modular_addition` of the seed, the
initialisation is ``SeedSequence(seed, spawn_key=(0,))`` and the shuffle of
epoch ``e`` is ``SeedSequence(seed, spawn_key=(1, e))``.  No random state
is carried from epoch to epoch, so a run resumed from its last checkpoint
is bit-identical to an uninterrupted one.  Files are written to a temporary
name and renamed (atomic on POSIX), the checkpoint before the optimiser
state, so a kill at any moment leaves a resumable directory.  A finished
run is never trained again or overwritten.

Where the paper is silent (App. H.1 gives p, K, lr, wd, batch, f, epochs,
checkpoints, seed), we choose what its PyTorch code does by default and say
so: Adam (``betas=(0.9, 0.999), eps=1e-8``) with the weight decay of the
paper's objective ``J(W, V)`` (Section 5, "Setup") added to the gradient as
``torch.optim.Adam(weight_decay=wd)`` does; minibatches reshuffled every
epoch, the last one kept even if smaller; the batch loss is the centred
squared error averaged over the batch (the residual centred within the
batch); ``nn.Linear`` default initialisation.
"""

from __future__ import annotations

import csv
import io
import json
import math
import time
import zipfile
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

import numpy as np

from algebra.errors import InputError
from algebra.files import write_atomic, write_atomic_with
from algebra.grokking.network import CentredLoss, init_params
from algebra.grokking.task import ModularAddition, check_fraction, check_prime, modular_addition
from algebra.models.base import positive_int

__all__ = ["TrainConfig", "PRESETS", "Run", "train", "load_run", "checkpoint_key", "task_losses", "LOSS_COLUMNS",
           "BACKENDS", "OPTIMIZERS"]

LOSS_COLUMNS = ("epoch", "train_loss", "val_loss", "train_acc", "val_acc", "llc_mean", "llc_se")
BACKENDS = ("numpy", "torch")
OPTIMIZERS = ("adam", "sgd")
ADAM_BETAS = (0.9, 0.999)
ADAM_EPS = 1e-8


@dataclass(frozen=True)
class TrainConfig:
    """Everything that determines a run (written to ``params.csv``).

    The defaults are the scaled-down ``PRESETS["small"]``; ``PRESETS["paper"]``
    is the paper's baseline (Appendix H.1).  The fields are checked by
    :meth:`validated` (which :func:`train` calls), each error naming the CLI
    option of ``neuroalgebra grok train``.

    Parameters
    ----------
    p : int
        The prime modulus of the task ``a + b mod p`` (Section 3.1); the
        network has input dimension ``d = 2p`` and ``p`` outputs (eq. (1)).
    width : int
        The hidden width ``K`` (``W in R^{d x K}``, ``V in R^{p x K}``, eq. (1)).
    train_fraction : float
        The fraction of the ``p^2`` triples in the training split, in ``(0, 1]``
        (the paper's baseline: 0.4).
    seed : int
        The one seed of the run (``>= 0``): the split, the initialisation
        ``SeedSequence(seed, spawn_key=(0,))`` and each epoch's shuffle
        ``SeedSequence(seed, spawn_key=(1, epoch))``.
    lr : float
        The learning rate (finite, ``> 0``).
    weight_decay : float
        ``eta`` of the objective ``J(W, V)`` (Section 5, "Setup"), added to the
        gradient (coupled L2, as ``torch.optim.Adam(weight_decay=...)``); finite, ``>= 0``.
    batch_size : int
        Minibatch size (``>= 2``: the centred loss of one sample is identically zero).
    epochs : int
        Training epochs (``>= 1``).
    checkpoint_every : int
        Epochs between checkpoints (``>= 1``); epoch 0 and the last epoch are
        always checkpoints (:meth:`checkpoint_epochs`).
    optimizer : {"adam", "sgd"}
        Adam (``betas=(0.9, 0.999), eps=1e-8``, the PyTorch default the paper's
        code uses) or plain gradient descent.
    backend : {"numpy", "torch"}
        Who computes the minibatch gradients (the same update either way;
        ``torch`` needs the ``torch`` extra).

    Examples
    --------
    >>> TrainConfig(epochs=60, checkpoint_every=25).checkpoint_epochs()
    [0, 25, 50, 60]
    >>> paper = PRESETS["paper"]
    >>> paper.p, paper.width, paper.train_fraction, paper.weight_decay, paper.epochs, paper.checkpoint_every
    (53, 1024, 0.4, 1e-05, 100000, 100)
    >>> TrainConfig(p=9).validated()
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --p=9: expected a prime below 4096 (MAX_P)
    >>> TrainConfig(width=0).validated()
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --width=0: expected an integer >= 1

    References
    ----------
    .. [1] Cullen, Estan-Ruiz, Danait, Li, "A Basin-Selection Perspective on Grokking via Singular Learning
       Theory" (the grokking paper, ``grokking-basin-selection-llc``): Section 3.1 (the task), Section 3.2
       eq. (1) (the network), Section 5 "Setup" (the objective ``J(W, V)``), Appendix H.1 (the baseline
       hyperparameters and the ``params.csv`` / ``loss_data.csv`` layout).
    """

    p: int = 17
    width: int = 32
    train_fraction: float = 0.5
    seed: int = 0
    lr: float = 1e-2
    weight_decay: float = 1e-3
    batch_size: int = 128
    epochs: int = 1500
    checkpoint_every: int = 25
    optimizer: str = "adam"
    backend: str = "numpy"

    def validated(self) -> "TrainConfig":
        """A copy with every field checked (InputError naming the CLI argument)."""
        check_prime(self.p)
        positive_int("--width", self.width)
        check_fraction(self.train_fraction)
        positive_int("--seed", self.seed, minimum=0)
        for name, v in (("--lr", self.lr), ("--weight-decay", self.weight_decay)):
            if not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0 or (name == "--lr" and v == 0):
                raise InputError(name, v, "a finite number > 0" if name == "--lr" else "a finite number >= 0")
        positive_int("--batch-size", self.batch_size, minimum=2)
        positive_int("--epochs", self.epochs)
        positive_int("--checkpoint-every", self.checkpoint_every)
        if self.optimizer not in OPTIMIZERS:
            raise InputError("--optimizer", self.optimizer, "one of " + ", ".join(OPTIMIZERS))
        if self.backend not in BACKENDS:
            raise InputError("--backend", self.backend, "one of " + ", ".join(BACKENDS))
        return replace(self, lr=float(self.lr), weight_decay=float(self.weight_decay),
                       train_fraction=float(self.train_fraction))

    def checkpoint_epochs(self) -> list:
        """Epochs with a checkpoint: 0, every ``checkpoint_every``, and the last."""
        out = list(range(0, self.epochs + 1, self.checkpoint_every))
        if out[-1] != self.epochs:
            out.append(self.epochs)
        return out


#: The paper's baseline (App. H.1; for a GPU or a cluster) and the scaled-down default.
PRESETS = {
    "paper": TrainConfig(p=53, width=1024, train_fraction=0.4, seed=0, lr=1e-4, weight_decay=1e-5,
                         batch_size=128, epochs=100_000, checkpoint_every=100),
    # groks in ~500 epochs (~3 s of training on one core), and its exact references fit the
    # engine (measured: BENCHMARKS.md "Grokking")
    "small": TrainConfig(),
    # the fastest setting that still groks (~650 epochs, <1 s), for tests and notebooks
    "tiny": TrainConfig(p=13, width=32, train_fraction=0.6, lr=1e-2, weight_decay=1e-3,
                        batch_size=128, epochs=800, checkpoint_every=25),
}


def _config_rows(cfg: TrainConfig, task: ModularAddition) -> list:
    rows = [(f.name, getattr(cfg, f.name)) for f in fields(cfg)]
    rows += [("n_train", task.n_train), ("n_val", task.n_val), ("dataset", "modular addition a+b mod p"),
             ("split_stream", f"SeedSequence({cfg.seed})"), ("init_stream", f"SeedSequence({cfg.seed}, spawn_key=(0,))"),
             ("shuffle_stream", f"SeedSequence({cfg.seed}, spawn_key=(1, epoch))"),
             ("loss", "1/(2B) ||(Y - Y_hat) P_perp||_F^2 per batch + wd/2 ||theta||^2 (coupled L2)"),
             ("init", "torch nn.Linear default U(-1/sqrt(fan_in), 1/sqrt(fan_in))")]
    return rows


def _read_params(path: Path) -> dict:
    with open(path, newline="") as fh:
        return {r[0]: r[1] for r in csv.reader(fh) if r and r[0] != "name"}


def _config_from_params(params: dict) -> TrainConfig:
    kw = {}
    for f in fields(TrainConfig):
        raw = params[f.name]
        kw[f.name] = type(getattr(TrainConfig(), f.name))(raw)
    return TrainConfig(**kw)


def _save_npz(path: Path, **arrays) -> None:
    write_atomic_with(path, lambda fh: np.savez(fh, **arrays))


def _write_csv(path: Path, header, rows) -> None:
    def write(fh):
        text = io.TextIOWrapper(fh, newline="", encoding="utf-8")
        w = csv.writer(text)
        w.writerow(header)
        w.writerows(rows)
        text.flush()
        text.detach()

    write_atomic_with(path, write)


def _read_status(path: Path) -> dict:
    """The run's status, ``{}`` when absent or unreadable (a file written in place by an older version and cut
    by a kill): the checkpoints, not the status, say where a resume starts."""
    try:
        status = json.loads((path / "status.json").read_text())
    except (OSError, ValueError):
        return {}
    return status if isinstance(status, dict) else {}


def _write_status(path: Path, status: dict) -> None:
    """``status.json``, which resume and ``grok report`` read: atomic, like every file a resume reads."""
    write_atomic(path / "status.json", json.dumps(status).encode())


def read_loss_data(path: Path) -> list:
    """Rows of ``loss_data.csv`` as dicts of floats (NaN for empty cells)."""
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    return [{k: (float(v) if v not in ("", None) else float("nan")) for k, v in r.items()} for r in rows]


@dataclass
class Run:
    """A run directory (see the module docstring)."""

    path: Path
    config: TrainConfig
    status: dict
    argument: str = "RUN"  # the option or positional that named the directory (refusals name it)

    @property
    def finished(self) -> bool:
        return self.status.get("status") == "finished"

    def task(self) -> ModularAddition:
        return modular_addition(self.config.p, self.config.train_fraction, self.config.seed)

    def checkpoints(self) -> list:
        """Epochs that have a checkpoint file, sorted."""
        return sorted(int(f.stem.split("_")[1]) for f in (self.path / "checkpoints").glob("epoch_*.npz"))

    def theta(self, epoch: int) -> np.ndarray:
        f = self.path / "checkpoints" / f"epoch_{epoch:07d}.npz"
        if not f.exists():
            raise InputError("epoch", epoch, f"an epoch with a checkpoint in {self.path}")
        allowed = f"a run directory whose checkpoints hold a 1-D finite float array 'theta' (made by `grok train`)"
        try:
            with np.load(f, allow_pickle=False) as z:
                theta = z["theta"]
                if theta.ndim != 1 or theta.dtype.kind != "f":
                    raise ValueError("not a 1-D float array")
                theta = theta.copy()
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
            raise InputError(self.argument, str(self.path), f"{allowed}; {f.name}: {exc}"[:400]) from None
        if not np.isfinite(theta).all():
            raise InputError(self.argument, str(self.path), f"{allowed}; {f.name} has non-finite entries")
        return theta

    def loss_data(self) -> list:
        return read_loss_data(self.path / "loss_data.csv")


def checkpoint_key(row) -> str:
    """The key of one checkpoint of one run in a resumable table: its ``_key`` if it has one, else
    ``RUN_DIRECTORY_NAME|EPOCH`` from its ``run`` (path) and ``epoch`` (``benchmarks/grok_basin.py``'s tables, and
    the rows :func:`algebra.sweep.run_sweep` returns without their keys).

    Examples
    --------
    >>> checkpoint_key({"run": "/tmp/runs/p13_s0", "epoch": 25}), checkpoint_key({"_key": "k", "run": "x", "epoch": 0})
    ('p13_s0|25', 'k')
    """
    return row["_key"] if "_key" in row else f"{Path(row['run']).name}|{row['epoch']}"


def load_run(path, *, argument: str = "RUN") -> Run:
    """Open an existing run directory.

    Parameters
    ----------
    path : str or Path
        The run directory.
    argument : str
        The option or positional that named it (``RUN``, ``--out``): every refusal names it.

    Raises
    ------
    InputError
        If ``path`` is not a run directory (no ``params.csv``), or its ``params.csv`` is not one ``grok train``
        writes (unreadable, a field missing or out of range).

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> run = train(d / "r", TrainConfig(p=3, width=2, train_fraction=1.0, epochs=2, checkpoint_every=1))
    >>> load_run(d / "r").config == run.config, load_run(d / "r").finished
    (True, True)
    >>> load_run(d)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid RUN='...': expected a run directory containing params.csv (made by `grok train`)
    >>> _ = (d / "r" / "params.csv").write_text("name,value\\nwidth,2\\n")
    >>> load_run(d / "r")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid RUN='.../r': expected a run directory whose params.csv ... (no field 'p')
    """
    path = Path(path)
    if not (path / "params.csv").exists():
        raise InputError(argument, str(path), "a run directory containing params.csv (made by `grok train`)")
    allowed = "a run directory whose params.csv is one `grok train` writes"
    try:
        params = _read_params(path / "params.csv")
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise InputError(argument, str(path), f"{allowed} (unreadable: {exc})"[:400]) from None
    missing = next((f.name for f in fields(TrainConfig) if f.name not in params), None)
    if missing is not None:
        raise InputError(argument, str(path), f"{allowed} (no field {missing!r})")
    try:
        cfg = _config_from_params(params).validated()
    except (ValueError, TypeError, OverflowError) as exc:
        raise InputError(argument, str(path), f"{allowed} ({exc})"[:400]) from None
    except InputError as exc:
        raise InputError(argument, str(path), f"{allowed} ({exc.argument}={exc.value!r}: {exc.allowed})") from None
    status = _read_status(path)
    return Run(path, cfg, status, argument)


def task_losses(task: ModularAddition, width: int):
    """``(train, val)`` :class:`CentredLoss` objects of a task (``val`` None when empty)."""
    p = task.p
    tr = CentredLoss(p, width, task.a[task.train], task.b[task.train], task.c[task.train])
    va = None
    if task.n_val >= 2:
        va = CentredLoss(p, width, task.a[task.val], task.b[task.val], task.c[task.val])
    return tr, va


def _metrics(theta, tr: CentredLoss, va: CentredLoss | None) -> tuple:
    off = tr.offset(theta)
    tl, ta = tr.evaluate(theta, off)
    vl, vacc = va.evaluate(theta, off) if va is not None else (float("nan"), float("nan"))
    return tl, vl, ta, vacc


def _torch_grad_fn(tr: CentredLoss):
    """Gradient of the batch loss through torch autograd (float64), same formula."""
    import torch

    a = torch.as_tensor(tr.a)
    b = torch.as_tensor(tr.b)
    Y = torch.as_tensor(tr.Y)
    p, K = tr.p, tr.K

    def grad(theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        th = torch.tensor(theta, dtype=torch.float64, requires_grad=True)
        W = th[: 2 * p * K].reshape(2 * p, K)
        V = th[2 * p * K:].reshape(p, K)
        i = torch.as_tensor(idx)
        H = W[a[i]] + W[p + b[i]]
        E = Y[i] - (H * H) @ V.T
        R = E - E.mean(dim=0, keepdim=True)
        loss = 0.5 * (R * R).sum() / len(idx)
        loss.backward()
        return th.grad.numpy().copy()

    return grad


def train(path, config: TrainConfig | None = None, *, progress: bool = False) -> Run:
    """Train (or resume, or return unchanged) the run in directory ``path``.

    Parameters
    ----------
    path : path-like
        The run directory; created if absent.  If it holds a finished run
        with the same configuration, that run is returned untouched; if it
        holds an unfinished one, training resumes from its last complete
        checkpoint; a different configuration is refused.
    config : TrainConfig, optional
        Defaults to ``PRESETS["small"]``.
    progress : bool
        Show a tqdm bar over epochs (on stderr, with an ETA).

    Returns
    -------
    Run
        The finished run in ``path``: its ``config`` (validated), ``status``
        (``finished``, the last epoch and the training seconds), and readers of
        its files (:meth:`Run.checkpoints`, :meth:`Run.theta`, :meth:`Run.loss_data`:
        train/validation loss and accuracy at each checkpoint, the LLC columns
        empty until ``grok llc`` fills them).

    Raises
    ------
    InputError
        For an invalid configuration (naming the CLI option, see
        :meth:`TrainConfig.validated`), a directory holding another run or
        unrelated files (``--out``), or ``backend="torch"`` without torch
        installed.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp()) / "run"
    >>> cfg = TrainConfig(p=5, width=4, train_fraction=0.8, epochs=6, checkpoint_every=3)
    >>> run = train(d, cfg)
    >>> run.finished, run.checkpoints(), sorted(p.name for p in d.iterdir())
    (True, [0, 3, 6], ['checkpoints', 'loss_data.csv', 'optimizer.npz', 'params.csv', 'status.json'])
    >>> [int(r["epoch"]) for r in run.loss_data()], run.theta(6).shape   # P = K (d + p) = 4 * 15
    ([0, 3, 6], (60,))
    >>> np.array_equal(train(d, cfg).theta(6), run.theta(6))   # a finished run is returned unchanged
    True
    >>> train(d, replace(cfg, lr=0.5))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid --out='.../run': expected an empty directory or a run with the same parameters (lr: 0.01 there, 0.5 here)

    References
    ----------
    .. [1] Cullen, Estan-Ruiz, Danait, Li, "A Basin-Selection Perspective on Grokking via Singular Learning
       Theory" (the grokking paper): Section 3.2 eq. (1) (the network ``V sigma(W^T X)``, ``sigma(t) = t^2``,
       ``d = 2p``) and its centred loss with ``P_1^perp``; Section 5 "Setup" (the objective
       ``J(W, V) = 1/2 ||P_1^perp (Y - F V)||_F^2 + eta/2 (||W||_F^2 + ||V||_F^2)`` trained here); Appendix H.1
       (the run directory's ``params.csv`` and ``loss_data.csv``, the baseline ``PRESETS["paper"]``).
    """
    cfg = (config or PRESETS["small"]).validated()
    path = Path(path)
    grad_fn = None
    if cfg.backend == "torch":
        try:
            import torch  # noqa: F401
        except ImportError:
            raise InputError("--backend", "torch", "numpy (torch is not installed)") from None
    task = modular_addition(cfg.p, cfg.train_fraction, cfg.seed)
    tr, va = task_losses(task, cfg.width)
    if cfg.backend == "torch":
        grad_fn = _torch_grad_fn(tr)
    ckpt_dir = path / "checkpoints"
    if (path / "params.csv").exists():
        old = load_run(path)
        if old.config != cfg:
            diff = [f"{f.name}: {getattr(old.config, f.name)} there, {getattr(cfg, f.name)} here"
                    for f in fields(cfg) if getattr(old.config, f.name) != getattr(cfg, f.name)]
            raise InputError("--out", str(path), "an empty directory or a run with the same parameters (" + "; ".join(diff) + ")")
        if old.finished:
            return old
    elif path.exists() and any(path.iterdir()):
        raise InputError("--out", str(path), "an empty or new directory (it holds files but no params.csv)")
    ckpt_dir.mkdir(parents=True, exist_ok=True)
    if not (path / "params.csv").exists():
        _write_csv(path / "params.csv", ("name", "value"), _config_rows(cfg, task))

    # resume point: the optimiser state names the last complete checkpoint
    start, theta, m, v, step, rows = 0, None, None, None, 0, []
    opt_file = path / "optimizer.npz"
    if opt_file.exists():
        with np.load(opt_file) as z:
            start, m, v, step = int(z["epoch"]), z["m"].copy(), z["v"].copy(), int(z["step"])
        theta = Run(path, cfg, {}).theta(start)
        rows = [r for r in read_loss_data(path / "loss_data.csv") if r["epoch"] <= start]
        rows = [[int(r["epoch"])] + [r[c] for c in LOSS_COLUMNS[1:]] for r in rows]
    else:
        theta = init_params(cfg.p, cfg.width, np.random.default_rng(np.random.SeedSequence(cfg.seed, spawn_key=(0,))))
        m, v = np.zeros_like(theta), np.zeros_like(theta)
    t0 = time.perf_counter()
    elapsed0 = 0.0
    if (path / "status.json").exists():
        elapsed0 = float(_read_status(path).get("seconds", 0.0))

    def checkpoint(epoch):
        _save_npz(ckpt_dir / f"epoch_{epoch:07d}.npz", theta=theta)
        tl, vl, ta, vacc = _metrics(theta, tr, va)
        rows.append([epoch, tl, vl, ta, vacc, "", ""])
        _write_csv(path / "loss_data.csv", LOSS_COLUMNS, [["" if (isinstance(x, float) and math.isnan(x)) else x
                                                            for x in r] for r in rows])
        _save_npz(opt_file, epoch=epoch, m=m, v=v, step=step)
        _write_status(path, {"status": "running", "epoch": epoch, "seconds": elapsed0 + time.perf_counter() - t0})

    if start == 0 and not rows:
        checkpoint(0)
    marks = set(cfg.checkpoint_epochs())
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=cfg.epochs, initial=start, desc=f"train p={cfg.p} K={cfg.width}", unit="epoch")
    b1, b2 = ADAM_BETAS
    for epoch in range(start + 1, cfg.epochs + 1):
        order = np.random.default_rng(np.random.SeedSequence(cfg.seed, spawn_key=(1, epoch))).permutation(tr.n)
        for s in range(0, tr.n, cfg.batch_size):
            idx = order[s:s + cfg.batch_size]
            if idx.size < 2:  # a centred loss on one sample is identically zero
                continue
            if grad_fn is None:
                g = tr.loss_and_grad(theta[None], idx[None])[1][0]
            else:
                g = grad_fn(theta, idx)
            g = g + cfg.weight_decay * theta
            step += 1
            if cfg.optimizer == "adam":
                m = b1 * m + (1 - b1) * g
                v = b2 * v + (1 - b2) * g * g
                theta = theta - cfg.lr * (m / (1 - b1**step)) / (np.sqrt(v / (1 - b2**step)) + ADAM_EPS)
            else:
                theta = theta - cfg.lr * g
        if epoch in marks:
            checkpoint(epoch)
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    status = {"status": "finished", "epoch": cfg.epochs, "seconds": elapsed0 + time.perf_counter() - t0}
    _write_status(path, status)
    return Run(path, cfg, status)


def config_dict(cfg: TrainConfig) -> dict:
    """The configuration as a plain dict (for tables and JSON)."""
    return asdict(cfg)
