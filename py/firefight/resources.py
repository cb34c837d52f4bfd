"""Where the templates and language files are: inside the wheel, or in a source checkout."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def resource_dir(name: str) -> Path:
    """``firefight/<name>`` in an installed wheel, else the checkout's top-level ``<name>/``."""
    packaged = Path(str(files("firefight"))) / name
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parents[2] / name
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(f"firefight resources {name!r} are missing from the installation")
