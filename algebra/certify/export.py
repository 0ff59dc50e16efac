"""Scripts that recompute a certificate's claim in Singular or Macaulay2.

For readers who trust a computer algebra system more than this toolkit:
:func:`export_script` writes the model's forward pass in the target
language (matrices of polynomials in the parameters ``t(1..P)``, the
activation applied entrywise), takes the Jacobian with the system's own
``jacob`` / ``jacobian``, substitutes the certificate's integer point, and
prints the rank over ``GF(p)`` there and at a point the system draws
itself, next to the claimed value, then ``AGREE`` or ``DISAGREE``.  The
rank at a point is a lower bound of the generic rank, so agreement
reproduces the certificate's lower bound at an independent point; the
upper bound is the checker's job.  Formula and interval certificates are not exported.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

from algebra.errors import InputError

__all__ = ["export_script", "SYSTEMS"]

SYSTEMS = ("singular", "m2")


def _q(c) -> str:
    f = Fraction(c)
    return str(f.numerator) if f.denominator == 1 else f"({f.numerator}/{f.denominator})"


class _Writer:
    """Emit the same linear algebra in Singular or Macaulay2 syntax."""

    def __init__(self, system: str, P: int):
        self.s, self.P, self.lines = system, P, []

    def var(self, k: int) -> str:  # k is 0-based
        return f"t({k + 1})" if self.s == "singular" else f"t_{k + 1}"

    def matrix(self, name, rows, cols, entries):
        entries = [str(e) for e in entries]
        if self.s == "singular":
            self.lines.append(f"matrix {name}[{rows}][{cols}] = {', '.join(entries)};")
        else:
            body = ", ".join("{" + ", ".join(entries[i * cols:(i + 1) * cols]) + "}" for i in range(rows))
            self.lines.append(f"{name} = matrix(R, {{{body}}});")

    def param_matrix(self, name, rows, cols, start):
        self.matrix(name, rows, cols, [self.var(start + i) for i in range(rows * cols)])
        return start + rows * cols

    def let(self, name, expr):
        self.lines.append(f"matrix {name} = {expr};" if self.s == "singular" else f"{name} = {expr};")

    def tr(self, m):
        return f"transpose({m})"

    def act(self, name, src, coeffs):
        """``name = sigma(src)`` entrywise for the polynomial with ``coeffs``."""
        poly = " + ".join(f"{_q(c)}*z^{k}" for k, c in enumerate(coeffs) if c) or "0"
        if self.s == "singular":
            self.lines.append(f"matrix {name}[nrows({src})][ncols({src})];")
            self.lines.append(f"for (i = 1; i <= nrows({src}); i++) {{ for (j = 1; j <= ncols({src}); j++) "
                              f"{{ z = {src}[i, j]; {name}[i, j] = {poly}; }} }}")
        else:
            self.lines.append(f"{name} = matrix apply(entries {src}, row -> apply(row, z -> {poly}));")


def _forward(w: _Writer, spec: dict, sample: list, tag: str) -> str:
    """Write the outputs at one sample as a column matrix; return its name."""
    fam = spec["family"]
    if fam == "mlp":
        widths, bias = spec["widths"], spec["bias"]
        eff = list(widths)
        for layer, ns in spec["inactive"].items():
            eff[int(layer)] -= len(ns)
        w.matrix(f"x{tag}", len(sample), 1, list(sample))
        cur, k = f"x{tag}", 0
        for l in range(1, len(eff)):
            w.lines.append(("// " if w.s == "singular" else "-- ") + f"layer {l}")
            k_w = k
            k += eff[l] * eff[l - 1]
            w.matrix(f"W{l}{tag}", eff[l], eff[l - 1], [w.var(k_w + i) for i in range(eff[l] * eff[l - 1])])
            expr = f"W{l}{tag} * {cur}"
            if bias:
                w.matrix(f"b{l}{tag}", eff[l], 1, [w.var(k + i) for i in range(eff[l])])
                k += eff[l]
                expr += f" + b{l}{tag}"
            w.let(f"z{l}{tag}", expr)
            cur = f"z{l}{tag}"
            if l < len(eff) - 1:
                w.act(f"a{l}{tag}", cur, [Fraction(c) for c in spec["activations"][l - 1]])
                cur = f"a{l}{tag}"
        return cur
    if fam == "attention":
        d, dout, t, a = spec["d"], spec["dout"], spec["tokens"], spec["rank"]
        w.matrix(f"X{tag}", d, t, list(sample))
        if a == d:
            w.matrix(f"A{tag}", d, d, [w.var(i) for i in range(d * d)])
            w.matrix(f"V{tag}", dout, d, [w.var(d * d + i) for i in range(dout * d)])
        else:
            w.matrix(f"K{tag}", a, d, [w.var(i) for i in range(a * d)])
            w.matrix(f"Q{tag}", a, d, [w.var(a * d + i) for i in range(a * d)])
            w.matrix(f"V{tag}", dout, d, [w.var(2 * a * d + i) for i in range(dout * d)])
            w.let(f"A{tag}", f"{w.tr(f'K{tag}')} * Q{tag}")
        w.let(f"Y{tag}", f"V{tag} * X{tag} * {w.tr(f'X{tag}')} * A{tag} * X{tag}")
        return f"Y{tag}"
    raise InputError("certificate", fam, "an mlp or attention model (others are exported without samples)")


def _outputs(w: _Writer, spec: dict, inputs: list) -> list:
    """Entry expressions of all outputs, sample-major, in the certificate's row order."""
    fam = spec["family"]
    if fam in ("qk", "linear"):
        if fam == "qk":
            d, k = spec["d"], spec["k"]
            w.matrix("A", d, k, [w.var(i) for i in range(d * k)])
            w.matrix("B", d, k, [w.var(d * k + i) for i in range(d * k)])
            w.let("C", f"A * {w.tr('B')}")
            rows, cols = d, d
        else:
            ws, k, names = spec["widths"], 0, []
            for l in range(1, len(ws)):
                w.matrix(f"W{l}", ws[l], ws[l - 1], [w.var(k + i) for i in range(ws[l] * ws[l - 1])])
                k += ws[l] * ws[l - 1]
                names.append(f"W{l}")
            w.let("C", " * ".join(reversed(names)))
            rows, cols = ws[-1], ws[0]
        return [_entry(w, "C", i, j) for i in range(rows) for j in range(cols)]
    if fam == "polynomial":
        raise InputError("certificate", fam, "a network family (polynomial maps are exported by the user's own text)")
    out = []
    for s, sample in enumerate(inputs):
        name = _forward(w, spec, sample, f"s{s}")
        if fam == "mlp":
            out += [_entry(w, name, i, 0) for i in range(spec["widths"][-1])]
        else:
            out += [_entry(w, name, i, j) for i in range(spec["dout"]) for j in range(spec["tokens"])]
    return out


def _entry(w: _Writer, m: str, i: int, j: int) -> str:
    return f"{m}[{i + 1}, {j + 1}]" if w.s == "singular" else f"{m}_({i}, {j})"


def export_script(cert: dict, system: str) -> str:
    """A Singular (``system="singular"``) or Macaulay2 (``"m2"``) script for a rank certificate.

    Examples
    --------
    >>> from algebra.certify.emit import dimension_certificate
    >>> from algebra.models import QueryKey
    >>> text = export_script(dimension_certificate(QueryKey(2, 1)).certificate, "singular")
    >>> "jacob" in text and "AGREE" in text
    True
    """
    if system not in SYSTEMS:
        raise InputError("system", system, "singular or m2")
    if cert.get("kind") not in ("rank_lower_bound", "rank_upper_bound", "dimension", "defect"):
        raise InputError("certificate", cert.get("kind"), "a rank, dimension or defect certificate")
    spec, point = cert["model"], cert["point"]
    theta = [int(v) for v in point["theta"]]
    inputs = [[int(v) for v in row] for row in point["inputs"]]
    P, p = len(theta), int(point["prime"])
    value = cert["claim"]["value"]
    rows = cert.get("lower", {}).get("rows")
    w = _Writer(system, P)
    sing = system == "singular"
    c = "//" if sing else "--"
    head = [f"{c} neuroalgebra export: recompute the claim of a {cert['kind']} certificate",
            f"{c} claim: {cert['claim']['text']}",
            f"{c} certificate sha256 {cert['sha256']}; model {json.dumps(spec, sort_keys=True)[:200]}"]
    if sing:
        head += [f"ring R = {p}, (t(1..{P})), dp;", "int i; int j; poly z;"]
    else:
        head += [f"R = ZZ/{p}[t_1..t_{P}];"]
    outs = _outputs(w, spec, inputs)
    if rows is not None:
        outs = [outs[r] for r in sorted(rows)]
    point_list = ", ".join(str(v) for v in theta)
    # rank at the certificate's point, and at a point the system draws itself (same samples)
    if sing:
        tail = [f"ideal F = {', '.join(outs)};",
                "matrix J = jacob(F);",
                f"map phi = R, {point_list};",
                "matrix J0 = phi(J);",
                "int r = rank(J0);",
                f"ideal rnd; for (i = 1; i <= {P}; i++) {{ rnd[i] = random(1, 2147483647); }}",
                "map psi = R, rnd;",
                "int r2 = rank(psi(J));",
                f'print("rank at the point over GF({p}): " + string(r) + "; at a random point: " + string(r2) '
                f'+ "; claimed: {value}");',
                f'if (r == {value} && r2 == {value}) {{ print("AGREE"); }} else {{ print("DISAGREE"); }}',
                "quit;"]
    else:
        tail = [f"F = matrix {{{{{', '.join(outs)}}}}};",
                "J = jacobian F;",
                f"J0 = sub(J, matrix {{{{{point_list}}}}});",
                "r = rank J0;",
                f"r2 = rank sub(J, matrix {{apply({P}, i -> random(ZZ/{p}))}});",
                f'print("rank at the point over GF({p}): " | toString r | "; at a random point: " | toString r2 '
                f'| "; claimed: {value}");',
                f'print(if r == {value} and r2 == {value} then "AGREE" else "DISAGREE");',
                "exit 0"]
    return "\n".join(head + w.lines + tail) + "\n"


def export_file(path, system: str, out=None) -> str:
    """Read a certificate file, write the script next to it (or to ``out``); return the script path."""
    cert = json.loads(Path(path).read_text())
    text = export_script(cert, system)
    target = Path(out) if out else Path(path).with_suffix(".sing" if system == "singular" else ".m2")
    from algebra.certify.canonical import write_atomic

    write_atomic(target, text.encode())
    return str(target)
