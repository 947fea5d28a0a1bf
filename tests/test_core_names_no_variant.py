"""The core names no variant (issue "Engine core, second edition"): in the code of cribsim/
outside cribsim/games/cribbage/variants/ and cribsim/games/fives_threes/ (identifiers and string literals; comments and
docstrings may explain), no word of a rule variant appears. A variant's words live in its
module, its YAML, its tests and the strategies that play it. The standard library's module
names (``inspect``) are not the variant's."""

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
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


def _words_used(path):
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
        for w in WORDS:
            if f" {w} " in joined:
                yield node.lineno, w, text


def core_files():
    for p in sorted((ROOT / "cribsim").rglob("*.py")):
        rel = p.relative_to(ROOT / "cribsim")
        if rel.parts[:3] != ("games", "cribbage", "variants") and rel.parts[:2] != ("games", "fives_threes"):
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
