"""A run belongs to its code of one's own as it does to its config (``config.py``'s hash): the
modules of a designer's variants, the rules a player is told (``believes``) and their modules,
and a trusted plug-in's module are read into the config's hash when it is read. Edit one, and a
run into the folder of the old code's run is refused in one line, as for an edited config,
rather than resumed with records of another rule or bot mixed in; the same code in another folder
has the same hash."""

import subprocess
import sys
from pathlib import Path

from cribsim.cli.main import main
from cribsim.tournament.config import load_experiment

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "variants"


def _study(folder: Path) -> Path:
    folder.mkdir()
    (folder / "thrice.py").write_text((EXAMPLES / "crib3.py").read_text().replace('name = "crib3"',
                                                                                 'name = "thrice"'))
    (folder / "thrice.yaml").write_text('extends: standard\nname: thrice\nvariants: ["thrice:CribThrice"]\n')
    (folder / "told.yaml").write_text("extends: standard\nname: told\ntarget: 121\n")
    (folder / "bots.py").write_text("from strategies.greedy import GreedyStrategy\n\n\n"
                                    "class Bot(GreedyStrategy):\n    pass\n")
    (folder / "run.yaml").write_text(
        "name: own\nvariants: [thrice.yaml]\nmatches: 2\nseed: 1\nlineup:\n"
        "  - {name: bot, strategy: 'bots:Bot', trusted: true}\n"
        "  - {name: told, strategy: adaptive, params: {believes: told.yaml, learn_deals: 10, learn_samples: 10,"
        " rollouts: 1, discard_rollouts: 1, worlds: 1, board_samples: 1}}\n")
    return folder / "run.yaml"


def _hash(config: Path) -> str:
    read = subprocess.run([sys.executable, "-c", "import sys; from cribsim.tournament.config import load_experiment; "
                           "print(load_experiment(sys.argv[1]).config_hash())", str(config)],
                          capture_output=True, text=True, cwd=config.parent.parent, timeout=300, check=True)
    return read.stdout.strip()


def test_an_edited_module_rules_file_or_plugin_is_another_run(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    config = _study(tmp_path / "study")
    out = str(tmp_path / "out")
    assert main(["run", str(config), "--out", out, "--serial", "--quiet"]) == 0
    first = load_experiment(config).config_hash()
    # the same code elsewhere: the same run (each read in a process of its own, as a run reads it)
    assert _hash(config) == _hash(_study(tmp_path / "moved")) == first
    assert main(["run", str(config), "--out", out, "--serial", "--quiet"]) == 0  # (complete: nothing to play)
    capsys.readouterr()
    edits = [("thrice.py", "2 * points", "5 * points"), ("told.yaml", "target: 121", "target: 91"),
             ("bots.py", "pass", "name = 'bot'")]
    for name, old, new in edits:
        path = config.parent / name
        kept = path.read_text()
        path.write_text(kept.replace(old, new))
        assert load_experiment(config).config_hash() != first, name
        assert main(["run", str(config), "--out", out, "--serial", "--quiet"]) == 2
        err = capsys.readouterr().err
        # (the told rules are new rules: adaptive learns them first, in progress lines)
        assert "already holds a run of a different config" in err.splitlines()[-1] and "Traceback" not in err
        path.write_text(kept)
    assert load_experiment(config).config_hash() == first


def test_a_link_in_a_plugins_package_counts_by_where_it_points_and_is_never_read(tmp_path):
    """A plug-in's package folder is hashed file by file; a link in it (here to an endless device)
    counts by its target's name and is never followed, so reading the config cannot hang."""
    pkg = tmp_path / "botpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from strategies.greedy import GreedyStrategy\n\n\n"
                                     "class Bot(GreedyStrategy):\n    pass\n")
    (pkg / "endless").symlink_to("/dev/zero")
    config = tmp_path / "run.yaml"
    config.write_text("name: linked\nmatches: 2\nlineup:\n  - {name: bot, strategy: 'botpkg:Bot', trusted: true}\n"
                      "  - random\n")
    first = _hash(config)
    (pkg / "endless").unlink()
    (pkg / "endless").symlink_to("/dev/null")
    assert _hash(config) != first


def test_a_balance_and_a_tune_cover_the_code_their_steps_load(tmp_path):
    """``cribsim balance`` and ``cribsim tune`` keep a hash of their own file: it takes in what
    their steps' configs load too, so an edited variant module is another study, not a resume of
    the old module's looks or iterations."""
    from cribsim.tournament.balance import load_balance
    from cribsim.tournament.tune import load_tune

    (tmp_path / "thrice_b.py").write_text((EXAMPLES / "crib3.py").read_text().replace('name = "crib3"',
                                                                                   'name = "thrice_b"'))
    (tmp_path / "thrice.yaml").write_text('extends: standard\nname: thrice\nvariants: ["thrice_b:CribThrice"]\n')
    rules = tmp_path / "thrice.yaml"  # (a step's config is written elsewhere: the rules by their full path)
    (tmp_path / "bal.yaml").write_text(f"name: bal\nrules: {rules}\nknob: first_pone_points\nrange: [0, 8]\n"
                                       "metric: first_dealer_wins\ntarget: 0.5\nlineup: [greedy]\nlook: 100\n")
    (tmp_path / "tune.yaml").write_text(f"name: tn\nvariant: {rules}\nstrategy: ev\nopponent: greedy\n"
                                        "params: {crib_weight: {start: 1.0, lo: 0.0, hi: 3.0, c: 0.5}}\nmatches: 4\n"
                                        "final_matches: 4\n")
    before = load_balance(tmp_path / "bal.yaml").config_hash(), load_tune(tmp_path / "tune.yaml").config_hash()
    module = tmp_path / "thrice_b.py"
    module.write_text(module.read_text().replace("2 * points", "5 * points"))
    after = load_balance(tmp_path / "bal.yaml").config_hash(), load_tune(tmp_path / "tune.yaml").config_hash()
    assert before[0] != after[0] and before[1] != after[1]


def test_a_balance_covers_the_program_bots_its_steps_play(tmp_path):
    """A balance whose lineup plays a program bot takes the hash of the program's files into its
    own: a changed program is another study (its steps' folders would otherwise refuse the
    changed program with advice, --fresh, that balance does not have)."""
    import sys

    from cribsim.tournament.balance import load_balance
    from tests.kernel.protocol_players import RAW_PLAYER

    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "first.py").write_text(RAW_PLAYER)
    (tmp_path / "bal.yaml").write_text(
        f"name: bal\nrules: standard\nknob: first_pone_points\nrange: [0, 8]\nmetric: first_dealer_wins\n"
        f"target: 0.5\nlook: 100\nlineup:\n  - {{name: raw, command: [{sys.executable}, first.py], cwd: {bot}, "
        "files: [first.py], trusted: true}\n  - greedy\n")
    before = load_balance(tmp_path / "bal.yaml").config_hash()
    assert load_balance(tmp_path / "bal.yaml").config_hash() == before
    (bot / "first.py").write_text(RAW_PLAYER + "\n# another program\n")
    assert load_balance(tmp_path / "bal.yaml").config_hash() != before


def test_a_programs_own_file_is_its_script_not_the_interpreter_that_runs_it(tmp_path):
    """Without ``files:``, a program is shown (and its manifest hashes) the first word of its
    command that names a file in its folder: the script an interpreter outside the system's
    folders runs, not that interpreter (whose hash would not change with the bot)."""
    import sys

    from cribsim.tournament.config import program_files

    (tmp_path / "first.py").write_text("print('hello')\n")
    interpreter = tmp_path.parent / "elsewhere" / "python"
    interpreter.parent.mkdir(exist_ok=True)
    interpreter.write_text("#!/bin/sh\n")
    assert program_files([str(interpreter), "first.py"], str(tmp_path)) == (str(tmp_path / "first.py"),)
    assert program_files([str(interpreter)], str(tmp_path)) == (str(interpreter),)  # (nothing in its folder)
    assert program_files([sys.executable, "first.py", "--fast"], str(tmp_path)) == (str(tmp_path / "first.py"),)
