"""Hand and match scoring: the moon, bonuses, the exactly-100 reset and the end of a match.

Pure functions over point vectors, shared by :class:`~heartsuit.hearts.game.Hand` (a hand's
points) and :class:`~heartsuit.hearts.match.Match` (running totals, end, winners).
"""

from __future__ import annotations

from collections.abc import Sequence

from heartsuit.cards import Card
from heartsuit.hearts.actions import MoonChoice
from heartsuit.hearts.rules import Rules


def add_hand(rules: Rules, totals: Sequence[int], points: Sequence[int]) -> tuple[int, ...]:
    """Totals after a hand; with ``exactly_100_reset`` a total landing exactly on the target
    drops to half of it (seed "Pas 100": exactly 100 goes back to 50)."""
    out = []
    for before, gained in zip(totals, points, strict=True):
        total = before + gained
        if rules.exactly_100_reset and total == rules.target:
            total = rules.target // 2
        out.append(total)
    return tuple(out)


def match_over(rules: Rules, totals: Sequence[int]) -> bool:
    """Someone reached the target; under ``play_on`` the lowest total must also be unique."""
    if max(totals) < rules.target:
        return False
    if rules.ties == "play_on":
        return list(totals).count(min(totals)) == 1
    return True


def winners(rules: Rules, totals: Sequence[int]) -> tuple[int, ...]:
    """Seats with the lowest total once the match is over; empty before."""
    if not match_over(rules, totals):
        return ()
    low = min(totals)
    return tuple(seat for seat, total in enumerate(totals) if total == low)


def moon_shooter(rules: Rules, taken: Sequence[Sequence[Card]]) -> int | None:
    """The seat that took every penalty card of the hand, if one did.

    Only positive cards count (hearts, Q♠, and K♠ A♠ with spade penalties): the J♦ is a bonus,
    not a penalty, so it is not needed for the moon (spec "Omnibus"; the common Omnibus rule,
    e.g. holdingthecards.com "Jack of Diamonds in Hearts").
    """
    return shooter_of(rules.total_points(), _positive(rules, taken))


def shooter_of(total: int, positive: Sequence[int]) -> int | None:
    """The seat whose positive points taken are the deck's ``total``, if one's are (and the
    deck has penalty points at all): :func:`moon_shooter` on per-seat sums."""
    if total <= 0:
        return None
    for seat, points in enumerate(positive):
        if points == total:
            return seat
    return None


def _positive(rules: Rules, taken: Sequence[Sequence[Card]]) -> list[int]:
    return [sum(p for p in map(rules.card_points, cards) if p > 0) for cards in taken]


def hand_points(
    rules: Rules, taken: Sequence[Sequence[Card]], scores: Sequence[int]
) -> tuple[int, ...]:
    """Each seat's points for a finished hand, after the moon and bonuses.

    ``taken`` is the cards each seat took (kitty included); ``scores`` the match totals before
    the hand, which ``shooter_chooses`` needs. The J♦ bonus stays with whoever took it, shooter
    or not (house rule, the usual Omnibus reading): a shooter with the J♦ scores −10 under
    ``others_plus_26``.
    """
    raw = [sum(map(rules.card_points, cards)) for cards in taken]
    return points_from(rules, rules.total_points(), raw, _positive(rules, taken), scores)


def points_from(
    rules: Rules,
    total: int,
    raw: Sequence[int],
    positive: Sequence[int],
    scores: Sequence[int],
    choice: MoonChoice | None = None,
) -> tuple[int, ...]:
    """:func:`hand_points` from per-seat sums of the cards taken: all their points (``raw``)
    and their positive points only (``positive``); ``total`` is ``rules.total_points()``.

    Under ``shooter_chooses``, ``choice`` is what the shooter chose; None gives the better
    option (:func:`best_moon_choice`), as a computer chooses it (and the fast playouts score)."""
    shooter = shooter_of(total, positive)
    if shooter is None:
        return tuple(raw)
    options = moon_options(total, raw, positive, shooter)
    if rules.moon != "shooter_chooses":
        return options[rules.moon]
    if choice is None:
        choice = best_moon_choice(rules, shooter, scores, options)
    return options[choice]


def moon_options(
    total: int, raw: Sequence[int], positive: Sequence[int], shooter: int
) -> dict[MoonChoice, tuple[int, ...]]:
    """Each seat's points of a hand ``shooter`` shot the moon in, under each way to score it."""
    # what each seat keeps apart from penalty cards: only the J♦ bonus can be there
    bonus = [points - plus for points, plus in zip(raw, positive, strict=True)]
    others = tuple(b + (0 if seat == shooter else total) for seat, b in enumerate(bonus))
    minus = tuple(b - (total if seat == shooter else 0) for seat, b in enumerate(bonus))
    return {"others_plus_26": others, "self_minus_26": minus}


def best_moon_choice(
    rules: Rules,
    shooter: int,
    scores: Sequence[int],
    options: dict[MoonChoice, tuple[int, ...]],
) -> MoonChoice:
    """The shooter's better option for its match standing (a computer's choice; house rule,
    documented in docs/hearts-rules.md).

    Each option is judged by the totals it leads to: first, one that ends the match with the
    shooter among the winners; then one that does not end the match; last, one that ends it
    with someone else winning. Between equals, the larger lead of the shooter over the best
    opponent wins, and a remaining tie keeps the traditional "others + 26".
    """

    def merit(points: tuple[int, ...]) -> tuple[int, int]:
        totals = add_hand(rules, scores, points)
        best_other = min(t for seat, t in enumerate(totals) if seat != shooter)
        if not match_over(rules, totals):
            return 1, best_other - totals[shooter]
        return (2 if shooter in winners(rules, totals) else 0), best_other - totals[shooter]

    minus, others = options["self_minus_26"], options["others_plus_26"]
    return "self_minus_26" if merit(minus) > merit(others) else "others_plus_26"


def shooter_choice(
    rules: Rules,
    shooter: int,
    scores: Sequence[int],
    others: tuple[int, ...],
    minus: tuple[int, ...],
) -> tuple[int, ...]:
    """The points of :func:`best_moon_choice` (the fast path's form)."""
    options: dict[MoonChoice, tuple[int, ...]] = {"others_plus_26": others, "self_minus_26": minus}
    return options[best_moon_choice(rules, shooter, scores, options)]
