"""The quick tier (``python -m pytest -m quick``, docs/testing.md): a registered marker that
selects fast unit tests of the kernel, cribbage and Fives and Threes, none of which plays on Ray
or in the sandbox. CI still runs every test (``.ci/run`` selects no marker)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _pytest(*args):
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], capture_output=True,
                       text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    return r.stdout


def test_the_quick_tier_is_registered_and_holds_fast_unit_tests_of_every_part():
    assert "@pytest.mark.quick:" in _pytest("--markers")
    ids = [line for line in _pytest("-m", "quick", "--collect-only", "-q").splitlines() if "::" in line]
    modules = sorted({line.split("::", 1)[0] for line in ids})
    assert {m.split("/")[1] for m in modules} == {"kernel", "cribbage", "fives_threes"}, modules
    slow = [m for m in modules if any(w in (ROOT / m).read_text() for w in ("ray_cluster", "sandbox", "hostile"))]
    assert not slow, "the quick tier plays nothing on Ray or in the sandbox"
    assert len(ids) >= 400
    ci = (ROOT / ".ci" / "run").read_text()
    assert ci.rstrip().endswith("python -m pytest") and "-m quick" not in ci  # CI: every test
