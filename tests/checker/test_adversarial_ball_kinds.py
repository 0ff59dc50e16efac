"""Aliased, non-canonical and out-of-range spellings of the ball kinds' blocks are refused, labels never
reach a claim, and every file is decided within the stated work budget (issue 20).

Kinds: ``attention_rank``, ``interval_inequality`` (:mod:`algebra.checker.attention`) and
``score_representation`` (:mod:`algebra.checker.representation`).  A mutation edits one field of a small
valid certificate; the forger then points the claim at the edited data (sha256 fields and text
re-rendered) and re-seals, so a refusal must come from the spelling check itself: the reason may not be
the claim comparison.  The oracle is the canonical form of ``docs/certificate-format.md``.
"""

from __future__ import annotations

import copy
import tracemalloc

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import algebra.checker.attention as att
import algebra.checker.representation as rep
from algebra.certify.canonical import seal
from algebra.checker import Reject, check
from algebra.checker import core
from algebra.checker.core import digest
from tests.work_counts import lines_run

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
UNICODE_DIGITS = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")  # Arabic-indic: str.isdigit() and int() accept them


# -- small valid certificates, one per block shape ------------------------------------------------
def xor_cube(k: int, *, radius: int = 1, draws: int = 1, d: int = 2) -> dict:
    """A valid ``score_representation`` certificate, built here: the hypercube ``Q_k`` with the group
    ``(Z_2)^k`` acting by ``x -> x ^ h`` (characters ``(-1)^{popcount(s & h)}`` in ``Q(E(2))``),
    inputs ``[m, h]`` with features ``F_m[x ^ h]`` (an orbit closure) and constant biases."""
    V = 2**k
    edges = [[x, x | 1 << b] for x in range(V) for b in range(k) if not x >> b & 1]
    edges.sort()
    vis = []
    for x in range(V):
        seen = {x}
        for _ in range(radius):
            seen |= {y ^ 1 << b for y in seen for b in range(k)}
        vis.append(sorted(seen))
    rng = np.random.default_rng(k)
    F = [[[float(v).hex() for v in row] for row in rng.normal(size=(V, d))] for _ in range(draws)]
    irreps = [{"name": f"chi_{s}", "values": [[0, 1] if bin(s & h).count("1") % 2 else [1, 0] for h in range(V)]}
              for s in range(V)]
    block = {"graph": {"nodes": V, "edges": edges},
             "group": {"elements": [[x ^ h for x in range(V)] for h in range(V)]},
             "characters": {"conductor": 2, "irreps": irreps},
             "design": {"radius": radius, "bias": [["0x0.0p+0"] * len(v) for v in vis],
                        "inputs": [{"label": [m, h], "features": [F[m][x ^ h] for x in range(V)]}
                                   for m in range(draws) for h in range(V)]}}
    return {"schema_version": 1, "kind": "score_representation", "claim": {}, "representation": block}


def derived(cert: dict) -> dict:
    cert = copy.deepcopy(cert)
    cert["claim"] = {"eps": cert["claim"]["eps"]} if "eps" in cert["claim"] else {}
    cert["claim"] = {"representation": rep.derive_representation_claim, "payload": att.derive_interval_claim,
                     "matrix": att.derive_attention_claim}[_block(cert)](cert, [])
    return seal(cert)


def _block(cert) -> str:
    return next(k for k in ("representation", "payload", "matrix") if k in cert)


@pytest.fixture(scope="module")
def valid() -> dict:
    from algebra.attention_rank.certificates import approximation_rank_certificates
    from algebra.certify.attention import attention_rank_certificate
    from algebra.certify.interval import interval_certificate

    eye = np.eye(3)
    out = {"representation": derived(xor_cube(2)),
           "attention": attention_rank_certificate(eye, eye, 6.0, 0.25),
           "attention-rows": attention_rank_certificate(np.eye(4), np.eye(4), 0.0, 0.25, bounds="upper"),
           "interval": interval_certificate(approximation_rank_certificates(eye, eye, 6.0, 0.25)["lower"]).certificate}
    assert out["attention-rows"]["approximant"]["method"] == "rows"
    for cert in out.values():
        check(cert)
    return out


def forged(cert: dict) -> dict:
    """The forger's claim for edited data: sha256 fields recomputed, text re-rendered, the file re-sealed."""
    claim = cert["claim"]
    try:
        if "representation" in cert:
            claim["about"]["representation_sha256"] = digest(cert["representation"])
            claim["text"] = rep.render_representation_claim(claim)
        elif "payload" in cert:
            claim["about"]["payload_sha256"] = digest(cert["payload"])
            claim["text"] = att.render_interval_claim(claim)
        else:
            claim["matrix"]["sha256"] = att.matrix_digest(cert["matrix"])
            claim["text"] = att.render_attention_claim(claim)
    except (KeyError, TypeError):
        pass  # the edit removed what the claim points at: the file is refused anyway
    return seal(cert)


def refused_by_spelling(cert: dict) -> str:
    with pytest.raises(Reject) as info:
        check(forged(cert))
    reason = str(info.value)
    assert "differs from what the data prove" not in reason, reason  # the spelling check refused, not the claim
    return reason


# -- the places a mutation can hit ---------------------------------------------------------------------
def _walk(obj, path=()):
    yield path, obj
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else ()
    for k, v in items:
        yield from _walk(v, path + (k,))


def _at(obj, path):
    for k in path:
        obj = obj[k]
    return obj


def _places(cert, test):
    return [p for p, v in _walk(cert) if p and p[0] in ("representation", "payload", "matrix", "selection",
                                                        "approximant") and test(v)]


def _variants(s: str) -> list:
    """Other spellings of the exact number ``s`` (none canonical)."""
    out = [" " + s, s + " ", "+" + s, s.upper(), s.translate(UNICODE_DIGITS)]
    if "x" in s:
        mant, _, exp = s.partition("p")
        v = float.fromhex(s)
        out += [mant + ("0" if "." in mant else ".0") + "p" + exp, mant + "p" + exp[0] + "0" + exp[1:],
                s.replace("0x", "0x0", 1), mant + "P" + exp, v.hex(), core._short_hex(v)]
        if float.fromhex(s) == 0:
            out.append("-" + s)
    elif "/" in s:
        p, q = s.split("/")
        out += [f"{2 * int(p)}/{2 * int(q)}", f"{p}/0{q}"]
    else:
        out += ["0" + s.lstrip("-"), s + ".0", s + "/1", s + "e0"]
    return [v for v in out if v != s]


def _is_number(v) -> bool:
    return isinstance(v, str) and (v.startswith(("0x", "-0x")) or v.lstrip("-").replace("/", "").isascii()
                                   and v.lstrip("-").replace("/", "").isdecimal())


MUTATIONS = ("extra field", "bool for int", "int as text", "float for int", "number respelled")


def mutate(cert, kind, pick):
    """Apply mutation ``kind`` at the ``pick``-th place it can hit; ``None`` when it has no place."""
    if kind == "extra field":
        places = _places(cert, lambda v: isinstance(v, dict))
    elif kind == "number respelled":
        places = _places(cert, _is_number)
    else:
        places = _places(cert, lambda v: isinstance(v, int) and not isinstance(v, bool))
    if not places:
        return None
    path = places[pick % len(places)]
    parent, key, value = _at(cert, path[:-1]), path[-1], _at(cert, path)
    if kind == "extra field":
        value["note"] = "x"
    elif kind == "bool for int":
        parent[key] = value != 0
    elif kind == "int as text":
        parent[key] = [str(value), "0" + str(value), str(value).translate(UNICODE_DIGITS)][pick % 3]
    elif kind == "float for int":
        parent[key] = float(value)
    else:
        variants = _variants(value)
        parent[key] = variants[pick % len(variants)]
    return cert


@pytest.mark.parametrize("name", ["representation", "attention", "attention-rows", "interval"])
@SETTINGS
@given(kind=st.sampled_from(MUTATIONS), pick=st.integers(0, 10**6))
def test_a_mutated_spelling_of_any_field_is_refused(valid, name, kind, pick):
    cert = mutate(copy.deepcopy(valid[name]), kind, pick)
    if cert is not None:
        assert refused_by_spelling(cert)  # a reason, and not the claim comparison's


# -- the sets, indices and names of each kind, one by one -------------------------------------------------
def _swap(lst):
    lst[0], lst[1] = lst[1], lst[0]


REPRESENTATION_EDITS = {
    "edges unsorted": (lambda b: _swap(b["graph"]["edges"]), "increasing order"),
    "edge reversed": (lambda b: b["graph"]["edges"][0].reverse(), "u < v"),
    "edge duplicated": (lambda b: b["graph"]["edges"].insert(0, list(b["graph"]["edges"][0])), "each once"),
    "edge out of range": (lambda b: b["graph"]["edges"][-1].__setitem__(1, b["graph"]["nodes"]), "edge"),
    "elements unsorted": (lambda b: _swap(b["group"]["elements"]), "increasing order"),
    "element duplicated": (lambda b: b["group"]["elements"].append(list(b["group"]["elements"][-1])), "each once"),
    "element out of range": (lambda b: b["group"]["elements"][1].__setitem__(0, b["graph"]["nodes"]), "group element"),
    "labels unsorted": (lambda b: _swap(b["design"]["inputs"]), "increasing order"),
    "label duplicated": (lambda b: b["design"]["inputs"].insert(0, copy.deepcopy(b["design"]["inputs"][0])), "each once"),
    "label out of range": (lambda b: b["design"]["inputs"][-1]["label"].__setitem__(1, 99), "names no group element"),
    "irrep name duplicated": (lambda b: b["characters"]["irreps"][1].update(name=b["characters"]["irreps"][0]["name"]),
                              "distinct"),
    "irrep name with spaces": (lambda b: b["characters"]["irreps"][0].update(name="trivial: 1 x 999 = 999"), "name"),
    "coefficient out of range": (lambda b: b["characters"]["irreps"][0]["values"][0].__setitem__(0, 10**7), "coefficient"),
    "negative zero": (lambda b: b["design"]["bias"][0].__setitem__(0, "-0x0.0p+0"), "canonical spelling"),
    "short hex": (lambda b: b["design"]["bias"][0].__setitem__(0, "0x0p+0"), "canonical spelling"),
}


@pytest.mark.parametrize("edit", sorted(REPRESENTATION_EDITS))
def test_representation_blocks_have_one_spelling(valid, edit):
    cert = copy.deepcopy(valid["representation"])
    change, fragment = REPRESENTATION_EDITS[edit]
    change(cert["representation"])
    assert fragment in refused_by_spelling(cert)


ATTENTION_EDITS = {
    "selected row duplicated": (lambda c: c["selection"]["rows"].__setitem__(1, c["selection"]["rows"][0]), "distinct"),
    "selected row out of range": (lambda c: c["selection"]["rows"].__setitem__(0, 3), "selection.rows"),
    "decoder out of range": (lambda c: c["selection"]["decoder"].__setitem__(0, 3), "selection.decoder"),
    "full approximant with a field": (lambda c: c["approximant"].update(assign=[0, 0, 0]), "must have the fields"),
    "hex not exact": (lambda c: c["matrix"].update(beta="0x1.80000000000001p+2"), "beta"),
    "hex rounded to zero": (lambda c: c["matrix"]["Q"]["data"].__setitem__(1, "0x1p-1100"), "canonical spelling"),
}


@pytest.mark.parametrize("edit", sorted(ATTENTION_EDITS))
def test_attention_blocks_have_one_spelling(valid, edit):
    cert = copy.deepcopy(valid["attention"])
    change, fragment = ATTENTION_EDITS[edit]
    change(cert)
    assert fragment in refused_by_spelling(cert)


def test_a_representative_row_out_of_range_is_refused(valid):
    cert = copy.deepcopy(valid["attention-rows"])
    cert["approximant"]["assign"][0] = 4
    assert "approximant.assign" in refused_by_spelling(cert)


def _rename(payload, old, new):
    for group in ("arrays", "scalars", "indices"):
        if old in payload.get(group, {}):
            payload[group][new] = payload[group].pop(old)
    for step in payload["program"]:
        step["args"] = [new if a == old else a for a in step["args"]]
        step["out"] = new if step["out"] == old else step["out"]
    payload["target"] = new if payload["target"] == old else payload["target"]


INTERVAL_EDITS = {
    "identity size with a leading zero": (lambda p: _step(p, "identity")["args"].__setitem__(0, "03"), "identity"),
    "identity size in Unicode digits": (lambda p: _step(p, "identity")["args"].__setitem__(0, "٣"), "identity"),
    "a name defined twice": (lambda p: p["program"].insert(0, {"out": "err", "op": "transpose", "args": ["Q"]}),
                             "defined twice"),
    "a scalar shadowing an array": (lambda p: p["scalars"].update(Q="1"), "defined twice"),
    "a name that is not an identifier": (lambda p: _rename(p, "K", "K K"), "identifiers"),
    "a name in Unicode digits": (lambda p: _rename(p, "K", "K١"), "identifiers"),
    "an index out of range": (lambda p: p["indices"]["sel"].__setitem__(0, 3), "out of range"),
    "an unknown op": (lambda p: _step(p, "identity").update(op="eval"), "unknown op"),
    "a step with an extra field": (lambda p: p["program"][0].update(note="x"), "must have the fields"),
    "a missing argument": (lambda p: p["program"][0]["args"].pop(), "argument"),
    "an unknown relation": (lambda p: p.update(relation="=="), "relation"),
}


def _step(payload, op):
    return next(s for s in payload["program"] if s["op"] == op)


@pytest.mark.parametrize("edit", sorted(INTERVAL_EDITS))
def test_interval_payloads_have_one_spelling(valid, edit):
    cert = copy.deepcopy(valid["interval"])
    change, fragment = INTERVAL_EDITS[edit]
    change(cert["payload"])
    assert fragment in refused_by_spelling(cert)


# -- labels chosen by the file never reach the claim --------------------------------------------------------
def _text_without_digests(cert) -> str:
    return cert["claim"]["text"].replace(digest(cert[_block(cert)])[:16], "<sha>")


LABELS = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=0x7FF), min_size=0, max_size=70)


@SETTINGS
@given(label=LABELS, which=st.integers(0, 3))
def test_an_irrep_name_never_changes_the_claim_text(valid, label, which):
    cert = copy.deepcopy(valid["representation"])
    before = _text_without_digests(cert)
    cert["representation"]["characters"]["irreps"][which]["name"] = label
    try:
        after = derived(cert)
    except Reject:
        return  # a name outside LABEL (or a duplicate) is refused
    assert _text_without_digests(after) == before  # the text renders only derived numbers
    assert "differs" not in check(after)


@SETTINGS
@given(name=st.from_regex(att.NAME, fullmatch=True))
def test_a_target_name_never_enters_the_claim_text(valid, name):
    cert = copy.deepcopy(valid["interval"])
    before = _text_without_digests(cert)
    payload = cert["payload"]
    if name in {"Q", "K", "beta", "sel", "dec"} | {s["out"] for s in payload["program"]}:
        return
    _rename(payload, payload["target"], name)
    after = derived(cert)
    assert _text_without_digests(after) == before and after["claim"]["about"]["target"] == name
    check(after)


def test_source_text_is_not_part_of_an_attention_claim(valid):
    cert = copy.deepcopy(valid["attention"])
    cert["source"] = {"note": "r_eps(A) == 999"}
    assert "999" not in check(seal(cert))


# -- work budgets: refused before allocation, decided within the stated work ---------------------------------
# Measured as work (bytes with tracemalloc, Python lines, the checker's charged steps), never as seconds: the
# stated times of the budgets (MAX_IV_WORK, MAX_PRODUCT, rep.MAX_WORK) are measured by
# benchmarks/checker_budgets.py (BENCHMARKS.md, "Checker budgets").
def _decided(cert, *, memory: bool = False):
    """``(verdict, peak bytes or None)`` of checking ``cert`` (tracemalloc slows the check: only where asked)."""
    if memory:
        tracemalloc.start()
    try:
        check(cert)
        verdict = "accepted"
    except Reject as exc:
        verdict = str(exc)
    finally:
        peak = tracemalloc.get_traced_memory()[1] if memory else None
        if memory:
            tracemalloc.stop()
    return verdict, peak


def _interval(payload) -> dict:
    cert = {"schema_version": 1, "kind": "interval_inequality", "claim": {"text": "x"}, "payload": payload}
    return seal(cert)


def test_identity_steps_are_charged_before_they_are_built():
    """10^4 steps of identity(1000) once held 4 GiB; each is charged n^2 and the sixth is refused."""
    program = [{"out": f"I{s}", "op": "identity", "args": ["1000"]} for s in range(att.MAX_IV_STEPS)]
    verdict, peak = _decided(_interval({"arrays": {}, "scalars": {}, "program": program, "target": "I0",
                                        "relation": "<", "bound": "1"}), memory=True)
    assert "step 5 (identity)" in verdict and peak < 64 * 2**20  # loose: tracemalloc is on


def test_take_rows_is_charged_its_output_before_it_is_built():
    """take_rows of a 1 x 4000 array by 16384 indices would build 6.6e7 slots (0.5 GB of references):
    refused from the shapes, with under 64 MB allocated."""
    wide = {"shape": [1, 4000], "data": ["0"] * 4000}
    payload = {"arrays": {"A": wide}, "scalars": {}, "indices": {"ix": [0] * 16384},
               "program": [{"out": "B", "op": "take_rows", "args": ["A", "ix"]}], "target": "B",
               "relation": "<", "bound": "1"}
    verdict, peak = _decided(_interval(payload), memory=True)
    assert "take_rows" in verdict and peak < 64 * 2**20


def _exp_program(rows: int, pairs: int) -> dict:
    """``pairs`` times exp then softmax_rows of a rows x 1000 array, then its maximum: work ``rows 1000 (7 pairs + 1)``."""
    data = ["1/3", "-7/2", "0x1.8p-1", "0.25"] * (rows * 250)
    program, last = [], "X"
    for s in range(pairs):
        program += [{"out": f"E{s}", "op": "exp", "args": [last]}, {"out": f"S{s}", "op": "softmax_rows", "args": [f"E{s}"]}]
        last = f"S{s}"
    program.append({"out": "m", "op": "max_all", "args": [last]})
    return {"arrays": {"X": {"shape": [rows, 1000], "data": data}}, "scalars": {}, "program": program,
            "target": "m", "relation": "<", "bound": "100"}


@pytest.mark.parametrize("rows, share", [(20, 10), pytest.param(100, 1, marks=pytest.mark.slow)])
def test_an_interval_program_at_its_work_limit_is_decided(rows, share):
    """Stated budget: MAX_IV_WORK = 5e6 ball operations (plus 1e6 entries read); a program charged 1/share
    of it is decided, and (share 1) one more pair of steps is refused.  Its time: the benchmark."""
    pairs = (att.MAX_IV_WORK // share // (rows * 1000) - 1) // 7
    p = _exp_program(rows, pairs)
    assert att.read_program(p)["work"] == rows * 1000 * (7 * pairs + 1) > att.MAX_IV_WORK // share - 8 * rows * 1000
    cert = {"schema_version": 1, "kind": "interval_inequality", "claim": {}, "payload": p}
    cert["claim"] = att.derive_interval_claim(cert, [])
    verdict, _ = _decided(seal(cert))
    assert verdict == "accepted"
    if share == 1:
        with pytest.raises(Reject, match="past"):
            att.read_program(_exp_program(rows, pairs + 1))


@pytest.mark.parametrize("m, d", [(200, 40), pytest.param(1000, 200, marks=pytest.mark.slow)])
def test_an_attention_file_at_its_product_limit_is_decided(m, d):
    """Stated budget: m n d <= MAX_PRODUCT and m k n <= MAX_PRODUCT ball multiply-adds, m n <= 1e6 (the
    slow case is at the limit: 1000 * 1000 * 200 = MAX_PRODUCT).  Its time: the benchmark."""
    from algebra.attention_rank.certificates import _array, encode_number

    rng = np.random.default_rng(0)
    Q, K, L, R = rng.normal(size=(m, d)), rng.normal(size=(m, d)), rng.normal(size=(m, d)), rng.normal(size=(d, m))
    cert = {"schema_version": 1, "kind": "attention_rank", "claim": {"eps": "1/4", "text": "x"},
            "matrix": {"Q": _array(Q), "K": _array(K), "beta": encode_number(0.01)},
            "selection": {"rows": [0], "decoder": [0] * m},
            "approximant": {"method": "factors", "L": _array(L), "R": _array(R)}}
    assert m * m * d <= att.MAX_PRODUCT
    verdict, _ = _decided(seal(cert))
    assert "upper bound" in verdict  # random factors: far from A


def test_the_character_checks_are_charged_at_their_true_cost():
    """(Z_2)^7: r = |G| = 128, phi = 1.  The old count r^2 |G| phi^2 = 2e6 let r^3 |G| / 2 = 1.3e8 products
    run (minutes); the true count is refused before the first product: the refusal executes at most 10^7
    Python lines (measured 2.3 10^6, reading the 1 MB file), where the products alone would run 1.3 10^8."""
    cert = seal(dict(xor_cube(7, radius=0), claim={"text": "x"}))
    verdicts = []
    lines = lines_run(lambda: verdicts.append(_decided(cert)[0]))
    assert "the checks of (15)" in verdicts[0] and lines <= 10**7, (verdicts, lines)


@pytest.mark.parametrize("k", [3, pytest.param(5, marks=pytest.mark.slow)])
def test_a_representation_near_its_work_limit_is_decided(k):
    """Stated budget: MAX_WORK = 5e7 steps; the check is charged its steps and decided within them.  Its
    time (the budget's 60 s): the benchmark."""
    used = [0]
    charge = rep.charge

    def counting(work, cost, what, limit):
        used[0] += cost
        charge(work, cost, what, limit)

    cert = derived(xor_cube(k))
    rep.charge = counting
    try:
        verdict, _ = _decided(cert)
    finally:
        rep.charge = charge
    assert verdict == "accepted" and 0 < used[0] <= rep.MAX_WORK
