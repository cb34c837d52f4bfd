"""Where the templates and language files are: inside the wheel, or in a source checkout; and
those of each ruleset or house rule package (its own ``lang/`` and ``templates/``)."""

from __future__ import annotations

import sys
from pathlib import Path

# Ruleset id -> its package's templates/ (a card template "<id>/<name>" is read from there).
TEMPLATE_DIRS: dict[str, str] = {}


def resource_dir(name: str) -> Path:
    """``firefight/<name>`` in an installed wheel, else the checkout's top-level ``<name>/``.
    (Beside this file: a wheel is installed unpacked, also in Pyodide; importlib.resources would
    add tempfile, shutil and zipfile to the engine's import, issue 17.)"""
    packaged = Path(__file__).resolve().parent / name
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parents[2] / name
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(f"firefight resources {name!r} are missing from the installation")


def package_dir(obj: object, name: str) -> Path | None:
    """``<name>/`` beside the module that defines ``obj``'s class (a ruleset's or house rule's
    package), if it has one."""
    module = sys.modules.get(type(obj).__module__)
    if module is None or getattr(module, "__file__", None) is None:
        return None
    path = Path(str(module.__file__)).parent / name
    return path if path.is_dir() else None
