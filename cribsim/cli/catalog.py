"""``cribsim list`` (the rule sets, variants, strategies and example experiments at hand) and
``cribsim rules`` (the project's numbered rules reference)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..errors import CribsimError, one_line
from ..games import all_builtin
from ..presets import example_configs
from ..rulebook import Rule, read_rules
from ..ruleset import find_rules_file, load_rules, preset_names
from ..strategy import resolve
from ..suggest import did_you_mean


def add_commands(sub: Any) -> None:
    ls = sub.add_parser("list", help="list built-in rule sets, strategies and example experiments")
    ls.set_defaults(func=cmd_list)
    r = sub.add_parser("rules", help="print a rule of the rules reference by its number, or list them",
                       description="The project's rules reference (docs/rules.md): every rule the engine plays, "
                                   "numbered as code, tests and issues cite it.")
    r.add_argument("id", nargs="?", help="a rule number (R-PEG-5), a prefix (R-PEG, V-), or nothing to list all")
    r.set_defaults(func=cmd_rules)


def cmd_rules(args: argparse.Namespace) -> int:
    rules = read_rules()
    if args.id is None:
        _list_rules(rules)
        return 0
    want = args.id.strip().upper()
    exact = [r for r in rules if r.id == want]
    if exact:
        r = exact[0]
        print(f"{r.id}: {r.title}  ({r.part})\n\n{r.text}")
        return 0
    prefixed = [r for r in rules if r.id.startswith(want)]
    if not prefixed:
        raise CribsimError(f"cribsim rules: no rule {args.id[:40]!r}{did_you_mean(want, [r.id for r in rules])} "
                           "(cribsim rules lists them)")
    _list_rules(prefixed)
    return 0


def _list_rules(rules: list[Rule]) -> None:
    part = None
    for r in rules:
        if r.part != part:
            part = r.part
            print(f"\n{part}" if r is not rules[0] else part)
        print(f"  {r.id:<12} {r.title}{'' if r.implemented else '  (not implemented yet)'}")


def cmd_list(args: argparse.Namespace) -> int:
    print("Rule sets (configs/rules, use by name):")
    for name in preset_names():
        try:
            shown = load_rules(str(find_rules_file(name))).describe()
        except CribsimError as e:  # a broken file in ./configs/rules: say so, list the rest
            shown = f"(cannot load: {one_line(str(e).removeprefix('cribsim: '), 120)})"
        print(f"  {name:<30} {shown}")
    for game in all_builtin():
        lines = game.catalogue()
        if lines:
            print(f"\nRule variants of {game.title} (name them in a rules file's variants:, or set a knob that "
                  "turns one on):")
            print("\n".join(f"  {line}" for line in lines))
    for game in all_builtin():
        print(f"\nStrategies for game: {game.name} (use by name, or module:Class):")
        for name in sorted(game.builtins):
            try:
                doc = (sys.modules[resolve(name, game.name).__module__].__doc__ or "").strip()
            except CribsimError as e:  # an optional dependency missing (openspiel:ismcts)
                doc = f"(not available: {one_line(e).removeprefix('cribsim: ')})"
            print(f"  {name:<30} {doc.splitlines()[0] if doc else ''}")
    print("\nExample experiments (cribsim run NAME or FILE):")
    _list_examples()
    return 0


def _list_examples() -> None:
    seen: set[str] = set()
    local = Path.cwd() / "configs"
    files = sorted(f for f in local.rglob("*.yaml") if "rules" not in f.relative_to(local).parts) \
        if local.is_dir() else []
    for f in files + example_configs():
        if f.name in seen:
            continue
        seen.add(f.name)
        try:
            text = f.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        first = next((ln[1:].strip() for ln in text.splitlines() if ln.startswith("#")), "")
        try:
            shown = f.relative_to(Path.cwd())
        except ValueError:
            shown = f
        print(f"  {str(shown):<48} {first}")
