"""``neuroalgebra attention-rank ...`` subcommands (argument parsing only).

* ``attention-rank heads``   -- float64 diagnostics on all-MiniLM-L6-v2 heads;
  ``--emit DIR`` writes their checked ``attention_rank`` certificates instead
* ``attention-rank matrix FILE.npz`` -- a checked certificate for a user's own ``Q``, ``K``
* ``attention-rank slopes``  -- temperature-exponent table of the synthetic constructions
* ``attention-rank train``   -- lightning vs softmax training (Figure 5 reproduction)
* ``attention-rank synthetic-certs DIR`` -- checked certificates of the constructions
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np

from algebra.checker import ATTENTION_MAX_ENTRIES as MAX_ENTRIES
from algebra.checker import ATTENTION_MAX_PRODUCT as MAX_PRODUCT
from algebra.checker import ATTENTION_MAX_SIDE as MAX_SIDE
from algebra.cli._llc import flag_names
from algebra.cli.args import add_progress_options, integer_arg, seed_arg, output_directory_arg, output_file_arg, parse_integers, plot_file_arg, parse_real, positive_arg, real_arg
from algebra.errors import InputError

__all__ = ["register"]


def _floats(text: str, argument: str, *, lo=None, hi=None) -> tuple[float, ...]:
    """``"0.5,1"`` -> ``(0.5, 1.0)``: :func:`~algebra.cli.args.parse_real` numbers in ``(lo, hi)``, by commas."""
    try:
        return tuple(parse_real(t, argument, low=lo, high=hi, low_open=True, high_open=True)
                     for t in str(text).split(","))
    except InputError:
        bounds = f" in ({lo:g}, {hi:g})" if hi is not None else f" > {lo:g}"
        raise InputError(argument, text, f"numbers{bounds} separated by commas") from None


def _ints(text: str | None, argument: str):
    return None if text is None else list(parse_integers(text, argument))


def _json_default(o):
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(type(o).__name__)


def _dump(obj) -> str:
    """JSON text; non-finite floats (e.g. an unbounded log S_r) become null."""
    return json.dumps(_sanitize(obj), default=_json_default, allow_nan=False)


def _sanitize(obj):
    if isinstance(obj, dict):
        return {k: _sanitize(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_sanitize(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _sanitize(obj.tolist())
    if isinstance(obj, (float, np.floating)):
        return float(obj) if math.isfinite(obj) else None
    if isinstance(obj, np.integer):
        return int(obj)
    return obj


# --------------------------------------------------------------------------
def _cmd_heads(args) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.length is not None and not 3 <= args.length <= 512:
        raise InputError("--length", args.length, "an integer in [3, 512]")
    layers, heads = _ints(args.layers, "--layers"), _ints(args.heads, "--heads")
    if args.emit:
        return _emit_heads(args, layers, heads)
    from algebra.attention_rank.heads import head_table

    mults = _floats(args.multipliers, "--multipliers", lo=0)
    epss = _floats(args.eps, "--eps", lo=0, hi=1)
    with flag_names({"multipliers": "--multipliers", "eps_list": "--eps", "layers": "--layers", "heads": "--heads",
                     "length": "--length"}):
        table = head_table(args.length or 128, multipliers=mults, eps_list=epss, layers=layers, heads=heads,
                           progress=not args.quiet)
    if args.plot:
        _plot_heads(table, args.plot)
    if args.json:
        print(_dump(table))
        return 0
    print(f"{table['model']}: {len(table['heads'])} heads, {table['length']} tokens "
          "(float64 estimates, not certified; certificates: --emit DIR)")
    print(f"{'mult':>5} {'eps':>5} {'med r_int':>9} {'med svd':>8} {'med rep':>8} "
          f"{'r_int<r':>8} {'rho(svd)':>9} {'rho(rep)':>9}")
    for s in table["summary"]:
        rs, rr = s.get("spearman_r_int_upper_svd_float"), s.get("spearman_r_int_upper_representative_float")
        print(f"{s['multiplier']:>5g} {s['eps']:>5g} {s['median_r_int']:>9g} {s['median_upper_svd_float']:>8g} "
              f"{s['median_upper_representative_float']:>8g} {s['fraction_r_int_below_r_exact']:>8.3f} "
              f"{'-' if rs is None else f'{rs:.3f}':>9} {'-' if rr is None else f'{rr:.3f}':>9}")
    return 0


def _emit_heads(args, layers, heads) -> int:
    from algebra.attention_rank.head_certificates import DEFAULT_LENGTH, index_entries, write_index
    from algebra.certify.attention import emit_head_certificates

    mult = _floats(args.emit_multiplier, "--emit-multiplier", lo=0)
    eps = _floats(args.emit_eps, "--emit-eps", lo=0, hi=1)
    if len(mult) != 1 or len(eps) != 1:
        raise InputError("--emit-multiplier/--emit-eps", (args.emit_multiplier, args.emit_eps), "one number each")
    with flag_names({"multiplier": "--emit-multiplier", "eps": "--emit-eps", "layers": "--layers", "heads": "--heads",
                     "length": "--length"}):
        entries = emit_head_certificates(args.emit, length=args.length or DEFAULT_LENGTH, multiplier=mult[0],
                                         eps=eps[0], layers=layers, heads=heads, progress=not args.quiet)
    write_index(args.emit, index_entries(args.emit))  # every file of the directory, re-checked
    if args.json:
        print(_dump(entries))
        return 0
    for e in entries:
        print(f"{e['file']:<22} {e['proven']}")
    print(f"{len(entries)} certificates written to {args.emit} and checked; INDEX.md updated")
    return 0


def _plot_heads(table, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, key in zip(axes, ("upper_svd_float", "upper_representative_float")):
        for s0 in table["summary"]:
            m, e = s0["multiplier"], s0["eps"]
            cells = [s for h in table["heads"] for s in h["settings"]
                     if s["multiplier"] == m and s["eps"] == e]
            ax.scatter([s["r_int"] for s in cells], [s[key] for s in cells], s=8, label=f"m={m:g}, eps={e:g}")
        ax.set_xlabel("r_int^SVD(eps/3)")
        ax.set_ylabel(f"{key} rank (float64 estimate)")
    axes[0].legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# The sizes of a user's Q (m, d), K (n, d) are the independent checker's (a certificate it would refuse after
# minutes of work is refused before any): each side at most MAX_SIDE, each of Q, K and Q K^T at most MAX_ENTRIES
# entries, the product Q K^T at most MAX_PRODUCT multiply-adds.
#: Largest --beta (the constructions use at most 400; --beta 1e308 ran for minutes in the certificate).
MAX_BETA = 1e6


def _npz_header(zf, name: str, path) -> tuple:
    """``(shape, dtype)`` of member ``name.npy`` read from its header alone, before any data is inflated."""
    try:
        info = zf.getinfo(f"{name}.npy")
    except KeyError:
        raise InputError("FILE", str(path), "an .npz file with arrays 'Q' (m, d) and 'K' (n, d)") from None
    with zf.open(info) as f:
        version = np.lib.format.read_magic(f)
        read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, _, dtype = read(f)
    if dtype.kind not in "iuf" or dtype.hasobject:  # complex would lose its imaginary part, objects need pickle
        raise InputError("FILE", f"{name} of dtype {dtype}", "real arrays (integer or floating point)")
    if len(shape) != 2 or 0 in shape or max(shape) > MAX_SIDE:
        raise InputError("FILE", f"{name} of shape {shape}", f"a nonempty 2-d array, each side at most {MAX_SIDE}")
    # the member must hold the data its header announces (a lying header is refused, not trusted)
    if info.file_size < math.prod(shape) * dtype.itemsize:
        raise InputError("FILE", f"{name} of shape {shape}", f"a member holding its data ({info.file_size} bytes)")
    return shape, dtype


def _load_qk(path) -> tuple:
    """``(Q, K)`` float64 from an .npz, every size checked on the headers before anything is loaded."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as zf:
            (m, d), _ = _npz_header(zf, "Q", path)
            (n, d2), _ = _npz_header(zf, "K", path)
            if d != d2:
                raise InputError("FILE", f"Q({m}, {d}), K({n}, {d2})", "Q (m, d) and K (n, d) with the same d")
            # Q K^T costs m n d multiply-adds, a factorisation L R of rank <= min(m, n) up to m n min(m, n)
            if max(m * d, n * d, m * n) > MAX_ENTRIES or m * n * max(d, min(m, n)) > MAX_PRODUCT:
                raise InputError("FILE", f"Q({m}, {d}), K({n}, {d})",
                                 f"m d, n d and m n at most {MAX_ENTRIES:,} and m n max(d, min(m, n)) at most "
                                 f"{MAX_PRODUCT:,} (the independent checker's MAX_ENTRIES and MAX_PRODUCT for Q, "
                                 "K, Q K^T and L R)")
        with np.load(path, allow_pickle=False) as data:
            Q, K = np.asarray(data["Q"], dtype=np.float64), np.asarray(data["K"], dtype=np.float64)
    except InputError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise InputError("FILE", str(path), f"a readable .npz file ({exc})") from None
    if not (np.isfinite(Q).all() and np.isfinite(K).all()):
        raise InputError("FILE", str(path), "finite entries (no NaN or infinity)")
    return Q, K


def _cmd_matrix(args) -> int:
    from algebra.attention_rank.certificates import certified_range, exact_eps
    from algebra.certify.attention import attention_rank_certificate
    from algebra.attention_rank.geometry import InteractionChain, exact_visible_dimension
    from algebra.certify.canonical import canonical_bytes, write_atomic

    path = Path(args.file)
    Q, K = _load_qk(path)
    with flag_names({"eps": "--eps", "beta": "--beta", "Q, K": "FILE"}):
        eps = exact_eps(args.eps)
        chain = InteractionChain(Q, K)
        cert = attention_rank_certificate(Q, K, args.beta, eps, source={"file": path.name})
    lo, hi = certified_range(cert)
    out = {"file": str(path), "shape": {"Q": list(Q.shape), "K": list(K.shape)},
           "beta": args.beta, "eps": str(eps), "r_exact": exact_visible_dimension(Q, K),
           "chain": chain.chain(args.beta, float(eps)), "certified": {"lower": lo, "upper": hi},
           "claim": cert["claim"]["text"]}
    if args.certificate:
        write_atomic(args.certificate, canonical_bytes(cert) + b"\n")
        out["certificate"] = args.certificate
    if args.json:
        print(_dump(out))
        return 0
    c = out["chain"]
    print(f"Q {Q.shape}, K {K.shape}, beta={args.beta:g}, eps={eps}")
    print(f"visible dimension (exact) {out['r_exact']}; float64 diagnostics: r_int^SVD(eps/3) {c['r_int']}, "
          f"tau_width {c['tau_width']:.3g}, Gamma_r {c['Gamma_r']:.4g}, log S_r {c['log_S_r']:.4g}")
    print(f"certified (checked by the independent checker): {lo} <= r_eps <= {hi}")
    if args.certificate:
        print(f"certificate written to {args.certificate} (re-check: python -m algebra.checker {args.certificate})")
    return 0


def _cmd_slopes(args) -> int:
    from algebra.attention_rank.constructions import plot_slopes, slope_table

    fast = args.fast or os.environ.get("NEUROALGEBRA_FAST") == "1"
    with flag_names({"eps": "--eps"}):
        table = slope_table(args.eps, seed=args.seed, fast=fast, progress=not args.quiet)
    if args.plot:
        plot_slopes(table, args.plot)
    if args.json:
        print(_dump(table))
        return 0
    print(f"{'construction':<12} {'d':>2} {'theory':>6} {'slope':>7} {'95% CI':>18} {'M range':>22}")
    for r in table["rows"]:
        print(f"{r['construction']:<12} {r['d']:>2} {r['theory']:>6.2f} {r['slope']:>7.4f} "
              f"[{r['ci'][0]:.4f}, {r['ci'][1]:.4f}] {r['M'][0]:>10}..{r['M'][-1]:<10}")
    return 0


def _cmd_train(args) -> int:
    from algebra.attention_rank.training import figure5, plot_figure5

    with flag_names({"runs": "--runs", "steps": "--steps", "n_inputs": "--inputs", "lr": "--lr"}):
        res = figure5(runs=args.runs, steps=args.steps, seed=args.seed, lr=args.lr,
                      n_inputs=args.inputs, progress=not args.quiet)
    if args.plot:
        plot_figure5(res, args.plot)
    if args.json:
        print(_dump(res))
        return 0
    marks = sorted({0, min(10, args.steps), min(50, args.steps), min(100, args.steps), args.steps})
    print("sigma_2/sigma_1 median [IQR] at steps " + ", ".join(map(str, marks)))
    for model, r in res["models"].items():
        cells = [f"{r['median'][t]:.4f} [{r['q25'][t]:.4f}, {r['q75'][t]:.4f}]" for t in marks]
        print(f"{model:<10} " + "  ".join(cells))
    return 0


def _cmd_synthetic(args) -> int:
    from algebra.certify.canonical import canonical_bytes, write_atomic

    with flag_names({"eps": "--eps"}):
        written = _synthetic_certificates(args)
    out_dir = Path(args.directory)
    for name, cert, what in written:
        write_atomic(out_dir / name, canonical_bytes(cert) + b"\n")
        print(f"{name:<32} {cert['kind']:<20} {what}")
    print(f"{len(written)} certificates written and checked; re-check: python -m algebra.checker {out_dir}")
    return 0


def _synthetic_certificates(args) -> list:
    """``(file name, certificate, what it proves)`` of every synthetic construction at ``--eps``."""
    from algebra.attention_rank.certificates import certified_range
    from algebra.attention_rank.constructions import cell_width, uniform_cell_payload
    from algebra.certify.attention import interaction_certificate, sphere_certificate
    from algebra.certify.interval import interval_certificate

    written = []
    for d in (1, 2, 3, 4):
        for c in (1, 2):
            L = cell_width(d, args.eps, c=c)
            text = (f"uniform cell lemma (Sui & Zhang, Appendix E) for d={d}, L={L}, multiplicity ratio {c}, "
                    f"eps={args.eps:g}: (1 - eps) theta_c^d - c (1 + eps) (theta^d - theta_c^d) > 0")
            cert = interval_certificate(uniform_cell_payload(d, L, args.eps, c=c), statement=text).certificate
            written.append((f"cell_lemma_d{d}_c{c}.json", cert, "lemma > 0"))
    for d, beta in ((2, 400.0), (3, 60.0)):
        cert = sphere_certificate(d, beta, args.eps, seed=args.seed, max_M=48)["certificate"]
        written.append((f"sphere_d{d}_beta{beta:g}.json", cert, f"r_eps >= {certified_range(cert)[0]}"))
    for r, s in ((1, 40), (2, 15), (3, 18)):
        cert = interaction_certificate(r, s, args.eps)["certificate"]
        written.append((f"interaction_r{r}_beta{s * s}.json", cert, f"r_eps >= {certified_range(cert)[0]}"))
    return written


def register(subparsers) -> None:
    """Add ``attention-rank`` and its subcommands to the top-level CLI."""
    p = subparsers.add_parser("attention-rank", help="approximation rank of softmax attention",
                              description="The max-row-l1 approximation rank r_eps of A = softmax_rows(beta Q K^T) "
                              "(Sui & Zhang, Section 2.1), with certificates the independent checker re-derives in "
                              "ball arithmetic. 'heads' reads the all-MiniLM-L6-v2 heads, 'matrix' your own Q, K "
                              "(.npz), 'slopes' and 'synthetic-certs' the synthetic constructions, 'train' Figure 5.")
    sub = p.add_subparsers(dest="attention_command", metavar="SUBCOMMAND")
    p.set_defaults(handler=lambda args: (p.print_help(), 2)[1])

    h = sub.add_parser("heads", help="all-MiniLM-L6-v2 heads: float64 diagnostics, or --emit certificates")
    h.add_argument("--length", type=integer_arg("--length"), default=None,
                   help="tokens of the fixed text (default 128 for the table, 64 for --emit)")
    h.add_argument("--multipliers", default="0.5,0.75,1,1.5,2")
    h.add_argument("--eps", default="0.15,0.25,0.35")
    h.add_argument("--layers", default=None, help="comma-separated layer indices (default all)")
    h.add_argument("--heads", default=None, help="comma-separated head indices (default all)")
    h.add_argument("--emit", default=None, metavar="DIR",
                   help="write one checked attention_rank certificate per head and INDEX.md here")
    h.add_argument("--emit-multiplier", default="1")
    h.add_argument("--emit-eps", default="0.25")
    h.add_argument("--plot", default=None, metavar="FILE.png", type=plot_file_arg())
    h.add_argument("--json", action="store_true")
    add_progress_options(h)
    h.set_defaults(handler=_cmd_heads)

    m = sub.add_parser("matrix", help="a checked approximation-rank certificate for your own Q, K (.npz)")
    m.add_argument("file", metavar="FILE.npz")
    m.add_argument("--beta", type=real_arg("--beta", low=0, high=MAX_BETA), default=1.0,
                   help=f"inverse temperature, in [0, {MAX_BETA:g}] (MAX_BETA)")
    m.add_argument("--eps", type=real_arg("--eps"), default=0.25)
    m.add_argument("--certificate", default=None, metavar="FILE.json", type=output_file_arg("--certificate"),
                   help="write the attention_rank certificate (re-check with python -m algebra.checker)")
    m.add_argument("--json", action="store_true")
    m.set_defaults(handler=_cmd_matrix)

    s = sub.add_parser("slopes", help="temperature exponents of the synthetic lower constructions")
    s.add_argument("--eps", type=real_arg("--eps", low=0, high=1, low_open=True, high_open=True), default=0.25)
    s.add_argument("--seed", type=seed_arg(), default=0)
    s.add_argument("--fast", action="store_true")
    s.add_argument("--plot", default=None, metavar="FILE.png", type=plot_file_arg())
    s.add_argument("--json", action="store_true")
    add_progress_options(s)
    s.set_defaults(handler=_cmd_slopes)

    t = sub.add_parser("train", help="lightning vs softmax training, sigma_2/sigma_1 of S_t (Figure 5)")
    t.add_argument("--runs", type=positive_arg("--runs"), default=30)
    t.add_argument("--steps", type=positive_arg("--steps"), default=500)
    t.add_argument("--inputs", type=positive_arg("--inputs"), default=512)
    t.add_argument("--lr", type=real_arg("--lr"), default=0.01, help="Adam learning rate, in (0, 1]")
    t.add_argument("--seed", type=seed_arg(), default=0)
    t.add_argument("--plot", default=None, metavar="FILE.png", type=plot_file_arg())
    t.add_argument("--json", action="store_true")
    add_progress_options(t)
    t.set_defaults(handler=_cmd_train)

    c = sub.add_parser("synthetic-certs", help="write checked certificates of the synthetic constructions")
    c.add_argument("directory", metavar="DIR", type=output_directory_arg("DIR"))
    c.add_argument("--eps", type=real_arg("--eps", low=0, high=1, low_open=True, high_open=True), default=0.25)
    c.add_argument("--seed", type=seed_arg(), default=0)
    c.set_defaults(handler=_cmd_synthetic)
