"""A plain (non-editable) `pip install .` ships the rule presets and example configs: the package
is installed into a fresh virtual environment and run outside the checkout.

The new venv sees the packages of the interpreter running the tests (a ``.pth`` file lists its
site folders, so Ray, NumPy, ... are not downloaded again, whether the tests run from a system
Python or from a virtual environment of their own; ``--system-site-packages`` would see the base
interpreter's instead), and cribsim is built from a copy of the checkout with ``--no-deps
--no-build-isolation`` (offline, and nothing is written into the checkout); the shared
environment, with its editable install, is not touched."""

import json
import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _sh(cmd, **kw):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=300, **kw)


def _source_copy(dest):
    """The files git tracks (the cribsim/configs link kept a link), as a fresh source tree."""
    files = _sh(["git", "-C", ROOT, "ls-files", "-z"])
    names = [n for n in files.stdout.split("\0") if n] if files.returncode == 0 else None
    if not names:  # not a git checkout: the package, its data and the build files
        names = [str(p.relative_to(ROOT)) for top in ("cribsim", "strategies", "configs", "docs")
                 for p in (ROOT / top).rglob("*") if "__pycache__" not in p.parts and (p.is_file() or p.is_symlink())]
        names += ["pyproject.toml", "README.md"]
    for name in names:
        if name.startswith(("results/", "tests/")):
            continue
        src, dst = ROOT / name, dest / name
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            os.symlink(os.readlink(src), dst)
        elif src.is_file():
            shutil.copy2(src, dst)


def _site_dirs():
    """The site folders of the interpreter running the tests (a venv's own, or the system's)."""
    dirs = [*site.getsitepackages(), site.getusersitepackages()]
    return [d for d in dirs if os.path.isdir(d)]


def test_a_non_editable_install_has_presets_and_examples(tmp_path):
    src = tmp_path / "src"
    _source_copy(src)
    assert (src / "cribsim" / "configs").is_symlink()
    venv = tmp_path / "venv"
    r = _sh([sys.executable, "-m", "venv", "--without-pip", venv])  # this pip installs into it (--python): 8 s less
    assert r.returncode == 0, r.stderr
    py = venv / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "RAY_ADDRESS")}
    purelib = _sh([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], env=env).stdout.strip()
    Path(purelib, "outer-environment.pth").write_text("\n".join(_site_dirs()) + "\n")
    if _sh([py, "-c", "import wheel"], env=env).returncode != 0:  # setuptools < 70.1 builds wheels with it
        pytest.fail("the test venv does not see 'wheel' (the test extra installs it)")
    r = _sh([sys.executable, "-m", "pip", "--python", py, "install", "-q", "--no-deps", "--no-build-isolation", src],
            env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = _sh([py, "-c", "import cribsim, json; print(json.dumps(cribsim.__file__))"], env=env, cwd=elsewhere)
    installed = Path(json.loads(where.stdout))
    assert venv in installed.parents, installed  # the venv's copy, not the checkout or an editable install
    assert not (installed.parent / "configs").is_symlink()
    assert (installed.parent / "configs" / "rules" / "standard.yaml").is_file()
    assert (installed.parent / "docs" / "rules.md").is_file()  # the rules reference, for cribsim rules
    cribsim = venv / "bin" / "cribsim"

    r = _sh([cribsim, "play", "--seed", "7"], env=env, cwd=elsewhere)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("Rules: standard") and "Final score:" in r.stdout

    r = _sh([cribsim, "play", "--rules", "five_card", "--seed", "3"], env=env, cwd=elsewhere)
    assert r.returncode == 0, r.stderr

    r = _sh([cribsim, "rules", "R-SHOW-7"], env=env, cwd=elsewhere)
    assert r.returncode == 0 and r.stdout.startswith("R-SHOW-7: "), r.stderr

    r = _sh([cribsim, "list"], env=env, cwd=elsewhere)
    assert r.returncode == 0, r.stderr
    presets = sorted(p.stem for p in (ROOT / "configs" / "rules").glob("*.yaml"))
    for name in presets:
        assert f"  {name} " in r.stdout, name
    assert "quickstart.yaml" in r.stdout and "ladder.yaml" in r.stdout

    r = _sh([cribsim, "play", "--rules", "/nonexistent/five_card.yaml"], env=env, cwd=elsewhere)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "no such rules file" in r.stderr

    # a packaged example runs from anywhere (a few matches, in this process)
    example = installed.parent / "configs" / "quickstart.yaml"
    cfg = elsewhere / "tiny.yaml"
    cfg.write_text(example.read_text().replace("matches: 4000", "matches: 2"))
    r = _sh([cribsim, "run", cfg, "--serial", "--quiet", "--out", elsewhere / "out"], env=env, cwd=elsewhere)
    assert r.returncode == 0, r.stderr
    assert (elsewhere / "out" / "summary.md").is_file()

    # and an example by its name alone, from anywhere: cribsim run NAME
    r = _sh([cribsim, "run", "greedy_vs_random_sprt", "--serial", "--quiet", "--out", elsewhere / "byname"], env=env,
            cwd=elsewhere)
    assert r.returncode == 0, r.stderr
    assert (elsewhere / "byname" / "sprt.csv").is_file()
    r = _sh([cribsim, "run", "quickstrat"], env=env, cwd=elsewhere)
    assert r.returncode == 2 and "did you mean 'quickstart'" in r.stderr
