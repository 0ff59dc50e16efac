"""``neuroalgebra grok ...``: grokking on modular addition (the grokking paper, seed 002).

Subcommands

``grok train``   train (or resume) a run directory; ``--preset small|tiny|paper``,
                 any hyperparameter overrides the preset.
``grok llc RUN`` per-checkpoint LLC (paper's SGLD; ``--calibrated-every`` for the
                 toolkit's calibrated estimator), Hutchinson trace, K_eff,
                 Jacobian rank (``--jacobian-every``); resumable; checkpoints as
                 Dask tasks with ``--workers N`` or ``--scheduler ADDRESS``.
``grok sweep``   a grid over ``--p --width --lr --weight-decay --train-fraction --seed``
                 (comma-separated lists), one Dask task per run (``--scheduler``,
                 ``--workers``), gathered into ``sweep.csv``; figures for the
                 varied axes (GSM vs lr, final LLC vs p or K).
``grok report``  figures and a table for run directories or sweep directories.
``grok dim``     the engine's certified dimension of the network restricted to the
                 training data beside Corollary 5.4's ``K(3p-1)``, the coefficient-space
                 secant dimension and the cap; ``--lazy`` adds Theorem 5.2 / Corollary 5.3.
                 ``grok dim RUN --epoch E [--certificate FILE]``: the certified local rank at
                 that checkpoint (training and full-data maps), ``||grad L_n||`` and the
                 lambda of Theorem F.1 where its hypotheses hold (a ``local_rank`` certificate).
``grok basin RUN --out FILE``  the run's last memorising and first generalising checkpoints as a
                 pinned data file (:mod:`algebra.grokking.checkpoints`; the catalogue's
                 basin-selection claim certifies the committed one, never re-training it).

Exit status 0 on success, 2 on bad input (the message names the argument).
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import asdict, replace
from pathlib import Path

from algebra.cli.args import (
    parse_real,
    add_certificate_option,
    add_progress_options,
    add_sweep_options,
    integer,
    integer_arg,
    nonnegative_arg,
    seed_arg,
    memory_arg,
    output_directory_arg,
    sweep_options,
)
from algebra.engine.dimension import DEFAULT_MAX_MEMORY
from algebra.errors import InputError, ResourceError

__all__ = ["register"]

# the real options: finite ASCII decimals in their ranges, never float() (which reads 'nan' and Arabic digits)
_REALS = {"train_fraction": {"low": 0, "high": 1, "low_open": True},
          "lr": {"low": 0, "low_open": True},
          "weight_decay": {"low": 0}}


def _real(name: str):
    """The parser of real option ``name`` (text -> float, :class:`InputError` naming ``--name``).

    Read where the configuration is built, not as an argparse type, so a refusal is the CLI's
    one-line message (exit 2) rather than argparse's usage text.
    """
    flag = "--" + name.replace("_", "-")

    def parse(text):
        return parse_real(text, flag, **_REALS[name])

    parse.__name__ = "real"
    return parse


_OVERRIDES = (("p", integer), ("width", integer), ("train_fraction", _real("train_fraction")), ("seed", integer),
              ("lr", _real("lr")), ("weight_decay", _real("weight_decay")), ("batch_size", integer),
              ("epochs", integer), ("checkpoint_every", integer))


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


_LIST_FIELDS = ("p", "width", "train_fraction", "seed", "lr", "weight_decay")

#: Most bytes a training run may need (the one-hot table of the p^2 sums, 3p^3 floats, and the 3pK parameters
#: with their gradient and two Adam moments), refused before the first array is built.
MAX_TRAIN_BYTES = 2 * 2**30
#: Most checkpoints of a run (--epochs / --checkpoint-every): each is a file, and their list is built up front.
MAX_CHECKPOINTS = 100_000


def _check_run_size(cfg) -> None:
    """Refuse a configuration whose arrays or checkpoints would not fit, naming the option that sets them."""
    data, params = 8 * 3 * cfg.p**3, 8 * 4 * 3 * cfg.p * cfg.width
    if data + params > MAX_TRAIN_BYTES:
        flag, value = ("--p", cfg.p) if data >= params else ("--width", cfg.width)
        raise InputError(flag, value, f"a smaller run: p={cfg.p}, K={cfg.width} needs about "
                         f"{(data + params) / 2**30:.3g} GiB, above {MAX_TRAIN_BYTES // 2**30} GiB (MAX_TRAIN_BYTES)")
    if cfg.epochs // cfg.checkpoint_every > MAX_CHECKPOINTS:
        raise InputError("--epochs", cfg.epochs, f"at most {MAX_CHECKPOINTS:,} checkpoints (--epochs / "
                         f"--checkpoint-every = {cfg.epochs // cfg.checkpoint_every:,}; MAX_CHECKPOINTS)")


def _run_directory(path, flag: str = "--out") -> Path:
    """``path`` as a directory to write in: refused when it, or a folder above it, is a file."""
    out = Path(path)
    for p in (out, *out.parents):
        if p.exists():
            if not p.is_dir():
                raise InputError(flag, str(path), f"a directory ({p} is a file)")
            break
    return out


def _config(args, skip=()):
    from algebra.grokking.runs import PRESETS

    if args.preset not in PRESETS:
        raise InputError("--preset", args.preset, "one of " + ", ".join(PRESETS))
    cfg = PRESETS[args.preset]
    over = {name: (conv(getattr(args, name)) if name in _REALS else getattr(args, name)) for name, conv in _OVERRIDES
            if name not in skip and getattr(args, name, None) is not None}
    if getattr(args, "backend", None):
        over["backend"] = args.backend
    cfg = replace(cfg, **over).validated()
    _check_run_size(cfg)
    return cfg


def _add_hyper(parser, *, lists: bool = False) -> None:
    parser.add_argument("--preset", default="small", help="small (default, about a second on a CPU), tiny, or paper (GPU/cluster)")
    for name, typ in _OVERRIDES:
        if lists and name in _LIST_FIELDS:
            parser.add_argument(_flag(name), default=None, metavar="LIST",
                                help=f"comma-separated values of {name} (default: the preset's)")
        else:
            parser.add_argument(_flag(name), type=str if name in _REALS else typ, default=None)


def _print(obj, as_json: bool, lines) -> None:
    if as_json:
        print(json.dumps(obj, indent=2, default=str))
        return
    width = max(len(k) for k, _ in lines)
    for k, v in lines:
        print(f"{k.ljust(width)}  {v}")


def _train(args) -> int:
    from algebra.grokking.runs import load_run, train

    cfg = _config(args)  # --out was checked while parsing (output_directory_arg)
    earlier = Path(args.out, "params.csv").exists() or Path(args.out, "status.json").exists()
    already = earlier and load_run(args.out, argument="--out").finished  # a junk earlier run: refused naming --out
    run = train(args.out, cfg, progress=not args.quiet)
    rows = run.loss_data()
    last = rows[-1]
    grok = next((int(r["epoch"]) for r in rows if r["val_acc"] >= 0.95), None)
    out = {"run": str(run.path), "status": "already finished (unchanged)" if already else "finished",
           "config": asdict(cfg), "final": last, "grok_epoch": grok, "seconds": run.status.get("seconds")}
    _print(out, args.json, [("run", out["run"]), ("status", out["status"]),
                            ("final train acc", f"{last['train_acc']:.3f}"), ("final val acc", f"{last['val_acc']:.3f}"),
                            ("grok epoch (val acc >= 0.95)", str(grok)),
                            ("train seconds", f"{out['seconds']:.1f}")])
    return 0


def _llc(args) -> int:
    from algebra.grokking.evaluation import evaluate_run
    from algebra.numeric.calibration import FAST, CalibrationSettings

    cal = CalibrationSettings() if args.full_calibration else FAST
    # in this process unless --workers or --scheduler ask for Dask
    scheduler = args.scheduler or ("serial" if args.workers is None else None)
    from algebra.grokking.runs import load_run

    run = load_run(args.run)  # params.csv and every checkpoint read here: a junk one is refused naming RUN
    for epoch in run.checkpoints():
        run.theta(epoch)
    rows = evaluate_run(args.run, every=args.every, calibrated_every=args.calibrated_every,
                        jacobian_every=args.jacobian_every, seed=args.seed, calibration=cal,
                        progress=not args.quiet, scheduler=scheduler, workers=args.workers)
    if args.json:
        print(json.dumps(rows, indent=2, default=str))
        return 0
    print(f"{'epoch':>7} {'val_acc':>7} {'llc_sgld':>17} {'llc_cal':>18} {'hutch':>16} {'K_eff':>5}")
    unsupported = False
    for r in rows:
        cal = r.get("llc_cal")
        cal_txt = "" if not isinstance(cal, float) or cal != cal else \
            f"{cal:.2f}+-{r['llc_cal_se']:.2f} {str(r['llc_cal_verdict'])[:1]}"
        rhat = r.get("llc_sgld_rhat")
        bad = isinstance(rhat, float) and not rhat <= 1.05  # chains disagree: the +- is no error bar
        unsupported |= bad
        print(f"{int(r['epoch']):>7} {r['val_acc']:>7.3f} {r['llc_sgld']:>9.2f}+-{r['llc_sgld_se']:<5.2f}{'!' if bad else ' '} "
              f"{cal_txt:>18} {r['hutch']:>9.2f}+-{r['hutch_se']:<5.2f} {int(r['k_eff']):>5}")
    if unsupported:
        print("! the paper's SGLD settings: split R-hat above 1.05, so that +- is not an error bar (the chains "
              "disagree); llc_cal's letter is the calibrated verdict (o = ok, s = suspect; target: the training set's "
              "own loss)")
    return 0


def _parse_list(text, typ, flag):
    if text is None:
        return None
    try:
        vals = [typ(v) for v in str(text).split(",") if v.strip()]
    except argparse.ArgumentTypeError as exc:
        raise InputError(flag, text, f"comma-separated values, each {str(exc).split('expected ', 1)[-1]}") from None
    except ValueError:
        raise InputError(flag, text, f"comma-separated {typ.__name__} values") from None
    if not vals:
        raise InputError(flag, text, "at least one value")
    return vals


def _sweep(args) -> int:
    from algebra.grokking.experiments import grid, sweep

    base = _config(args, skip=_LIST_FIELDS)
    lists = {}
    for name, typ in (("p", integer), ("width", integer), ("lr", _real("lr")), ("weight_decay", _real("weight_decay")),
                      ("train_fraction", _real("train_fraction")), ("seed", integer)):
        vals = _parse_list(getattr(args, name), typ, _flag(name))
        if vals:
            lists[name] = vals
    configs = grid(base, **lists)
    for cfg in configs:
        _check_run_size(cfg)
    rows = sweep(args.out, configs, llc=args.llc, llc_every=args.llc_every, exact=args.exact,
                 progress=not args.quiet, **sweep_options(args))
    figs = _sweep_figures(rows, Path(args.out), lists) if not args.no_figures else []
    if args.json:
        print(json.dumps({"rows": rows, "figures": [str(f) for f in figs], "table": str(Path(args.out) / "sweep.csv")},
                         indent=2, default=str))
        return 0
    _sweep_table(rows)
    for f in figs:
        print(f"figure: {f}")
    return 0


def _sweep_figures(rows, out: Path, lists) -> list:
    from algebra.grokking.figures import plot_final_llc, plot_gsm

    figs = []
    if len(lists.get("lr", [])) > 1 or len({r["lr"] for r in rows}) > 1:
        figs.append(plot_gsm(rows, out / "gsm_vs_lr.png"))
    if "llc_final" in rows[0]:
        for by in ("p", "width"):
            if len({r[by] for r in rows}) > 1:
                figs.append(plot_final_llc(rows, out / f"llc_vs_{'K' if by == 'width' else 'p'}.png", by=by))
    return figs


def _sweep_table(rows) -> None:
    cols = ["p", "width", "lr", "weight_decay", "train_fraction", "seed", "final_val_acc", "grok_epoch", "gsm"]
    cols += [c for c in ("llc_final", "llc_final_se", "exact_dimension", "paper_value") if c in rows[0]]
    print(" ".join(f"{c:>12}" for c in cols))
    for r in rows:
        print(" ".join(f"{r.get(c, '')!s:>12.12}" if not isinstance(r.get(c), float) else f"{r[c]:>12.4g}" for c in cols))


def _report(args) -> int:
    from algebra.grokking.evaluation import gsm, read_evaluation
    from algebra.grokking.figures import plot_run
    from algebra.grokking.runs import load_run

    out_dir = Path(args.out) if args.out else None  # checked while parsing (output_directory_arg)
    report = []
    for path in args.runs:
        path = Path(path)
        if (path / "sweep.csv").exists() and not (path / "params.csv").exists():
            import csv

            with open(path / "sweep.csv", newline="") as fh:
                rows = [{k: _num(v) for k, v in r.items()} for r in csv.DictReader(fh)]
            figs = _sweep_figures(rows, out_dir or path, {})
            report.append({"sweep": str(path), "runs": len(rows), "figures": [str(f) for f in figs]})
            continue
        run = load_run(path)
        loss = run.loss_data()
        ev = read_evaluation(path)
        exact = None
        if args.exact:
            from algebra.grokking.references import data_dimension

            d = data_dimension(run.config.p, run.config.width, run.config.train_fraction, run.config.seed,
                               coefficient_space=False)
            exact = d["dimension"] / 2
        target = (out_dir or path) / "grokking.png"
        if out_dir:
            target = out_dir / f"{path.name}.png"
            out_dir.mkdir(parents=True, exist_ok=True)
        fig = plot_run(loss, ev, target, title=f"{path.name}: p={run.config.p}, K={run.config.width}, "
                                                 f"lr={run.config.lr:g}, wd={run.config.weight_decay:g}",
                       exact_lambda=exact) if ev else None
        ep = [r["epoch"] for r in loss]
        entry = {"run": str(path), "epochs": int(ep[-1]), "final_train_acc": loss[-1]["train_acc"],
                 "final_val_acc": loss[-1]["val_acc"],
                 "grok_epoch": next((int(r["epoch"]) for r in loss if r["val_acc"] >= 0.95), None),
                 "gsm": gsm(ep, [r["train_acc"] for r in loss], [r["val_acc"] for r in loss]),
                 "evaluated_checkpoints": len(ev), "figure": None if fig is None else str(fig)}
        if ev:
            peak = max(ev, key=lambda r: r["llc_sgld"])
            entry.update(llc_peak=peak["llc_sgld"], llc_peak_epoch=int(peak["epoch"]), llc_final=ev[-1]["llc_sgld"],
                         llc_final_se=ev[-1]["llc_sgld_se"], hutch_final=ev[-1]["hutch"])
        if exact is not None:
            entry["exact_lambda_data"] = exact
        report.append(entry)
    if args.json:
        print(json.dumps(report, indent=2, default=str))
    else:
        for e in report:
            for k, v in e.items():
                print(f"{k:>22}  {v:.4g}" if isinstance(v, float) else f"{k:>22}  {v}")
            print()
    return 0


def _num(v):
    if v in ("", None):
        return float("nan")
    for typ in (int, float):
        try:
            return typ(v)
        except ValueError:
            pass
    return v


def _local_dim(args) -> int:
    """``grok dim RUN --epoch E``: the certified local rank at a checkpoint (:mod:`algebra.certify.local_rank`)."""
    from algebra.certify.local_rank import certify_checkpoint

    for flag in ("p", "width", "train_fraction", "seed"):
        if getattr(args, flag) is not None:
            raise InputError(_flag(flag), getattr(args, flag), "no value with RUN (the run directory fixes it)")
    if args.epoch is None:
        raise InputError("--epoch", None, "a checkpoint epoch of RUN (grok dim RUN --epoch E)")
    run = _run_directory(args.run, "RUN")  # --certificate was checked while parsing (output_file_arg)
    e = certify_checkpoint(run, args.epoch, args.certificate, self_check=not args.certificate)
    claim = e.certificate["claim"]
    out = {"run": str(args.run), "epoch": args.epoch, "claim": {k: v for k, v in claim.items() if k != "text"},
           "text": claim["text"], "certificate": args.certificate, "verdict": e.verdict}
    if args.certificate:
        from algebra.cli.args import write_certificate

        out["checker"] = write_certificate(args.certificate, lambda path: e)
    lines = []
    for m in ("train", "all"):
        x = claim["maps"][m]
        rank = str(x["lower"]) if x["lower"] == x["upper"] else f"{x['lower']}..{x['upper']} (bounds differ)"
        lines.append((f"{m} map rank ({x['samples']} pairs)",
                      rank + ("  locally constant" if x["locally_constant"] else "")))
    lines += [("||grad L_n|| <=", claim["gradient_norm_at_most"]),
              ("L_n <=", claim["train_loss_at_most"] + ("  (exactly 0: a global minimiser)" if claim["minimiser"] else "")),
              ("lambda (Thm F.1)", f"{claim['lambda']}, m = {claim['multiplicity']}" if claim["lambda"] is not None
               else ("bounds " + ", ".join(claim["lambda_bounds"]) if claim["lambda_bounds"] else "none")
               + ("; hypothesis fails: " + "; ".join(claim["hypothesis_fails"]) if claim["hypothesis_fails"] else ""))]
    if args.certificate:
        c = out["checker"]
        lines.append(("certificate", f"{c['path']} (independent checker: {'VERIFIED' if c['verified'] else 'REJECTED'})"))
    _print(out, args.json, lines)
    return 0


def _basin(args) -> int:
    """``grok basin RUN --out FILE``: write the basin checkpoints file (:func:`write_basin_checkpoints`)."""
    from algebra.grokking.checkpoints import write_basin_checkpoints

    run = _run_directory(args.run, "RUN")
    _run_directory(Path(args.out).parent, "--out")
    ck = write_basin_checkpoints(run, args.out)
    out = {"run": str(args.run), "file": str(args.out), "sha256": ck.sha256, "epochs": ck.epochs}
    _print(out, args.json, [("file", out["file"]), ("sha256", ck.sha256)]
           + [(f"{role} epoch", str(e)) for role, e in ck.epochs.items()])
    return 0


def _dim(args) -> int:
    from algebra.grokking.references import data_dimension, lazy_reference
    from algebra.grokking.task import check_fraction, check_prime

    if args.run is not None:
        return _local_dim(args)
    for flag in ("epoch", "certificate"):
        if getattr(args, flag) is not None:
            raise InputError(_flag(flag), getattr(args, flag), "a value only with RUN (grok dim RUN --epoch E)")
    for flag in ("p", "width"):
        if getattr(args, flag) is None:
            raise InputError(_flag(flag), None, "a value (or a run directory: grok dim RUN --epoch E)")
    args.train_fraction = 1.0 if args.train_fraction is None else _real("train_fraction")(args.train_fraction)
    args.seed = 0 if args.seed is None else args.seed
    check_prime(args.p)
    check_fraction(args.train_fraction)
    if args.width < 1:
        raise InputError("--width", args.width, "a positive integer")
    # the data features: ceil(f p^2) training sums x (2p + p^2) int64 columns, refused above --max-memory
    need = 8 * math.ceil(args.train_fraction * args.p**2) * (2 * args.p + args.p**2)
    if args.max_memory is not None and need > args.max_memory:
        raise InputError("--p", args.p, f"a smaller modulus: the {args.p}^2-pair feature table needs about "
                         f"{need / 2**30:.3g} GiB, above --max-memory = {args.max_memory / 2**30:.3g} GiB")
    try:
        out = data_dimension(args.p, args.width, args.train_fraction, args.seed,
                             coefficient_space=not args.no_coefficient_space, max_memory=args.max_memory)
    except ResourceError as exc:  # the engine's refusal names no option: the model's size is --p and --width
        raise InputError("--p/--width", f"{args.p}/{args.width}", f"a smaller model ({exc})") from None
    if args.lazy:
        out["lazy"] = lazy_reference(args.p, args.width, args.train_fraction, args.seed)
    lines = [("n_train", str(out["n_train"])),
             ("data dimension", f"{out['dimension']} (bounds [{out['lower_bound']}, {out['upper_bound']}], "
                                f"{'certified' if out['certified'] else 'NOT certified'}; upper: {out['upper_bound_reason']})"),
             ("lambda_data", out["lambda_data"]),
             ("Cor 5.4 K(3p-1)", f"{out['paper_value']}  ({out['paper_hypothesis']})"),
             ("coefficient space", f"{out['coefficient_space']}  (Cor 4.2 count, Cor 5.4's hypothesis: {out['verdict_coefficient_space']})"),
             ("Cor 5.4 on these data", f"{out['verdict']}: {out['verdict_reason']}"),
             ("engine", f"{out['engine']['seconds']} s, predicted peak {out['engine']['predicted_peak_bytes'] / 2**30:.2f} GiB"
                        + (f", rank of a {out['engine']['sketch']['rows']}-row sketch of {out['engine']['sketch']['jacobian_rows']} "
                           "rows" if out["engine"]["sketch"] else "")),
             ("symmetry bound K(3p-2)", str(out["symmetry_bound"])),
             ("cap p*rank(Phi P_perp)", str(out["cap"]))]
    if args.lazy:
        lz = out["lazy"]
        lines += [("lazy l / rank sigma(XW)", f"{lz['l']} / {lz['rank_features']}"),
                  ("Thm 5.2 lambda", f"{lz['lambda_lazy']}; Cor 5.3 bounds {lz['corollary_5_3_bounds']}: "
                                     f"{lz['verdict_corollary_5_3']}")]
    _print(out, args.json, lines)
    return 0


def register(subparsers) -> None:
    """Add ``grok`` with its subcommands to the top-level parser."""
    grok = subparsers.add_parser("grok", help="grokking on modular addition: train, LLC, sweeps, exact references")
    sub = grok.add_subparsers(dest="grok_command", metavar="SUBCOMMAND", parser_class=type(grok))
    grok.set_defaults(handler=lambda args: (grok.print_help(), 2)[1])

    t = sub.add_parser("train", help="train or resume a run directory")
    _add_hyper(t)
    t.add_argument("--backend", choices=("numpy", "torch"), default=None)
    t.add_argument("--out", required=True, type=output_directory_arg("--out"), help="run directory")
    add_progress_options(t, legacy=("--progress",))
    t.add_argument("--json", action="store_true")
    t.set_defaults(handler=_train)

    ll = sub.add_parser("llc", help="per-checkpoint LLC, Hutchinson trace, K_eff, Jacobian rank")
    ll.add_argument("run")
    ll.add_argument("--every", type=integer_arg("--every"), default=1, help="stride over checkpoints (default 1)")
    ll.add_argument("--calibrated-every", type=integer_arg("--calibrated-every"), default=0, help="calibrated estimator every N evaluated checkpoints")
    ll.add_argument("--jacobian-every", type=integer_arg("--jacobian-every"), default=0, help="Jacobian rank + exact K_eff dimension every N")
    ll.add_argument("--full-calibration", action="store_true", help="the calibration's full chain lengths (slow)")
    ll.add_argument("--seed", type=seed_arg(), default=0)
    add_progress_options(ll, legacy=("--progress",))
    ll.add_argument("--json", action="store_true")
    add_sweep_options(ll)
    ll.set_defaults(handler=_llc)

    s = sub.add_parser("sweep", help="grid of runs as Dask tasks, gathered into sweep.csv")
    _add_hyper(s, lists=True)
    s.add_argument("--out", required=True, type=output_directory_arg("--out"), help="sweep directory")
    s.add_argument("--llc", choices=("none", "final", "trajectory"), default="none")
    s.add_argument("--llc-every", type=integer_arg("--llc-every"), default=4)
    s.add_argument("--exact", action="store_true", help="add the certified data dimension per run")
    s.add_argument("--no-figures", action="store_true")
    add_progress_options(s, legacy=("--progress",))
    s.add_argument("--json", action="store_true")
    add_sweep_options(s)
    s.set_defaults(handler=_sweep)

    r = sub.add_parser("report", help="figures and a table for runs or sweeps")
    r.add_argument("runs", nargs="+", metavar="RUN")
    r.add_argument("--out", default=None, type=output_directory_arg("--out"), help="directory for the figures (default: each run's directory)")
    r.add_argument("--exact", action="store_true", help="draw the certified data lambda")
    r.add_argument("--json", action="store_true")
    r.set_defaults(handler=_report)

    d = sub.add_parser("dim", help="certified dimension of the network on the training data (generic, or with RUN "
                                   "--epoch E the local rank at that checkpoint)")
    d.add_argument("run", nargs="?", default=None, metavar="RUN",
                   help="a run directory: certify the local rank at its checkpoint --epoch (instead of --p/--width)")
    d.add_argument("--epoch", type=nonnegative_arg("--epoch"), default=None, help="the checkpoint of RUN")
    add_certificate_option(d)
    d.add_argument("--p", type=integer_arg("--p"), default=None)
    d.add_argument("--width", type=integer_arg("--width"), default=None)
    d.add_argument("--train-fraction", default=None)  # read by _real("train_fraction") where it is used
    d.add_argument("--seed", type=seed_arg(), default=None)
    d.add_argument("--lazy", action="store_true", help="add Theorem 5.2 / Corollary 5.3")
    d.add_argument("--no-coefficient-space", action="store_true")
    d.add_argument("--max-memory", type=memory_arg("--max-memory"), default=DEFAULT_MAX_MEMORY, metavar="BYTES",
                   help="refuse above this predicted peak memory (suffixes K, M, G; default 16G)")
    d.add_argument("--json", action="store_true")
    d.set_defaults(handler=_dim)

    b = sub.add_parser("basin", help="write RUN's last memorising and first generalising checkpoints as a pinned "
                                     "data file (what the catalogue's basin-selection claim certifies)")
    b.add_argument("run", metavar="RUN")
    b.add_argument("--out", required=True, help="the checkpoints file (JSON, one weight in float.hex a line)")
    b.add_argument("--json", action="store_true")
    b.set_defaults(handler=_basin)
