"""A LocalCluster run prints no "Port 8787 is already in use" warning (issue 25).

Dask's scheduler starts an HTTP server (health and metrics routes) even without a dashboard, on port 8787 by
default; when that port was taken (another run, any server) every sweep printed distributed's warning.  The
runner now puts that server on a free loopback port.  The test holds 8787 itself (or finds it held) and runs
one small sweep in a fresh interpreter, so stderr is exactly what a user sees.  The run takes about 1 CPU-second
(2 s of wall-clock time on an idle machine); the limits below only turn a hang into a failure and assert no time.
"""

from __future__ import annotations

import errno
import resource
import signal
import socket
import subprocess
import sys

import pytest

SCRIPT = """
from algebra.sweep import _square, run_sweep
rows = run_sweep(_square, [{"x": i} for i in range(3)], workers=1, progress=False)
print(sorted(r["y"] for r in rows))
"""


#: Hang guards: CPU-seconds for each process of the run (RLIMIT_CPU, which load does not inflate), and the
#: wall-clock seconds for a run that hangs without using CPU (a worker that never connects).
CPU_GUARD, WALL_GUARD = 60, 600


def _limit_cpu():  # pragma: no cover - runs in the child (and its workers inherit it)
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_GUARD, CPU_GUARD + 5))


@pytest.fixture
def port_8787_taken():
    """8787 on the loopback is in use for the test's duration: held here, or already held by another process."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", 8787))
        sock.listen(1)
    except OSError as exc:
        sock.close()
        if exc.errno != errno.EADDRINUSE:
            pytest.skip(f"cannot hold port 8787 ({exc})")
        sock = None  # someone else holds it: the condition holds all the same
    yield
    if sock is not None:
        sock.close()


def test_a_local_cluster_run_does_not_warn_about_port_8787(port_8787_taken):
    pytest.importorskip("distributed")
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    with pytest.raises(OSError):  # the precondition: the port the warning is about is really taken
        probe.bind(("127.0.0.1", 8787))
    probe.close()
    try:
        out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=WALL_GUARD,
                             preexec_fn=_limit_cpu)
    except subprocess.TimeoutExpired:
        pytest.fail(f"hung: no answer after {WALL_GUARD} s of wall-clock time (the run takes about 2 s)")
    assert out.returncode != -signal.SIGXCPU, f"hung: {CPU_GUARD} CPU-seconds used (the run takes about 1)"
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[0, 1, 4]"  # the cluster really ran the tasks
    assert "already in use" not in out.stderr and "Hosting the HTTP server" not in out.stderr, out.stderr
