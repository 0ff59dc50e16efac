"""Entry points for the user's own questions: each writes one certificate file atomically.

* :func:`certify_model` -- any model object (user polynomial maps included): a
  ``dimension`` / ``defect`` certificate (:mod:`algebra.certify.rank`) or, for
  ``quantity="lambda"``, a ``formula`` one (:mod:`algebra.certify.formula`);
* :func:`dimension_with_certificate` -- runs the engine once and certifies that
  run: the route of ``dim --certificate``;
* :func:`certify_secant` -- the dimension of a secant variety;
* :func:`certify_formula` -- a closed-form learning coefficient.

The claim of every certificate is structured (relation, value, the object it
is about) and its text is the checker's canonical rendering; every
certificate is checked by the independent checker before it is returned.
"""

from __future__ import annotations

import algebra.inputs as inputs
from algebra.certify.envelope import Emitted, write
from algebra.certify.formula import formula_certificate, rlct_certificate
from algebra.certify.rank import certificate_mode, dimension_certificate
import algebra.engine as engine  # looked up at call time (tests count the engine runs)
from algebra.engine.dimension import DEFAULT_MAX_MEMORY
from algebra.errors import CertificateError, InputError
from algebra.exact.field import DEFAULT_PRIME
from algebra.models.base import Model
from algebra.models.segre_veronese import SecantMap

__all__ = ["certify_formula", "certify_model", "certify_secant", "dimension_with_certificate"]


def certify_model(model, path, *, seed: int = 0, claimed: int | None = None, relation: str = "==",
                  quantity: str = "dimension", prime: int = DEFAULT_PRIME, result=None) -> Emitted:
    """Write one certificate about ``model`` to ``path`` (atomically) and return what it shows.

    Parameters
    ----------
    model : algebra.models.Model
        Any model object: the families the checker evaluates (mlp, attention,
        qk, linear, cnn, polynomial maps -- user polynomial maps included) are written
        as they are; any other model (e.g. a secant map) is first turned into its
        polynomial map (:func:`algebra.models.registry.as_polynomial_map`).
    path : str or pathlib.Path
        The certificate file; written through a temporary file and ``os.replace``,
        so an error leaves no half-written file.
    seed : int
        Seed of the integer point and inputs (recorded in the file).
    claimed, relation : int (or rational for ``lambda``), str, optional
        The user's claim ``dim RELATION claimed`` (``lambda RELATION claimed`` for
        ``quantity="lambda"``; ``relation`` one of ``==``, ``>=``, ``<=``).  It is
        written into the file as data, its ``claimed`` member
        ``{"relation": "==", "value": 20}`` (lambda: an exact string such as
        ``"5/2"``), and the independent checker derives the verdict from that
        member and the bounds it proves (``neuroalgebra verify FILE`` prints it
        and exits 1 unless it is ``confirmed``).  No verdict is stored in the file.
        Without ``claimed`` the file has no such member (byte-identical to a
        file written before the member existed).
    prime : int
        The prime (``< 2**21``) the lower bound's minor is taken modulo.
    quantity : {"dimension", "lambda"}
        ``dimension``: a ``dimension`` / ``defect`` certificate of the generic
        Jacobian rank.  ``lambda``: a ``formula`` certificate of
        ``lambda = rank / 2`` (regular model).
    result : algebra.engine.DimensionResult, optional
        An engine run to reuse (``quantity="dimension"``; see :func:`dimension_certificate`).

    Returns
    -------
    Emitted
        ``kind`` is ``rank_lower_bound`` when only a lower bound could be
        proven; ``note`` then says so (an uncertified result certifies what was
        proven, never more).  ``verdict`` is the checker's judgement of
        ``claimed`` against the proven bounds: ``confirmed`` (every value the
        bounds allow satisfies it), ``refuted`` (none does) or ``out of reach``
        (the bounds do not decide it); without ``claimed``, ``confirmed`` when the
        bounds meet.

    Raises
    ------
    InputError
        A ``relation``, ``quantity`` or ``claimed`` outside the allowed ones, or a model the engine refuses.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from algebra.models import MLP
    >>> from algebra.checker import check_file
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "c.json"
    >>> e = certify_model(MLP((3, 4, 1), "t^2", bias=True), path)
    >>> e.kind, e.lower, e.upper, check_file(str(path))[0]
    ('dimension', 10, 10, True)
    >>> e = certify_model(MLP((3, 4, 1), "t^2", bias=True), path, claimed=12)
    >>> e.certificate["claimed"], e.verdict
    ({'relation': '==', 'value': 12}, 'refuted')
    >>> from algebra.checker import check_file_verdict
    >>> check_file_verdict(str(path))[2]["verdict"]   # re-derived from the file alone
    'refuted'

    References
    ----------
    .. [1] ``docs/certificate-format.md`` (the certificate kinds and what the checker re-derives).
    .. [2] Wetzler, Heule, Hunt, "DRAT-trim: efficient checking and trimming using expressive clausal proofs",
       SAT 2014 (the emit/check split: the heavy side writes hints, a small checker replays them).
    """
    if not isinstance(model, Model):
        raise InputError("model", model, "a Model from algebra.models")
    inputs.output_file(path, "path")  # before the work: a missing directory is refused, not found at the end
    if quantity not in ("dimension", "lambda"):
        raise InputError("quantity", quantity, "dimension or lambda")
    seed = inputs.seed(seed, "seed")
    if quantity == "lambda":
        return write(rlct_certificate(model, claimed=claimed, relation=relation, seed=seed, prime=prime), path)
    try:
        return write(dimension_certificate(model, claimed=claimed, relation=relation, seed=seed, prime=prime,
                                            result=result, record_claim=True), path)
    except CertificateError as exc:  # the upper-bound witnesses did not verify: certify what is proven
        e = dimension_certificate(model, claimed=claimed, relation=relation, seed=seed, prime=prime, upper=False,
                                  record_claim=True)
        note = f"only the lower bound rank >= {e.lower} is certified (the upper bound did not verify: {exc})"
        return write(Emitted(e.certificate, e.kind, e.lower, e.upper, e.verdict, e.reason, note), path)


def dimension_with_certificate(model, path, *, seed: int = 0, prime: int = DEFAULT_PRIME, claimed: int | None = None,
                               relation: str = "==", mode: str = "auto", over_q: bool = False, witness: bool = False,
                               max_memory=DEFAULT_MAX_MEMORY) -> tuple:
    """Run :func:`algebra.engine.dimension` once and certify that run: ``(result, emitted)``.

    The certificate is written to ``path`` atomically by :func:`certify_model` (a lower-bound-only file
    when the upper-bound witnesses do not verify).  The engine runs in the certificate's own mode
    (:func:`certificate_mode`) with its witness minor, so the result printed and the file proved come
    from one run.  When the caller asks for a run the certificate cannot use -- another ``mode``, or
    ``over_q`` (the checker replays minors modulo ``prime``) -- the result is that run, and the
    certificate makes its own at the same seed (two runs).

    Parameters
    ----------
    model : algebra.models.Model
    path : str or pathlib.Path
        The certificate file.
    seed, prime : int
        Seed of the point and inputs; the prime of the certificate (and of the run unless ``over_q``).
    claimed, relation : int, str, optional
        ``dim RELATION claimed``, for the verdict.
    mode : {"auto", "coefficient", "sample"}
        The engine mode asked for; ``auto`` or the certificate's mode share the run.
    over_q : bool
        Take the reported lower bound over Q (a second run; the certificate stays modulo ``prime``).
    witness : bool
        Ask for the witness minor in a run that is not shared (a shared run always has it).
    max_memory : int, str or None
        The engine's memory limit for the reported run (:func:`algebra.engine.dimension`).

    Returns
    -------
    (DimensionResult, Emitted) : tuple

    Raises
    ------
    ResourceError
        When the engine refuses a size (before anything is written).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from algebra.models import MLP
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "d.json"
    >>> res, e = dimension_with_certificate(MLP((3, 4, 1), "t^2", bias=True), path)
    >>> res.dimension, res.mode, e.kind, e.lower, path.exists()
    (10, 'sample', 'dimension', 10, True)
    """
    own = certificate_mode(model)
    shared = not over_q and mode in ("auto", own)
    if shared:
        res = engine.dimension(model, mode=own, seed=seed, prime=prime, witness=True, max_memory=max_memory)
    else:
        res = engine.dimension(model, mode=mode, seed=seed, prime=None if over_q else prime, witness=witness,
                        max_memory=max_memory)
    emitted = certify_model(model, path, seed=seed, claimed=claimed, relation=relation, prime=prime,
                            result=res if shared else None)
    return res, emitted


def certify_secant(atom, k: int, path, *, seed: int = 0, claimed: int | None = None, relation: str = "==") -> Emitted:
    """Certify the dimension of the ``k``-th secant variety of the cone parametrized by ``atom``.

    The secant variety is the closure of the image of the sum of ``k`` copies
    of ``atom`` (Terracini); its certificate is that of
    ``SecantMap(atom, k)`` written as a polynomial map (:func:`certify_model`).

    Parameters
    ----------
    atom : algebra.models.Model
        The atom map (e.g. :func:`algebra.models.veronese`).
    k : int
        The number of atoms (``k >= 1``).
    path : str or pathlib.Path
        The certificate file, written atomically.
    seed : int
        Seed of the integer point (recorded in the file).
    claimed, relation : int, str, optional
        The user's claim ``dim sigma_k RELATION claimed`` (the affine cone's
        dimension), recorded in the file as its ``claimed`` member; the checker
        derives the verdict from it (see :func:`certify_model`).

    Returns
    -------
    Emitted
        The certificate, its ``kind``, proven ``lower`` and ``upper`` bounds and the verdict.

    Raises
    ------
    InputError
        ``k < 1``, a bad ``claimed`` or ``relation``, or an atom the engine refuses.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from algebra.models.segre_veronese import veronese
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "s.json"
    >>> e = certify_secant(veronese(3, 4), 5, path)   # Alexander-Hirschowitz: 14, not 15
    >>> e.kind, e.lower
    ('dimension', 14)
    >>> certify_secant(veronese(3, 4), 5, path, claimed=15).verdict   # the expected count is refuted
    'refuted'

    References
    ----------
    .. [1] Terracini, "Sulle V_k per cui la varieta degli S_h (h+1)-seganti ha dimensione minore dell'ordinario",
       1911 (the tangent space of the secant variety at a generic point).
    .. [2] Alexander, Hirschowitz, "Polynomial interpolation in several variables", J. Algebraic Geom. 4 (1995)
       (the defective Veronese secants, e.g. sigma_5 of v_4(P^2)).
    """
    return certify_model(SecantMap(atom, k), path, seed=seed, claimed=claimed, relation=relation)


def certify_formula(name: str, args: tuple, path) -> Emitted:
    """Write the :func:`formula_certificate` of ``name(*args)`` to ``path`` (atomically).

    Parameters
    ----------
    name : str
        A closed form of :mod:`algebra.slt.formulas`: ``"reduced_rank_regression"``, ``"deep_linear_network"``,
        ``"query_key"`` or ``"regular_model"``.
    args : tuple
        Its arguments, as the formula takes them (``(d, k, r)`` for ``query_key``).
    path : str or pathlib.Path
        The certificate file, written atomically.

    Returns
    -------
    Emitted
        The ``formula`` certificate (claim value as an exact fraction) and its verdict.

    Raises
    ------
    InputError
        An unknown ``name`` or arguments the formula refuses; ``args`` not a tuple; a ``path`` that is empty, a
        directory, or under a directory that does not exist.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> certify_formula("query_key", (6, 4, 2), "/nonexistent/dir/f.json")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid path='/nonexistent/dir/f.json': expected a file in an existing directory (/nonexistent/dir does not exist)
    >>> e = certify_formula("query_key", (6, 4, 2), pathlib.Path(tempfile.mkdtemp()) / "f.json")
    >>> e.certificate["claim"]["value"], e.verdict
    ('27/2', 'confirmed')

    References
    ----------
    .. [1] Aoyagi, Watanabe, "Stochastic complexities of reduced rank regression in Bayesian estimation",
       Neural Networks 18 (2005), Main Theorem.
    .. [2] The graph-attention paper (*Symmetries and Singularities*), Theorem 2, eqs. (44)-(46).
    """
    inputs.output_file(path, "path")  # before the work: a missing directory is refused, not created
    if not isinstance(args, (tuple, list)):
        raise InputError("args", args, "a tuple of the formula's arguments, e.g. (6, 4, 2)")
    return write(formula_certificate(name, *args), path)
