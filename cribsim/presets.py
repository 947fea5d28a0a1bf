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
