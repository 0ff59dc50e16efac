"""Peer routes for the Jacobian-rank benchmark (``bench_rank.py``).

Every route answers the same question for one model: the rank of the
Jacobian of its parametrization map at one point.  Each peer is written the
way a user of that tool would write it:

* **float** -- the Jacobian at a random *real* point (standard normal
  parameters and inputs) in float64, then ``numpy.linalg.matrix_rank`` (an
  SVD).  The Jacobian is built with this package's own float evaluator, which
  is as cheap as any autodiff; the cost measured is the SVD.  Proves nothing.
* **sympy** -- the parametrization symbolically (shallow: the coefficients
  of ``sum_i v_i (w_i.x)^3`` as polynomials in the parameters; MLP: the
  network's output at each integer sample input as an expression in the
  parameters), ``Matrix.jacobian``, substitution of the integer (rational)
  point with ``xreplace``, then the exact rank over Q through
  ``Matrix.to_DM().rank()`` (sympy's DomainMatrix, flint-backed; the plain
  ``Matrix.rank()`` did not finish a 56 x 70 case in minutes).
* **Singular**, **Macaulay2** -- a ring over ``ZZ/p`` whose variables are
  the parameters (and the inputs, for the shallow family), the polynomial
  built with ring arithmetic, its partial derivatives (``diff``), a ring map
  sending the parameters to the same integer point, the coefficient matrix
  (shallow) or the matrix of values (MLP), and ``rank``.

Peers run in a child process under a wall-clock cap (``run_capped``) so the
benchmark can record where each gives up.  The point and inputs are those of
our certified run, passed through a JSON file, so the exact routes (ours mod
p, sympy over Q, Singular and Macaulay2 mod p) must report the same rank.

Run a sympy route directly (this is what ``run_capped`` does)::

    python benchmarks/rank_peers.py sympy PROBLEM.json
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from algebra.errors import InputError

__all__ = [
    "PeerResult",
    "float_rank",
    "float_lu_seconds",
    "problem_dict",
    "run_capped",
    "singular_script",
    "macaulay2_script",
    "tool_versions",
    "PEERS",
]

PEERS = ("float", "sympy", "singular", "macaulay2")
_HERE = Path(__file__).resolve().parent


class PeerResult(dict):
    """``{"peer", "status": ok|timeout|error|absent, "rank", "seconds", "detail"}``."""


# -- the problem, shared by every route -----------------------------------------------------------------------------


def problem_dict(family: str, sizes: dict, result, activation=(0, 0, 1), bias: bool = True) -> dict:
    """The JSON-able description of one rank question, from our ``DimensionResult``.

    ``family`` is ``"shallow"`` (``sizes = {"n", "width", "degree"}``,
    coefficient mode) or ``"mlp"`` (``sizes = {"widths"}``, sample mode on
    ``result.inputs``).  ``activation`` lists the integer coefficients of the
    hidden activation, lowest degree first.
    """
    return {
        "family": family,
        "sizes": sizes,
        "activation": [int(c) for c in activation],
        "bias": bias,
        "prime": result.prime,
        "theta": [int(v) for v in result.theta],
        "inputs": [[int(v) for v in row] for row in result.inputs],
        "rows": int(result.samples) if family == "mlp" else None,
    }


# -- float64 SVD (numpy) -----------------------------------------------------------------------------------------


def float_rank(model, family: str, rows: int, rng: np.random.Generator, clock=time.perf_counter) -> tuple:
    """``(rank, seconds_build, seconds_svd)`` of the float64 Jacobian at a random real point."""
    from algebra.exact.field import FloatField

    F = FloatField()
    t0 = clock()
    theta = rng.standard_normal(model.parameter_count)
    if family == "shallow":
        J = model.coefficient_jacobian(theta, F)
    else:
        X = rng.standard_normal((rows, model.n_inputs))
        J = model.jacobian(theta, X, F)
    t1 = clock()
    r = int(np.linalg.matrix_rank(J))
    t2 = clock()
    return r, t1 - t0, t2 - t1


def float_lu_seconds(J, clock=time.perf_counter) -> float:
    """Seconds of ``scipy.linalg.lu_factor`` (LAPACK ``dgetrf``) on a float64 copy of ``J``: the physical limit.

    Partial pivoting in floating point proves no rank; it is the cost of one
    dense elimination of the same matrix at BLAS speed.
    """
    from scipy.linalg import lu_factor

    A = np.array(J, dtype=np.float64, order="F")  # dgetrf works in place on a Fortran array: no hidden copy
    t0 = clock()
    lu_factor(A, overwrite_a=True, check_finite=False)
    return clock() - t0


# -- sympy (run in a child process) -----------------------------------------------------------------------------------


def _sympy_shallow(prob: dict):
    import sympy as sp

    n, h, k = prob["sizes"]["n"], prob["sizes"]["width"], prob["sizes"]["degree"]
    xs = sp.symbols(f"x0:{n}")
    W = sp.symbols(f"w0:{h * n}")  # W1 (h, n) row-major, then v = W2 (1, h): our column order
    v = sp.symbols(f"v0:{h}")
    params = list(W) + list(v)
    f = sum(v[i] * sum(W[i * n + j] * xs[j] for j in range(n)) ** k for i in range(h))
    coeffs = sp.Poly(f, *xs).coeffs()
    J = sp.Matrix(coeffs).jacobian(params)
    Jp = J.xreplace(dict(zip(params, [sp.Integer(t) for t in prob["theta"]])))
    return int(Jp.to_DM().rank())  # DomainMatrix over ZZ; Matrix.rank() did not finish a 56 x 70 case in minutes


def _sympy_mlp(prob: dict):
    import sympy as sp

    widths = prob["sizes"]["widths"]
    act = prob["activation"]
    bias = prob["bias"]
    params, blocks = [], []
    for l in range(1, len(widths)):
        W = sp.Matrix(widths[l], widths[l - 1], sp.symbols(f"W{l}_0:{widths[l] * widths[l - 1]}"))
        params += list(W)
        b = None
        if bias:
            b = sp.Matrix(widths[l], 1, sp.symbols(f"b{l}_0:{widths[l]}"))
            params += list(b)
        blocks.append((W, b))
    outputs = []
    for x in prob["inputs"]:
        a = sp.Matrix(len(x), 1, [sp.Integer(t) for t in x])
        for l, (W, b) in enumerate(blocks, start=1):
            z = W * a + (b if b is not None else sp.zeros(W.rows, 1))
            a = z.applyfunc(lambda t: sum(c * t**e for e, c in enumerate(act) if c)) if l < len(blocks) else z
        outputs += list(a)
    J = sp.Matrix(outputs).jacobian(params)
    Jp = J.xreplace(dict(zip(params, [sp.Integer(t) for t in prob["theta"]])))
    return int(Jp.to_DM().rank())  # DomainMatrix over ZZ; Matrix.rank() did not finish a 56 x 70 case in minutes


def _sympy_main(path: str) -> None:
    prob = json.loads(Path(path).read_text())
    t0 = time.perf_counter()
    r = _sympy_shallow(prob) if prob["family"] == "shallow" else _sympy_mlp(prob)
    print(json.dumps({"rank": r, "seconds": time.perf_counter() - t0}))


# -- Singular ----------------------------------------------------------------------------------------------------------


def singular_script(prob: dict) -> str:
    """A Singular program printing ``RANK <r>`` and ``SECONDS <s>`` for the problem."""
    p = prob["prime"]
    theta = ",".join(str(t % p) for t in prob["theta"])
    head = 'system("--ticks-per-sec", 1000);\nint t0 = rtimer;\n'
    tail = 'print("RANK " + string(rk));\nprint("MILLISECONDS " + string(rtimer - t0));\nquit;\n'
    if prob["family"] == "shallow":
        n, h, k = prob["sizes"]["n"], prob["sizes"]["width"], prob["sizes"]["degree"]
        body = f"""ring r = {p}, (x(1..{n}), w(1..{h})(1..{n}), v(1..{h})), dp;
int i; int j; poly f = 0; poly s;
for (i = 1; i <= {h}; i++) {{
  s = 0;
  for (j = 1; j <= {n}; j++) {{ s = s + w(i)(j) * x(j); }}
  f = f + v(i) * s^{k};
}}
ideal D;
for (i = {n} + 1; i <= nvars(r); i++) {{ D[i - {n}] = diff(f, var(i)); }}
ring S = {p}, (x(1..{n})), dp;
map phi = r, x(1..{n}), {theta};
ideal Ds = phi(D);
matrix C = coeffs(Ds, maxideal({k}));
int rk = rank(C);
"""
        return head + body + tail
    widths = prob["sizes"]["widths"]
    bias = prob["bias"]
    act = prob["activation"]
    names = []
    decl = []
    for l in range(1, len(widths)):
        names.append(f"W{l}(1..{widths[l]})(1..{widths[l - 1]})")
        if bias:
            names.append(f"b{l}(1..{widths[l]})")
    lines = [f"ring r = {p}, ({', '.join(names)}), dp;"]
    for l in range(1, len(widths)):
        decl.append(f"matrix MW{l}[{widths[l]}][{widths[l - 1]}];")
        decl.append(f"for (i = 1; i <= {widths[l]}; i++) {{ for (j = 1; j <= {widths[l - 1]}; j++) {{ MW{l}[i, j] = W{l}(i)(j); }} }}")
        decl.append(f"matrix MB{l}[{widths[l]}][1];")
        if bias:
            decl.append(f"for (i = 1; i <= {widths[l]}; i++) {{ MB{l}[i, 1] = b{l}(i); }}")
    lines.append("int i; int j; int m;")
    lines += decl
    act_expr = " + ".join(f"{c}*t^{e}" if e else f"{c}" for e, c in enumerate(act) if c)
    lines.append(f"proc act(poly t) {{ return({act_expr}); }}")
    M = len(prob["inputs"])
    L = len(widths) - 1
    lines.append(f"matrix X[{widths[0]}][{M}];")
    for m, x in enumerate(prob["inputs"], start=1):
        lines.append(" ".join(f"X[{i},{m}] = {v % p};" for i, v in enumerate(x, start=1)))
    lines.append(f"ideal D; matrix X0[{widths[0]}][1]; matrix a; matrix z;")
    lines.append(f"for (m = 1; m <= {M}; m++) {{")
    lines.append(f"  a = X0; for (i = 1; i <= {widths[0]}; i++) {{ a[i, 1] = X[i, m]; }}")
    for l in range(1, L + 1):
        lines.append(f"  z = MW{l} * a + MB{l};")
        if l < L:
            lines.append(f"  for (i = 1; i <= {widths[l]}; i++) {{ z[i, 1] = act(z[i, 1]); }}")
            lines.append("  a = z;")
    lines.append(f"  for (i = 1; i <= {widths[L]}; i++) {{ D[({widths[L]}) * (m - 1) + i] = z[i, 1]; }}")
    lines.append("}")
    lines.append("matrix JD = jacob(D);")
    lines.append(f"ring S = {p}, (dummy), dp;")
    lines.append(f"map phi = r, {theta};")
    lines.append("matrix JS = phi(JD);")
    lines.append("int rk = rank(JS);")
    return head + "\n".join(lines) + "\n" + tail


# -- Macaulay2 ---------------------------------------------------------------------------------------------------------


def macaulay2_script(prob: dict) -> str:
    """A Macaulay2 program printing ``RANK <r>`` and ``SECONDS <s>`` for the problem."""
    p = prob["prime"]
    theta = ",".join(str(t % p) for t in prob["theta"])
    head = "kk = ZZ/" + str(p) + ";\nT = elapsedTiming (\n"
    tail = 'rk);\nprint("RANK " | toString(T#1));\nprint("SECONDS " | toString(T#0));\nexit 0;\n'
    if prob["family"] == "shallow":
        n, h, k = prob["sizes"]["n"], prob["sizes"]["width"], prob["sizes"]["degree"]
        body = f"""R = kk[x_1..x_{n}, w_(1,1)..w_({h},{n}), v_1..v_{h}];
f = sum(1..{h}, i -> v_i * (sum(1..{n}, j -> w_(i,j) * x_j))^{k});
params = drop(gens R, {n});
J = matrix{{apply(params, q -> diff(q, f))}};
S = kk[x_1..x_{n}];
phi = map(S, R, {{x_1..x_{n}}} | {{{theta}}});
(mons, C) = coefficients(phi J);
rk = rank lift(C, kk);
"""
        return head + body + tail
    widths = prob["sizes"]["widths"]
    bias = prob["bias"]
    act = prob["activation"]
    L = len(widths) - 1
    vars_ = []
    for l in range(1, L + 1):
        vars_.append(f"W{l}_(1,1)..W{l}_({widths[l]},{widths[l - 1]})")
        if bias:
            vars_.append(f"b{l}_1..b{l}_{widths[l]}")
    lines = [f"R = kk[{', '.join(vars_)}];"]
    for l in range(1, L + 1):
        lines.append(f"MW{l} = matrix table({widths[l]}, {widths[l - 1]}, (i, j) -> W{l}_(i+1, j+1));")
        if bias:
            lines.append(f"MB{l} = matrix table({widths[l]}, 1, (i, j) -> b{l}_(i+1));")
        else:
            lines.append(f"MB{l} = map(R^{widths[l]}, R^1, 0);")
    act_expr = " + ".join(f"{c}*t^{e}" if e else f"{c}" for e, c in enumerate(act) if c)
    lines.append(f"act = t -> {act_expr};")
    xs = ", ".join("{" + ", ".join(str(v % p) for v in x) + "}" for x in prob["inputs"])
    lines.append(f"X = {{{xs}}};")
    net = []
    net.append("out = flatten apply(X, x -> (")
    net.append(f"  a = transpose matrix{{apply(x, c -> c_R)}};")
    for l in range(1, L + 1):
        net.append(f"  z = MW{l} * a + MB{l};")
        if l < L:
            net.append("  a = matrix apply(entries z, row -> apply(row, act));")
    net.append(f"  flatten entries z));")
    lines += net
    lines.append("J = jacobian matrix{out};")
    lines.append("S = kk[dummy];")
    lines.append(f"phi = map(S, R, {{{theta}}});")
    lines.append("rk = rank lift(phi J, kk);")
    return head + "\n".join(lines) + "\n" + tail


# -- running under a cap ---------------------------------------------------------------------------------------------


def tool_versions() -> dict:
    """Versions of the peer tools found on this machine (``None`` when absent)."""
    import flint
    import sympy

    out = {"numpy": np.__version__, "python-flint": flint.__version__, "sympy": sympy.__version__, "Singular": None, "Macaulay2": None}
    if shutil.which("Singular"):
        try:
            txt = subprocess.run(["Singular", "-q", "-c", 'print(string(system("version")));quit;'],
                                 capture_output=True, text=True, timeout=30).stdout.strip()
            out["Singular"] = txt or "installed"
        except (OSError, subprocess.SubprocessError):
            out["Singular"] = "installed (version unknown)"
    if shutil.which("M2"):
        try:
            txt = subprocess.run(["M2", "--script", "/dev/stdin"], input='print version#"VERSION"\n',
                                 capture_output=True, text=True, timeout=60).stdout.strip()
            out["Macaulay2"] = txt or "installed"
        except (OSError, subprocess.SubprocessError):
            out["Macaulay2"] = "installed (version unknown)"
    try:
        from threadpoolctl import threadpool_info

        out["blas"] = ", ".join(sorted({f"{i.get('internal_api')} {i.get('version')}" for i in threadpool_info()}))
    except ImportError:
        pass
    return out


def _parse(stdout: str) -> tuple:
    rank = seconds = None
    for line in stdout.splitlines():
        parts = line.strip().split()
        if len(parts) == 2 and parts[0] == "RANK":
            rank = int(parts[1])
        elif len(parts) == 2 and parts[0] == "SECONDS":
            seconds = float(parts[1])
        elif len(parts) == 2 and parts[0] == "MILLISECONDS":
            seconds = float(parts[1]) / 1000
        elif line.startswith("   ? ") or line.startswith("error:") or ": error:" in line:
            return None, None  # the tool reported an error: no answer
    return rank, seconds


def run_capped(peer: str, prob: dict, cap: float, workdir: str | None = None) -> PeerResult:
    """Run ``peer`` (``sympy``, ``singular`` or ``macaulay2``) on ``prob`` in a child process under ``cap`` seconds.

    ``seconds`` is the tool's own timer (from building the parametrization to
    the rank; process start-up excluded), or the cap on a timeout.
    """
    if peer == "singular" and not shutil.which("Singular"):
        return PeerResult(peer=peer, status="absent", rank=None, seconds=None, detail="Singular not installed")
    if peer == "macaulay2" and not shutil.which("M2"):
        return PeerResult(peer=peer, status="absent", rank=None, seconds=None, detail="Macaulay2 not installed")
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        if peer == "sympy":
            path = Path(tmp) / "problem.json"
            path.write_text(json.dumps(prob))
            cmd = [sys.executable, str(_HERE / "rank_peers.py"), "sympy", str(path)]
        elif peer == "singular":
            path = Path(tmp) / "rank.sing"
            path.write_text(singular_script(prob))
            cmd = ["Singular", "-q", "--no-rc", str(path)]
        elif peer == "macaulay2":
            path = Path(tmp) / "rank.m2"
            path.write_text(macaulay2_script(prob))
            cmd = ["M2", "--script", str(path)]
        else:
            raise InputError("peer", peer, "one of sympy, singular, macaulay2")
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=cap)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.communicate()
            return PeerResult(peer=peer, status="timeout", rank=None, seconds=cap, detail=f"killed after {cap:g} s")
        wall = time.perf_counter() - t0
    if peer == "sympy":
        try:
            data = json.loads(out.strip().splitlines()[-1])
            return PeerResult(peer=peer, status="ok", rank=data["rank"], seconds=data["seconds"], detail=f"wall {wall:.2f} s")
        except (ValueError, IndexError, KeyError):
            return PeerResult(peer=peer, status="error", rank=None, seconds=wall, detail=(err or out)[-300:])
    rank, seconds = _parse(out + "\n" + err)
    if rank is None:
        return PeerResult(peer=peer, status="error", rank=None, seconds=wall, detail=(err or out)[-300:])
    return PeerResult(peer=peer, status="ok", rank=rank, seconds=seconds if seconds is not None else wall, detail=f"wall {wall:.2f} s")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "sympy":
        sys.exit("usage: python benchmarks/rank_peers.py sympy PROBLEM.json")
    _sympy_main(sys.argv[2])
