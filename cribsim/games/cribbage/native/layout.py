"""The one declaration of the rules as the native lane reads them: ``_lane.c``'s ``Rules`` struct.

Each field is a name, a width (1, or an array's length), the rules keys it carries (a core key
such as ``deal``, a point value such as ``scoring.count_limit``, a variant's knob such as
``min_bid``, or ``variant:NAME`` for a variant it turns on) and a line of what it holds. Both
lanes are made from this list: the build (``setup.py``) writes the C struct from it
(``_lane_rules.h``, an X-macro the struct and the module's ``RULES_LAYOUT`` are made of, so the C
code reads every field by its name), and ``lane.pack_rules`` packs a rule set's values by the
same names in the same order, checking at load that the built module has this very layout.
Nothing depends on a field's position but this file's order.

The contract (tests/cribbage/test_lane_contract.py): every key of a rule set, core, point value
or variant knob, is carried by a field here, or the lane refuses a rule set that sets it (so
that rule set plays in Python, and the run says why), or it is settled outside a game, in the
Python match loop (:data:`SETTLED_IN_PYTHON`); a planted key that is none of these fails it.

The C source's parts (:data:`SOURCES`) and its hash are named here too: the build stamps the
module with :func:`source_hash`, and the lane is not used where the files have changed since.

The fields are the core's (:data:`CORE_FIELDS`, here) and each ported variant's own, which its
module declares as a literal ``LANE_FIELDS`` beside its code (and ``LANE_KEYS``, the keys its port
carries through the core's fields): a variant's words live in its module. This module imports
nothing of cribsim, and reads the variants' literals from their source: the build reads it before
cribsim can be imported."""

import ast
import hashlib
from pathlib import Path
from typing import Any

# the C source, by concern: _lane.c includes the parts in this order (one translation unit)
SOURCES = ("_lane.c", "lane_random.c", "lane_scoring.c", "lane_game.c", "lane_ev.c", "lane_hoyle.c",
           "lane_variants.c", "lane_play.c", "lane_show.c", "lane_flow.c", "lane_python.c", "lane_env.c",
           "lane_batch.c",
           "lane_search.c", "lane_board.c")


def source_hash(folder: Path) -> str:
    """The hash a build carries: of the C source's parts, of this layout and of the fields the
    variants declare."""
    h = hashlib.sha256()
    for name in (*SOURCES, "layout.py"):
        h.update((folder / name).read_bytes())
    h.update(repr(FIELDS).encode())
    return h.hexdigest()[:16]


MAXP = 5  # seats, and sides, at most (the arrays' length)

Field = tuple[str, int, tuple[str, ...], str]  # (name, width, keys carried, what it holds)

# the core's fields: the rules every game has and the point values
CORE_FIELDS: tuple[Field, ...] = (
    ("players", 1, ("players",), "seats at the table"),
    ("nsides", 1, ("sides",), "sides in this game (a variant's layout may give each game its own)"),
    ("side_of", MAXP, ("sides",), "each seat's side"),
    ("target", 1, ("target",), "the rules' target"),
    ("places", 1, ("match",), "the sides a game places before it ends (R-MATCH-5)"),
    ("deal", 1, ("deal",), "cards dealt to each seat but the dealer"),
    ("dealer_deal", 1, ("dealer_deal",), "cards dealt to the dealer"),
    ("discard", 1, ("discard",), "cards each seat but the dealer lays away"),
    ("dealer_discard", 1, ("dealer_discard",), "cards the dealer lays away"),
    ("crib_from_deck", 1, ("crib_from_deck",), "cards dealt straight to the crib"),
    ("crib_flush_needs_starter", 1, ("crib_flush_needs_starter",), "a crib's flush needs the starter (R-SHOW-6)"),
    ("fifteen", 1, ("scoring.fifteen",), "points a fifteen (S-DATA-1)"),
    ("fifteen_total", 1, ("scoring.fifteen_total",), "the total that scores"),
    ("pair", 1, ("scoring.pair",), "points a pair (S-DATA-2)"),
    ("run_min", 1, ("scoring.run_min",), "the shortest run (S-DATA-3)"),
    ("run_card", 1, ("scoring.run_card",), "points a card of a run"),
    ("hand_flush", 1, ("scoring.hand_flush",), "a hand's flush (S-DATA-4; -1: the hand's size)"),
    ("flush_starter", 1, ("scoring.flush_starter",), "more when the starter matches"),
    ("crib_flush", 1, ("scoring.crib_flush",), "a crib's flush (-1: its size and flush_starter)"),
    ("nobs", 1, ("scoring.nobs",), "his nobs (S-DATA-5)"),
    ("heels", 1, ("scoring.heels",), "his heels"),
    ("go", 1, ("scoring.go",), "a go (S-DATA-6)"),
    ("limit", 1, ("scoring.count_limit",), "the count's limit"),
    ("hit", 1, ("scoring.hit_limit",), "points for reaching it exactly"),
    ("last_card", 1, ("scoring.last_card",), "the last card of the play"),
    ("objective", 1, (), "1, or -1 where a variant makes fewer points better"),
    ("score_floor", 1, ("score_floor",), "the lowest score a penalty may leave"),
    ("floored", 1, ("score_floor",), "the rules set a score floor (score_floor is 0 without one)"),
    ("side_target", MAXP, ("target",), "each side's target in this game (a variant's layout may give each its own)"),
)

VARIANTS = Path(__file__).resolve().parent.parent / "variants"  # the shipped variants' modules


def _literal(tree: ast.Module, name: str) -> Any:
    """The value of a module's top-level ``NAME = literal`` (annotated or not), or None."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id == name:
            return ast.literal_eval(value)
    return None


def ported() -> dict[str, tuple[tuple[Field, ...], tuple[str, ...]]]:
    """Each ported variant's module (by file name): its own fields (``LANE_FIELDS``) and the keys
    its port carries through the core's fields (``LANE_KEYS``), read from the module's source
    without importing it. A variant without ``LANE_FIELDS`` has no port."""
    found = {}
    for path in sorted(VARIANTS.glob("*.py")):
        tree = ast.parse(path.read_text())
        fields = _literal(tree, "LANE_FIELDS")
        if fields is not None:
            found[path.stem] = (tuple(fields), tuple(_literal(tree, "LANE_KEYS") or ()))
        elif _literal(tree, "LANE_KEYS") is not None:
            raise ValueError(f"{path.name}: LANE_KEYS without LANE_FIELDS (use LANE_FIELDS = ())")
    return found


def _all_fields() -> tuple[Field, ...]:
    fields = CORE_FIELDS + tuple(f for own, _ in ported().values() for f in own)
    names = [n for n, _, _, _ in fields]
    if len(set(names)) != len(names):
        raise ValueError(f"a lane field declared twice: {sorted({n for n in names if names.count(n) > 1})}")
    return fields


# the struct: the core's fields, then each ported variant's own, by module name
FIELDS: tuple[Field, ...] = _all_fields()
# every key the struct carries, a variant's ``LANE_KEYS`` included
CARRIED: frozenset[str] = frozenset({k for _, _, keys, _ in FIELDS for k in keys} |
                                    {k for _, keys in ported().values() for k in keys})

# rules keys that no game of the lane reads: they are settled around the games, in Python (the
# match loop: who deals first, skunks, game points) or they only name and describe
SETTLED_IN_PYTHON = frozenset({"name", "game", "extends", "description", "variants", "skunk_lines", "match"})


def width() -> int:
    """The struct's size in 64-bit words."""
    return sum(w for _, w, _, _ in FIELDS)


def header() -> str:
    """``_lane_rules.h``: the struct's fields as an X-macro (``F(name)``, ``A(name, n)``), and the
    layout the module reports, made by the build from :data:`FIELDS`."""
    items = " ".join(f"F({n})" if w == 1 else f"A({n}, {w})" for n, w, _, _ in FIELDS)
    listed = ", ".join(f'{{"{n}", {w}}}' for n, w, _, _ in FIELDS)
    return ("/* Made by setup.py from cribsim/games/cribbage/native/layout.py, the one declaration of the\n"
            " * rules struct: do not edit (edit layout.py, then build again). */\n"
            f"#define RULES_FIELDS(F, A) {items}\n"
            f"#define RULES_LAYOUT_ITEMS {listed}\n"
            f"#define RULES_FIELD_COUNT {len(FIELDS)}\n"
            f"#define RULES_WIDTH {width()}\n")
