"""Hearts rule options (:class:`Rules`), the named presets, and the card facts they imply.

A :class:`Rules` value is everything that differs between tables: player count, packs, removed
cards, passing, first-trick and heart-breaking rules, moon scoring, bonuses, target and ties. It
answers the static questions (which cards are in play, how many each player gets, what a card is
worth, where a pass goes) and nothing about a particular deal; that is :mod:`heartsuit.hearts.game`.

Sources named in the field comments: the product's seed (``seeds/hearts.id.txt``), its English
spec (``spec/hearts.md``), the published rules of the variants (pagat.com "Hearts",
bicyclecards.com "Cancellation Hearts", Wikipedia "Cancellation Hearts" and "Black Maria (card
game)") and, where those are silent, a house rule. ``docs/hearts-rules.md`` lists every decision.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, get_args

from heartsuit.cards import ACE, JACK, KING, QUEEN, Card, Suit, full_pack


class PassDirection(StrEnum):
    LEFT = "left"  # seat i gives to seat i + 1
    RIGHT = "right"  # seat i gives to seat i - 1
    ACROSS = "across"  # seat i gives to seat i + n/2 (even player counts only)
    HOLD = "hold"  # no pass this hand


LEFT, RIGHT, ACROSS, HOLD = (
    PassDirection.LEFT,
    PassDirection.RIGHT,
    PassDirection.ACROSS,
    PassDirection.HOLD,
)

MoonOption = Literal["others_plus_26", "self_minus_26", "shooter_chooses"]
HeartsBrokenBy = Literal["heart_discard", "heart_or_queen"]
TiesOption = Literal["shared", "play_on"]

QUEEN_OF_SPADES = Card(QUEEN, Suit.SPADES)
KING_OF_SPADES = Card(KING, Suit.SPADES)
ACE_OF_SPADES = Card(ACE, Suit.SPADES)
JACK_OF_DIAMONDS = Card(JACK, Suit.DIAMONDS)
TWO_OF_CLUBS = Card(2, Suit.CLUBS)
TWO_OF_DIAMONDS = Card(2, Suit.DIAMONDS)

PRESET_NAMES = ("standard", "three", "five", "omnibus", "black-maria", "cancellation")


class RulesError(ValueError):
    """A combination of options that cannot be played; the message says why."""


@dataclass(frozen=True, slots=True)
class Rules:
    """The options of one Hearts table; :meth:`preset` or direct; impossible ones → RulesError."""

    # Four players, each for themselves (seed); 3..10 cover every preset (spec "Presets").
    players: int = 4
    # One 52-card pack (seed); two only for Cancellation (spec; bicyclecards "Cancellation").
    packs: int = 1
    # Cards taken out before the deal so it divides evenly (seed: 2♦ for three, 2♦ 2♣ for five).
    removed: tuple[Card, ...] = ()
    # Pass before each hand (seed "Oper kartu"); off for Cancellation (bicyclecards, spec).
    passing: bool = True
    # Left, right, across, hold, repeat (seed); 3 and 5 players drop "across" (house rule).
    pass_cycle: tuple[PassDirection, ...] = (LEFT, RIGHT, ACROSS, HOLD)
    # Three cards per pass (seed: "memilih tiga kartu").
    pass_count: int = 3
    # False: no heart / Q♠ on the first trick unless nothing else is legal (seed "Dua batasan").
    first_trick_points: bool = False
    # What breaks hearts: a heart discarded (seed) or also Q♠ played (seed's house-rule aside).
    hearts_broken_by: HeartsBrokenBy = "heart_discard"
    # Moon: shooter 0, others +26 (seed); or shooter -26 (seed's alternative); or shooter picks.
    moon: MoonOption = "others_plus_26"
    # J♦ counts -10 to whoever takes it (seed "Jack wajik"; Omnibus Hearts).
    jack_of_diamonds: bool = False
    # Black Maria's extra spade penalties K♠ 10, A♠ 7 (Wikipedia "Black Maria"); Q♠ stays 13.
    spade_penalties: bool = False
    # Landing exactly on the target sends a player back to half of it (seed "Pas 100": 100 → 50).
    exactly_100_reset: bool = False
    # The match ends after the hand in which someone reaches this total (seed: 100).
    target: int = 100
    # Tied lowest totals at the end share the win (spec default) or play on (spec option).
    ties: TiesOption = "shared"
    # Identical cards in a trick cancel; no live card of the led suit → held over (spec; pagat).
    cancellation: bool = False
    # Each listed card is taken out of the deck once (two packs: list a card twice for both).
    _deck: tuple[Card, ...] = field(default=(), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._validate()
        removed = list(self.removed)
        deck: list[Card] = []
        for card in full_pack() * self.packs:
            if card in removed:
                removed.remove(card)
            else:
                deck.append(card)
        object.__setattr__(self, "_deck", tuple(deck))

    # --- construction -------------------------------------------------------------------------

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> Rules:
        """A named preset, with any option changed by name: ``preset("standard", moon=...)``."""
        base = _PRESETS.get(name)
        if base is None:
            raise RulesError(f"unknown preset {name!r}; choose one of {', '.join(PRESET_NAMES)}")
        values = dict(base)
        values.update(overrides)
        return cls.from_dict(values)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """Options by name; strings are accepted for cards and pass directions (JSON form)."""
        known = {f.name for f in dataclasses.fields(cls) if f.init}
        unknown = sorted(set(data) - known)
        if unknown:
            raise RulesError(
                f"unknown rule option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
            )
        values = dict(data)
        try:
            if "removed" in values:
                values["removed"] = tuple(
                    c if isinstance(c, Card) else Card.parse(c) for c in values["removed"]
                )
            if "pass_cycle" in values:
                values["pass_cycle"] = tuple(PassDirection(d) for d in values["pass_cycle"])
        except ValueError as exc:
            raise RulesError(str(exc)) from exc
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able options; ``Rules.from_dict(r.to_dict()) == r``."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if not f.init:
                continue
            value = getattr(self, f.name)
            if f.name == "removed":
                value = [c.code for c in value]
            elif f.name == "pass_cycle":
                value = [str(d) for d in value]
            out[f.name] = value
        return out

    def _validate(self) -> None:
        def bad(why: str) -> RulesError:
            return RulesError(f"impossible rules: {why}")

        for name in ("players", "packs", "pass_count", "target"):
            if not isinstance(getattr(self, name), int) or isinstance(getattr(self, name), bool):
                raise bad(f"{name} must be a whole number, not {getattr(self, name)!r}")
        if not 3 <= self.players <= 10:
            raise bad(f"Hearts is for 3 to 10 players, not {self.players}")
        if self.packs not in (1, 2):
            raise bad(f"one or two packs, not {self.packs}")
        for name, allowed in (
            ("moon", MoonOption),
            ("hearts_broken_by", HeartsBrokenBy),
            ("ties", TiesOption),
        ):
            if getattr(self, name) not in get_args(allowed):
                choices = ", ".join(get_args(allowed))
                raise bad(f"{name} is one of {choices}, not {getattr(self, name)!r}")
        if self.target <= 0:
            raise bad(f"the target must be a positive number, not {self.target}")
        if self.packs == 2 and not self.cancellation:
            # two identical cards could tie for a trick; only cancellation says what happens then
            raise bad("two packs need the cancellation rule (identical cards would tie)")
        if self.cancellation and self.packs != 2:
            raise bad("cancellation is played with two packs (identical cards must exist)")
        if self.cancellation and self.players < 6:
            # spec / Wikipedia "Cancellation Hearts": a game for six or more
            raise bad(f"cancellation is for 6 to 10 players, not {self.players}")
        if any(not isinstance(c, Card) for c in self.removed):
            raise bad("removed must list Card values")
        for card in set(self.removed):
            if self.removed.count(card) > self.packs:
                raise bad(f"{card} is removed more times than the packs hold it")
        in_play = self.packs * 52 - len(self.removed)
        size, kitty = divmod(in_play, self.players)
        if size < 1:
            raise bad(f"{in_play} cards cannot be dealt to {self.players} players")
        if kitty and not self.cancellation:
            # only Cancellation has a kitty (bicyclecards "widow"); elsewhere cards are removed
            raise bad(
                f"{in_play} cards do not divide among {self.players} players "
                f"({kitty} left over); remove {kitty} card(s) or use the cancellation preset"
            )
        if self.passing:
            if not self.pass_cycle:
                raise bad("passing is on but the pass cycle is empty")
            if not all(isinstance(d, PassDirection) for d in self.pass_cycle):
                raise bad("the pass cycle lists PassDirection values (left/right/across/hold)")
            if ACROSS in self.pass_cycle and self.players % 2:
                raise bad(f"nobody sits across with {self.players} players; drop 'across'")
            if not 1 <= self.pass_count <= size:
                raise bad(f"pass_count must be 1..{size} (the hand size), not {self.pass_count}")

    # --- static facts --------------------------------------------------------------------------

    def deck(self) -> tuple[Card, ...]:
        """The cards in play (packs × 52 minus removed), in a fixed order (the pack order)."""
        return self._deck

    def hand_size(self) -> int:
        return len(self._deck) // self.players

    def kitty_size(self) -> int:
        return len(self._deck) % self.players

    def card_points(self, card: Card) -> int:
        """Hearts 1, Q♠ 13, J♦ −10 when on, K♠ 10 and A♠ 7 with spade penalties, else 0."""
        if card.suit is Suit.HEARTS:
            return 1
        if card == QUEEN_OF_SPADES:
            return 13
        if self.jack_of_diamonds and card == JACK_OF_DIAMONDS:
            return -10
        if self.spade_penalties and card == KING_OF_SPADES:
            return 10
        if self.spade_penalties and card == ACE_OF_SPADES:
            return 7
        return 0

    def is_penalty(self, card: Card) -> bool:
        """A card with positive points; taking all of them is shooting the moon."""
        return self.card_points(card) > 0

    def total_points(self) -> int:
        """Penalty points per hand, J♦ bonus excluded (26; 52 with two packs; 43 with K♠ A♠)."""
        return sum(p for p in (self.card_points(c) for c in self._deck) if p > 0)

    def pass_direction(self, hand_number: int) -> PassDirection:
        """The pass of hand ``hand_number`` (from 0) in the match; HOLD when passing is off."""
        if not self.passing:
            return HOLD
        return self.pass_cycle[hand_number % len(self.pass_cycle)]

    def pass_target(self, seat: int, direction: PassDirection) -> int:
        """The seat that receives ``seat``'s pass (``seat`` itself for HOLD)."""
        n = self.players
        if direction is LEFT:
            return (seat + 1) % n
        if direction is RIGHT:
            return (seat - 1) % n
        if direction is ACROSS:
            return (seat + n // 2) % n
        return seat

    def deal_label(self) -> str:
        """The :func:`~heartsuit.shuffle.derive_seed` label of this deck's deals.

        Only what changes the cards dealt is in it (players, packs, removed cards), so presets
        that deal alike (standard and omnibus) deal the same hands for the same seed.
        """
        removed = ",".join(sorted(c.code for c in self.removed))
        return f"hearts/{self.players}p{self.packs}x-{removed}"


_FOUR = {"players": 4}
# with 3 or 5 players nobody sits across: the seed's cycle without it (pagat "Hearts" lists
# several three-player passing schemes; this one keeps the seed's order)
_ODD_CYCLE = (LEFT, RIGHT, HOLD)

_PRESETS: dict[str, dict[str, Any]] = {
    "standard": dict(_FOUR),
    "three": {"players": 3, "removed": (TWO_OF_DIAMONDS,), "pass_cycle": _ODD_CYCLE},
    "five": {
        "players": 5,
        "removed": (TWO_OF_DIAMONDS, TWO_OF_CLUBS),
        "pass_cycle": _ODD_CYCLE,
    },
    "omnibus": {"players": 4, "jack_of_diamonds": True},
    # seed + Wikipedia "Black Maria": three players, 2♣ out; passing on (spec: on or off);
    # the spade penalties only if chosen (spec)
    "black-maria": {"players": 3, "removed": (TWO_OF_CLUBS,), "pass_cycle": _ODD_CYCLE},
    # spec + bicyclecards "Cancellation Hearts": two packs, no passing; 6 players by default
    "cancellation": {"players": 6, "packs": 2, "passing": False, "cancellation": True},
}
