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

from ..hand import Action, Hand, Operation, Phase
from ..knowledge import ALL_CARDS, POINTS, Knowledge
from ..melds import deadwood_by_discard_mask, deadwood_mask
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
    """

    __slots__ = ("hand", "_pile", "_pile_mask", "_known", "_passed", "_discarded",
                 "_taken", "_stock_draws", "_last", "_const", "_dw")

    def __init__(self, hand: Hand) -> None:
        if hand.history:
            raise ValueError("A tracker starts at the deal: this hand has already begun.")
        self.hand = hand
        up = hand.upcard.index
        self._pile = [up]
        self._pile_mask = 1 << up
        self._known = [0, 0]      # cards each seat took from the pile and still holds
        self._passed = [0, 0]     # cards each seat declined (R4 pass, or a stock draw)
        self._discarded = [0, 0]  # cards each seat discarded
        self._taken: list[int | None] = [None, None]  # card just taken from the pile (R5)
        self._stock_draws = [0, 0]
        self._last: list[tuple[int, int | None] | None] = [None, None]  # latest discard, taken
        self._dw: dict[int, int] = {}  # deadwood of a hand mask, while it is held
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
        s = op.seat
        act = op.action
        if act.act == "pass":
            self._passed[s] |= 1 << self._pile[0]  # only the up-card can be passed on
        elif act.act == "draw":
            if act.source == "discard":
                c = self._pile.pop()
                self._pile_mask &= ~(1 << c)
                self._known[s] |= 1 << c
                self._taken[s] = c
                self._last[s] = None
            else:
                if self._pile:
                    self._passed[s] |= 1 << self._pile[-1]
                self._taken[s] = None
                self._last[s] = None
                self._stock_draws[s] += 1
        else:
            card = act.card
            assert card is not None
            c = card.index
            self._pile.append(c)
            self._pile_mask |= 1 << c
            self._discarded[s] |= 1 << c
            self._known[s] &= ~(1 << c)
            self._last[s] = (c, self._taken[s])
            self._taken[s] = None

    def knowledge(self, seat: int) -> Knowledge:
        """The same :class:`~ginrummy.knowledge.Knowledge` as ``Knowledge.of(hand.view(seat))``."""
        h = self.hand
        opp = 1 - seat
        mine = h.mask_of(seat)
        known = self._known[opp]
        last = self._last[opp]
        return Knowledge(
            mine=mine,
            pile=self._pile_mask,
            top=self._pile[-1] if self._pile else None,
            opp_known=known,
            opp_passed=self._passed[opp],
            opp_discarded=self._discarded[opp],
            my_discarded=self._discarded[seat],
            opp_stock_draws=self._stock_draws[opp],
            unseen=ALL_CARDS & ~mine & ~self._pile_mask & ~known,
            opp_unknown=10 - known.bit_count(),
            taken=self._taken[seat] if h.phase is Phase.DISCARD else None,
            opp_last_discard=None if last is None else last[0],
            opp_last_taken=None if last is None else last[1],
        )

    def _deadwood(self, mask: int) -> int:
        """Least deadwood of a hand mask (R2), remembered while the hand is held."""
        dw = self._dw.get(mask)
        if dw is None:
            if len(self._dw) > 64:
                self._dw.clear()
            dw = self._dw[mask] = deadwood_mask(mask)
        return dw

    def observation(self, seat: int, out: Any = None) -> Any:
        """The observation of ``seat`` (``OBS_SIZE`` float32), equal to
        ``encode(hand.view(seat))``; written into ``out`` when given, else a new array."""
        np = _compat.np
        if np is None:
            _np()
        h = self.hand
        opp = 1 - seat
        mine = h.mask_of(seat)
        pile = self._pile_mask
        top = 1 << self._pile[-1] if self._pile else 0
        known = self._known[opp]
        phase = h.phase
        big = (mine | pile << 52 | top << 104 | known << 156 | self._discarded[opp] << 208
               | self._passed[opp] << 260 | self._discarded[seat] << 312
               | (pile & ~top) << 364 | (ALL_CARDS & ~mine & ~pile & ~known) << 416)
        taken = self._taken[seat] if phase is _DISCARD else None
        if taken is not None:
            big |= 1 << (468 + taken)
        if out is None:
            out = np.empty(OBS_SIZE, dtype=np.float32)
        out[:_BITS] = np.unpackbits(np.frombuffer(big.to_bytes(_BITS // 8, "little"),
                                                  dtype=np.uint8), bitorder="little")
        out[_DW_AFTER:_BASE] = 0.0
        to_play = h.to_play
        if phase is _DISCARD and to_play == seat:
            # the deadwood left by each discard (R6); the 10-card results are remembered
            # for this seat's next observations
            dw = self._dw
            if len(dw) > 64:
                dw.clear()
            best = least = 1000
            whole = 1000  # least of (deadwood after discarding i) + points of i
            for i, v in deadwood_by_discard_mask(mine).items():
                out[_DW_AFTER + i] = v / 100.0
                dw[mine & ~(1 << i)] = v
                if v < least:
                    least = v
                if v < best and i != taken:
                    best = v
                if v + POINTS[i] < whole:
                    whole = v + POINTS[i]
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
