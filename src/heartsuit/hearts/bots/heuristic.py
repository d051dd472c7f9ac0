"""A rule-of-thumb player that plays like a decent club player, from its seat view alone.

Passing: give away Q♠ A♠ K♠ unless many low spades guard them, void a short side suit when it
fits, then the most dangerous cards (high hearts, high cards of short suits).
Following: duck under the current winner with the highest card that still loses; when last to
a pointless trick, win it with the highest safe card; when forced to win, win high.
Discarding: Q♠ first, then A♠/K♠ while the queen is out, then high hearts, then high cards.
Leading: low cards of suits others still hold; no spades when holding Q♠, or A♠/K♠ with the
queen still out; low spades to flush the queen when holding no high spade.
Defence: when one other seat holds every point taken so far and has a lot of them, it tries to
take a trick with a point in it (top heart, winning a heart trick) and stops feeding it hearts.
"""

from __future__ import annotations

from collections import Counter

from heartsuit.cards import ACE, KING, QUEEN, Card, Suit
from heartsuit.hearts.rules import QUEEN_OF_SPADES
from heartsuit.hearts.view import SeatView

GUARDS = 4  # low spades (below the queen) that make Q♠/K♠/A♠ safe to keep (common advice)
MOON_ALERT = 10  # points one rival must hold, alone, before the bot defends against a moon


def _played(view: SeatView) -> Counter[Card]:
    seen: Counter[Card] = Counter()
    for trick in view.tricks:
        seen.update(c for _, c in trick.plays)
    if view.trick is not None:
        seen.update(c for _, c in view.trick.plays)
    return seen


def unseen(view: SeatView) -> Counter[Card]:
    """Cards this seat has not seen: neither in its hand nor played (others' hands, kitty)."""
    out = Counter(view.rules.deck())
    out.subtract(view.hand)
    out.subtract(_played(view))
    return +out


def moon_threat(view: SeatView) -> int | None:
    """A rival who holds every point taken so far, and enough of them to be shooting."""
    takers = [s for s, p in enumerate(view.points_taken) if p > 0]
    if len(takers) != 1 or takers[0] == view.seat:
        return None
    rival = takers[0]
    if view.points_taken[rival] < MOON_ALERT:
        return None
    return rival


class HeuristicBot:
    """Deterministic heuristics. The seed is accepted (and kept) only so that every bot is built
    alike by :func:`heartsuit.hearts.bots.make_bot`; the choices do not depend on it."""

    name = "heuristic"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    # --- passing ---------------------------------------------------------------------------

    def choose_pass(self, view: SeatView) -> tuple[Card, ...]:
        count = view.rules.pass_count
        hand = list(view.hand)
        chosen: list[Card] = []
        low_spades = sum(1 for c in hand if c.suit is Suit.SPADES and c.rank < QUEEN)
        if low_spades < GUARDS or view.rules.spade_penalties:
            for rank in (QUEEN, ACE, KING):
                card = Card(rank, Suit.SPADES)
                if card in hand and len(chosen) < count:
                    chosen.append(card)
        room = count - len(chosen)
        left = list(hand)  # removed one copy at a time: two packs can deal a card twice
        for card in chosen:
            left.remove(card)
        # void a short side suit: a void lets the bot discard its dangerous cards later
        sides = [[c for c in left if c.suit is suit] for suit in (Suit.CLUBS, Suit.DIAMONDS)]
        sides = sorted((s for s in sides if 0 < len(s) <= room), key=len)
        if sides:
            chosen += sides[0]
            for card in sides[0]:
                left.remove(card)
        left.sort(key=lambda c: self._pass_danger(c, hand, low_spades), reverse=True)
        chosen += left[: count - len(chosen)]
        return tuple(chosen)

    @staticmethod
    def _pass_danger(card: Card, hand: list[Card], low_spades: int) -> float:
        if card.suit is Suit.SPADES:
            if card.rank >= QUEEN:
                return 30.0 if low_spades < GUARDS else -5.0
            return -10.0 + card.rank / 10  # low spades guard the queen: keep them
        length = sum(1 for c in hand if c.suit is card.suit)
        base = card.rank + (3.0 if card.suit is Suit.HEARTS else 0.0)
        return base + (3.0 if length <= 3 else 0.0)

    # --- playing ---------------------------------------------------------------------------

    def choose_play(self, view: SeatView) -> Card:
        legal = list(view.legal)
        if not legal:
            raise ValueError(f"seat {view.seat} has no legal play: it is not its turn")
        if len(legal) == 1:
            return legal[0]
        trick = view.trick.plays if view.trick is not None else ()
        if not trick:
            return self._lead(view, legal)
        led = trick[0][1].suit
        if legal[0].suit is led:
            return self._follow(view, legal, led)
        return self._discard(view, legal)

    def _winning(self, view: SeatView) -> tuple[int, Card]:
        """The seat and card currently winning the open trick (cancellation ignored)."""
        assert view.trick is not None
        plays = view.trick.plays
        led = plays[0][1].suit
        counts = Counter(c for _, c in plays) if view.rules.cancellation else Counter[Card]()
        live = [(c.rank, s, c) for s, c in plays if c.suit is led and counts[c] < 2]
        if not live:
            return plays[0][0], plays[0][1]
        _, seat, card = max(live)
        return seat, card

    def _follow(self, view: SeatView, legal: list[Card], led: Suit) -> Card:
        rules = view.rules
        assert view.trick is not None
        plays = view.trick.plays
        win_seat, win_card = self._winning(view)
        points = sum(rules.card_points(c) for _, c in plays)
        last = len(plays) == rules.players - 1
        shooter = moon_threat(view)
        below = [c for c in legal if c.rank < win_card.rank]
        above = [c for c in legal if c.rank > win_card.rank]
        if shooter is not None and above and (win_seat == shooter or points > 0):
            # stop the moon: take this trick (a point in it now or later) with the top card
            return max(above, key=lambda c: (rules.card_points(c) <= 0, c.rank))
        first = not view.tricks and not rules.first_trick_points
        if first or (last and points <= 0):
            # nothing can hurt here (first trick, or last to a clean trick): shed a high card,
            # but never one that would bring its own points to the bot
            safe = [c for c in legal if rules.card_points(c) <= 0 or c.rank < win_card.rank]
            if safe:
                return max(safe, key=lambda c: c.rank)
        if below:
            return max(below, key=lambda c: c.rank)  # duck as high as possible
        # forced to win: win with the highest card that carries no points of its own
        return max(legal, key=lambda c: (rules.card_points(c) <= 0, c.rank))

    def _discard(self, view: SeatView, legal: list[Card]) -> Card:
        rules = view.rules
        shooter = moon_threat(view)
        if shooter is not None:
            win_seat, _ = self._winning(view)
            last = view.trick is not None and len(view.trick.plays) == rules.players - 1
            if win_seat != shooter and last:
                # a point to anyone but the shooter ends the moon: give the most there is
                pointed = [c for c in legal if rules.card_points(c) > 0]
                if pointed:
                    return max(pointed, key=lambda c: (rules.card_points(c), c.rank))
            clean = [c for c in legal if rules.card_points(c) <= 0]
            if clean:
                return max(clean, key=lambda c: c.rank)  # feed the shooter nothing
        queen_out = unseen(view)[QUEEN_OF_SPADES] > 0
        hand = list(view.hand)

        def danger(card: Card) -> float:
            if card == QUEEN_OF_SPADES:
                return 100.0
            if card.suit is Suit.SPADES and card.rank > QUEEN:
                if rules.spade_penalties:
                    return 95.0
                if queen_out:
                    return 90.0
            if rules.card_points(card) < 0:
                return -50.0  # keep the J♦: it is worth taking
            length = sum(1 for c in hand if c.suit is card.suit)
            if card.suit is Suit.HEARTS:
                return 50.0 + card.rank
            return card.rank + (13 - length) / 4  # high cards first, from short suits

        return max(legal, key=danger)

    def _lead(self, view: SeatView, legal: list[Card]) -> Card:
        rules = view.rules
        hand = list(view.hand)
        out = unseen(view)
        shooter = moon_threat(view)
        if shooter is not None:
            hearts = [c for c in legal if c.suit is Suit.HEARTS]
            if hearts:
                top = max(hearts, key=lambda c: c.rank)
                higher_out = any(c.suit is Suit.HEARTS and c.rank > top.rank for c in out)
                if not higher_out:
                    return top  # it wins a heart: the moon is over
        hold_queen = QUEEN_OF_SPADES in hand
        hold_high = any(c.suit is Suit.SPADES and c.rank in (KING, ACE) for c in hand)
        queen_out = out[QUEEN_OF_SPADES] > 0

        def risk(card: Card) -> float:
            suit_out = [c for c in out.elements() if c.suit is card.suit]
            lower_out = sum(1 for c in suit_out if c.rank < card.rank)
            score = card.rank + 2.0 * lower_out
            if not suit_out:
                score += 40.0  # nobody can follow: the bot would take whatever is discarded
            if card.suit is Suit.SPADES:
                if hold_queen or (hold_high and queen_out):
                    score += 50.0  # leading spades would drive the queen onto the bot
                elif queen_out and card.rank < QUEEN:
                    score -= 4.0  # flush the queen out with a low spade
            if card.suit is Suit.HEARTS:
                score += 3.0
            if rules.card_points(card) < 0:
                score += 20.0  # the J♦ is better kept to win later
            return score

        return min(legal, key=lambda c: (risk(c), c.rank, c.suit))
