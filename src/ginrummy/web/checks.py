"""Checks of request bodies that several parts share: an object's fields and flags, names,
lists of seat tokens, and the version a change is based on. Each refusal is a TableError
400 with the sentence to show."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..i18n import N_, t
from .errors import TableError

__all__ = ["MAX_NAME", "check_tokens", "clean_name", "flag", "json_object", "unknown_field",
           "version_of"]

MAX_NAME = 30
"""Longest player name, in characters."""


def clean_name(value: Any, default: str) -> str:
    """A player's name as the lobby sends it: spaces collapsed, at most 30 printable
    characters; empty or absent gives ``default``. Raises TableError 400 otherwise.

    >>> clean_name("  Ann   Lee ", "You")
    'Ann Lee'
    """
    if value is None:
        return default
    if not isinstance(value, str):
        raise TableError(400, N_("The name must be text."))
    name = " ".join(value.split())
    if not name:
        return default
    if len(name) > MAX_NAME or any(not ch.isprintable() for ch in name):
        raise TableError(400, t("A name is at most {n} printable characters.",
                                n=str(MAX_NAME)))
    return name


def check_tokens(body: Any, most: int) -> list[str]:
    """The ``tokens`` of a ``{"tokens": [...]}`` request (at most ``most``); 400 else."""
    if not isinstance(body, Mapping) or not isinstance(body.get("tokens"), list):
        raise TableError(400, N_("Send {\"tokens\": [\"...\", ...]}."))
    tokens = body["tokens"]
    if len(tokens) > most:
        raise TableError(400, t("At most {n} tokens at a time.", n=str(most)))
    if not all(isinstance(x, str) and 0 < len(x) <= 200 for x in tokens):
        raise TableError(400, N_("Each token must be non-empty text."))
    return list(tokens)


def version_of(body: Mapping[str, Any]) -> int:
    """The ``version`` a request is based on; 400 unless it is an integer."""
    v = body.get("version")
    if isinstance(v, bool) or not isinstance(v, int):
        raise TableError(
            400, N_("Send the 'version' of the state you are acting on, e.g. "
                    "{\"version\": 17}.")
        )
    return v


def json_object(body: Any, fields: set[str]) -> Mapping[str, Any]:
    """A request body that is an object holding only ``fields`` (None, no body: an empty
    one); TableError 400 naming the first unknown field otherwise.

    >>> dict(json_object(None, {"rated"}))
    {}
    """
    if body is None:
        return {}
    if not isinstance(body, Mapping):
        raise TableError(400, N_("The request body must be a JSON object."))
    unknown = set(body) - fields
    if unknown:
        raise unknown_field(unknown)
    return body


def unknown_field(unknown: set[str]) -> TableError:
    """The refusal (400) of a body holding fields not taken: the first one named.

    >>> unknown_field({"b", "a"}).message
    "Unknown field 'a'."
    """
    return TableError(400, t("Unknown field {field}.", field=repr(sorted(unknown)[0])))


def flag(body: Mapping[str, Any], key: str) -> bool:
    """``body[key]``, true or false (false when absent); TableError 400 otherwise."""
    value = body.get(key, False)
    if not isinstance(value, bool):
        raise TableError(400, t("{field} is true or false.", field=repr(key)))
    return value
