"""The hot loop of dealing one sampled world (:class:`heartsuit.hearts.bots.sampling.Sampler`).

:func:`deal_cards` is :meth:`Sampler.deal`'s shuffle and deal written on plain ints and lists,
so that mypyc compiles it with the engine core (``hearts/compiled.py``); ``Sampler.deal``
prepares its arguments and keeps the fallbacks. It makes exactly the draws, and deals exactly
the world, that the plain sampler does (``tests/test_hearts_search.py`` checks them world by
world).
"""

from __future__ import annotations

from collections.abc import Callable


def deal_cards(
    cards: list[int],
    outputs: tuple[int, ...],
    order: dict[int, int],
    seats_of: dict[int, tuple[int, ...]],
    hands: list[list[int]],
    room: list[int],
    doubted: int,
    unlikely: tuple[int, ...],
    low_weight: int,
    scale: int,
    augment: Callable[[int], None],
) -> int:
    """Shuffle ``cards`` with the first ``len(cards) - 1`` of ``outputs`` (Fisher–Yates, as
    ``Rng.below``: ``output % n``), deal them most constrained first into ``hands`` (a seat
    by its ``room``; a doubted card's odds times ``low_weight / scale`` where ``unlikely``),
    one output per card dealt, ``augment(card)`` for a card with no room; the outputs used."""
    size = len(cards)
    i = size
    for z in outputs[: size - 1]:
        i -= 1
        j = z % (i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    cards.sort(key=order.__getitem__)
    used = size - 1 if size else 0
    for card in cards:
        # a seat without room adds nothing to the total and is never picked, so the seats
        # that may hold the card pick as sample_plain's open seats do
        seats = seats_of[card]
        total = 0
        for s in seats:
            total += room[s]
        if total:
            z = outputs[used]
            used += 1
            s = seats[0]
            if doubted >> card & 1:
                # _weighted_slot, with its below() on this draw
                weights = [
                    room[t] * (low_weight if unlikely[t] >> card & 1 else scale) for t in seats
                ]
                pick = z % sum(weights)
                k = 0
                while pick >= weights[k]:
                    pick -= weights[k]
                    k += 1
                s = seats[k]
            else:
                pick = z % total
                for t in seats:
                    pick -= room[t]
                    if pick < 0:
                        s = t
                        break
            hands[s].append(card)
            room[s] -= 1
        else:
            augment(card)
    return used
