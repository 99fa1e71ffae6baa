"""Optional dependencies of the RL package: numpy, gymnasium and pettingzoo.

None of them is required: each is looked up once at import time and is ``None`` when it
is missing, so the package (and the core beneath it) imports on a bare Python.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["gymnasium", "load", "np", "pettingzoo"]


def load(name: str) -> Any:
    """The module ``name`` if it can be imported, else None (optional dependency)."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


np: Any = load("numpy")
"""numpy, or None when it is not installed."""

gymnasium: Any = load("gymnasium") if np is not None else None
"""gymnasium (which itself needs numpy), or None."""

pettingzoo: Any = load("pettingzoo") if gymnasium is not None else None
"""pettingzoo (which needs gymnasium), or None."""
