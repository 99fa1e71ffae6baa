"""Fixed-size encodings of a seat's :class:`~ginrummy.hand.View` and of the actions, for RL.

Everything here is computed from a ``View`` alone, i.e. from what the seat may see
(R11): its own cards, the discard pile, the public history (passes, draws from the
pile, discards) and the public numbers. Nothing reads a ``Hand`` or ``Match``.

Observation (``OBS_SIZE`` = 589 floats, all in [0, 1]): eleven planes of 52, one value
per card index ``suit * 13 + rank`` (suits C D H S, ranks A..K, R1), then 17 scalars.
See :data:`PLANES`, :data:`SCALARS` and :func:`layout` for the exact slices.

Actions (``NUM_ACTIONS`` = 107): 0 pass, 1 draw from the stock, 2 draw from the discard
pile (taking the up-card included, R4), 3 + i discard card i, 55 + i discard card i and
knock (R6).

Functions return numpy arrays when numpy is installed and plain lists otherwise;
``as_numpy=False`` forces lists, ``as_numpy=True`` requires numpy.

>>> from ginrummy.match import Match
>>> view = Match(seed=3).view(0)
>>> len(encode(view, as_numpy=False)) == OBS_SIZE
True
>>> id_to_action(action_to_id(Action.discard("KS", knock=True)))
Action(act='discard', card=Card.parse('KS'), knock=True)
"""

from __future__ import annotations

import operator
from typing import Any

from ..cards import deck
from ..hand import DRAW_DISCARD, DRAW_STOCK, PASS, Action, Phase, View
from ..knowledge import Knowledge
from ..melds import deadwood_by_discard_mask, deadwood_mask
from . import _compat

__all__ = [
    "ACTIONS",
    "ENCODING_VERSION",
    "NUM_ACTIONS",
    "OBS_SIZE",
    "PLANES",
    "SCALARS",
    "action_to_id",
    "describe_action",
    "encode",
    "encode_list",
    "id_to_action",
    "layout",
    "legal_ids",
    "legal_mask",
]

ENCODING_VERSION = 1
"""Bumped whenever the observation layout changes, so saved agents can check it."""

# ----------------------------------------------------------------------------- actions

ACTIONS: tuple[Action, ...] = (
    PASS,
    DRAW_STOCK,
    DRAW_DISCARD,
    *(Action.discard(c, False) for c in deck()),
    *(Action.discard(c, True) for c in deck()),
)
"""Every action, indexed by its id: 0 pass, 1 draw stock, 2 draw discard, 3 + card index
discard, 55 + card index discard and knock."""

NUM_ACTIONS = len(ACTIONS)
_ACTION_IDS: dict[Action, int] = {a: i for i, a in enumerate(ACTIONS)}
_DISCARD_BASE = 3
_KNOCK_BASE = 3 + 52


def action_to_id(action: Action) -> int:
    """The id (0..106) of an action; raises ValueError for something that is not one."""
    try:
        return _ACTION_IDS[action]
    except (KeyError, TypeError):
        raise ValueError(f"Not a Gin Rummy action: {action!r}.") from None


def _as_id(action_id: object) -> int:
    """Read an action id (a Python or numpy integer); ValueError for anything else."""
    if isinstance(action_id, bool):
        raise ValueError(f"An action id is an integer 0..{NUM_ACTIONS - 1}, not {action_id!r}.")
    try:
        i = operator.index(action_id)  # type: ignore[arg-type]
    except TypeError:
        raise ValueError(
            f"An action id is an integer 0..{NUM_ACTIONS - 1}, not {action_id!r}."
        ) from None
    if not 0 <= i < NUM_ACTIONS:
        raise ValueError(f"No action has id {i}: ids run from 0 to {NUM_ACTIONS - 1}.")
    return int(i)


def id_to_action(action_id: object) -> Action:
    """The action with id ``action_id``; raises ValueError outside 0..106."""
    return ACTIONS[_as_id(action_id)]


def describe_action(action_id: object) -> str:
    """Short text of an action id, e.g. ``'57: discard 3C knock'``."""
    i = _as_id(action_id)
    return f"{i}: {ACTIONS[i]}"


def legal_ids(view: View) -> list[int]:
    """The ids of the seat's legal actions now, ascending (empty when it is not to play)."""
    return sorted(_ACTION_IDS[a] for a in view.legal)


def legal_mask(view: View, as_numpy: bool | None = None) -> Any:
    """107 flags, 1 where the action is legal for the seat now (from ``view.legal``).

    A numpy ``int8`` array when numpy is available (or ``as_numpy=True``), else a list.
    """
    mask = [0] * NUM_ACTIONS
    for a in view.legal:
        mask[_ACTION_IDS[a]] = 1
    return _output(mask, as_numpy, "int8")


# ----------------------------------------------------------------------------- observation

PLANES: tuple[tuple[str, str], ...] = (
    ("hand", "cards in the seat's own hand"),
    ("pile", "every card in the discard pile"),
    ("top", "the top card of the discard pile (the one that may be drawn)"),
    ("opp_holds", "cards the opponent took from the pile and has not discarded: "
                  "known to be in their hand"),
    ("opp_discarded", "cards the opponent discarded this hand"),
    ("opp_declined", "cards the opponent declined: the up-card they passed (R4), or the "
                     "pile's top when they drew from the stock instead"),
    ("my_discarded", "cards the seat itself discarded this hand"),
    ("dead", "cards buried in the pile under the top: out of play for this hand"),
    ("unseen", "cards the seat has not seen: in the stock or the opponent's unknown cards"),
    ("taken", "the card just taken from the pile, which may not go straight back (R5)"),
    ("deadwood_after", "in the discard phase, for each own card: deadwood of the 10 cards "
                       "left after discarding it, divided by 100"),
)
"""The 52-card planes, in order: (name, meaning). Card index = suit * 13 + rank."""

SCALARS: tuple[tuple[str, str], ...] = (
    ("phase_offer", "1 in the up-card offer (R4)"),
    ("phase_draw", "1 when a draw is due"),
    ("phase_discard", "1 when a discard is due"),
    ("phase_over", "1 once the hand has ended"),
    ("my_turn", "1 when this seat is to act"),
    ("is_dealer", "1 when this seat dealt the hand"),
    ("stock_count", "cards left in the stock / 31"),
    ("knock_limit", "the hand's knock limit / 10 (R6, R12)"),
    ("gin_only", "1 on a gin-only table (R12)"),
    ("oklahoma", "1 on an Oklahoma table (R12)"),
    ("my_score", "own match score / target, capped at 1"),
    ("opp_score", "opponent's match score / target, capped at 1"),
    ("target", "the match target / 250 (R10)"),
    ("hand_index", "hands dealt before this one / 60 (R10)"),
    ("deadwood", "least deadwood of the whole own hand (10 or 11 cards) / 110 (R2)"),
    ("best_deadwood", "least deadwood reachable after one discard in the discard phase, "
                      "else the hand's deadwood, / 100"),
    ("opp_unknown", "opponent cards not known to the seat / 10"),
)
"""The scalars after the planes, in order: (name, meaning); all in [0, 1]."""

OBS_SIZE = 52 * len(PLANES) + len(SCALARS)
"""Length of an observation vector (589 for encoding version 1)."""

_PLANE = {name: i for i, (name, _) in enumerate(PLANES)}
_PHASES = (Phase.OFFER, Phase.DRAW, Phase.DISCARD, Phase.OVER)


def layout() -> dict[str, tuple[int, int]]:
    """Each named part of the observation as a ``(start, stop)`` slice.

    >>> layout()["hand"], layout()["phase_offer"]
    ((0, 52), (572, 573))
    """
    out: dict[str, tuple[int, int]] = {}
    for i, (name, _) in enumerate(PLANES):
        out[name] = (52 * i, 52 * i + 52)
    base = 52 * len(PLANES)
    for j, (name, _) in enumerate(SCALARS):
        out[name] = (base + j, base + j + 1)
    return out


def _bits(vec: list[float], plane: int, mask: int, value: float = 1.0) -> None:
    """Set ``value`` at every card of ``mask`` in plane ``plane`` of ``vec``."""
    off = 52 * plane
    while mask:
        low = mask & -mask
        vec[off + low.bit_length() - 1] = value
        mask ^= low


def encode_list(view: View) -> list[float]:
    """The observation of ``view`` as a plain list of ``OBS_SIZE`` floats (see module doc)."""
    me = view.seat
    k = Knowledge.of(view)  # the public history read once, the same way the bots read it
    hand, pile_mask, taken = k.mine, k.pile, k.taken
    top = 1 << k.top if k.top is not None else 0

    vec = [0.0] * OBS_SIZE
    _bits(vec, 0, hand)
    _bits(vec, 1, pile_mask)
    _bits(vec, 2, top)
    _bits(vec, 3, k.opp_known)
    _bits(vec, 4, k.opp_discarded)
    _bits(vec, 5, k.opp_passed)
    _bits(vec, 6, k.my_discarded)
    _bits(vec, 7, pile_mask & ~top)
    _bits(vec, 8, k.unseen)
    if taken is not None:
        vec[52 * 9 + taken] = 1.0

    deadwood = deadwood_mask(hand)
    best = deadwood
    if view.phase is Phase.DISCARD and len(view.hand) == 11:
        off = 52 * _PLANE["deadwood_after"]
        table = deadwood_by_discard_mask(hand)
        best = 1000
        for i, dw in table.items():
            vec[off + i] = dw / 100.0
            if i != taken and dw < best:
                best = dw

    base = 52 * len(PLANES)
    vec[base + _PHASES.index(view.phase)] = 1.0
    target = view.options.target
    scalars = (
        1.0 if view.to_play == me else 0.0,
        1.0 if view.dealer == me else 0.0,
        view.stock_count / 31.0,
        view.knock_limit / 10.0,
        1.0 if view.options.gin_only else 0.0,
        1.0 if view.options.oklahoma else 0.0,
        min(view.scores[me] / target, 1.0),
        min(view.scores[1 - me] / target, 1.0),
        target / 250.0,
        min(view.hand_index / 60.0, 1.0),
        min(deadwood / 110.0, 1.0),
        min(best / 100.0, 1.0),
        k.opp_unknown / 10.0,
    )
    vec[base + 4: base + 4 + len(scalars)] = scalars
    return vec


def encode(view: View, as_numpy: bool | None = None) -> Any:
    """The observation of ``view``: a numpy ``float32`` array of ``OBS_SIZE`` when numpy is
    available (or ``as_numpy=True``), else a list of floats."""
    return _output(encode_list(view), as_numpy, "float32")


def _output(values: list[Any], as_numpy: bool | None, dtype: str) -> Any:
    """``values`` as a numpy array of ``dtype`` if asked for or available, else the list."""
    if as_numpy is False or (as_numpy is None and _compat.np is None):
        return values
    if _compat.np is None:
        raise ValueError("as_numpy=True needs numpy, which is not installed.")
    return _compat.np.asarray(values, dtype=dtype)
