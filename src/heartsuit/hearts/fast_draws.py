"""Exactly uniform small random choices for playouts, spending few SplitMix64 outputs.

A playout makes ~40 choices among 2..13 cards per hand; calling ``Rng.below`` for each would
spend a whole 64-bit output (and a method call) per choice. :class:`Draws` keeps a pool
``value`` that is uniform in ``0 .. span-1`` and splits it with ``divmod``: when ``value`` is
below the largest multiple of ``n`` in ``span``, ``value % n`` and ``value // n`` are independent
and uniform, so one output serves about a dozen choices. Otherwise the excess ``value - limit``
is itself uniform in ``0 .. span-limit-1`` and becomes the pool: nothing is biased, nothing is
wasted. The generator is the project's :class:`heartsuit.shuffle.Rng`, so playouts are
reproducible from a seed.
"""

from __future__ import annotations

from heartsuit.shuffle import Rng

# refill the pool below this span: a choice among n is then rejected with odds under n / 2**32
TOP_UP = 1 << 32


class Draws:
    """Uniform integers below small bounds from a seeded :class:`~heartsuit.shuffle.Rng`.

    The playout loop of :mod:`heartsuit.hearts.fast` reads and writes ``value`` and ``span``
    directly (the same arithmetic as :meth:`below`, inlined for speed).
    """

    __slots__ = ("rng", "span", "value")

    def __init__(self, seed_or_rng: int | Rng) -> None:
        self.rng = seed_or_rng if isinstance(seed_or_rng, Rng) else Rng(seed_or_rng)
        self.value = 0
        self.span = 1

    def reserve(self, span: int) -> None:
        """Top the pool up to at least ``span`` (the playout loop does this before each trick,
        so that no choice inside the trick needs a refill check)."""
        while self.span < span:
            self.value = self.value << 64 | self.rng.next64()
            self.span <<= 64

    def below(self, n: int) -> int:
        """A uniform integer in ``0 .. n-1`` (``n`` up to about 2**32)."""
        if n <= 0:
            raise ValueError(f"below(n) needs n >= 1, not {n}")
        value = self.value
        span = self.span
        while True:
            if span < TOP_UP:
                value = value << 64 | self.rng.next64()
                span <<= 64
            quotient, excess = divmod(span, n)
            limit = span - excess
            if value < limit:
                self.value, choice = divmod(value, n)
                self.span = quotient
                return choice
            value -= limit
            span = excess
