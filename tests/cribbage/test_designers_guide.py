"""The designer's guide documents every hook a variant may fill and every field of a decision
(docs/guide-designers.md, "Hooks, phases and decisions"), read from the classes themselves: a
hook added to ``Hooks`` or ``Variant.HOOKS`` without its entry there fails here. Each hook's
entry gives its signature in its heading and an example that defines that very function."""

import ast
import dataclasses
import re
import textwrap
from pathlib import Path

import pytest

from cribsim.games.cribbage.engine.variant import Decision, Hooks, Variant

GUIDE = (Path(__file__).resolve().parents[2] / "docs" / "guide-designers.md").read_text()
HEADING = re.compile(r"^#### `(\w+)\(([^)]*)\)", re.M)


def section(text, title):
    """The text of the ``###`` section ``title`` (up to the next ``##`` or ``###`` heading)."""
    m = re.search(rf"^### {re.escape(title)}\n(.*?)(?=^##? |^### |\Z)", text, re.M | re.S)
    return m.group(1) if m else ""


def hooks():
    """Every hook a variant may fill: the assembled ones (Hooks) and those a class declares."""
    return sorted({f.name for f in dataclasses.fields(Hooks)} | set(Variant.HOOKS))


def undocumented(text):
    """The hooks without a ``#### `name(...)` `` entry in the guide's Hooks section."""
    documented = {name for name, _ in HEADING.findall(section(text, "Hooks"))}
    return [h for h in hooks() if h not in documented]


def entries(text):
    """(hook, its parameters as the heading gives them, the entry's first code block)."""
    body = section(text, "Hooks")
    parts = HEADING.split(body)[1:]
    for name, params, rest in zip(parts[0::3], parts[1::3], parts[2::3]):
        code = re.search(r"```python\n(.*?)```", rest, re.S)
        yield name, [p.strip() for p in params.split(",") if p.strip()], code.group(1) if code else ""


def test_every_hook_is_documented():
    assert hooks() and not undocumented(GUIDE)


def test_a_hook_missing_from_the_guide_is_found():
    without = re.sub(r"^#### `after_count\(.*$", "#### gone", GUIDE, flags=re.M)
    assert undocumented(without) == ["after_count"]


@pytest.mark.parametrize("name, params, code", list(entries(GUIDE)), ids=lambda v: v if isinstance(v, str) else "")
def test_each_hooks_example_defines_it_with_the_signature_of_its_heading(name, params, code):
    tree = ast.parse(textwrap.dedent(code))
    defined = {f.name: [a.arg for a in f.args.args] for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)}
    assert defined.get(name) == params, (name, defined)


def test_every_field_of_a_decision_is_documented():
    text = section(GUIDE, "Decisions")
    missing = [f.name for f in dataclasses.fields(Decision) if f"`{f.name}" not in text]
    assert text and not missing, missing


def test_the_state_a_hook_changes_through_is_documented():
    text = section(GUIDE, "The game state `g`")
    for said in ("g.award(", "g.metric(", "g.log(", "g.scores", "g.dealer", "g.crib", "`PEG`", "`CRIB`", "`OTHER`"):
        assert said in text, said
