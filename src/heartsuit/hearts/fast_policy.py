"""Guided playouts: the fast path's hand finished by rule-of-thumb players, not random ones.

A search bot judges a card by the hands that follow it; random followers make every hand look
like a lottery (a random player drops Q♠ on anyone, leads its aces, never ducks), so the search
learns little. :func:`policy_out` plays the rest of a hand on the fast path's split suit masks
(``hands[seat * 4 + suit]``, see :mod:`heartsuit.hearts.fast`) with the core of
:class:`~heartsuit.hearts.bots.heuristic.HeuristicBot`, written for speed:

* lead the lowest card of a random suit, keeping spades back while holding Q♠, K♠ or A♠;
* follow by ducking with the highest card that still loses; when that is impossible, or when
  last to a trick without points, win with the highest card (Q♠ only when nothing else);
* when void, throw Q♠, then A♠/K♠, then the highest heart, then the top of the shortest suit;

and with probability ``noise`` any legal card instead, so the playouts of one position differ.
The rules are the fast path's (first trick, hearts broken, following suit), so every play is
legal; a test replays guided playouts through the engine.
"""

from __future__ import annotations

from collections.abc import Callable

from heartsuit.hearts.fast_tables import JACK_MARK, NTH, POP, Table

HIGH_SPADES = 0x1C00  # Q♠ K♠ A♠ as rank bits of the spade suit mask
QUEEN_BIT = 1 << 10
KING_ACE = 0x1800
# per suit mask: the rank of its lowest and of its highest card (-1 for none)
LOW: list[int] = [(m & -m).bit_length() - 1 for m in range(1 << 13)]
TOP: list[int] = [m.bit_length() - 1 for m in range(1 << 13)]
# the suits a leader picks from, by which of C, D, H, S (bits 1, 2, 4, 8) it may lead
LEADS: list[tuple[int, ...]] = [tuple(k for k in range(4) if p >> k & 1) for p in range(16)]


def _random_card(c: int, d: int, h: int, s: int, rnd: Callable[[], float]) -> tuple[int, int]:
    pc, pd, ph, ps = POP[c], POP[d], POP[h], POP[s]
    k = int(rnd() * (pc + pd + ph + ps))
    if k < pc:
        return 0, NTH[c * 13 + k]
    k -= pc
    if k < pd:
        return 1, NTH[d * 13 + k]
    k -= pd
    if k < ph:
        return 2, NTH[h * 13 + k]
    k -= ph
    if k < ps:
        return 3, NTH[s * 13 + k]
    return 3, NTH[s * 13 + ps - 1]  # rnd() == 1.0 never happens; keep mypy content


def policy_out(
    table: Table,
    hands: list[int],
    tallies: list[int],
    leader: int,
    trick: tuple[int, ...],
    broken: bool,
    first: bool,
    rnd: Callable[[], float],
    noise: float = 0.1,
    shooter: int = -1,
    moon_at: int = 0,
    record: list[int] | None = None,
    flush: bool = False,
    safe_leads: bool = False,
    defend_at: int = 0,
    lone: int = -1,
) -> None:
    """Play the hand to its end with the guided policy; adds each trick's tally to its winner.

    The arguments are those of :func:`heartsuit.hearts.fast_loop.play_out` (``hands`` is
    emptied, ``tallies`` grows), with ``rnd`` a ``random.Random().random`` for the choices.
    ``shooter`` is a seat that plays for the moon from the start (-1: none); ``moon_at`` (when
    positive) makes any seat that has taken every penalty point so far, and at least that
    many, shoot from then on. While someone shoots, the others defend: they win the shooter's
    tricks when they can and feed it no points. ``record``, when given, receives every card
    played, in order (for tests). ``flush``: a leader with spades but no Q♠, K♠ or A♠ leads its
    lowest spade while another seat holds Q♠ (to force the queen out). ``safe_leads``: the
    leader picks, among the suits it may lead, the one whose lowest card the other seats can
    beat with the most cards (ties at random) instead of a random suit. ``defend_at``: the
    others defend against ``shooter`` only once it has taken that many penalty points (0: from
    the start), as players who have not yet seen the moon coming; ``lone`` (when a seat) is the
    only seat that defends, so the playout shows what that seat's own play does to the moon.
    """
    pop = POP
    low_of = LOW
    top_of = TOP
    suit_tally = table.suit_tally
    suit_breaks = table.suit_breaks
    plans = table.follow_plans
    ban = table.first_banned
    players = table.players
    last_pos = players - 2
    moon_alive = moon_at > 0 or shooter >= 0
    # the one seat with penalty points so far (-1: none, -2: more than one), kept as tricks
    # end; the moon is looked at again only after a trick with penalty points (the check is
    # idempotent: the same tallies give the same answer)
    taker = -1
    if moon_alive:
        for seat in range(players):
            if tallies[seat] % JACK_MARK:
                taker = seat if taker == -1 else -2
    recheck = moon_alive
    defending = shooter >= 0 and defend_at <= 0
    b = leader * 4
    tricks_left = pop[hands[b]] + pop[hands[b + 1]] + pop[hands[b + 2]] + pop[hands[b + 3]]
    if trick:
        tricks_left += 1
    while tricks_left:
        tricks_left -= 1
        if recheck:
            recheck = False
            if taker == -2 or (taker >= 0 and shooter >= 0 and taker != shooter):
                moon_alive = False
                shooter = -1
            elif taker >= 0 and moon_at and tallies[taker] % JACK_MARK >= moon_at:
                shooter = taker
            defending = shooter >= 0 and (
                defend_at <= 0 or tallies[shooter] % JACK_MARK >= defend_at
            )
        if trick:
            led = trick[0] // 13
            best = -1
            winner = leader
            points = 0
            for k, i in enumerate(trick):
                suit, r = divmod(i, 13)
                points += suit_tally[suit][r]
                if suit == led and r > best:
                    best = r
                    winner = (leader + k) % players
            plan = plans[leader][len(trick) - 1 :]
            trick = ()
        else:
            base = leader * 4
            c, d, h, s = hands[base : base + 4]
            if first:
                i = table.lead_index
                led, r = divmod(i, 13)
            else:
                if not broken and (c or d or s):
                    h = 0
                if rnd() < noise:
                    led, r = _random_card(c, d, h, s, rnd)
                elif leader == shooter:
                    # shoot: lead the highest card held (it is the likeliest to stay on top;
                    # of equal ranks the last suit)
                    r, led = -1, 0
                    if c:
                        r = top_of[c]
                    if d and top_of[d] >= r:
                        r, led = top_of[d], 1
                    if h and top_of[h] >= r:
                        r, led = top_of[h], 2
                    if s and top_of[s] >= r:
                        r, led = top_of[s], 3
                elif (
                    flush
                    and s
                    and not s & HIGH_SPADES
                    and any(hands[k * 4 + 3] & QUEEN_BIT for k in range(players))
                ):
                    led, r = 3, (s & -s).bit_length() - 1  # flush the queen out
                else:
                    # keep spades back while holding a high one (it would draw the queen)
                    suits = LEADS[
                        (1 if c else 0)
                        | (2 if d else 0)
                        | (4 if h else 0)
                        | (8 if s and not s & HIGH_SPADES else 0)
                    ]
                    if not suits:
                        suits = LEADS[(4 if h else 0) | (8 if s else 0)]
                    if safe_leads and len(suits) > 1:
                        # the suit whose lowest card the others can beat with the most cards
                        top = -1
                        ties: list[int] = []
                        for k in suits:
                            low = (hands[base + k] & -hands[base + k]).bit_length()
                            above = 0
                            for seat in range(players):
                                if seat != leader:
                                    above += pop[hands[seat * 4 + k] >> low]
                            if above > top:
                                top = above
                                ties = [k]
                            elif above == top:
                                ties.append(k)
                        suits = tuple(ties)
                    led = suits[int(rnd() * len(suits))]
                    r = low_of[hands[base + led]]
            hands[base + led] ^= 1 << r
            if record is not None:
                record.append(led * 13 + r)
            best = r
            winner = leader
            points = suit_tally[led][r]
            if suit_breaks[led][r]:
                broken = True
            plan = plans[leader]
        led_tally = suit_tally[led]
        led_breaks = suit_breaks[led]
        for pos, seat, base in plan:
            slot = base + led
            held = follow = hands[slot]
            if follow:
                if first:
                    clean = follow & ~ban[led]
                    if clean:
                        follow = clean
                if follow & (follow - 1) == 0:
                    r = top_of[follow]
                elif rnd() < noise:
                    r = NTH[follow * 13 + int(rnd() * pop[follow])]
                elif shooter >= 0 and (
                    seat == shooter or (defending and winner == shooter and lone in (-1, seat))
                ):
                    # the shooter wins what it can; a defender beats the shooter if it can
                    top = top_of[follow]
                    r = top if top > best else low_of[follow]
                else:
                    # (best >= 0: the trick has its lead)
                    below = follow & ((1 << best) - 1)
                    if below and not (pos == last_pos and points <= 0):
                        r = top_of[below]  # duck as high as possible
                    elif led == 3 and follow & QUEEN_BIT and follow != QUEEN_BIT:
                        r = top_of[follow ^ QUEEN_BIT]  # win with anything but the queen
                    else:
                        r = top_of[follow]
                hands[slot] = held ^ 1 << r
                if record is not None:
                    record.append(led * 13 + r)
                points += led_tally[r]
                if led_breaks[r]:
                    broken = True
                if r > best:
                    best = r
                    winner = seat
                continue
            c, d, h, s = hands[base : base + 4]
            if first:
                cc, dd, hh, ss = c & ~ban[0], d & ~ban[1], h & ~ban[2], s & ~ban[3]
                if cc or dd or hh or ss:
                    c, d, h, s = cc, dd, hh, ss
            if rnd() < noise:
                suit, r = _random_card(c, d, h, s, rnd)
            elif shooter >= 0 and (
                seat == shooter or (defending and winner == shooter and lone in (-1, seat))
            ):
                # shooter: throw away a low card that carries no points; defender: feed the
                # shooter nothing (the same choice): the lowest club, diamond or spade below
                # the queen (of equal ranks the first suit)
                suit, low = -1, 1 << 13
                if c:
                    suit, low = 0, c & -c
                if d and d & -d < low:
                    suit, low = 1, d & -d
                spare = s & ~HIGH_SPADES
                if spare and spare & -spare < low:
                    suit, low = 3, spare & -spare
                if suit >= 0:
                    r = low.bit_length() - 1
                else:
                    suit, r = _lowest((c, d, h, s))
            elif s & QUEEN_BIT:
                suit, r = 3, 10
            elif s & KING_ACE:
                suit, r = 3, top_of[s]
            elif h:
                suit, r = 2, top_of[h]
            else:
                # the top card of the shortest suit left (a void to come; the first such
                # suit in suit order; no hearts here)
                suit, mask, count = 0, c, pop[c] if c else 14
                if d and pop[d] < count:
                    suit, mask, count = 1, d, pop[d]
                if s and pop[s] < count:
                    suit, mask = 3, s
                r = top_of[mask]
            hands[base + suit] ^= 1 << r
            if record is not None:
                record.append(suit * 13 + r)
            points += suit_tally[suit][r]
            if suit_breaks[suit][r]:
                broken = True
        tallies[winner] += points
        if moon_alive and points % JACK_MARK:
            recheck = True
            if taker == -1:
                taker = winner
            elif taker != winner:
                taker = -2
        leader = winner
        first = False


def _lowest(masks: tuple[int, int, int, int]) -> tuple[int, int]:
    r, suit = min(((m & -m).bit_length() - 1, k) for k, m in enumerate(masks) if m)
    return suit, r


def play_world(
    table: Table,
    hands: list[int],
    starts: list[tuple[int, int, tuple[int, ...], bool]],
    moves: list[int],
    tallies: list[int],
    leader: int,
    first: bool,
    rnd: Callable[[], float],
    noise: float,
    shooter: int,
    moon_at: int,
    flush: bool,
    safe_leads: bool,
    me: int,
    plain: bool,
    utilities: Callable[[list[int]], list[float]],
    lone: int = -1,
) -> list[float]:
    """One sampled world of a PIMC search: each of ``moves`` (indices into ``starts``, a
    card's playout start: its hand slot, its bit, the trick with it, hearts broken) played out
    by :func:`policy_out` from ``hands`` and ``tallies`` (not changed); this seat's utility of
    each, in order. ``plain``: a hand is worth minus its points (``utilities`` is then called
    only for a moon or a J♦); otherwise every playout is scored by ``utilities``. ``shooter``
    and ``lone`` are :func:`policy_out`'s."""
    total = table.moon_total
    out: list[float] = []
    for k in moves:
        slot, bit, after, broken = starts[k]
        played = hands[:]
        played[slot] ^= bit
        taken = tallies[:]
        policy_out(
            table,
            played,
            taken,
            leader,
            after,
            broken,
            first,
            rnd,
            noise,
            shooter,
            moon_at,
            None,
            flush,
            safe_leads,
            0,
            lone,
        )
        # hand_points' common case (no moon, no J♦ taken): the points are the tallies
        if plain and max(taken) < JACK_MARK and (total <= 0 or total not in taken):
            out.append(-float(taken[me]))
        else:
            out.append(utilities(taken)[me])
    return out
