"""The pictures and tables of a results folder carry its statistics: ``compare.png`` draws each
variant's paired difference from the baseline with its interval (and the terminal prints the
differences), ``sweep.png`` marks the base's own rules and reads at its own size, every picture
lists the variants in one order, file names hold no shell glob characters (and a folder written
with the older names still reports), a table of no games says so, and a skill gap between
entries that never met says why it is blank."""

import contextlib
import csv
import io
import json
import re
import shutil
import struct
from pathlib import Path

import pytest
from matplotlib.container import ErrorbarContainer
from matplotlib.text import Text

from cribsim.cli.main import main
from cribsim.tournament import compare, report, sweepreport

SWEEP = """\
name: pictures
variants: [standard]
sweep:
  - {scoring.pair: [1, 2, 3]}
  - {target: [61, 121]}
lineup:
  - {name: greedy, strategy: greedy}
  - {name: random, strategy: random}
matches: 16
seed: 5
"""
POINTS = ["standard[pair=1]", "standard", "standard[pair=3]", "standard[target=61]"]
GLOB = set("[]*?")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A run of a sweep, its report and its comparison written in place; every figure drawn
    kept (by file name) with the dots an inch it was saved at, and what compare printed."""
    d = tmp_path_factory.mktemp("pictures")
    (d / "pictures.yaml").write_text(SWEEP)
    out = d / "out"
    figures = {}
    with pytest.MonkeyPatch.context() as mp:
        for module in (compare, sweepreport, report):
            real = module.save_figure

            def keep(fig, path, dpi, real=real):
                figures[Path(path).name] = (fig, dpi)
                real(fig, path, dpi)

            mp.setattr(module, "save_figure", keep)
        assert main(["run", str(d / "pictures.yaml"), "--serial", "--quiet", "--out", str(out)]) == 0
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            assert main(["compare", str(out), "--out", str(out)]) == 0
    return out, figures, printed.getvalue()


def _panels(fig):
    return {ax.get_title().split("\n")[0]: ax for ax in fig.axes if ax.get_title()}


def _interval(cell):
    """(value, lo, hi) of a cell such as ``0.1000 [0.0101, 0.1899] (40)``."""
    m = re.fullmatch(r"(-?[\d.]+) \[(-?[\d.]+), (-?[\d.]+)\] \(\d+\)", cell)
    return tuple(float(x) for x in m.groups())


def test_compare_png_draws_each_paired_difference_with_its_interval(run):
    out, figures, _ = run
    fig, _ = figures["compare.png"]
    panels = _panels(fig)
    rows = list(csv.DictReader((out / "compare_diff.csv").open()))
    assert rows
    for r in rows:
        ax = panels[r["metric"]]
        paired = [c for c in ax.containers if isinstance(c, ErrorbarContainer)
                  and c.get_label().startswith("paired difference")]
        assert len(paired) == 1, f"{r['metric']}: no paired differences drawn"
        drawn = paired[0]
        values = list(drawn.lines[0].get_xdata())
        bars = [sorted(seg[:, 0]) for seg in drawn.lines[2][0].get_segments()]
        value, lo, hi = _interval(r["paired difference from standard (matches)"])
        k = min(range(len(values)), key=lambda i: abs(values[i] - value))
        assert values[k] == pytest.approx(value, abs=6e-5)
        assert bars[k] == pytest.approx([lo, hi], abs=6e-5)
        assert any(list(line.get_xdata()) == [0, 0] for line in ax.lines)  # 0: the baseline


def test_compare_prints_the_differences_too(run):
    out, _, printed = run
    assert "Differences from standard (per match; paired on the same deals)" in printed
    first = next(csv.DictReader((out / "compare_diff.csv").open()))
    assert re.search(re.escape(first["variant"]) + r" +" + re.escape(first["metric"]) + " +"
                     + re.escape(first["paired difference from standard (matches)"]), printed)


def _order(ax):
    """The row labels from the bottom of the picture to its top (as drawn, not as numbered)."""
    ticks = [(ax.transData.transform((0, y))[1], label.get_text().removesuffix(" (baseline)"))
             for y, label in zip(ax.get_yticks(), ax.get_yticklabels())]
    return [name for _, name in sorted(ticks)]


def test_every_picture_lists_the_variants_in_one_order(run):
    _, figures, _ = run
    names = [n for n in POINTS[:3]] + ["standard[target=61]"]
    variants = _order(figures["variants.png"][0].axes[0])
    compared = _order(next(iter(_panels(figures["compare.png"][0]).values())))
    assert variants == compared
    assert sorted(variants) == sorted(names)


def _png_width(path):
    return struct.unpack(">I", path.read_bytes()[16:20])[0]


@pytest.mark.parametrize("name", ["compare.png", "sweep.png"])
def test_the_pictures_read_at_their_own_size(run, name):
    """At most 1,200 pixels wide, no text under 9 points (12 pixels at 100 dots an inch)."""
    out, figures, _ = run
    fig, dpi = figures[name]
    assert _png_width(out / name) == round(fig.get_figwidth() * dpi) <= 1200
    small = {t.get_text(): t.get_fontsize() for t in fig.findobj(Text) if t.get_text() and t.get_visible()
             and t.get_fontsize() < 9}
    assert not small


def test_sweep_png_marks_the_base_value(run):
    _, figures, _ = run
    fig, _ = figures["sweep.png"]
    panels = [ax for ax in fig.axes if ax.get_title()]
    assert len(panels) == 2 * 8  # two sweeps, eight metrics each
    for ax, base in zip(panels, [2] * 8 + [121] * 8):
        assert any(list(line.get_xdata()) == [base, base] for line in ax.lines), ax.get_title()
        squares = [line for line in ax.lines if line.get_marker() == "s"]
        assert [list(line.get_xdata()) for line in squares] == [[base]]
        bold = [t.get_text() for t in ax.get_xticklabels() if t.get_fontweight() == "bold"]
        assert bold == [str(base)]


def test_file_names_hold_no_shell_glob_characters(run):
    out, _, _ = run
    names = [f.name for f in out.iterdir()]
    listed = json.loads((out / "manifest.json").read_text())["files"]
    assert {"heatmap_standard_pair=1.png", "matrix_standard_target=61.csv"} <= set(names) & set(listed)
    assert [n for n in names + listed if GLOB & set(n)] == []


def test_a_folder_written_with_the_older_names_still_reports(run, tmp_path):
    """A results folder from before (``matrix_standard[pair=1].csv``, listed in its manifest)
    reports: the files come back under the new names, and the old ones go."""
    out, _, _ = run
    old = tmp_path / "old"
    shutil.copytree(out, old)
    manifest = json.loads((old / "manifest.json").read_text())
    renamed = []
    for name in manifest["files"]:
        m = re.fullmatch(r"(matrix|heatmap)_standard_(\w+=\d+)\.(csv|png)", name)
        if m:
            before = f"{m[1]}_standard[{m[2]}].{m[3]}"
            (old / name).rename(old / before)
            renamed.append(before)
    assert len(renamed) == 2 * 3
    positions = ["positions_standard[pair=1].csv", "positions_standard[pair=1].png"]
    for name in positions:
        (old / name).write_text("an older positions table\n")
    manifest["files"] = sorted({f for f in manifest["files"] if "_standard_" not in f} | set(renamed) | set(positions))
    (old / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    assert main(["report", str(old), "--quiet"]) == 0
    assert main(["positions", str(old), "--variant", "standard[pair=1]", "--quiet"]) == 0
    names = {f.name for f in old.iterdir()}
    listed = set(json.loads((old / "manifest.json").read_text())["files"])
    assert not [n for n in names | listed if GLOB & set(n)]  # the old names, gone and no longer listed
    assert {"heatmap_standard_pair=1.png", "matrix_standard_pair=3.csv", "positions_standard_pair=1.csv"} \
        <= names & listed  # (the positions table in the run's own folder, where the old one was)
    assert (old / "matrix_standard_pair=1.csv").read_bytes() == (out / "matrix_standard_pair=1.csv").read_bytes()


FORFEITED = """\
name: forfeited
variants: [standard]
lineup:
  - {name: rnd, strategy: random}
  - {name: raiser, strategy: "tests.kernel.bad_strategies:Raiser", params: {p: 1.0}, trusted: true}
matches: 4
seed: 3
"""


def test_a_table_of_no_games_says_so(tmp_path):
    """Every match forfeited: the per-game figures say ``no games``, never ``nan``; the CSV keeps
    its columns, blank."""
    (tmp_path / "f.yaml").write_text(FORFEITED)
    assert main(["run", str(tmp_path / "f.yaml"), "--serial", "--quiet", "--out", str(tmp_path / "out")]) == 0
    summary = (tmp_path / "out" / "summary.md").read_text()
    table = summary.split("### Variants", 1)[1].split("###", 1)[0]
    assert "nan" not in summary
    for row in ("first dealer wins", "deals/game", "skunk rate"):
        assert re.search(rf"\| {re.escape(row)} +\| no games +\|", table), row
    row = next(csv.DictReader((tmp_path / "out" / "variants.csv").open()))
    assert row["games"] == "0" and row["first dealer wins"] == row["deals/game_lo"] == ""
    assert row["first dealer wins_n"] == "0"


GAUNTLET = """\
name: gauntlet
variants: [standard]
lineup:
  - {name: greedy, strategy: greedy}
  - {name: ev, strategy: ev}
  - {name: random, strategy: random}
format: gauntlet
matches: 10
seed: 4
"""


def test_a_skill_gap_between_entries_that_never_met_says_why(tmp_path):
    """In a gauntlet the first entry meets each other; the best and the worst, both others,
    never meet: the summary names them and says why their win rate is blank."""
    (tmp_path / "g.yaml").write_text(GAUNTLET)
    assert main(["run", str(tmp_path / "g.yaml"), "--serial", "--quiet", "--out", str(tmp_path / "out")]) == 0
    table = (tmp_path / "out" / "summary.md").read_text().split("### Variants", 1)[1]
    assert re.search(r"\| best vs worst +\| ev vs random +\|", table)
    assert re.search(r"\| skill gap +\| never met \(no such pairing\) +\|", table)
    row = next(csv.DictReader((tmp_path / "out" / "variants.csv").open()))
    assert row["best vs worst"] == "ev vs random" and row["skill gap"] == ""
