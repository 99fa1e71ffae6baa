"""A belief over the opponent's hidden cards, read from one seat's view only (R11).

The opponent holds the pile cards it took and did not throw back (public) plus
``opp_unknown`` cards from the unseen ones. A sample of those cards replays, cheaply,
how they came to be held:

1. weights: an unseen card that would meld (R2) with a card the opponent discarded or
   passed on is less likely held (``shed_factor`` per such card: players keep cards
   that fit); one that melds with a card it took from the pile is more likely
   (``took_factor``, 2.5: a player takes a card to build on it);
2. deal: draw the unknown cards by those weights (without replacement);
3. improve: for each turn the opponent has played (at most ``max_improve``), ``improve``
   times on average (the whole part always, the fraction by chance), add one more
   weighted card and drop the card that leaves the most deadwood: the opponent has been
   keeping its best cards. An opponent modelled as knocking as soon as it may does not
   play for gin: ``quick_improve`` (0.4) for it, where its predicted undercut rate
   matches ``simple``'s (0.037 predicted, 0.030 observed; 0.8 said 0.184).

   ``improve`` 0.9 and ``took_factor`` 2.5 are fitted where the review's knock-or-wait
   question lives: at positions where a patient player (``marjj``, ``strong``) could
   knock and played on, the knock's exact showdown against sampled hands matches it
   against the real hand, and the play-outs of playing on against sampled hands match
   those against the real hand, both within about 0.4 points of match-winning chance (the
   earlier 1.0 and 1.5 overvalued the knock by 0.7 and undervalued waiting by 0.4;
   docs/bots.md, "Knock or play on"). The card and undercut reliability tables improved
   with them;
4. no knock so far: a hand that would have allowed gin at the opponent's last discard
   is redrawn (it would have knocked, R6), and one that allowed a knock in its first
   ``KNOCK_TURNS`` turns is redrawn with chance ``early_knock_reject``; for an opponent
   modelled as knocking as soon as it may (``quick``), any hand that allowed a knock
   then is redrawn (when ``quick_consistent``);
5. a quick knocker races for a knock, so it discards the card leaving the least deadwood
   (``simple`` does; the play-outs model it so, :mod:`ginrummy.kernel.playout`): a hand
   for which its latest discard was not such a card is redrawn (``quick_discards``). Its
   hand then was its hand now plus that card, so the test is exact.
6. an option, not used by ``expert`` (``quick_history``): instead of (5), a quick
   knocker's sample must explain its latest ``quick_depth`` turns by those fixed rules
   (it takes a face-up card exactly when the card lies in a meld, R2; it discards a card
   leaving the least deadwood; it would have knocked, R6), the stock cards it drew being
   searched for (:meth:`Belief.fits_history`, the steps from :func:`opponent_steps`).
   ``simple``'s real hand always passes. Measured by ``scripts/calibration.py
   --exact-quick``: it sharpens the card chances against ``simple`` by next to nothing
   (docs/bots-history.md, "Reading a quick knocker exactly"), at eight times the cost a sample.

The stock is the rest of the unseen cards in a uniformly random order.
``scripts/calibration.py`` measures how well these probabilities match what happens.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from .. import kernel
from ..cards import iter_mask
from ..hand import View
from ..heuristics import related
from ..kernel import Build, sampler, spec
from ..kernel.jit import ints
from ..kernel.solver import deadwood
from ..kernel.splitmix import Random
from ..knowledge import Knowledge, in_some_meld
from ..melds import deadwood_by_discard_mask

__all__ = ["Belief", "BeliefParams", "opponent_steps"]

REFUSE, TAKE, STOCK, DISCARD = range(4)
"""The kinds of the opponent's public steps (:func:`opponent_steps`)."""


def opponent_steps(view: View) -> tuple[tuple[int, int, int], ...]:
    """The opponent's public steps of the hand, in order (R11: all of it in the history):
    ``(REFUSE, card, -1)`` it left that face-up card (a pass, R4, or a stock draw),
    ``(TAKE, card, -1)`` it took it from the pile, ``(STOCK, -1, -1)`` it drew an unseen
    card, ``(DISCARD, card, taken)`` it discarded ``card``, ``taken`` the pile card it
    took that turn (R5: not discardable then) or -1.

    >>> from ginrummy.match import Match
    >>> opponent_steps(Match(seed=3).view(0))
    ()
    """
    me = view.seat
    pile: list[int] = [view.upcard.index]
    out: list[tuple[int, int, int]] = []
    took = -1
    for op in view.history:
        a = op.action
        if a.act == "pass":
            if op.seat != me:
                out.append((REFUSE, view.upcard.index, -1))
        elif a.act == "draw" and a.source == "discard":
            card = pile.pop()
            if op.seat != me:
                out.append((TAKE, card, -1))
                took = card
        elif a.act == "draw":
            if op.seat != me:
                if pile:
                    out.append((REFUSE, pile[-1], -1))
                out.append((STOCK, -1, -1))
                took = -1
        else:
            assert a.card is not None
            pile.append(a.card.index)
            if op.seat != me:
                out.append((DISCARD, a.card.index, took))
                took = -1
    return tuple(out)


@dataclass(frozen=True, slots=True)
class BeliefParams:
    """The belief model's knobs (see the module docstring); defaults from calibration."""

    shed_factor: float = 0.8
    took_factor: float = 2.5
    improve: float = 0.9
    quick_improve: float = 0.4
    max_improve: int = 10
    early_knock_reject: float = 0.8
    retries: int = 4
    quick_consistent: bool = True
    quick_discards: bool = True
    quick_history: bool = False
    quick_retries: int = 4
    """Redraws for a quick knocker's sample (``retries`` for the others)."""
    quick_depth: int = 3
    quick_nodes: int = 200
    """With ``quick_history``: the turns walked back, and the hands tried at most."""


def _style(quick: bool, style: int | None) -> int:
    """A play-out style from the ``quick`` flag, or ``style`` when given."""
    if style is not None:
        return style
    return spec.QUICK if quick else spec.PATIENT


class Belief:
    """Sampler of opponent hands and stocks consistent with a :class:`Knowledge`.

    The sampling itself runs in the hand kernel (:mod:`ginrummy.kernel`): this class reads
    the view's facts into the kernel's arrays (:meth:`position`, :attr:`unknown`,
    :attr:`weights`) and hands out samples for scripts and the review's explanations. A
    ``random.Random`` passed in seeds the kernel's own generator (64 bits a call); a
    :class:`ginrummy.kernel.splitmix.Random` is used and advanced as it is.
    """

    def __init__(self, k: Knowledge, knock_limit: int, params: BeliefParams | None = None,
                 opp_turns: int | None = None,
                 steps: tuple[tuple[int, int, int], ...] = (),
                 kernel: str | None = None) -> None:
        self.k = k
        self.kernel = kernel
        self.steps = steps
        self._nodes = 0
        known = 0
        self._known_before: list[int] = []
        for kind, card, _ in steps:
            self._known_before.append(known)
            if kind == TAKE:
                known |= 1 << card
            elif kind == DISCARD:
                known &= ~(1 << card)
        self.params = params or BeliefParams()
        self.knock_limit = knock_limit
        self.unknown: list[int] = list(iter_mask(k.unseen))
        self.opp_turns = k.opp_discarded.bit_count() if opp_turns is None else opp_turns
        shed = list(iter_mask(k.opp_discarded | k.opp_passed))
        took = list(iter_mask(k.opp_known))
        p = self.params
        self.weights: list[float] = []
        for u in self.unknown:
            w = 1.0
            for s in shed:
                if related(u, s):
                    w *= p.shed_factor
            for t in took:
                if related(u, t):
                    w *= p.took_factor
            self.weights.append(w)
        self.draws = max(0, min(self.opp_turns, p.max_improve,
                                len(self.unknown) - k.opp_unknown))
        self._arrays: tuple[Build, Any, Any, Any, Any] | None = None

    def position(self) -> list[int]:
        """The belief's slots of the kernel's position array (:mod:`ginrummy.kernel.spec`,
        ``P_*``); the evaluator fills in the deciding seat's."""
        k, p = self.k, self.params
        pos = [0] * spec.P_SIZE
        pos[spec.P_OPP_KNOWN] = k.opp_known
        pos[spec.P_OPP_UNKNOWN] = k.opp_unknown
        pos[spec.P_DRAWS] = self.draws
        pos[spec.P_RETRIES] = p.retries
        pos[spec.P_QUICK_RETRIES] = p.quick_retries
        pos[spec.P_QUICK_CONSISTENT] = int(p.quick_consistent)
        pos[spec.P_QUICK_DISCARDS] = int(p.quick_discards)
        pos[spec.P_OPP_TURNS] = self.opp_turns
        pos[spec.P_LAST_DISCARD] = -1 if k.opp_last_discard is None else k.opp_last_discard
        pos[spec.P_LAST_TAKEN] = -1 if k.opp_last_taken is None else k.opp_last_taken
        pos[spec.P_LIMIT] = self.knock_limit
        pos[spec.P_NUNKNOWN] = len(self.unknown)
        return pos

    def floats(self, quick_share: float = 0.0, club_share: float = 0.0) -> list[float]:
        """The kernel's float parameters (``F_*``), with the shares of samples in which the
        opponent knocks as soon as it may, and as a club player does."""
        p = self.params
        fl = [0.0] * spec.F_SIZE
        fl[spec.F_IMPROVE] = p.improve
        fl[spec.F_QUICK_IMPROVE] = p.quick_improve
        fl[spec.F_EARLY_REJECT] = p.early_knock_reject
        fl[spec.F_QUICK_SHARE] = quick_share
        fl[spec.F_CLUB_SHARE] = club_share
        return fl

    @property
    def exact(self) -> bool:
        """Whether a quick knocker's samples are read exactly (``quick_history`` with
        steps): a Python-side check the compiled kernel does not make."""
        return self.params.quick_history and bool(self.steps)

    def _kernel_arrays(self) -> tuple[Build, Any, Any, Any, Any]:
        if self._arrays is None:
            b = kernel.backend(self.kernel)
            self._arrays = (b, b.ints(self.position()), b.floats(self.floats()),
                            b.ints(self.unknown), b.floats(self.weights))
        return self._arrays

    @staticmethod
    def _rng(rng: random.Random | Random) -> Random:
        return rng if isinstance(rng, Random) else Random(rng.getrandbits(64))

    def plausible(self, hand: int, rng: random.Random | Random, quick: bool = False,
                  style: int | None = None) -> bool:
        """Whether a sampled hand agrees with the opponent not having knocked (R6); a
        ``quick`` opponent (knocks as soon as it may) never held a knockable hand
        (``style`` names another of :mod:`ginrummy.kernel.spec`'s styles instead)."""
        r = self._rng(rng)
        st = _style(quick, style)
        pos, fl = self.position(), self.floats()
        if st == spec.QUICK and self.exact:
            return self._plausible_exact(pos, fl, hand, r)
        return sampler.plausible(pos, fl, hand, r.rs, st, ints(52), None)

    def _plausible_exact(self, pos: list[int], fl: list[float], hand: int, r: Random) -> bool:
        """:func:`ginrummy.kernel.sampler.plausible` for a quick knocker whose latest turns
        are read exactly (:meth:`fits_history`) rather than its latest discard alone."""
        if pos[spec.P_OPP_TURNS] == 0:
            return True
        dw = deadwood(hand)
        if sampler.knock_refutes(pos, dw, spec.QUICK) or not self.fits_history(hand, r):
            return False
        return sampler.early_doubt(pos, fl, dw, r.rs)

    def fits_history(self, hand: int, rng: random.Random | Random) -> bool:
        """Whether a quick knocker (takes a face-up card exactly when it lies in a meld,
        R2; discards a card leaving the least deadwood; knocks as soon as it may, R6)
        holding ``hand`` now could have played the opponent's latest steps.

        The hand is walked back through the steps: a discard is put back, a pile take
        taken out; a stock draw is undone by taking out one of the cards not known to be
        held before it, each tried in a random order until one explains the steps before
        it (a search over ``quick_depth`` turns and ``quick_nodes`` hands at most; when
        the budget runs out, the hand is let through)."""
        self._nodes = self.params.quick_nodes
        return self._walk(hand, len(self.steps) - 1, self.params.quick_depth, self._rng(rng))

    def _walk(self, h: int, i: int, turns: int, rng: Random) -> bool:
        """Whether hand ``h``, held after step ``i``, explains steps ``i``, ``i - 1``, ...
        (``turns`` discards more at most); depth first over the stock draws."""
        limit = self.knock_limit
        steps = self.steps
        while i >= 0:
            kind, card, taken = steps[i]
            if kind == DISCARD:
                if turns <= 0:
                    return True
                turns -= 1
                h |= 1 << card
                table = deadwood_by_discard_mask(h)
                best = min(v for k, v in table.items() if k != taken)  # R5
                if table[card] != best or best <= limit:
                    return False
            elif kind == STOCK:
                free = list(iter_mask(h & ~self._known_before[i]))
                rng.shuffle(free)
                for c in free:
                    self._nodes -= 1
                    if self._nodes < 0 or self._walk(h & ~(1 << c), i - 1, turns, rng):
                        return True
                return False
            elif kind == TAKE:
                h &= ~(1 << card)
                if not in_some_meld(h | 1 << card, card):
                    return False
            elif in_some_meld(h | 1 << card, card):
                return False
            i -= 1
        return True

    def sample_hand(self, rng: random.Random | Random, quick: bool = False,
                    style: int | None = None) -> int:
        """One opponent hand (a 52-bit mask of its cards) from the belief; ``quick`` for an
        opponent that knocks as soon as it may (``style``: another play-out style)."""
        r = self._rng(rng)
        q = _style(quick, style)
        if q == spec.QUICK and self.exact:
            pos, fl, tab = self.position(), self.floats(), ints(52)
            hand = sampler.sample_one(pos, fl, self.unknown, self.weights, r.rs, q, tab, None)
            for _ in range(self.params.quick_retries):
                if self._plausible_exact(pos, fl, hand, r):
                    break
                hand = sampler.sample_one(pos, fl, self.unknown, self.weights, r.rs, q, tab,
                                          None)
            return hand
        b, pos_a, fl_a, unknown_a, weights_a = self._kernel_arrays()
        return int(b.draw_hand(pos_a, fl_a, unknown_a, weights_a, r, q))

    def sample(self, rng: random.Random | Random, quick: bool = False,
               style: int | None = None) -> tuple[int, list[int]]:
        """One opponent hand and the stock (a list of card indexes, top at the end)."""
        r = self._rng(rng)
        hand = self.sample_hand(r, quick, style)
        stock = ints(52)
        return hand, stock[:sampler.sample_stock(self.unknown, hand, r.rs, stock)]

    def card_chances(self, rng: random.Random | Random, n: int,
                     quick: bool = False) -> dict[int, float]:
        """Each unseen card's estimated chance to be in the opponent's hand (``n`` samples;
        ``quick`` for an opponent that knocks as soon as it may)."""
        r = self._rng(rng)
        counts = dict.fromkeys(self.unknown, 0)
        for _ in range(n):
            for u in iter_mask(self.sample_hand(r, quick) & ~self.k.opp_known):
                counts[u] += 1
        return {u: c / n for u, c in counts.items()}
