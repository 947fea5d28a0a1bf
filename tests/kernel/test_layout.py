"""The layout keeps its promises (docs/design.md):

- the kernel (cribsim/ outside the game packages under cribsim/games/) names no game, and no
  module of cribbage's core names a variant: in identifiers and string literals (comments and
  docstrings may explain), no game's name and no word of a rule variant appears;
- Fives and Threes imports nothing from cribbage, and a game plays without the other loaded;
- imports sit at the top of a module, except for heavy libraries loaded on first use.

A variant's words live in its module, its YAML, its tests and the strategies that play it. The
standard library's module names (``inspect``) are not the variant's."""

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GAME_WORDS = ["cribbage", "fives", "threes", "domino", "dominoes", "tile", "tiles"]
WORDS = ["joker", "jokers", "auction", "auctions", "lowball", "canadian", "muggins", "team3", "inspect",
         "inspection", "inspecting", "toss fives", "nineteen", "back ten", "five card", "seven card", "bid", "bids",
         "bidding", "bidder", "wta"]


def _tokens(text):
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    return " " + " ".join(t.lower() for t in re.findall(r"[A-Za-z0-9]+", text)) + " "


def _docstrings(tree):
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and \
                    isinstance(first.value.value, str):
                out.add(id(first.value))
    return out


def _stdlib_names(tree):
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] in sys.stdlib_module_names:
                    names.add(a.asname or a.name)
    return names


def _words_used(path, words=None):
    words = WORDS if words is None else words
    tree = ast.parse(path.read_text())
    docs, stdlib = _docstrings(tree), _stdlib_names(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.alias) and node.name.split(".")[0] in sys.stdlib_module_names:
            continue
        if isinstance(node, ast.Name):
            text = "" if node.id in stdlib else node.id
        elif isinstance(node, ast.Attribute):
            text = node.attr
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            text = node.name
        elif isinstance(node, ast.arg):
            text = node.arg
        elif isinstance(node, ast.alias):
            text = f"{node.name} {node.asname or ''}"
        elif isinstance(node, ast.keyword):
            text = node.arg or ""
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            text = node.value
        else:
            continue
        joined = _tokens(text)
        for w in words:
            if f" {w} " in joined:
                yield node.lineno, w, text


def kernel_files():
    """cribsim/ outside the game packages (cribsim/games/__init__.py, the registry, is the kernel's)."""
    for p in sorted((ROOT / "cribsim").rglob("*.py")):
        rel = p.relative_to(ROOT / "cribsim")
        if not (rel.parts[0] == "games" and len(rel.parts) > 2):
            yield p


def core_files():
    """The kernel and cribbage outside its variants."""
    yield from kernel_files()
    for p in sorted((ROOT / "cribsim" / "games" / "cribbage").rglob("*.py")):
        if "variants" not in p.relative_to(ROOT / "cribsim" / "games" / "cribbage").parts:
            yield p


def test_the_core_names_no_variant():
    hits = [f"{p.relative_to(ROOT)}:{line}: {w!r} in {text[:60]!r}" for p in core_files()
            for line, w, text in _words_used(p)]
    assert not hits, "variant words in the core:\n" + "\n".join(hits)


def test_the_check_finds_a_variant_word(tmp_path):
    p = tmp_path / "x.py"
    p.write_text('"""a docstring may say jokers"""\nimport inspect\nx = inspect.signature\nlowball_score = 1\n'
                 'y = "toss fives"\n')
    assert [w for _, w, _ in _words_used(p)] == ["lowball", "toss fives"]


def test_the_kernel_names_no_game():
    hits = [f"{p.relative_to(ROOT)}:{line}: {w!r} in {text[:60]!r}" for p in kernel_files()
            for line, w, text in _words_used(p, GAME_WORDS)]
    assert not hits, "game words in the kernel:\n" + "\n".join(hits)


def _imports(path, package):
    """Every cribsim module a file imports (top level, in functions, under TYPE_CHECKING)."""
    tree = ast.parse(path.read_text())
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    here = parts[:-1] if parts[-1] != "__init__" else parts[:-1]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = here[:len(here) - node.level + 1] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {m for m in out if m.startswith(package)}


def _module_file(mod):
    p = ROOT / Path(*mod.split("."))
    for cand in (p.with_suffix(".py"), p / "__init__.py"):
        if cand.is_file():
            return cand
    return None


def test_fives_and_threes_imports_nothing_from_cribbage():
    """The import graph from Fives and Threes' modules, through the kernel, never reaches cribbage."""
    start = sorted((ROOT / "cribsim" / "games" / "fives_threes").glob("*.py"))
    todo, seen = [p for p in start], set()
    reached = set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        for mod in _imports(p, "cribsim"):
            f = _module_file(mod)
            if f is not None:
                reached.add(mod)
                todo.append(f)
    assert not [m for m in reached if m.startswith("cribsim.games.cribbage")]
    assert "cribsim.game" in reached and "cribsim.strategy" in reached  # the walk follows the kernel


def test_a_game_plays_without_the_other_loaded():
    code = ("import sys\n"
            "from cribsim.ruleset import rules_from_mapping\n"
            "from cribsim.games import game_named\n"
            "from cribsim.strategy import factory\n"
            "rules = rules_from_mapping({'game': 'fives_threes'})\n"
            "m = game_named('fives_threes').play_match(rules, [factory('greedy', game='fives_threes')] * 2, 1, 1)\n"
            "print(m.winner, sorted({k.split('.')[2] for k in sys.modules if k.startswith('cribsim.games.')}))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert out.split(" ", 1)[1].strip() == "['fives_threes']"


# heavy, or only some commands need them
LAZY = {"ray", "matplotlib", "tqdm", "tabulate", "yaml", "pyspiel", "numpy", "gymnasium"}


def test_imports_sit_at_the_top():
    """A function-level import is for a heavy library loaded on first use, or a plug-in or game
    found at run time (importlib); never to break a cycle between cribsim's own modules."""
    hits = []
    for p in sorted((ROOT / "cribsim").rglob("*.py")) + sorted((ROOT / "strategies").rglob("*.py")):
        tree = ast.parse(p.read_text())
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.ImportFrom):
                    root = "." if node.level else (node.module or "").split(".")[0]
                elif isinstance(node, ast.Import):
                    root = node.names[0].name.split(".")[0]
                else:
                    continue
                if root not in LAZY:
                    hits.append(f"{p.relative_to(ROOT)}:{node.lineno}")
    assert not hits, "imports inside functions:\n" + "\n".join(hits)


TOY = ROOT / "tests" / "toy_game.py"


def _cribsim(args, cwd):
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "cribsim", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=600)


def test_a_third_game_is_a_module_and_nothing_else(tmp_path):
    """docs/adding-a-game.md, followed by tests/toy_game.py: a game outside cribsim, named
    module:attribute beside its config and rules file, is played by cribsim run (on Ray) and
    cribsim play from another folder, recorded, replayed and reported like a built-in one."""
    toy = tmp_path / "toy"
    toy.mkdir()
    shutil.copy(TOY, toy / "toy_game.py")
    (toy / "race.yaml").write_text("game: toy_game:GAME\nname: race15\ntarget: 15\n")
    (toy / "exp.yaml").write_text(
        "name: race\ngame: toy_game:GAME\nvariants: [race.yaml, {name: race30, target: 30}]\n"
        "lineup: [random, greedy]\nmatches: 40\nseed: 3\nrecord: all\n")
    r = _cribsim(["run", "toy/exp.yaml", "--quiet", "--workers", "2"], tmp_path)
    assert r.returncode == 0, r.stderr
    summary = (tmp_path / "results" / "race" / "summary.md").read_text()
    assert "race15" in summary and "race30" in summary and "80 matches" in summary
    entries = (tmp_path / "results" / "race" / "entries.csv").read_text()
    assert "greedy" in entries and "random" in entries
    r = _cribsim(["play", "--rules", "toy/race.yaml", "--seed", "4", "--strategy", "greedy"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("Rules: race15") and "wins" in r.stdout.splitlines()[-1]
    r = _cribsim(["replay", "../results/race", "--match", "3"], toy)  # where the game's module is
    assert r.returncode == 0, r.stderr
    assert "takes" in r.stdout and "Match: " in r.stdout
    r = _cribsim(["run", "toy/exp.yaml", "--serial", "--quiet", "--out", "serial"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "serial" / "entries.csv").read_text() == entries  # the same tables serially and on Ray
    (toy / "bad.yaml").write_text("game: toy_game:GAME\ntarget: many\n")
    r = _cribsim(["play", "--rules", "toy/bad.yaml"], tmp_path)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "target" in r.stderr
