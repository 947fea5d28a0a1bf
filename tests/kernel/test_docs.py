"""The documentation holds together: the rules reference (docs/rules.md) has every rule the code,
tests and docs cite, and the tests cite every rule the engine plays; `cribsim rules` reads it;
every page a message or a file cites exists, with the section it names; nothing cites the old
rule book outside the repository."""

import re
from pathlib import Path

import pytest

from cribsim.cli.main import main
from cribsim.rulebook import RULE_ID, read_rules

pytestmark = pytest.mark.quick  # the quick tier: python -m pytest -m quick (docs/testing.md)

ROOT = Path(__file__).resolve().parents[2]
RULES = read_rules(ROOT / "docs" / "rules.md")
IDS = {r.id for r in RULES}


def _files(*globs):
    for pattern in globs:
        yield from sorted(ROOT.glob(pattern))


def _cited(text):
    """Rule ids cited in ``text``; ``R-SHOW-3..7`` cites R-SHOW-3 to R-SHOW-7."""
    out = set()
    for m in re.finditer(r"\b([RVFS]-[A-Z0-9]+(?:-[A-Z0-9]+)*?)(-(\d+)(?:\.\.|-|\u2013)(\d+))?(?![\w-])", text):
        base, rng, lo, hi = m.group(1), m.group(2), m.group(3), m.group(4)
        if rng and lo and hi and int(lo) <= int(hi) <= int(lo) + 20:
            out.update(f"{base}-{n}" for n in range(int(lo), int(hi) + 1))
        else:
            out.update(RULE_ID.findall(m.group(0)))
    return out


SOURCES = ["cribsim/**/*.py", "strategies/**/*.py", "tests/**/*.py", "docs/*.md", "configs/**/*.yaml", "README.md",
           "benchmarks/*.py"]


def test_the_reference_numbers_every_rule_once():
    ids = [r.id for r in RULES]
    assert len(ids) == len(set(ids)) and len(ids) >= 55
    assert all(r.title and r.text for r in RULES)
    assert {r.part.split(":")[0] for r in RULES} == {"Part 1", "Part 2", "Part 3", "Part 4"}


def test_every_rule_cited_anywhere_is_in_the_reference():
    unknown = {}
    for f in _files(*SOURCES):
        if f.name == "rules.md" or f == Path(__file__):
            continue
        for rid in _cited(f.read_text(encoding="utf-8")):
            groups = {i for i in IDS if i.startswith(rid + "-")}  # R-MATCH: the R-MATCH-n rules
            if rid not in IDS and not groups:
                unknown.setdefault(rid, str(f.relative_to(ROOT)))
    assert not unknown, f"rule ids cited but not in docs/rules.md: {unknown}"


def test_every_rule_the_engine_plays_is_cited_by_a_test():
    cited = set()
    for f in _files("tests/**/*.py"):
        cited |= _cited(f.read_text(encoding="utf-8"))
    missing = sorted(r.id for r in RULES if r.implemented and r.id not in cited)
    assert not missing, f"implemented rules no test cites: {missing}"


def test_the_rules_not_implemented_yet_say_which_issue():
    for r in RULES:
        if not r.implemented:
            assert re.search(r"issue \d+", r.text), r.id


def test_cribsim_rules_prints_a_rule_lists_them_and_suggests(capsys):
    assert main(["rules", "R-PEG-5"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("R-PEG-5: ") and "Part 1" in out and "15" in out
    assert main(["rules"]) == 0
    listed = capsys.readouterr().out
    assert all(rid in listed for rid in IDS) and "not implemented yet" not in listed  # every rule is played
    assert main(["rules", "v-jok"]) == 0 and "V-JOKERS" in capsys.readouterr().out
    assert main(["rules", "R-PEG-55"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "did you mean 'R-PEG-5'" in err


PAGE = re.compile(r"docs/([a-z0-9-]+\.md)(?:, \"([^\"]+)\"|#([a-z0-9-]+))?")


def _headings(page):
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    return {line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")}


def _anchor(heading):
    return re.sub(r"[^a-z0-9 -]", "", heading.lower()).replace(" ", "-")


@pytest.mark.parametrize("globs", [("cribsim/**/*.py", "strategies/**/*.py"), ("configs/**/*.yaml",),
                                   ("results/**/*.md",), ("README.md",)])
def test_every_page_cited_exists_with_its_section(globs):
    bad = []
    for f in _files(*globs):
        text = f.read_text(encoding="utf-8")
        for m in PAGE.finditer(text):
            page, section, anchor = m.groups()
            if not (ROOT / "docs" / page).is_file():
                bad.append(f"{f.relative_to(ROOT)}: {m.group(0)} (no such page)")
            elif section and section not in _headings(page):
                bad.append(f"{f.relative_to(ROOT)}: {m.group(0)} (no such section)")
            elif anchor and anchor not in {_anchor(h) for h in _headings(page)}:
                bad.append(f"{f.relative_to(ROOT)}: {m.group(0)} (no such anchor)")
        for old in ('README, "', "README's", "RULES.md", "../shared"):
            if old in text and f.name != "README.md":
                bad.append(f"{f.relative_to(ROOT)}: cites {old!r}: cite a page of docs/ instead")
    assert not bad, "\n".join(bad)


def test_the_readme_prints_what_the_committed_quickstart_printed():
    """The README's sample output is the committed summary's, line for line."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("## What it prints", 1)[1].split("```", 2)[1]
    lines = [ln for ln in block.splitlines() if ln.strip()]
    summary = (ROOT / "results" / "quickstart" / "summary.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) >= 4 and all(ln in summary for ln in lines)


def test_a_rule_the_engine_does_not_play_is_marked(tmp_path):
    """The reference marks a rule the engine does not play yet, and ``cribsim rules`` says so."""
    from cribsim.rulebook import read_rules

    book = tmp_path / "rules.md"
    book.write_text("## Part 9: tried\n\n### R-TRY-1: Played\n\nText.\n\n### R-TRY-2: Planned\n\n"
                    "Status: not implemented yet (issue 99).\n\nText.\n")
    assert [(r.id, r.implemented) for r in read_rules(book)] == [("R-TRY-1", True), ("R-TRY-2", False)]


def test_the_readme_says_what_a_newcomer_needs_before_its_contents():
    """Before its contents the README says what cribsim is, the two commands and what they take
    (their times in the first screen); the benchmark figures are in docs/performance.md, one
    link away."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    head = readme.split("## Contents", 1)[0]
    screen = "\n".join(head.splitlines()[:24])
    assert "cribsim run quickstart" in screen and "python -m pytest" in screen
    assert len(re.findall(r"\d+ min \d+ s", screen)) >= 2  # the two commands' times
    assert len(head.splitlines()) <= 36
    assert not re.findall(r"\d\.\dx\b", head), "speed ratios belong in docs/performance.md"
    assert "(docs/performance.md#the-native-lane)" in head
    performance = " ".join((ROOT / "docs" / "performance.md").read_text(encoding="utf-8").split())
    for figure in ("**6.29x**", "**35.1x**", "**39.9x**", "**34.5x**", "29.72x", "**11.4x**", "24.63x",
                   "0.517 [0.501, 0.532]", "0.5621 [0.5611, 0.5631]", "within 0.003"):
        assert figure in performance, figure
