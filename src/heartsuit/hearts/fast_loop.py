"""The fast path's hot loop: deal, play every remaining trick at random, score.

:func:`play_out` is the rules of :meth:`heartsuit.hearts.fast.FastState.legal` unrolled on split
suit masks (``hands[seat * 4 + suit]``), with the random choices of
:class:`~heartsuit.hearts.fast_draws.Draws` written out on local variables. :func:`deal` and
:func:`random_hand` are what ``bench/hearts_playouts.py`` times.
"""

from __future__ import annotations

from heartsuit.hearts.fast_draws import Draws
from heartsuit.hearts.fast_tables import (
    NTH,
    POP,
    SUIT_BITS,
    TRICK_POOL,
    TRICK_SLACK,
    Table,
    hand_points,
)


def deal(table: Table, draws: Draws) -> list[int]:
    """A uniformly random deal as split suit masks (``hands[seat * 4 + suit]``).

    Fisher–Yates whose swap indices are read as mixed-radix digits of one exactly uniform
    64-bit draw per group of steps (four draws for 52 cards). It shuffles the cards' bits, so a
    seat's hand is the sum of its slice.
    """
    cards = list(table.deck_bits)
    next64 = draws.rng.next64
    for product, limit, steps in table.deal_steps:
        x = next64()
        while x >= limit:
            x = next64()
        x %= product
        for i, m in steps:
            # % and // are cheaper than divmod here (no tuple)
            j = x % m
            x //= m
            cards[i], cards[j] = cards[j], cards[i]
    # seat 0 holds what the other seats do not (one sum fewer)
    rest = table.deck_mask
    hands: list[int] = [0, 0, 0, 0]
    for low, high in table.seat_slices:
        mask = sum(cards[low:high])
        rest -= mask
        hands += (mask & SUIT_BITS, mask >> 13 & SUIT_BITS, mask >> 26 & SUIT_BITS, mask >> 39)
    hands[:4] = (rest & SUIT_BITS, rest >> 13 & SUIT_BITS, rest >> 26 & SUIT_BITS, rest >> 39)
    return hands


def random_hand(table: Table, draws: Draws) -> list[int]:
    """Deal, play every trick at random and score: one hand's points per seat."""
    hands = deal(table, draws)
    lead = table.lead_index
    slot, bit = lead // 13, 1 << (lead % 13)
    leader = 0
    while not hands[leader * 4 + slot] & bit:
        leader += 1
    tallies = [0] * table.players
    play_out(table, hands, tallies, leader, (), False, True, draws)
    return hand_points(table, tallies)


def play_out(
    table: Table,
    hands: list[int],
    tallies: list[int],
    leader: int,
    trick: tuple[int, ...],
    broken: bool,
    first: bool,
    draws: Draws,
) -> None:
    """The hot loop: the same rules as :meth:`FastState.legal`, unrolled, choices inlined.

    The pool is topped up once per trick (``Draws.reserve(TRICK_POOL)``), and then each random
    choice is ``Draws.below`` written out on local variables (pool ``value`` uniform in
    ``0 .. span-1``), its acceptance test done once per trick when it cannot fail; the rare
    rejection falls back to the method. So the loop consumes exactly what ``reserve`` +
    ``below`` would (tests replay it). Mutates ``hands`` (emptied) and ``tallies`` (points
    taken added).
    """
    value, span = draws.value, draws.span
    next64 = draws.rng.next64
    pop = POP
    nth = NTH
    tally = table.tally
    breaks = table.breaks
    suit_tally = table.suit_tally
    suit_breaks = table.suit_breaks
    bases_after = table.bases_after
    ban_c, ban_d, ban_h, ban_s = table.first_banned
    # seats are carried as their base slot (seat * 4) so a hand's suit is one addition away
    base = leader * 4
    tricks_left = sum(pop[hands[base + s]] for s in range(4)) + (1 if trick else 0)
    while tricks_left:
        tricks_left -= 1
        followers = bases_after[base >> 2]
        while span < TRICK_POOL:
            # Draws.reserve(TRICK_POOL), inlined: enough pool for every choice of the trick
            value = value << 64 | next64()
            span <<= 64
        # When value <= span - TRICK_SLACK, every choice of this trick passes Draws.below's
        # test (a product P of the choices so far and the next n is at most TRICK_SLACK, and
        # value // (P * n) < span // (P * n) then), so the choices skip it and the pool's span
        # is divided once, after the trick, by the product of the choices: floor division
        # composes, so the stream is exactly the one below() would give. Otherwise (odds under
        # 2**-32) this trick checks every choice.
        safe = value <= span - TRICK_SLACK
        used = 1
        if trick:
            # resume the trick in progress: replay its cards into the running state
            led = trick[0] // 13
            best = 0
            winner = base
            points = 0
            for k, i in enumerate(trick):
                points += tally[i]
                if i // 13 == led and 1 << (i % 13) > best:
                    best = 1 << (i % 13)
                    winner = (base + 4 * k) % (4 * table.players)
            followers = followers[len(trick) - 1 :]
            trick = ()
        else:
            if first:
                i = table.lead_index
                led, r = divmod(i, 13)
            else:
                c, d, h, s = hands[base : base + 4]
                pc, pd, ps = pop[c], pop[d], pop[s]
                ph = pop[h] if broken or not pc + pd + ps else 0
                total = pc + pd + ph + ps
                k = 0
                if total > 1:
                    if safe:
                        value, k = divmod(value, total)
                        used *= total
                    else:
                        quotient, k = divmod(value, total)
                        rest = span // total
                        if quotient < rest:
                            value = quotient
                            span = rest
                        else:
                            limit = span // total * total
                            draws.value, draws.span = value - limit, span - limit
                            k = draws.below(total)
                            value, span = draws.value, draws.span
                if k < pc:
                    led, r = 0, nth[c * 13 + k]
                elif k < pc + pd:
                    led, r = 1, nth[d * 13 + k - pc]
                elif k < pc + pd + ph:
                    led, r = 2, nth[h * 13 + k - pc - pd]
                else:
                    led, r = 3, nth[s * 13 + k - pc - pd - ph]
                i = led * 13 + r
            best = 1 << r
            hands[base + led] ^= best
            winner = base
            points = tally[i]
            if breaks[i]:
                broken = True
        led_tally = suit_tally[led]
        led_breaks = suit_breaks[led]
        for base in followers:
            slot = base + led
            follow = hands[slot]
            if follow:
                count = pop[follow]
                k = 0
                if count > 1:
                    if safe:
                        value, k = divmod(value, count)
                        used *= count
                    else:
                        quotient, k = divmod(value, count)
                        rest = span // count
                        if quotient < rest:
                            value = quotient
                            span = rest
                        else:
                            limit = span // count * count
                            draws.value, draws.span = value - limit, span - limit
                            k = draws.below(count)
                            value, span = draws.value, draws.span
                r = nth[follow * 13 + k]
                bit = 1 << r
                hands[slot] = follow ^ bit
                points += led_tally[r]
                if led_breaks[r]:
                    broken = True
                if bit > best:
                    best = bit
                    winner = base
            else:
                c, d, h, s = hands[base : base + 4]
                if first and (c & ~ban_c or d & ~ban_d or h & ~ban_h or s & ~ban_s):
                    c &= ~ban_c
                    d &= ~ban_d
                    h &= ~ban_h
                    s &= ~ban_s
                pc, pd, ph, ps = pop[c], pop[d], pop[h], pop[s]
                total = pc + pd + ph + ps
                k = 0
                if total > 1:
                    if safe:
                        value, k = divmod(value, total)
                        used *= total
                    else:
                        quotient, k = divmod(value, total)
                        rest = span // total
                        if quotient < rest:
                            value = quotient
                            span = rest
                        else:
                            limit = span // total * total
                            draws.value, draws.span = value - limit, span - limit
                            k = draws.below(total)
                            value, span = draws.value, draws.span
                if k < pc:
                    suit, r = 0, nth[c * 13 + k]
                elif k < pc + pd:
                    suit, r = 1, nth[d * 13 + k - pc]
                elif k < pc + pd + ph:
                    suit, r = 2, nth[h * 13 + k - pc - pd]
                else:
                    suit, r = 3, nth[s * 13 + k - pc - pd - ph]
                hands[base + suit] ^= 1 << r
                i = suit * 13 + r
                points += tally[i]
                if breaks[i]:
                    broken = True
        tallies[winner >> 2] += points
        if used > 1:
            span //= used
        base = winner
        first = False
    draws.value, draws.span = value, span
