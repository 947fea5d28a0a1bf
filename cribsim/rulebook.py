"""The project's rules reference (``docs/rules.md``, shipped in the package) read as numbered
rules: what ``cribsim rules`` prints and what the tests check the citations against.

Each rule is a section headed ``### ID: title`` (``### R-PEG-5: Scores for the card just
laid``) running to the next heading; parts are ``## Part N: ...`` headings."""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

RULE_ID = re.compile(r"\b[RVFS]-[A-Z0-9]+(?:-[A-Z0-9]+)*\b")  # R-PEG-5, V-TEAM3-2, F-VAR, S-DATA-1
_HEADING = re.compile(r"^### (?P<id>[RVFS]-[A-Z0-9-]+): (?P<title>.+)$")


@dataclass(frozen=True)
class Rule:
    """One numbered rule: its id, title, the part it belongs to and its text (below the heading)."""

    id: str
    title: str
    part: str
    text: str

    @property
    def implemented(self) -> bool:
        """False for a rule the engine does not play yet (``Status: not implemented yet``)."""
        return not any(line.startswith("Status: not implemented") for line in self.text.splitlines())


def reference_path() -> Path:
    """``docs/rules.md`` as shipped (``cribsim/docs`` links to the project's ``docs/``)."""
    return Path(str(resources.files("cribsim").joinpath("docs", "rules.md")))


def read_rules(path: Path | None = None) -> list[Rule]:
    """Every rule of the reference, in order."""
    text = (path or reference_path()).read_text(encoding="utf-8")
    rules: list[Rule] = []
    part = ""
    current: tuple[str, str] | None = None
    body: list[str] = []
    for line in text.splitlines() + ["## end"]:
        m = _HEADING.match(line)
        if (m or line.startswith("## ")) and current is not None:
            rules.append(Rule(current[0], current[1], part, "\n".join(body).strip()))
            current, body = None, []
        if m:
            current = (m.group("id"), m.group("title"))
        elif line.startswith("## "):
            part = line[3:].strip()
        elif current is not None:
            body.append(line)
    return rules
