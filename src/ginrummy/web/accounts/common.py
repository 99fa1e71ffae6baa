"""Passwords too easy to guess, refused at sign-up (as NIST SP 800-63B asks: commonly used
values, repeated or sequential characters, and words of the service's own context).

A password is refused when, compared without regard to case, it is one of the commonest
passwords (``common_passwords.txt`` beside this module: its header says where the list
comes from), or one of them with at most four digits and symbols around it
(``dragon12``, ``Password1!``) or with the usual letter swaps (``p@ssw0rd``); when it is
only digits, one or two characters repeated, or a run of the alphabet, the digits or a
keyboard row; or when it is the username, the site's name, or either with at most four
characters more. Logging in never checks this: an older password keeps working.
"""

from __future__ import annotations

import functools
from pathlib import Path

from ...i18n import N_
from ..errors import TableError

__all__ = ["TOO_EASY", "check_not_common", "is_too_easy"]

TOO_EASY = N_("That password is too easy to guess (a common password, a simple pattern or "
              "your username): choose another, such as a few words together.")
"""The one sentence of the refusal."""

LIST = Path(__file__).with_name("common_passwords.txt")
SITE_WORDS = ("ginrummy", "gin rummy", "gin-rummy", "gin_rummy", "rummy")
RUNS = ("abcdefghijklmnopqrstuvwxyz", "01234567890", "qwertyuiop", "asdfghjkl", "zxcvbnm",
        "1qaz2wsx3edc4rfv5tgb", "qazwsxedcrfvtgbyhnujm")
AROUND = "0123456789!@#$%^&*()-_=+.,?;:~ "
SWAPS = str.maketrans({"@": "a", "4": "a", "0": "o", "3": "e", "1": "i", "!": "i", "$": "s",
                       "5": "s", "7": "t"})
SLACK = 4
"""Characters a common password (or the username) may carry around it and still count."""


@functools.cache
def common_passwords() -> frozenset[str]:
    """The list, folded (read once)."""
    lines = LIST.read_text(encoding="utf-8").splitlines()
    return frozenset(x.strip().casefold() for x in lines if x.strip() and not x.startswith("#"))


def _runs(text: str) -> bool:
    """Whether ``text`` is a piece of a run (forwards or backwards) at least 4 long."""
    return len(text) >= 4 and any(text in r or text in r[::-1] for r in RUNS)


def is_too_easy(password: str, username: str = "") -> bool:
    """Whether ``password`` is refused (see the module docstring).

    >>> [is_too_easy(p) for p in ("password", "Password1!", "p@ssw0rd", "12345678")]
    [True, True, True, True]
    >>> [is_too_easy(p) for p in ("aaaaaaaa", "abababab", "qwertyui", "ginrummy99")]
    [True, True, True, True]
    >>> is_too_easy("Ann_Lee2024", "Ann_Lee"), is_too_easy("correct horse battery")
    (True, False)
    """
    p = password.casefold()
    if p.isdigit() or len(set(p)) <= 2 or _runs(p):
        return True
    user = username.casefold()

    def known(word: str) -> bool:
        return word in common_passwords() or word in SITE_WORDS or (bool(user) and word == user)

    candidates = {p, p.translate(SWAPS)}
    core = p.strip(AROUND)
    if len(p) - len(core) <= SLACK:
        candidates |= {core, core.translate(SWAPS)}
    if any(known(c) or _runs(c) for c in candidates):
        return True
    return any(len(word) >= 3 and word in p and len(p) - len(word) <= SLACK
               for word in (user, *SITE_WORDS))


def check_not_common(password: str, username: str) -> None:
    """TableError 400 with :data:`TOO_EASY` when the password is too easy to guess."""
    if is_too_easy(password, username):
        raise TableError(400, TOO_EASY)
