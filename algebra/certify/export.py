"""Scripts that recompute a certificate's claim in Singular or Macaulay2, and run them.

For readers who trust a computer algebra system more than this toolkit:
:func:`export_script` writes the model's outputs in the target language as
polynomials in the parameters ``t(1..P)`` and the inputs ``x(1..n)`` (the
forward pass of a network family, or a user polynomial map term by term),
and computes two ranks over ``GF(p)`` with the system's own ``jacob`` /
``jacobian``:

* **the full Jacobian** (the upper-bound side): every coefficient, in the
  parameters, of every output as a polynomial in the inputs (Singular
  ``coef``, Macaulay2 ``coefficients``) -- the coordinates of the
  neuromanifold's ambient space -- differentiated and evaluated at a point
  the system draws itself.  Its rank is the generic rank with high
  probability, so a certificate whose claimed value is too *small* (a false
  upper bound) shows up as a larger rank here.  Nothing of the
  certificate's witnesses is used.
* **the witness minor** (the lower-bound side): the rows and columns of the
  certificate's ``lower`` block at its own point and samples.

The script prints both next to the claim, then ``AGREE`` (the full rank
matches the claim's relation and the minor has full rank) or ``DISAGREE``.
:func:`crosscheck` runs the script when the system is installed.  Formula
certificates of ``regular_model`` are exported through their rank block;
closed-form formula and interval certificates have no rank to recompute.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from fractions import Fraction
from pathlib import Path

from algebra.errors import InputError

__all__ = ["export_script", "export_file", "crosscheck", "SYSTEMS", "PEERS"]

SYSTEMS = ("singular", "m2")
PEERS = {"singular": ["Singular", "-q"], "m2": ["M2", "--script"]}
RANK_KINDS = ("rank_lower_bound", "rank_upper_bound", "dimension", "defect")


class _Writer:
    """Emit the same linear algebra in Singular or Macaulay2 syntax (coefficients as residues mod p)."""

    def __init__(self, system: str, P: int, p: int):
        self.s, self.P, self.p, self.lines = system, P, p, []

    def var(self, k: int) -> str:  # k is 0-based
        return f"t({k + 1})" if self.s == "singular" else f"t_{k + 1}"

    def xvar(self, k: int) -> str:
        return f"x({k + 1})" if self.s == "singular" else f"x_{k + 1}"

    def q(self, c) -> str:
        """An exact rational as its residue modulo the ring's prime."""
        f = Fraction(c)
        return str(f.numerator * pow(f.denominator, -1, self.p) % self.p)

    def comment(self, text: str) -> None:
        self.lines.append(("// " if self.s == "singular" else "-- ") + text)

    def matrix(self, name, rows, cols, entries):
        entries = [str(e) for e in entries]
        if self.s == "singular":
            self.lines.append(f"matrix {name}[{rows}][{cols}] = {', '.join(entries)};")
        else:
            body = ", ".join("{" + ", ".join(entries[i * cols:(i + 1) * cols]) + "}" for i in range(rows))
            self.lines.append(f"{name} = matrix(R, {{{body}}});")

    def let(self, name, expr):
        self.lines.append(f"matrix {name} = {expr};" if self.s == "singular" else f"{name} = {expr};")

    def tr(self, m):
        return f"transpose({m})"

    def act(self, name, src, coeffs):
        """``name = sigma(src)`` entrywise for the polynomial with ``coeffs``."""
        poly = " + ".join(f"{self.q(c)}*z^{k}" for k, c in enumerate(coeffs) if Fraction(c)) or "0"
        if self.s == "singular":
            self.lines.append(f"matrix {name}[nrows({src})][ncols({src})];")
            self.lines.append(f"for (i = 1; i <= nrows({src}); i++) {{ for (j = 1; j <= ncols({src}); j++) "
                              f"{{ z = {src}[i, j]; {name}[i, j] = {poly}; }} }}")
        else:
            self.lines.append(f"{name} = matrix apply(entries {src}, row -> apply(row, z -> {poly}));")

    def entry(self, m: str, i: int, j: int) -> str:
        return f"{m}[{i + 1}, {j + 1}]" if self.s == "singular" else f"{m}_({i}, {j})"


def _mlp_inputs(spec: dict) -> int:
    return spec["widths"][0]


def _mlp_outputs(w: _Writer, spec: dict, xs: list) -> list:
    eff = list(spec["widths"])
    for layer, ns in spec["inactive"].items():
        eff[int(layer)] -= len(ns)
    w.matrix("X", len(xs), 1, xs)
    cur, k = "X", 0
    for l in range(1, len(eff)):
        w.comment(f"layer {l}")
        w.matrix(f"W{l}", eff[l], eff[l - 1], [w.var(k + i) for i in range(eff[l] * eff[l - 1])])
        k += eff[l] * eff[l - 1]
        expr = f"W{l} * {cur}"
        if spec["bias"]:
            w.matrix(f"b{l}", eff[l], 1, [w.var(k + i) for i in range(eff[l])])
            k += eff[l]
            expr += f" + b{l}"
        w.let(f"Z{l}", expr)
        cur = f"Z{l}"
        if l < len(eff) - 1:
            w.act(f"S{l}", cur, spec["activations"][l - 1])
            cur = f"S{l}"
    return [w.entry(cur, i, 0) for i in range(eff[-1])]


def _attention_inputs(spec: dict) -> int:
    return spec["d"] * spec["tokens"]


def _attention_outputs(w: _Writer, spec: dict, xs: list) -> list:
    d, dout, t, a = spec["d"], spec["dout"], spec["tokens"], spec["rank"]
    w.matrix("X", d, t, xs)
    if a == d:
        w.matrix("A", d, d, [w.var(i) for i in range(d * d)])
        w.matrix("V", dout, d, [w.var(d * d + i) for i in range(dout * d)])
    else:
        w.matrix("K", a, d, [w.var(i) for i in range(a * d)])
        w.matrix("Q", a, d, [w.var(a * d + i) for i in range(a * d)])
        w.matrix("V", dout, d, [w.var(2 * a * d + i) for i in range(dout * d)])
        w.let("A", f"{w.tr('K')} * Q")
    w.let("Y", f"V * X * {w.tr('X')} * A * X")
    return [w.entry("Y", i, j) for i in range(dout) for j in range(t)]


def _qk_outputs(w: _Writer, spec: dict, xs: list) -> list:
    d, k = spec["d"], spec["k"]
    w.matrix("A", d, k, [w.var(i) for i in range(d * k)])
    w.matrix("B", d, k, [w.var(d * k + i) for i in range(d * k)])
    w.let("C", f"A * {w.tr('B')}")
    return [w.entry("C", i, j) for i in range(d) for j in range(d)]


def _linear_outputs(w: _Writer, spec: dict, xs: list) -> list:
    ws, k, names = spec["widths"], 0, []
    for l in range(1, len(ws)):
        w.matrix(f"W{l}", ws[l], ws[l - 1], [w.var(k + i) for i in range(ws[l] * ws[l - 1])])
        k += ws[l] * ws[l - 1]
        names.append(f"W{l}")
    w.let("C", " * ".join(reversed(names)))
    return [w.entry("C", i, j) for i in range(ws[-1]) for j in range(ws[0])]


def _polynomial_inputs(spec: dict) -> int:
    return spec["inputs"]


def _polynomial_outputs(w: _Writer, spec: dict, xs: list) -> list:
    names = [w.var(i) for i in range(spec["parameters"])] + xs
    return [" + ".join("*".join([w.q(c)] + [f"{names[i]}^{e}" for i, e in mono]) for mono, c in poly) or "0"
            for poly in spec["polynomials"]]


#: The export's readable matrix forms, by the spec's family: ``(number of inputs, outputs written in the
#: system's matrix language)``.  A table, not a switch, and not needed for a new family: any other family of
#: :data:`algebra.models.registry.SPEC_FAMILIES` is exported as its polynomial map (:func:`_as_polynomial_spec`:
#: the family's own ``from_spec`` and the one symbolic evaluator), term by term.
MATRIX_FORMS = {
    "mlp": (_mlp_inputs, _mlp_outputs),
    "attention": (_attention_inputs, _attention_outputs),
    "qk": (lambda spec: 0, _qk_outputs),
    "linear": (lambda spec: 0, _linear_outputs),
    "polynomial": (_polynomial_inputs, _polynomial_outputs),
}


def _as_polynomial_spec(spec: dict) -> dict:
    """A spec of a family without a matrix form, as the spec of its polynomial map (same parameters and inputs,
    in the family's own order, which is the order of the certificate's point)."""
    from algebra.models.registry import as_polynomial_map, from_spec

    return as_polynomial_map(from_spec(spec)).to_spec()


def _form(spec: dict) -> tuple:
    """``(spec, number of inputs, outputs writer)``: the family's matrix form, or its polynomial map's."""
    if spec.get("family") not in MATRIX_FORMS:
        spec = _as_polynomial_spec(spec)
    inputs, outputs = MATRIX_FORMS[spec["family"]]
    return spec, inputs(spec), outputs


def _rank_block(cert: dict) -> dict:
    """The certificate itself (rank kinds) or the rank block of a ``regular_model`` formula certificate."""
    kind = cert.get("kind")
    if kind in RANK_KINDS:
        return cert
    formula = cert.get("formula") if kind == "formula" else None
    if isinstance(formula, dict) and formula.get("name") == "regular_model":
        block = dict(formula["rank"], kind="dimension")  # lambda = rank / 2
        block["claim"] = {"relation": "==", "value": int(2 * Fraction(formula["lambda"])), "text": cert["claim"]["text"]}
        return block
    raise InputError("certificate", kind, "a rank, dimension or defect certificate (or a regular_model formula)")


def export_script(cert: dict, system: str) -> str:
    """A Singular (``system="singular"``) or Macaulay2 (``"m2"``) script for a rank certificate.

    Examples
    --------
    >>> from algebra.certify.rank import dimension_certificate
    >>> from algebra.models import QueryKey
    >>> text = export_script(dimension_certificate(QueryKey(2, 1)).certificate, "singular")
    >>> "jacob(G)" in text and "ideal G = F;" in text   # no inputs: the outputs are the coordinates
    True
    >>> export_script({"kind": "formula", "formula": {"name": "query_key"}}, "singular")
    Traceback (most recent call last):
    ...
    algebra.errors.InputError: invalid certificate='formula': expected a rank, dimension or defect certificate (or a regular_model formula)
    """
    if system not in SYSTEMS:
        raise InputError("system", system, "singular or m2")
    block = _rank_block(cert)
    spec, point, kind = block["model"], block["point"], block["kind"]
    theta = [int(v) for v in point["theta"]]
    inputs = [[int(v) for v in row] for row in point["inputs"]]
    spec, n, outputs = _form(spec)
    P, p = len(theta), int(point["prime"])
    rel = {"rank_lower_bound": ">=", "rank_upper_bound": "<="}.get(kind, "==")
    value = block["claim"]["value"]
    w = _Writer(system, P, p)
    sing = system == "singular"
    c = "//" if sing else "--"
    head = [f"{c} neuroalgebra export: recompute the claim of a {cert['kind']} certificate",
            f"{c} claim: {cert['claim']['text']}",
            f"{c} certificate sha256 {cert.get('sha256')}",
            f"{c} full Jacobian: every coefficient (in the parameters t) of every output as a polynomial in the",
            f"{c} inputs x, differentiated and evaluated at a random point (upper-bound side);",
            f"{c} witness minor: the certificate's lower block at its own point and samples (lower-bound side)."]
    if sing:
        xs = f", x(1..{n})" if n else ""
        head += [f"ring R = {p}, (t(1..{P}){xs}), dp;", "int i; int j; int g; poly z;"]
    else:
        xs = f", x_1..x_{n}" if n else ""
        head += [f"R = ZZ/{p}[t_1..t_{P}{xs}];"]
    outs = outputs(w, spec, [w.xvar(k) for k in range(n)])
    zeros = ["0"] * n
    rows, cols = (block["lower"]["rows"], block["lower"]["cols"]) if "lower" in block else ([], [])
    need_samples = sorted({r // len(outs) for r in rows})
    at_theta = [str(v) for v in theta]
    wanted = "rwit == " + str(len(rows)) if rows else "1 == 1"
    full = {"==": "rfull == ", ">=": "rfull >= ", "<=": "rfull <= "}[rel] + str(value)
    if sing:
        tail = [f"ideal F = {', '.join(outs)};"]
        if n:
            xprod = "*".join(w.xvar(k) for k in range(n))
            tail += ["ideal G; g = 0;",
                     "for (i = 1; i <= ncols(F); i++) { if (F[i] != 0) { matrix C = coef(F[i], " + xprod + "); "
                     "for (j = 1; j <= ncols(C); j++) { g++; G[g] = C[2, j]; } kill C; } }"]
        else:
            tail += ["ideal G = F;"]
        tail += ["matrix J = jacob(G);",
                 f"ideal rnd; for (i = 1; i <= {P}; i++) {{ rnd[i] = random(1, 2147483647); }}"
                 + (f" for (i = {P + 1}; i <= {P + n}; i++) {{ rnd[i] = 0; }}" if n else ""),
                 "map psi = R, rnd;",
                 "int rfull = rank(psi(J));",
                 "ideal W; int rwit = 0;"]
        for s in need_samples:  # the outputs at the certificate's sample s (parameters kept symbolic)
            images = [w.var(k) for k in range(P)] + ([str(v) for v in inputs[s]] if inputs else [])
            tail += [f"map m{s} = R, {', '.join(images)};", f"ideal F{s} = m{s}(F);"]
        for k, r in enumerate(rows):
            tail.append(f"W[{k + 1}] = F{r // len(outs)}[{r % len(outs) + 1}];")
        if rows:
            tail += ["matrix JW = jacob(W);",
                     f"intvec rr = 1..{len(rows)};",
                     f"intvec cc = {', '.join(str(j + 1) for j in cols)};",
                     f"map phi = R, {', '.join(at_theta + zeros)};",
                     f"matrix M[{len(rows)}][{len(rows)}];",
                     f"for (i = 1; i <= {len(rows)}; i++) {{ for (j = 1; j <= {len(rows)}; j++) "
                     "{ M[i, j] = JW[rr[i], cc[j]]; } }",
                     "rwit = rank(phi(M));"]
        tail += [f'print("full Jacobian rank at a random point over GF({p}): " + string(rfull) + "; witness minor '
                 f'rank at the certificate point: " + string(rwit) + " of {len(rows)}; claimed: rank {rel} {value}");',
                 f'if ({full} && {wanted}) {{ print("AGREE"); }} else {{ print("DISAGREE"); }}',
                 "quit;"]
    else:
        tail = [f"F = matrix {{{{{', '.join(outs)}}}}};"]
        if n:
            xl = ", ".join(w.xvar(k) for k in range(n))
            tail += [f"G = matrix {{flatten apply(flatten entries F, f -> flatten entries last coefficients(f, "
                     f"Variables => {{{xl}}}))}};"]
        else:
            tail += ["G = F;"]
        tail += ["J = jacobian G;",
                 f"rfull = rank sub(J, matrix {{join(apply({P}, i -> random(ZZ/{p})), toList({n}:0_(ZZ/{p})))}});",
                 "rwit = 0;"]
        for s in need_samples:
            vals = ", ".join([w.var(k) for k in range(P)] + ([str(v) for v in inputs[s]] if inputs else []))
            tail.append(f"F{s} = flatten entries sub(F, matrix {{{{{vals}}}}});")
        if rows:
            picks = ", ".join(f"F{r // len(outs)}#{r % len(outs)}" for r in rows)
            tail += [f"W = matrix {{{{{picks}}}}};",
                     f"JW = transpose jacobian W;",
                     f"rwit = rank sub(submatrix(JW, toList(0..{len(rows) - 1}), {{{', '.join(map(str, cols))}}}), "
                     f"matrix {{{{{', '.join(at_theta + zeros)}}}}});"]
        tail += [f'print("full Jacobian rank at a random point over GF({p}): " | toString rfull | "; witness minor '
                 f'rank at the certificate point: " | toString rwit | " of {len(rows)}; claimed: rank {rel} {value}");',
                 f'print(if {full} and {wanted} then "AGREE" else "DISAGREE");',
                 "exit 0"]
    return "\n".join(head + w.lines + tail) + "\n"


def export_file(path, system: str, out=None) -> str:
    """Read a certificate file, write the script next to it (or to ``out``); return the script path."""
    from algebra.certify.canonical import write_atomic

    cert = json.loads(Path(path).read_text())
    text = export_script(cert, system)
    target = Path(out) if out else Path(path).with_suffix(".sing" if system == "singular" else ".m2")
    write_atomic(target, text.encode())
    return str(target)


def crosscheck(path, system: str, *, timeout: float = 600) -> dict:
    """Run the exported script in the peer; ``{"file", "status", "output"}`` with status
    ``agree`` / ``disagree`` / ``skipped`` (no rank to recompute) / ``unavailable`` (peer not installed).

    Examples
    --------
    >>> crosscheck("no/such.json", "singular")["status"] in ("unavailable", "skipped")
    True
    """
    if system not in SYSTEMS:
        raise InputError("system", system, "singular or m2")
    if shutil.which(PEERS[system][0]) is None:
        return {"file": str(path), "status": "unavailable", "output": f"{PEERS[system][0]} is not installed"}
    try:
        text = export_script(json.loads(Path(path).read_text()), system)
    except (OSError, ValueError, KeyError, TypeError, InputError) as exc:
        return {"file": str(path), "status": "skipped", "output": f"no rank to recompute ({type(exc).__name__}: {exc})"}
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / ("s.sing" if system == "singular" else "s.m2")
        script.write_text(text)
        try:
            run = subprocess.run(PEERS[system] + [str(script)], capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"file": str(path), "status": "disagree", "output": f"{PEERS[system][0]} timed out after {timeout} s"}
    out = run.stdout + run.stderr
    agree = "AGREE" in out.split() and "DISAGREE" not in out
    return {"file": str(path), "status": "agree" if agree else "disagree", "output": out.strip()[-2000:]}
