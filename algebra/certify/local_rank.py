"""``local_rank`` certificates: the exact Jacobian rank of a trained grokking checkpoint, and its lambda.

The heavy side (:mod:`algebra.grokking.local_rank`) finds the witnesses -- a
nonsingular minor of the data-restricted Jacobian and of the full-data Jacobian
at the exact binary64 point, and a nonsingular minor of the kernel fields there
-- and this module writes them with the point into a certificate whose claim the
independent checker (:mod:`algebra.checker.local_rank`) derives: the ranks (or
their bounds, saying where they differ), whether they are locally constant, the
exact ``||grad L_n||`` and ``L_n`` as decimal upper bounds, and the learning
coefficient ``lambda = rank / 2, m = 1`` of the paper's Theorem F.1 / Corollary F.2
when the exact training loss there is 0 (a proven global minimiser of ``L_n >= 0``)
and the rank is locally constant (otherwise which hypothesis fails).  The file
states no tolerance: the checker's rules alone decide (docs/certificate-format.md).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from algebra.certify.canonical import render, seal, write_atomic
from algebra.certify import envelope
from algebra.certify.envelope import Emitted, header
from algebra.errors import CertificateError, InputError
from algebra.exact.field import DEFAULT_PRIME
from algebra.grokking.checkpoints import PHASES, phase  # re-exported: the basin tables use them

__all__ = ["PHASES", "network_block", "local_rank_certificate", "certify_checkpoint", "phase", "basin_verdict", "basin_table", "estimates_table", "judge_basin",
           "premise_hypotheses", "judge_estimate_premise"]

def network_block(p: int, K: int, a, b, theta) -> dict:
    """The ``network`` block: ``p``, ``K``, the training pairs as a sorted set and ``theta`` in short hex.

    Examples
    --------
    >>> network_block(2, 1, [1, 0], [0, 1], [0.5, -0.0, 1.0, 2.0, 3.0, 0.25])["train"]
    [[0, 1], [1, 0]]
    """
    from algebra.grokking.local_rank import short_hex

    theta = np.asarray(theta, dtype=float).ravel()
    if theta.size != 3 * p * K:
        raise InputError("theta", theta.size, f"3pK = {3 * p * K} entries")
    pairs = sorted({(int(x), int(y)) for x, y in zip(a, b)})
    if len(pairs) != len(a):
        raise InputError("samples", "repeated pairs", "distinct training pairs")
    return {"p": int(p), "width": int(K), "train": [list(t) for t in pairs], "theta": [short_hex(v) for v in theta]}


def local_rank_certificate(p: int, K: int, a, b, theta, *, prime: int = DEFAULT_PRIME, seed: int = 0, source: dict | None = None, attempts: int = 3,
                           self_check: bool = True) -> Emitted:
    """Certify the local rank of the training and full-data maps at ``theta`` (module docstring).

    ``lower``/``upper`` of the result are the training map's proven bounds; the verdict is
    ``confirmed`` when they meet and ``out of reach`` when they differ (the claim says so).  A prime
    at which the minors fall short is retried with the next primes below it (``attempts`` in all).
    The claim is the checker's derivation; ``self_check=False`` skips the second, sealed re-check
    (a sweep re-verifies its files with ``neuroalgebra verify`` instead).

    Examples
    --------
    >>> from algebra.grokking.task import modular_addition
    >>> t = modular_addition(5, 0.6)
    >>> th = np.random.default_rng(0).standard_normal(30)
    >>> e = local_rank_certificate(5, 2, t.a[t.train], t.b[t.train], th)
    >>> m = e.certificate["claim"]["maps"]
    >>> (m["train"]["lower"], m["train"]["upper"]), (m["all"]["lower"], m["all"]["upper"]), e.certificate["claim"]["lambda"]
    ((26, 26), (26, 26), None)
    """
    from algebra.checker import Reject, derive_claim
    from algebra.exact.field import is_prime
    from algebra.grokking.local_rank import all_pairs, dyadic_point, field_witness, map_witness

    net = network_block(p, K, a, b, theta)
    pa = np.array([t[0] for t in net["train"]], dtype=np.int64)
    pb = np.array([t[1] for t in net["train"]], dtype=np.int64)
    M, _ = dyadic_point(theta)
    P = 3 * p * K
    q, best = int(prime), None
    for _ in range(max(1, attempts)):
        fw = field_witness(p, K, M, prime=q)
        wits = {"prime": str(q), "fields": {"rows": list(fw.rows), "cols": list(fw.cols)}}
        short = False
        for name, (xa, xb) in (("train", (pa, pb)), ("all", all_pairs(p))):
            upper = min(P - fw.rank, p * (xa.size - 1))
            w = map_witness(p, K, xa, xb, M, target=upper, prime=q, seed=seed)
            wits[name] = {"rows": list(w.rows), "cols": list(w.cols)}
            short = short or w.rank < upper
        best = wits
        if not short:
            break
        q = next(c for c in range(q - 2, 2, -2) if is_prime(c))
    cert = header("local_rank", source)
    cert.update(network=net, witnesses=best, seed=int(seed))
    try:
        cert["claim"] = derive_claim(cert)
    except Reject as exc:
        raise CertificateError(f"the local rank certificate does not verify: {exc}") from None
    cert = seal(cert)
    reason = envelope.self_check(cert) if self_check else "claim derived by the checker (not re-checked after sealing)"
    tr = cert["claim"]["maps"]["train"]
    if tr["lower"] == tr["upper"]:
        return Emitted(cert, "local_rank", tr["lower"], tr["upper"], "confirmed", reason)
    return Emitted(cert, "local_rank", tr["lower"], tr["upper"], "out of reach", reason,
                   f"the bounds differ: {tr['lower']} <= rank <= {tr['upper']}")


def certify_checkpoint(run, epoch: int, path=None, *, prime: int = DEFAULT_PRIME, seed: int = 0,
                       self_check: bool = True) -> Emitted:
    """:func:`local_rank_certificate` at checkpoint ``epoch`` of a run directory; written to ``path`` when given.

    The source records the run's configuration (informational, never read into the claim).
    """
    from dataclasses import asdict

    from algebra.grokking.runs import load_run

    run = load_run(run) if not hasattr(run, "config") else run
    cfg = run.config
    if epoch not in run.checkpoints():
        raise InputError("--epoch", epoch, f"an epoch with a checkpoint in {run.path} "
                         f"(e.g. {', '.join(map(str, run.checkpoints()[-3:]))})")
    task = run.task()
    src = {"run": str(Path(run.path).name), "epoch": int(epoch), "config": asdict(cfg)}
    e = local_rank_certificate(cfg.p, cfg.width, task.a[task.train], task.b[task.train], run.theta(epoch),
                               prime=prime, seed=seed, source=src, self_check=self_check)
    if path is not None:
        write_atomic(Path(path), render(e.certificate))
    return e


def basin_verdict(rows) -> tuple:
    """Decide the basin-selection claim from certified checkpoint rows; ``(verdict, reason)``.

    Each row is a derived ``local_rank`` claim with the checkpoint's ``phase`` and its ``group`` (rows of one
    group share the training data, hence ``L_n``): a memorising and a generalising checkpoint of one group are
    comparable.  ``confirmed``: in every group with both phases where Theorem F.1 applies to both (a lambda is
    derived), every generalising lambda is below every memorising one; ``refuted``: some such pair is certified
    equal (the paper says it drops); ``out of reach`` otherwise, with the reason.

    Examples
    --------
    >>> m = {"group": "g", "phase": "memorising", "lambda": "10", "maps": {"train": {"lower": 20, "upper": 20}},
    ...      "hypothesis_fails": None}
    >>> g = dict(m, phase="generalising", **{"lambda": "8"})
    >>> basin_verdict([m, g])[0], basin_verdict([m, dict(g, **{"lambda": "10"})])[0]
    ('confirmed', 'refuted')
    >>> basin_verdict([dict(m, **{"lambda": None, "hypothesis_fails": ["not critical"]}), g])[0]
    'out of reach'
    """
    from fractions import Fraction

    groups = {}
    for r in rows:
        groups.setdefault(r["group"], {"memorising": [], "generalising": []}).setdefault(r["phase"], []).append(r)
    pairs = [(g, m, x) for g, d in groups.items() for m in d["memorising"] for x in d["generalising"]]
    if not pairs:
        return "out of reach", "no training set has both a memorising and a generalising certified checkpoint"
    applies = [(g, m, x) for g, m, x in pairs if m["lambda"] is not None and x["lambda"] is not None]
    ranks = sorted({(m["maps"]["train"]["lower"], m["maps"]["train"]["upper"], x["maps"]["train"]["lower"],
                     x["maps"]["train"]["upper"]) for _, m, x in pairs})
    same = all(a == b == c == d for a, b, c, d in ranks)
    if not applies:
        fails = sorted({f for _, m, x in pairs for f in (m["hypothesis_fails"] or []) + (x["hypothesis_fails"] or [])})
        moving = sum(r.get("critical") is False for _, m, x in pairs for r in (m, x))
        return "out of reach", (f"Theorem F.1 applies to no memorising/generalising pair ({len(pairs)} pairs in "
                                f"{len(groups)} training sets): {'; '.join(fails)}"
                                + (f"; {moving} of {2 * len(pairs)} checkpoints are not critical points of L_n "
                                   "(grad L_n != 0 exactly: unconverged)" if moving else "")
                                + "; the certified local ranks of the "
                                + ("pairs are equal in every training set" if same else "pairs differ in places"))
    if any(Fraction(x["lambda"]) == Fraction(m["lambda"]) for _, m, x in applies):
        return "refuted", "a generalising checkpoint's certified lambda equals a memorising one's on the same data"
    if all(Fraction(x["lambda"]) < Fraction(m["lambda"]) for _, m, x in applies):
        return "confirmed", f"every generalising lambda is below the memorising ones ({len(applies)} pairs)"
    return "out of reach", "a generalising lambda exceeds a memorising one: the paper's direction is not certified"


@lru_cache(maxsize=2)
def _certified_checkpoints(path: str, sha256: str, seed: int) -> tuple:
    """``(picked, None)`` or ``(None, reason)``: both committed checkpoints of a file, phased and certified.

    ``picked[role] = (epoch, emitted, {"train_acc", "val_acc"}, (train, validation) exact)`` for each of
    :data:`~algebra.grokking.checkpoints.ROLES`; cached, so the catalogue's claims on one file certify it once.
    """
    from dataclasses import asdict

    from algebra.grokking.checkpoints import ROLES, exact_accuracies, read_basin_checkpoints
    from algebra.grokking.runs import TrainConfig
    from algebra.grokking.task import modular_addition

    ck = read_basin_checkpoints(path, sha256)
    cfg = TrainConfig(**ck.config).validated()
    task = modular_addition(cfg.p, cfg.train_fraction, cfg.seed)
    picked = {}
    for name in ROLES:
        epoch, theta = ck.epochs[name], ck.thetas[name]
        tr, va = exact_accuracies(task, cfg.width, theta)
        acc = {"train_acc": float(tr), "val_acc": float("nan") if va is None else float(va)}
        if va is None or phase(tr, va) != name:
            return None, f"the committed {name} checkpoint (epoch {epoch}) is " \
                         f"{'untested (no validation data)' if va is None else phase(tr, va)} by its exact accuracies " \
                         f"(train {tr}, validation {va})"
        src = {"checkpoints": Path(path).name, "checkpoints_sha256": ck.sha256, "epoch": int(epoch),
               "config": asdict(cfg)}
        e = local_rank_certificate(cfg.p, cfg.width, task.a[task.train], task.b[task.train], theta,
                                   seed=seed, source=src)
        picked[name] = (epoch, e, acc, (tr, va))
    return picked, None


def _said(epoch, e, acc) -> str:
    c = e.certificate["claim"]
    lam = f"lambda = {c['lambda']}" if c["lambda"] is not None else "no lambda (" + "; ".join(c["hypothesis_fails"]) + ")"
    return (f"epoch {epoch} (train {acc['train_acc']:.2f}, val {acc['val_acc']:.2f}): rank "
            f"{c['maps']['train']['lower']}" + ("" if c["maps"]["train"]["lower"] == c["maps"]["train"]["upper"]
                                               else f"..{c['maps']['train']['upper']}")
            + f", ||grad L_n|| <= {c['gradient_norm_at_most']}, {lam}")


def judge_basin(claim, seed: int, source: dict) -> tuple:
    """Catalogue judge of a :class:`~algebra.claims.records.BasinClaim`: ``(emitted, None, index fields)``.

    Reads the claim's committed checkpoints (:func:`~algebra.grokking.checkpoints.read_basin_checkpoints`,
    refusing a file whose sha256 is not the claim's), decides each one's phase from its exact accuracies
    (:func:`~algebra.grokking.checkpoints.exact_accuracies`), certifies both with
    :func:`local_rank_certificate` (witness seed ``seed``) and decides with :func:`basin_verdict`.  Nothing
    is trained, so the certificate's bytes do not depend on the CPU.  The file is the generalising
    checkpoint's certificate; the memorising one's derived claim is summarised, with its sha256, in the
    index fields.  A checkpoint whose exact phase is not its role is ``out of reach`` with that reason (no file).
    The note states the memorising checkpoint's exact validation accuracy against chance ``1/p`` (the run's
    last checkpoint with validation at most 1/2 need not lie on the memorisation plateau) and how many
    checkpoints are not critical points of ``L_n`` (:func:`basin_verdict`).
    """
    picked, why = _certified_checkpoints(str(claim.checkpoints), claim.sha256, int(seed))
    if picked is None:
        return None, why, {}
    found = [{**e.certificate["claim"], "group": "run", "phase": name} for name, (_, e, _, _) in picked.items()]
    verdict, reason = basin_verdict(found)
    (em, m, macc, (_, mva)), (eg, g, gacc, _) = picked["memorising"], picked["generalising"]
    p = m.certificate["claim"]["about"]["p"]
    reason += (f"; the memorising checkpoint's exact validation accuracy is {mva} ({float(mva * p):.1f} times "
               f"chance 1/{p}): the run's last checkpoint with validation <= 1/2, not necessarily on the "
               "memorisation plateau")
    fields = {"says": "lambda(generalising basin) < lambda(memorising basin)",
              "proven": f"memorising {_said(em, m, macc)}; generalising {_said(eg, g, gacc)}",
              "memorising_certificate_sha256": m.certificate["sha256"]}
    return Emitted(g.certificate, "local_rank", g.lower, g.upper, verdict, g.reason, reason), None, fields


def premise_hypotheses(rows) -> tuple:
    """``(hypotheses, undecided)``: "the checkpoint is a local minimiser of ``L_n``" decided at each derived row.

    Each row is a derived ``local_rank`` claim with ``phase`` and ``epoch``.  The checker's exact gradient
    decides: ``critical`` false (``grad L_n != 0`` exactly) proves the point is no local minimiser (``L_n`` is
    smooth); ``minimiser`` (``L_n = 0`` exactly) proves it a global one; a critical point with ``L_n > 0`` is
    undecided (listed in ``undecided``, not among the hypotheses).

    Examples
    --------
    >>> r = {"phase": "memorising", "epoch": 200, "critical": False, "minimiser": False,
    ...      "gradient_norm_at_most": "3.25e-2", "train_loss_at_most": "4.64e-2"}
    >>> hyps, undecided = premise_hypotheses([r, dict(r, phase="generalising", critical=True, minimiser=True)])
    >>> [h["holds"] for h in hyps], hyps[0]["detail"][:40], undecided
    ([False, True], 'grad L_n != 0 exactly (||grad L_n|| <= 3', [])
    >>> premise_hypotheses([dict(r, critical=True)])[1]
    ['the memorising checkpoint (epoch 200) is a local minimiser of L_n']
    """
    hyps, undecided = [], []
    for r in rows:
        text = f"the {r['phase']} checkpoint (epoch {r['epoch']}) is a local minimiser of L_n"
        if not r["critical"]:
            hyps.append({"hypothesis": text, "holds": False,
                         "detail": f"grad L_n != 0 exactly (||grad L_n|| <= {r['gradient_norm_at_most']}; "
                                   f"0 < L_n <= {r['train_loss_at_most']}): not a critical point"})
        elif r["minimiser"]:
            hyps.append({"hypothesis": text, "holds": True, "detail": "L_n = 0 exactly: a global minimiser"})
        else:
            undecided.append(text)
    return hyps, undecided


def judge_estimate_premise(claim, seed: int, source: dict) -> tuple:
    """Catalogue judge of an :class:`~algebra.claims.records.EstimatePremiseClaim`: ``(emitted, None, fields)``.

    Certifies the committed checkpoints as :func:`judge_basin` does (the same certificates, computed once) and
    decides the estimator's premise at each (:func:`premise_hypotheses`).  The file is the memorising
    checkpoint's certificate (the basin claim's file is the generalising one's), so both checkpoints'
    certificates are on disk, and the verdict rests on the file's own point, as the checker's index rule
    derives it: ``hypothesis fails``, naming the premise, when the checker proves ``grad L_n != 0`` there;
    ``out of reach`` otherwise (a failure at the generalising checkpoint only is named in the note; the sampled
    numbers themselves are not certified).
    """
    picked, why = _certified_checkpoints(str(claim.checkpoints), claim.sha256, int(seed))
    if picked is None:
        return None, why, {}
    rows = [{**e.certificate["claim"], "phase": name, "epoch": epoch} for name, (epoch, e, _, _) in picked.items()]
    hyps, undecided = premise_hypotheses(rows)
    failed = [h for h in hyps if not h["holds"]]
    (em, m, macc, _), (eg, g, gacc, _) = picked["memorising"], picked["generalising"]
    found = "; ".join(f"{h['hypothesis'].split(' is ')[0]}: {h['detail']}" for h in failed)
    if m.certificate["claim"]["critical"] is False:
        verdict = "hypothesis fails"
        note = (f"false hypothesis: {claim.premise}; at {len(failed)} of {len(rows)} committed checkpoints the exact "
                f"gradient of L_n is nonzero ({found}), so the estimator's expansion about a minimiser does not "
                "apply there")
    else:
        verdict = "out of reach"
        note = (f"{claim.premise}: " + "; ".join([f"fails at {found}"] * bool(failed)
                                                 + [f"undecided: {u}" for u in undecided]
                                                 or ["holds at every committed checkpoint"])
                + "; the file's (memorising) point is critical, and the sampled estimates themselves are not "
                  "certified")
    fields = {"says": "the sampled lambda-hat at a checkpoint estimates the local learning coefficient at a local "
                      "minimiser of L_n", "hypotheses": hyps,
              "proven": f"memorising {_said(em, m, macc)}; generalising {_said(eg, g, gacc)} "
                        f"(certificate sha256 {g.certificate['sha256']})"}
    return Emitted(m.certificate, "local_rank", m.lower, m.upper, verdict, m.reason, note), None, fields


def _rank_text(x) -> str:
    return str(x["lower"]) if x["lower"] == x["upper"] else f"{x['lower']}..{x['upper']}"


def basin_table(rows) -> str:
    """A markdown table of certified checkpoint rows (``benchmarks/grok_basin.py``, notebook 07).

    Each row carries the run's ``p``, ``train_fraction``, ``weight_decay``, ``seed``, the checkpoint's
    ``epoch``, accuracies and ``phase``, the derived ``local_rank`` claim's fields and the estimates
    ``wd_theta`` (``wd ||theta||``), ``llc_sgld`` (``± llc_sgld_se``) and ``k_eff``.
    """
    head = ("| p | f | wd | seed | epoch | train acc | val acc | phase | certified rank (train / all) | locally const. "
            "| λ (Thm F.1) or why not | ‖∇L_n‖ ≤ | wd‖θ‖ | L_n ≤ | paper's SGLD λ̂ | K_eff |")
    lines = [head, "|" + "---|" * 16]
    for r in rows:
        lam = (f"{r['lambda']} (m = 1)" if r["lambda"] is not None else
               (f"[{r['lambda_bounds'][0]}, {r['lambda_bounds'][1]}]" if r["lambda_bounds"] else "— not a proven minimiser"))
        lines.append(f"| {r['p']} | {r['train_fraction']:g} | {r['weight_decay']:g} | {r['seed']} | {r['epoch']} | "
                     f"{r['train_acc']:.3f} | {r['val_acc']:.3f} | {r['phase']} | {_rank_text(r['maps']['train'])} / "
                     f"{_rank_text(r['maps']['all'])} | {'yes' if r['maps']['train']['locally_constant'] else 'no'} | "
                     f"{lam} | {r['gradient_norm_at_most']} | {r['wd_theta']:.2e} | {r['train_loss_at_most']} | "
                     f"{r['llc_sgld']:.1f} ± {r['llc_sgld_se']:.1f} | {r['k_eff']} |")
    return "\n".join(lines)


#: split R-hat above which a sampled ``±`` is no error bar (the chains disagree)
RHAT_SUPPORTED = 1.05


def _short_reason(reasons: str) -> str:
    """The calibrated verdict's first reason, in a few words (the full text stays in the JSON table)."""
    if not reasons:
        return ""
    if "is not a minimum of L_n" in reasons:
        return "w* not a minimum of L_n"
    first = reasons.split("; ")[0]
    if first.startswith("nbeta="):  # "nbeta=X: split R-hat 1.1 > 1.05" -> the check itself
        first = first.split(": ", 1)[-1]
    head = first.split(": ", 1)[0]  # "not shown converged: the ladder rose ..." -> its category
    return head if len(head) <= 60 else head[:57] + "..."


def estimates_table(rows, estimates) -> str:
    """Issue 23 item 3: per checkpoint, the certified value beside every estimate (markdown).

    ``rows`` are :func:`basin_table`'s certified rows and ``estimates`` the rows of
    ``benchmarks/grok_basin.py --estimates`` (matched on ``_key``): the calibrated LLC v2 with its verdict
    (target: the training set's own loss ``L_n``), the paper's SGLD with its split R-hat, the Laplace
    prediction of the paper's settings from the Hessian at the checkpoint, and the Hutchinson ``tr H``.
    A ``±`` the diagnostics do not support is marked: ``(R-hat r)`` after the SGLD value when
    ``r > 1.05``, and the calibrated verdict's first reason when it is ``suspect``.

    Examples
    --------
    >>> row = {"_key": "k", "p": 13, "train_fraction": 0.3, "weight_decay": 0.0, "seed": 1, "epoch": 1500,
    ...        "phase": "memorising", "train_acc": 1.0, "val_acc": 0.042, "lambda": "637/2",
    ...        "maps": {"train": {"lower": 637, "upper": 637}}, "k_eff": 32}
    >>> est = {"_key": "k", "llc_cal": 317.9, "llc_cal_se": 1.2, "llc_cal_verdict": "ok", "llc_cal_reasons": "",
    ...        "llc_sgld": 31.6, "llc_sgld_se": 4.8, "llc_sgld_rhat": 2.1, "llc_sgld_laplace": 120.5,
    ...        "hutch": 40.2, "hutch_se": 0.3}
    >>> print(estimates_table([row], [est]).splitlines()[-1])
    | 13 | 0.3 | 0 | 1 | 1500 | memorising | 1.000 / 0.042 | 637 | 637/2 | 317.9 ± 1.2 ok | 31.6 ± 4.8 (R-hat 2.10) | 120.5 | 40.2 ± 0.3 | 32 |
    """
    from algebra.grokking.runs import checkpoint_key

    by_key = {checkpoint_key(e): e for e in estimates}
    head = ("| p | f | wd | seed | epoch | phase | train / val acc | certified rank (train) | λ (Thm F.1) | "
            "calibrated LLC v2, L_n (verdict) | paper's SGLD λ̂ | Laplace of the paper's settings | tr H | K_eff |")
    lines = [head, "|" + "---|" * 14]

    def num(v, se):
        return "—" if v is None else f"{v:.1f} ± {se:.1f}"

    for r in rows:
        e = by_key.get(checkpoint_key(r))
        if e is None:
            continue
        cal = num(e.get("llc_cal"), e.get("llc_cal_se"))
        if e.get("llc_cal") is not None:
            verdict = e.get("llc_cal_verdict")
            cal += " ok" if verdict == "ok" else f" suspect: {_short_reason(e.get('llc_cal_reasons', ''))}"
        sgld = num(e["llc_sgld"], e["llc_sgld_se"])
        rhat = e.get("llc_sgld_rhat")
        if rhat is None or not rhat <= RHAT_SUPPORTED:
            sgld += f" (R-hat {rhat:.2f})" if rhat is not None else " (R-hat undefined)"
        lap = "—" if e.get("llc_sgld_laplace") is None else f"{e['llc_sgld_laplace']:.1f}"
        lam = r["lambda"] if r.get("lambda") is not None else "— not a proven minimiser"
        lines.append(f"| {r['p']} | {r['train_fraction']:g} | {r['weight_decay']:g} | {r['seed']} | {r['epoch']} | "
                     f"{r['phase']} | {r['train_acc']:.3f} / {r['val_acc']:.3f} | {_rank_text(r['maps']['train'])} | "
                     f"{lam} | {cal} | {sgld} | {lap} | {num(e['hutch'], e['hutch_se'])} | {r['k_eff']} |")
    return "\n".join(lines)
