"""The legal cards of the seat to play, found in one pass over its hand.

:meth:`Hand.legal_plays <heartsuit.hearts.game.Hand.legal_plays>` lists these cards, and
``play`` and ``why_illegal`` accept exactly them; the reason and message of a refusal come from
the card-by-card check (``Hand._check_play``), which names the first rule a card breaks.
The two are written separately because listing a hand card by card cost most of a hand's time;
``tests/test_hearts_legal.py`` checks, over random positions of every preset, that they agree
on every card, and the engine stops with an error if they ever disagree on a played card.
Cards are deck positions here (:mod:`heartsuit.hearts.facts`). With simple rules (one pack, no
cancellation), ``legal_plays`` answers after the first trick from the seat's cards split by suit
instead (the same list: the led suit if held, else any card; a lead avoids hearts until they
are broken), which the same test checks.
"""

from __future__ import annotations

from heartsuit.hearts.facts import HEARTS, RulesFacts

__all__ = ["legal_positions"]


def legal_positions(
    facts: RulesFacts,
    hand: list[int],
    trick: list[int],
    first_trick: bool,
    opening: int | None,
    hearts_broken: bool,
    first_trick_points: bool,
    distinct: bool,
) -> list[int]:
    """The positions in ``hand`` the seat to play may play on a trick holding ``trick``, in
    the hand's order; with ``distinct``, each card once (two packs hold identical cards)."""
    suit = facts.suit
    if trick:
        led = suit[trick[0]]
        follow = [p for p in hand if suit[p] == led]
        options = follow or hand
        # a clean alternative must itself follow suit when the seat can follow
        pool = options
    elif first_trick and opening is not None:
        options = [p for p in hand if p == opening]
        pool = hand
    else:
        options = hand
        if not hearts_broken:
            others = [p for p in hand if suit[p] != HEARTS]
            if others:
                options = others
        pool = hand
    if first_trick and not first_trick_points:
        barred = facts.barred_first
        clean = [p for p in options if not barred[p]]
        if len(clean) != len(options) and any(not barred[p] for p in pool):
            options = clean
    if distinct:
        return list(dict.fromkeys(options))
    return options if options is not hand else list(hand)
