"""Fast observations for the environments: both seats' knowledge of a hand, kept up to date
from each applied :class:`~ginrummy.hand.Operation`, and encoded straight into numpy.

:func:`ginrummy.rl.encoding.encode` reads a :class:`~ginrummy.hand.View`, whose history it
walks from the start on every call (:meth:`ginrummy.knowledge.Knowledge.of`); an
environment instead sees every operation as it happens, so :class:`HandTracker` updates
the same card masks in a few integer operations per step. The observation and mask it
writes are the ones :func:`~ginrummy.rl.encoding.encode` and
:func:`~ginrummy.rl.encoding.legal_mask` give for the seat's view (the tests compare them
at every step of many games): only what that seat may see is used (R11), the hidden
cards never are. Needs numpy.

>>> from ginrummy.match import Match
>>> from ginrummy.rl.encoding import encode
>>> m = Match(seed=3)
>>> t = HandTracker(m.hand)
>>> bool((t.observation(0) == encode(m.view(0))).all())
True
"""

from __future__ import annotations

from typing import Any

from .. import kernel
from ..hand import Action, Hand, Operation, Phase
from ..knowledge import ALL_CARDS, Knowledge, Shown
from . import _compat
from .encoding import _ACTION_IDS, ACTIONS, NUM_ACTIONS, OBS_SIZE, PLANES

__all__ = ["HandTracker", "is_legal", "legal_id_list"]

_NPLANES = len(PLANES)
_DW_AFTER = 52 * (_NPLANES - 1)  # the deadwood_after plane: the last one
_BITS = 52 * (_NPLANES - 1)  # the 0/1 planes before it
_BASE = 52 * _NPLANES  # first scalar
_PHASE_SLOT = {Phase.OFFER: 0, Phase.DRAW: 1, Phase.DISCARD: 2, Phase.OVER: 3}
_DISCARD = Phase.DISCARD  # enum members looked up once (class attribute access is slow)


def _np() -> Any:
    np = _compat.np
    if np is None:
        raise ValueError("The fast observations need numpy, which is not installed.")
    return np


class HandTracker:
    """What each seat knows of one hand (R11), updated by :meth:`apply` after each action.

    Build it when the hand is dealt and pass it every operation the hand returns
    (``Hand.play`` / ``Match.play``); it then answers :meth:`knowledge`,
    :meth:`observation` and :meth:`action_mask` for either seat without building views.
    What each step shows is recorded as :meth:`~ginrummy.knowledge.Knowledge.of` reads it
    (:class:`~ginrummy.knowledge.Shown`), and the deadwood after each discard comes from
    the hand kernel's solver.
    """

    __slots__ = ("hand", "_shown", "_const", "_dw", "_kernel")

    def __init__(self, hand: Hand) -> None:
        if hand.history:
            raise ValueError("A tracker starts at the deal: this hand has already begun.")
        self.hand = hand
        self._shown = Shown(hand.upcard.index)
        self._dw: dict[int, int] = {}  # deadwood of a hand mask, while it is held
        self._kernel = kernel.backend()
        np = _np()
        target = hand.options.target
        const = []
        for seat in (0, 1):
            c = np.zeros(OBS_SIZE - _BASE, dtype=np.float32)
            c[5] = 1.0 if hand.dealer == seat else 0.0
            c[7] = hand.knock_limit / 10.0
            c[8] = 1.0 if hand.options.gin_only else 0.0
            c[9] = 1.0 if hand.options.oklahoma else 0.0
            c[10] = min(hand.scores[seat] / target, 1.0)
            c[11] = min(hand.scores[1 - seat] / target, 1.0)
            c[12] = target / 250.0
            c[13] = min(hand.hand_index / 60.0, 1.0)
            const.append(c)
        self._const = const

    def apply(self, op: Operation) -> None:
        """Record one applied operation (in order, as the hand returned it)."""
        self._shown.replay((op,))

    def knowledge(self, seat: int) -> Knowledge:
        """The same :class:`~ginrummy.knowledge.Knowledge` as ``Knowledge.of(hand.view(seat))``."""
        h = self.hand
        shown = self._shown
        return shown.knowledge(seat, h.mask_of(seat), shown.pile_mask,
                               shown.pile[-1] if shown.pile else None,
                               h.phase is Phase.DISCARD)

    def _deadwood(self, mask: int) -> int:
        """Least deadwood of a hand mask (R2), remembered while the hand is held."""
        dw = self._dw.get(mask)
        if dw is None:
            if len(self._dw) > 64:
                self._dw.clear()
            dw = self._dw[mask] = self._kernel.deadwood(mask)
        return dw

    def observation(self, seat: int, out: Any = None) -> Any:
        """The observation of ``seat`` (``OBS_SIZE`` float32), equal to
        ``encode(hand.view(seat))``; written into ``out`` when given, else a new array."""
        np = _compat.np
        if np is None:
            _np()
        h = self.hand
        shown = self._shown
        opp = 1 - seat
        mine = h.mask_of(seat)
        pile = shown.pile_mask
        top = 1 << shown.pile[-1] if shown.pile else 0
        known = shown.known[opp]
        phase = h.phase
        big = (mine | pile << 52 | top << 104 | known << 156 | shown.discarded[opp] << 208
               | shown.passed[opp] << 260 | shown.discarded[seat] << 312
               | (pile & ~top) << 364 | (ALL_CARDS & ~mine & ~pile & ~known) << 416)
        taken = shown.taken[seat] if phase is _DISCARD else -1
        if taken >= 0:
            big |= 1 << (468 + taken)
        if out is None:
            out = np.empty(OBS_SIZE, dtype=np.float32)
        out[:_BITS] = np.unpackbits(np.frombuffer(big.to_bytes(_BITS // 8, "little"),
                                                  dtype=np.uint8), bitorder="little")
        out[_DW_AFTER:_BASE] = 0.0
        to_play = h.to_play
        if phase is _DISCARD and to_play == seat:
            # the deadwood left by each discard (R6)
            least, best, whole = self._kernel.discard_stats(mine, taken,
                                                            out[_DW_AFTER:_BASE])
            # The 11 cards' own deadwood: when positive, some card c is deadwood in their
            # best arrangement and removing it leaves exactly that minus its points, so
            # it is `whole`; when 0, some discard leaves 0 (11 melded cards have a meld of
            # 4+ to take one from). Only a discard leaving 0 needs the solver.
            deadwood = whole if least > 0 else self._deadwood(mine)
        else:
            best = deadwood = self._deadwood(mine)
        out[_BASE:] = self._const[seat]
        out[_BASE + _PHASE_SLOT[phase]] = 1.0
        if to_play == seat:
            out[_BASE + 4] = 1.0
        out[_BASE + 6] = h.stock_count / 31.0
        out[_BASE + 14] = deadwood / 110.0 if deadwood < 110 else 1.0
        out[_BASE + 15] = best / 100.0 if best < 100 else 1.0
        out[_BASE + 16] = (10 - known.bit_count()) / 10.0
        return out

    def action_mask(self, seat: int, out: Any = None) -> Any:
        """The 107 legal-action flags of ``seat`` (int8), equal to ``legal_mask(view)``."""
        np = _compat.np
        if np is None:
            _np()
        if out is None:
            out = np.zeros(NUM_ACTIONS, dtype=np.int8)
        else:
            out[:] = 0
        h = self.hand
        if h.to_play == seat:
            out[legal_id_list(h.legal_actions())] = 1
        return out


_ID_OF = {id(a): i for i, a in enumerate(ACTIONS)}  # actions are interned: fast lookup


def legal_id_list(legal: tuple[Action, ...]) -> list[int]:
    """The ids of the actions ``legal`` (as ``Hand.legal_actions`` returns them)."""
    try:
        return [_ID_OF[id(a)] for a in legal]
    except KeyError:  # pragma: no cover - an action that is not the interned one
        return [_ACTION_IDS[a] for a in legal]


def is_legal(act: Action, legal: tuple[Action, ...]) -> bool:
    """Whether ``act`` is among ``legal``: by identity first (actions are interned, and
    comparing dataclasses field by field is slow), then by value."""
    for a in legal:
        if a is act:
            return True
    return act in legal
