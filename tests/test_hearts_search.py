"""The search bots: sampled worlds agree with the view, choices are legal and seeded, the guided
playouts follow the rules, and the search sees the moon. Tiny budgets: these tests check
behaviour, never speed (bench/hearts_search.py measures that)."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heartsuit.cards import Card, Suit
from heartsuit.hearts import Hand, Rules
from heartsuit.hearts.bots import BOTS, make_bot, passing, sampling
from heartsuit.hearts.bots.easy import EasyBot
from heartsuit.hearts.bots.passing import PassConfig, candidates
from heartsuit.hearts.bots.sampling import Sampler, consistent, knowledge, sample, sample_plain
from heartsuit.hearts.bots.search import SearchBot, SearchConfig, equivalent_groups
from heartsuit.hearts.bots.utility import Scorer
from heartsuit.hearts.fast import FastState, Position, Table
from heartsuit.hearts.fast_policy import policy_out
from heartsuit.hearts.fast_tables import card_index, hand_points, index_card, split_suits
from heartsuit.hearts.game import Phase
from heartsuit.hearts.rules import PRESET_NAMES, QUEEN_OF_SPADES
from heartsuit.shuffle import Rng

from .hearts_helpers import cards, filled_deal

TINY = SearchConfig(playouts=12, passing=PassConfig(playouts=30, candidates=5))
TINY_HINTS = SearchConfig(
    playouts=12, passing=PassConfig(playouts=30, candidates=5), infer_plays=True
)
TINY_ISMCTS = SearchConfig(algorithm="ismcts", playouts=40, passing=PassConfig(method="heuristic"))
# every preset, Cancellation at every table size, and one-pack tables with passing on
TABLES = [
    *(Rules.preset(name) for name in PRESET_NAMES if name != "cancellation"),
    *(Rules.preset("cancellation", players=n) for n in range(6, 11)),
    Rules.preset("cancellation", players=7, passing=True, pass_cycle=("left",)),
    Rules.preset("standard", jack_of_diamonds=True, hearts_broken_by="heart_or_queen"),
    Rules.preset("black-maria", spade_penalties=True),
    Rules.preset("standard", first_trick_points=True, moon="shooter_chooses"),
]


def random_position(rules: Rules, seed: int, plays: int) -> Hand:
    """A hand dealt from ``seed``, passed by the heuristic, with ``plays`` random plays made."""
    rnd = random.Random(seed)
    hand = Hand.deal(rules, seed, hand_number=seed % 4)
    if hand.phase is Phase.PASS:
        for seat in range(rules.players):
            hand.pass_cards(seat, make_bot("heuristic").choose_pass(hand.view(seat)))
    for _ in range(plays):
        if hand.phase is not Phase.PLAY:
            break
        turn = hand.to_play
        assert turn is not None
        hand.play(turn, rnd.choice(hand.legal_plays(turn)))
    return hand


def to_cards(indices: list[int]) -> Counter[Card]:
    return Counter(index_card(i) for i in indices)


# --- sampled worlds ---------------------------------------------------------------------------

#: a position of a random hand of some preset, from one seat, with or without play hints
POSITIONS = {
    "table": st.integers(0, len(TABLES) - 1),
    "seed": st.integers(0, 10**6),
    "plays": st.integers(0, 60),
    "seat": st.integers(0, 9),
    "hints": st.booleans(),
}


@settings(max_examples=60, deadline=None)
@given(**POSITIONS)
def test_sampled_worlds_agree_with_everything_the_seat_knows(
    table: int, seed: int, plays: int, seat: int, hints: bool
) -> None:
    rules = TABLES[table]
    hand = random_position(rules, seed, plays)
    if hand.phase is not Phase.PLAY:
        return
    seat %= rules.players
    view = hand.view(seat)
    know = knowledge(view, hints=hints)
    # the truth is one of the worlds the knowledge allows (nothing is over-inferred)
    truth = [
        [] if s == seat else [card_index(c) for c in hand.holdings[s]] for s in range(rules.players)
    ]
    truth.append([card_index(c) for c in hand.kitty] if hand.kitty_taker is None else [])
    if hand.kitty_taker is not None:
        # the kitty was taken unseen: its cards are still unseen to this seat
        truth[-1] = [card_index(c) for c in hand.kitty]
    assert consistent(know, truth) is None
    rng = Rng(seed)
    played = Counter(c for t in view.tricks for _, c in t.plays)
    if view.trick is not None:
        played.update(c for _, c in view.trick.plays)
    for _ in range(5):
        world = sample(know, rng)
        assert consistent(know, world) is None
        # checked again from the view itself, not through the knowledge
        dealt = Counter(index_card(i) for h in world for i in h)
        assert dealt + Counter(view.hand) + played == Counter(rules.deck())
        assert world[seat] == []
        for s in range(rules.players):
            if s != seat:
                assert len(world[s]) == view.cards_left[s]
        assert len(world[-1]) == view.kitty_size
        for record in [*view.tricks, *([view.trick] if view.trick else [])]:
            led = record.plays[0][1].suit if record.plays else None
            for s, card in record.plays:
                if card.suit is not led:
                    assert all(index_card(i).suit is not led for i in world[s])
        if view.passed and view.pass_direction != "hold":
            target = rules.pass_target(seat, view.pass_direction)
            by_target = Counter(c for t in view.tricks for s, c in t.plays if s == target)
            if view.trick is not None:
                by_target.update(c for s, c in view.trick.plays if s == target)
            still = Counter(view.passed) - by_target
            assert not still - to_cards(world[target])


@settings(max_examples=40, deadline=None)
@given(**POSITIONS)
def test_the_sampler_deals_the_plain_samplers_worlds_with_the_same_draws(
    table: int, seed: int, plays: int, seat: int, hints: bool
) -> None:
    rules = TABLES[table]
    hand = random_position(rules, seed, plays)
    if hand.phase is not Phase.PLAY:
        return
    know = knowledge(hand.view(seat % rules.players), hints=hints)
    sampler = Sampler(know)
    fast, plain = Rng(seed), Rng(seed)
    for _ in range(4):
        assert sampler.deal(fast) == sample_plain(know, plain)
        assert fast.state == plain.state


def test_a_draw_the_batch_cannot_take_is_dealt_by_the_plain_sampler(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # every output counts as one that below() might reject: each world goes the plain way
    monkeypatch.setattr(sampling, "_DRAW_BOUND", 1 << 64)
    hand = random_position(Rules(), 5, 14)
    know = knowledge(hand.view(hand.to_play or 0))
    fast, plain = Rng(9), Rng(9)
    for _ in range(3):
        assert Sampler(know).deal(fast) == sample_plain(know, plain)
        assert fast.state == plain.state


def test_a_passed_card_stays_with_its_receiver_until_played() -> None:
    rules = Rules()
    hand = Hand.deal(rules, 11, pass_direction="left")
    for seat in range(4):
        hand.pass_cards(seat, make_bot("heuristic").choose_pass(hand.view(seat)))
    view = hand.view(0)
    know = knowledge(view)
    rng = Rng(1)
    for _ in range(20):
        world = sample(know, rng)
        assert set(view.passed) <= set(to_cards(world[1]))


def test_a_seat_that_throws_points_on_the_first_trick_holds_only_points() -> None:
    hand = Hand.from_cards(
        Rules(),
        [
            cards("2C 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD"),
            cards("2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH QS"),
            cards("3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC AD"),
            cards("2S 3S 4S 5S 6S 7S 8S 9S 10S JS KS AS AH"),
        ],
        pass_direction="hold",
    )
    for card in cards("2C 2H 3C 2S"):
        hand.play(hand.to_play if hand.to_play is not None else 0, card)
    know = knowledge(hand.view(2))  # seat 2 won the first trick
    points = sum(1 << i for i in range(26, 39)) | 1 << card_index(QUEEN_OF_SPADES)
    assert know.allowed[1] & ~points == 0  # a heart there means nothing clean was held
    world = sample(know, Rng(3))
    assert all(index_card(i).suit is Suit.HEARTS or index_card(i) == QUEEN_OF_SPADES
               for i in world[1])


def test_a_seat_that_throws_another_card_while_q_spades_is_out_rarely_gets_it() -> None:
    hand = Hand.from_cards(
        Rules(),
        [
            cards("2C 3C 4C 5C 6C 2D 3D 4D 5D 6D 2H 3H 4H"),
            cards("7C 7D 8D 9D 10D JD QD KD AD 5H 6H 7H 8H"),
            cards("8C 9C 10C JC 2S 3S 4S 5S 6S 7S 8S 9H 10H"),
            cards("QC KC AC JH QH KH AH QS KS AS 9S 10S JS"),
        ],
        pass_direction="hold",
    )
    for card in cards("2C 7C 8C AC KC 3C 7D 9C"):  # seat 1 throws 7D on the second trick
        hand.play(hand.to_play if hand.to_play is not None else 0, card)
    queen = card_index(QUEEN_OF_SPADES)
    know = knowledge(hand.view(0))
    assert know.unlikely[1] == 1 << queen and not know.unlikely[2] and not know.unlikely[3]
    assert know.allowed[1] >> queen & 1  # doubted, never ruled out
    rng = Rng(5)
    holders = Counter(s for _ in range(600) for s, h in enumerate(sample(know, rng)) if queen in h)
    assert 0 < holders[1] < holders[2] / 3 and 0 < holders[1] < holders[3] / 3
    plain = knowledge(hand.view(0), soft=False)
    assert not any(plain.unlikely)
    holders = Counter(s for _ in range(600) for s, h in enumerate(sample(plain, rng)) if queen in h)
    assert holders[1] > holders[2] / 2


def test_a_seat_that_follows_under_a_high_spade_with_another_spade_rarely_has_the_queen() -> None:
    hand = Hand.from_cards(
        Rules(),
        [
            cards("2C 3C 4C 5C 6C 2D 3D 4D 5D 6D 2H 3H 4H"),
            cards("7C 7D 8D 9D 10D JD QD KD AD 5H 6H 7H 2S"),
            cards("8C 9C 10C JC 3S 4S 5S 6S 7S 8S 8H 9H 10H"),
            cards("QC KC AC JH QH KH AH QS KS AS 9S 10S JS"),
        ],
        pass_direction="hold",
    )
    # seat 3 wins the clubs, leads K♠ (a spade lead: no Q♠ there either); 0 throws, 1 and 2
    # follow under the king with other spades
    for card in cards("2C 7C 8C AC KS 3C 2S 3S"):
        hand.play(hand.to_play if hand.to_play is not None else 0, card)
    know = knowledge(hand.view(0))
    queen = 1 << card_index(QUEEN_OF_SPADES)
    assert know.unlikely[1] == know.unlikely[2] == know.unlikely[3] == queen
    assert consistent(know, sample(know, Rng(2))) is None


def test_ducks_and_discards_suggest_what_a_seat_lacks() -> None:
    hand = Hand.from_cards(
        Rules(),
        [
            cards("2C 3C 4C 5C 6C 2D 3D 4D 5D 6D 2H 3H 4H"),
            cards("7C 7D 8D 9D 10D JD QD KD AD 5H 6H 7H 8H"),
            cards("8C 9C 10C JC 2S 3S 4S 5S 6S 7S 8S 9H 10H"),
            cards("QC KC AC JH QH KH AH QS KS AS 9S 10S JS"),
        ],
        pass_direction="hold",
    )
    # trick 1 (high cards shed freely): 1 and 2 follow low; trick 2: 3 leads K♣, 1 throws 8♥
    # (a heart before A♠/K♠ with Q♠ out), 2 ducks last under the king with 9♣ (a point is in)
    for card in cards("2C 7C 8C AC KC 3C 8H 9C"):
        hand.play(hand.to_play if hand.to_play is not None else 0, card)

    def mask(codes: str) -> int:
        return sum(1 << card_index(c) for c in cards(codes))

    know = knowledge(hand.view(0), hints=True)
    assert know.unlikely[1] == mask("QS KS AS 9H 10H JH QH KH AH 8C 9C 10C JC QC KC AC")
    assert know.unlikely[2] == mask("9C 10C JC QC KC AC")
    assert know.unlikely[3] == 0
    assert know.allowed == knowledge(hand.view(0)).allowed  # soft: nothing is ruled out
    assert knowledge(hand.view(0)).unlikely[1:4] == (mask("QS"), 0, 0)
    rng = Rng(4)
    ace = card_index(Card(14, Suit.HEARTS))
    holders = Counter(s for _ in range(600) for s, h in enumerate(sample(know, rng)) if ace in h)
    assert 0 < holders[1] < holders[2] / 3 and 0 < holders[1] < holders[3] / 3


def test_a_clean_discard_suggests_no_hearts_and_a_clean_last_follow_no_higher_card() -> None:
    hand = Hand.from_cards(
        Rules(),
        [
            cards("2C 3C 4C 5C 6C 2D 3D 4D 5D 6D 2H 3H 4H"),
            cards("7C 7D 8D 9D 10D JD QD KD AD 5H 6H 7H 8H"),
            cards("8C 9C 10C JC 2S 3S 4S 5S 6S 7S 8S 9H 10H"),
            cards("QC KC AC JH QH KH AH QS KS AS 9S 10S JS"),
        ],
        pass_direction="hold",
    )
    # trick 2: 3 leads J♠ and wins; 0 throws (its own plays are never read), 1 throws 7♦ (a
    # clean card: no heart, no A♠/K♠), 2 follows last to a clean trick with 5♠ (it would shed
    # its highest clean spade there: none above 5♠ but Q♠, which carries points)
    for card in cards("2C 7C 8C AC JS 2D 7D 5S"):
        hand.play(hand.to_play if hand.to_play is not None else 0, card)
    know = knowledge(hand.view(0), hints=True)
    hearts = sum(1 << i for i in range(26, 39))
    spades = {r: 1 << card_index(Card(r, Suit.SPADES)) for r in range(2, 15)}
    assert know.unlikely[1] & hearts == hearts
    assert know.unlikely[1] & spades[13] and know.unlikely[1] & spades[14]
    assert know.unlikely[2] & sum(spades.values()) == sum(
        spades[r] for r in (6, 7, 8, 9, 10, 11, 13, 14)
    )
    assert knowledge(hand.view(0)).unlikely[2] == 0


def test_the_search_reads_the_view_only() -> None:
    # twin deals: two other seats swap two unplayed cards of one suit, so the seat to play sees
    # exactly the same; its choice must not change (while other bot seeds do change it)
    config = replace(TINY, playouts=200, infer_plays=True)
    rules = Rules()
    undecided = 0
    for seed in range(6):
        rnd = random.Random(seed)
        hand = Hand.deal(rules, seed, pass_direction="hold")
        dealt = [list(h) for h in hand.holdings]
        moves: list[tuple[int, Card]] = []
        for _ in range(14):
            turn = hand.to_play
            assert turn is not None
            card = rnd.choice(hand.legal_plays(turn))
            hand.play(turn, card)
            moves.append((turn, card))
        me = hand.to_play
        assert me is not None
        s1, s2 = [s for s in range(4) if s != me][:2]
        x, y = next(
            (a, b)
            for a in hand.holdings[s1]
            for b in hand.holdings[s2]
            if a.suit is b.suit and QUEEN_OF_SPADES not in (a, b)
        )
        dealt[s1][dealt[s1].index(x)] = y
        dealt[s2][dealt[s2].index(y)] = x
        twin = Hand.from_cards(rules, dealt, pass_direction="hold")
        for seat, card in moves:
            twin.play(seat, card)
        assert twin.holdings[s1] != hand.holdings[s1]
        first = SearchBot(seed, config).choose_play(hand.view(me))
        assert SearchBot(seed, config).choose_play(twin.view(me)) == first
        others = {SearchBot(seed + k, config).choose_play(hand.view(me)) for k in range(1, 4)}
        undecided += len(others | {first}) > 1
    assert undecided  # the worlds matter to these choices, so a peek could change them


def test_equivalent_cards_are_grouped_and_searched_once() -> None:
    rules = Rules()
    hand = Hand.from_cards(
        rules,
        filled_deal(
            rules,
            [
                cards("AC 5C 6C 8C 10C 2D 3D 4D 2H 3H JS QS KS"),
                cards("2C"),
                cards("3C"),
                cards("7C"),
            ],
        )[0],
        pass_direction="hold",
    )
    for card in cards("2C 3C 7C AC"):  # seat 0 wins the first trick with A♣
        hand.play(hand.to_play if hand.to_play is not None else 0, card)
    view = hand.view(0)
    moves = [card_index(c) for c in view.legal]
    groups = equivalent_groups(Table.of(rules), view, moves)
    # 7♣ is gone, so 5♣ 6♣ 8♣ are one card; 9♣ is out, so 10♣ is not; Q♠ is worth 13 points
    assert [[index_card(i).code for i in g] for g in groups] == [
        ["5C", "6C", "8C"], ["10C"], ["2D", "3D", "4D"], ["JS"], ["QS"], ["KS"],
    ]
    bot = SearchBot(3, TINY)
    assert bot.choose_play(view) in {index_card(g[0]) for g in groups}


# --- guided playouts ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", [n for n in PRESET_NAMES if n != "cancellation"])
def test_guided_playouts_play_legally_and_score_like_the_engine(name: str) -> None:
    rules = Rules.preset(name)
    table = Table.of(rules)
    for seed in range(25):
        rnd = random.Random(seed)
        hand = random_position(rules, seed, rnd.randrange(0, 30))
        assert hand.trick is not None
        state = FastState(
            table,
            Position.from_cards(
                hand.holdings,
                leader=hand.trick.leader,
                trick=[c for _, c in hand.trick.plays],
                hearts_broken=hand.hearts_broken,
                first_trick=not hand.tricks,
                taken=hand.taken,
            ),
        )
        played: list[int] = []
        hands, tallies = state.hands[:], state.tallies[:]
        policy_out(
            table, hands, tallies, state.leader, tuple(state.trick), state.broken, state.first,
            rnd.random, 0.2, rnd.choice([-1, 0, 2]), rnd.choice([0, 8]), played,
            flush=rnd.random() < 0.5,
            safe_leads=rnd.random() < 0.5,
        )
        for index in played:
            hand.play(hand.to_play or 0, index_card(index))  # the engine refuses an illegal card
        assert hand.phase is Phase.DONE
        assert list(hand.points()) == hand_points(table, tallies)


@pytest.mark.parametrize("name", ["standard", "three", "omnibus"])
def test_a_playout_given_a_whole_trick_settles_it_as_the_state_does(name: str) -> None:
    # PIMC starts each playout with its card on the trick (a whole trick when it is the last
    # to play) instead of stepping a FastState: the same cards and points follow
    rules = Rules.preset(name)
    table = Table.of(rules)
    for seed in range(20):
        hand = random_position(rules, seed, 3 + seed)
        if hand.phase is not Phase.PLAY or hand.trick is None:
            continue
        state = FastState(
            table,
            Position.from_cards(
                hand.holdings,
                leader=hand.trick.leader,
                trick=[c for _, c in hand.trick.plays],
                hearts_broken=hand.hearts_broken,
                first_trick=not hand.tricks,
                taken=hand.taken,
            ),
        )
        legal = state.legal()
        for move in (i for i in range(52) if legal >> i & 1):
            stepped = state.copy()
            stepped.play(move)
            by_state: list[int] = []
            tallies = stepped.tallies[:]
            policy_out(table, stepped.hands[:], tallies, stepped.leader, tuple(stepped.trick),
                       stepped.broken, stepped.first, random.Random(seed).random, 0.2, -1, 8,
                       by_state)
            hands = state.hands[:]
            hands[state.to_play * 4 + move // 13] ^= 1 << (move % 13)
            whole: list[int] = []
            tallies2 = state.tallies[:]
            policy_out(table, hands, tallies2, state.leader, (*state.trick, move),
                       state.broken or table.breaks[move], state.first,
                       random.Random(seed).random, 0.2, -1, 8, whole)
            assert whole == by_state
            assert tallies2 == tallies


# choices of the search before its sampler and playouts were rewritten for speed (the code of
# commit 30d11af): the same seed and view must still give the same card
REFERENCE_CHOICES = (
    "QC 5C AS QH 5D 5D 3H 3H AD AD 5D 5D 4C 4C 6D 6D QC QC QD 7S 5D 5D 3H 3H AD AD 5D 5D 4C 4C "
    "6D 6D 8S JS KD KD 5S 5S 5S 7C 8D JD AH AH 6C 6C 4C 4C"
)


def test_the_search_chooses_as_it_did_before_it_was_made_faster() -> None:
    configs = [
        SearchConfig(playouts=200),
        SearchConfig(playouts=200, infer_plays=True, moon_plans=True),
    ]
    chosen = []
    for name in ("standard", "omnibus", "three"):
        rules = Rules.preset(name)
        for seed in range(8):
            hand = random_position(rules, seed, 3 + 5 * seed)
            view = hand.view(hand.to_play or 0)
            chosen += [SearchBot(seed, config).choose_play(view).code for config in configs]
    assert " ".join(chosen) == REFERENCE_CHOICES


# passes of the same code (commit 30d11af), for the views of the test below
REFERENCE_PASSES = (
    "JDJHQH KCJDAS KCAC10H JCJHKS 9HJHQH AC3DAS KC8DKS JCJHAS 9D5HKH KCJDAD JCQC7D 10C7DJD "
    "10D7HJH KC3DAS AC8D10H 8DJHKS JHKHAH QDADAH 8CJHKS QC7DQD"
)


def test_the_pass_search_passes_as_it_did_before_it_was_made_faster() -> None:
    config = SearchConfig(passing=PassConfig(playouts=300))
    passes = []
    for name, direction in (
        ("standard", "left"),
        ("standard", "across"),
        ("three", "left"),
        ("omnibus", "right"),
        ("five", "left"),
    ):
        rules = Rules.preset(name)
        for seed in range(4):
            view = Hand.deal(rules, seed, pass_direction=direction).view(seed % rules.players)
            passes.append("".join(c.code for c in SearchBot(seed, config).choose_pass(view)))
    assert " ".join(passes) == REFERENCE_PASSES


# passes near the match's end (every playout scored by its effect on the match), by the code of
# commit 71c578b, before the pass search read its model and its hands from lookups
REFERENCE_ENDGAME_PASSES = (
    "JDQHQS ACJD8H KCACKS JC8DJH 7CJHQH KC3DAS KCACKS 8DJHKS JDQHQS 3DJDAS KCAC10H JCJHAS"
)


def test_the_pass_search_near_the_end_passes_as_it_did_before_it_was_made_faster() -> None:
    config = SearchConfig(passing=PassConfig(playouts=300))
    passes = []
    for rules, scores in (
        (Rules(), (90, 40, 75, 98)),
        (Rules.preset("omnibus"), (85, 95, 60, 99)),
        (Rules(exactly_100_reset=True), (0, 99, 99, 99)),
    ):
        for seed in range(4):
            hand = Hand.deal(rules, seed, pass_direction="right", scores=scores)
            view = hand.view(seed % rules.players)
            passes.append("".join(c.code for c in SearchBot(seed, config).choose_pass(view)))
    assert " ".join(passes) == REFERENCE_ENDGAME_PASSES


def test_flushing_playouts_lead_a_low_spade_into_the_queen() -> None:
    table = Table.of(Rules())

    def deal(*seats: str) -> list[int]:
        out: list[int] = []
        for text in seats:
            out += split_suits(sum(1 << card_index(c) for c in cards(text)))
        return out

    for seed in range(5):
        played: list[int] = []
        hands = deal("5S 3S 9C", "QS 2C 3C", "4S 4C 5C", "6S 6C 7C")
        policy_out(table, hands, [0] * 4, 0, (), False, False, random.Random(seed).random, 0.0,
                   record=played, flush=True)
        assert index_card(played[0]) == Card.parse("3S")
        played = []
        hands = deal("KS 3S 9C", "QS 2C 3C", "4S 4C 5C", "6S 6C 7C")
        policy_out(table, hands, [0] * 4, 0, (), False, False, random.Random(seed).random, 0.0,
                   record=played, flush=True)
        assert index_card(played[0]) == Card.parse("9C")  # K♠ held: spades stay back


def test_safe_leads_pick_the_suit_the_others_beat_most() -> None:
    table = Table.of(Rules())
    hands: list[int] = []
    for text in ("9C 2D 3S", "10C 5D 4S", "JC 6D 5S", "QC 7D 6S"):
        hands += split_suits(sum(1 << card_index(c) for c in cards(text)))
    for seed in range(5):
        played: list[int] = []
        policy_out(table, hands[:], [0] * 4, 0, (), False, False, random.Random(seed).random,
                   0.0, record=played, safe_leads=True)
        # 9♣, 2♦ and 3♠ are each beaten by three cards: a tie, so any of them; never a heart
        assert index_card(played[0]) in set(cards("9C 2D 3S"))
    hands = []
    for text in ("9C 2D 3S", "10C 5D 2S", "4C 6D 4S", "5C 7D 5S"):
        hands += split_suits(sum(1 << card_index(c) for c in cards(text)))
    for seed in range(5):
        played = []
        policy_out(table, hands[:], [0] * 4, 0, (), False, False, random.Random(seed).random,
                   0.0, record=played, safe_leads=True)
        assert index_card(played[0]) == Card.parse("2D")  # only 2♦ is beaten by all three


# --- choices --------------------------------------------------------------------------------------


@settings(max_examples=14, deadline=None)
@given(table=st.integers(0, len(TABLES) - 1), seed=st.integers(0, 10**6))
def test_search_bots_pass_and_play_legally_in_every_preset(table: int, seed: int) -> None:
    rules = TABLES[table]
    config = (TINY, TINY_ISMCTS, TINY_HINTS)[seed % 3]
    bots = [SearchBot(seed + s, config) for s in range(rules.players)]
    hand = Hand.deal(rules, seed, hand_number=seed % 3)
    if hand.phase is Phase.PASS:
        for seat, bot in enumerate(bots):
            hand.pass_cards(seat, bot.choose_pass(hand.view(seat)))
    while hand.phase is Phase.PLAY:
        turn = hand.to_play
        assert turn is not None
        view = hand.view(turn)
        card = bots[turn].choose_play(view)
        assert card in view.legal
        hand.play(turn, card)


@settings(max_examples=10, deadline=None)
@given(table=st.integers(0, len(TABLES) - 1), seed=st.integers(0, 10**6))
def test_easy_bot_passes_and_plays_legally(table: int, seed: int) -> None:
    rules = TABLES[table]
    bots = [EasyBot(seed + s, slip=0.5) for s in range(rules.players)]
    hand = Hand.deal(rules, seed, hand_number=seed % 3)
    if hand.phase is Phase.PASS:
        for seat, bot in enumerate(bots):
            hand.pass_cards(seat, bot.choose_pass(hand.view(seat)))
    while hand.phase is Phase.PLAY:
        turn = hand.to_play
        assert turn is not None
        hand.play(turn, bots[turn].choose_play(hand.view(turn)))


@pytest.mark.parametrize(
    "config", [TINY, TINY_ISMCTS, TINY_HINTS], ids=["pimc", "ismcts", "pimc-hints"]
)
def test_the_same_seed_and_view_give_the_same_card(config: SearchConfig) -> None:
    for seed in range(6):
        hand = random_position(Rules(), seed, 9)
        view = hand.view(hand.to_play or 0)
        first = SearchBot(seed, config).choose_play(view)
        bot = SearchBot(seed, config)
        bot.choose_play(hand.view(hand.to_play or 0))  # earlier calls change nothing
        assert bot.choose_play(view) == first
    passing = Hand.deal(Rules(), 4, pass_direction="left").view(2)
    assert SearchBot(8, TINY).choose_pass(passing) == SearchBot(8, TINY).choose_pass(passing)


@pytest.mark.parametrize("players", [6, 8, 10])
def test_cancellation_is_searched_with_guided_playouts_and_seeded(players: int) -> None:
    rules = Rules.preset("cancellation", players=players)
    config = SearchConfig(playouts=100)
    searched = 0
    for seed in range(4):
        hand = random_position(rules, seed, 3 + 7 * seed)
        view = hand.view(hand.to_play or 0)
        bot = SearchBot(seed, config)
        card = bot.choose_play(view)
        assert card in view.legal
        assert SearchBot(seed, config).choose_play(view) == card
        if len(set(view.legal)) > 1:
            assert bot.last_playouts >= 20  # its share of the budget, not the heuristic
            searched += 1
    off = SearchBot(0, SearchConfig(playouts=100, cancellation=False))
    hand = random_position(rules, 1, 10)
    off.choose_play(hand.view(hand.to_play or 0))
    assert off.last_playouts == 0
    assert searched


def test_registry_levels_are_seeded_bots() -> None:
    for name in ("easy", "normal", "hard", "hard100", "search"):
        assert name in BOTS
    hand = random_position(Rules(), 3, 5)
    view = hand.view(hand.to_play or 0)
    assert make_bot("easy", 2).choose_play(view) in view.legal
    assert make_bot("normal", 2).choose_play(view) == make_bot("normal", 2).choose_play(view)


def test_pass_candidates_start_with_the_heuristic_pass_and_are_distinct() -> None:
    view = Hand.deal(Rules(), 9, pass_direction="right").view(1)
    pool = candidates(view, 7)
    assert len(pool) == len(set(pool)) >= 30
    assert all(len(p) == 3 and set(map(index_card, p)) <= set(view.hand) for p in pool)


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(["standard", "omnibus", "black-maria", "three", "five"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_pass_model_read_from_tables_passes_as_the_scored_rule(name: str, seed: int) -> None:
    # the pass search's model of the other seats' passes (a lookup per card) and the scored
    # rule it stands for pick the same cards, ties to the earlier card in the hand included
    rules = Rules.preset(name)
    table = Table.of(rules)
    deck = list(table.deck)
    random.Random(seed).shuffle(deck)
    hand = deck[: rules.hand_size()]
    mask = sum(1 << i for i in hand)
    tables = passing._score_tables(rules.spade_penalties, passing.jack_index(rules))
    for count in (1, 3, 4):
        model = passing._model_pass(rules, hand, count)
        got = passing._model_pass_mask(tables, rules.spade_penalties, hand, mask, count)
        assert got == sum(1 << i for i in model), (hand, count)


def test_passing_by_playouts_dumps_an_unguarded_queen() -> None:
    rules = Rules()
    hand = Hand.from_cards(
        rules,
        [
            cards("QS 3S 2C 5C 9C 4D 8D JD 3H 6H 9H 10H 2H"),
            cards("AS KS 4S 3C 4C 6C 7C 2D 3D 5D 4H 5H 7H"),
            cards("5S 6S 7S 8S 8C 10C JC QC 6D 7D 9D 8H JH"),
            cards("2S 9S 10S JS KC AC 10D QD KD AD QH KH AH"),
        ],
        pass_direction="left",
    )
    bot = SearchBot(1, SearchConfig(playouts=12, passing=PassConfig(playouts=1500)))
    assert QUEEN_OF_SPADES in bot.choose_pass(hand.view(0))


# --- scoring ------------------------------------------------------------------------------------


def test_a_moon_is_worth_its_real_score() -> None:
    scorer = Scorer(Table.of(Rules()), (0, 0, 0, 0))
    assert scorer.utilities([26, 0, 0, 0]) == [0.0, -26.0, -26.0, -26.0]
    minus = Scorer(Table.of(Rules(moon="self_minus_26")), (0, 0, 0, 0))
    assert minus.utilities([0, 26, 0, 0]) == [0.0, 26.0, 0.0, 0.0]


def test_near_the_target_exactly_100_counts_as_a_gain() -> None:
    rules = Rules(exactly_100_reset=True)
    scorer = Scorer(Table.of(rules), (90, 40, 40, 40))
    assert scorer.utilities([10, 0, 16, 0])[0] == 40.0  # 90 + 10 = 100 → 50
    scorer = Scorer(Table.of(Rules()), (90, 40, 60, 85))
    assert scorer.utilities([12, 8, 6, 0])[1] == -8.0 + 50.0  # 102 ends the match; 48 wins
