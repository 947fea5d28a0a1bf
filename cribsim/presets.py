"""The rule presets and example experiments shipped inside the package.

The files live in the project's top-level ``configs/`` folder (the one users read and edit);
``cribsim/configs`` links to it, so a source checkout, an editable install and a built wheel
(which copies the files in as package data) all find them through ``importlib.resources``."""

from importlib import resources
from pathlib import Path


def configs_dir() -> Path:
    """The packaged ``configs`` folder (rules/, experiments/, quickstart.yaml)."""
    return Path(str(resources.files("cribsim").joinpath("configs")))


def rules_dir() -> Path:
    return configs_dir() / "rules"


def example_configs() -> list[Path]:
    """Every example experiment shipped (every YAML file outside rules/), sorted."""
    root = configs_dir()
    if not root.is_dir():
        return []
    return sorted(f for f in root.rglob("*.yaml") if "rules" not in f.relative_to(root).parts)


def experiment_dirs() -> list[Path]:
    """Where ``cribsim run NAME`` looks, in order: ``configs/`` and ``configs/experiments/`` of
    the working directory, then the same folders shipped in the package."""
    roots = [Path.cwd() / "configs", configs_dir()]
    return [d for root in roots for d in (root, root / "experiments")]


def find_experiment(name: str) -> Path | None:
    """The experiment config called ``name`` (``quickstart``, ``ladder``), or None."""
    for d in experiment_dirs():
        p = d / f"{name}.yaml"
        if p.is_file():
            return p
    return None


def experiment_names() -> list[str]:
    """Every experiment ``cribsim run NAME`` can find by name."""
    return sorted({p.stem for d in experiment_dirs() if d.is_dir() for p in d.glob("*.yaml")})
