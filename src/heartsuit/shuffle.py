"""The project's own seeded random generator and Fisher–Yates shuffle.

A deal code must deal the same cards on every machine, every Python version, forever, so the
project never shuffles with :mod:`random` (whose algorithms may change). Everything here is
specified exactly and pinned by test vectors in ``tests/test_shuffle.py``:

* **Generator**: SplitMix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number
  generators", OOPSLA 2014; the reference C code by Vigna at prng.di.unimi.it). The 64-bit state
  advances by the golden-gamma constant ``0x9E3779B97F4A7C15``; each output is the state passed
  through the ``mix64`` finaliser (shifts 30, 27, 31; multipliers ``0xBF58476D1CE4E5B9`` and
  ``0x94D049BB133111EB``). All arithmetic is modulo 2**64.
* **Bounded integers**: ``below(n)`` rejects the top ``2**64 mod n`` values of an output and
  returns ``output mod n`` of the first accepted one, so every value is exactly equally likely.
* **Shuffle**: Fisher–Yates (Durstenfeld's form): for ``i`` from ``len - 1`` down to ``1``, swap
  item ``i`` with item ``below(i + 1)``.
* **Seeds from names**: :func:`derive_seed` turns a label and a number into a 64-bit seed with
  BLAKE2b (8-byte digest of ``"label:number"`` in UTF-8, read little-endian), so that different
  games and rule sets never share a stream.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

MASK64 = (1 << 64) - 1
GOLDEN_GAMMA = 0x9E3779B97F4A7C15
_TWO64 = 1 << 64


class Rng:
    """SplitMix64. ``Rng(seed).next64()`` yields the reference generator's outputs."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        if not isinstance(seed, int) or seed < 0:
            raise ValueError(f"a seed is a non-negative integer, not {seed!r}")
        self.state = seed & MASK64

    def next64(self) -> int:
        self.state = (self.state + GOLDEN_GAMMA) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``0 .. n-1`` (rejection sampling, no modulo bias)."""
        if n <= 0:
            raise ValueError(f"below(n) needs n >= 1, not {n}")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next64()
            if x < limit:
                return x % n


def shuffled(items: Sequence[T], rng: Rng) -> list[T]:
    """A Fisher–Yates shuffle of a copy of ``items``; ``items`` itself is untouched.

    The same draws as ``rng.below(i + 1)`` for ``i`` from ``len - 1`` down to 1, with
    :meth:`Rng.next64` and :meth:`Rng.below` written out inline: every deal runs this loop, and
    the calls cost more than the arithmetic. An output is tested against ``below``'s rejection
    limit only when it reaches the lowest limit of the shuffle's bounds (an output that high
    comes once in about ``2**64 / len`` draws), so the loop does one comparison per draw.
    ``rng`` ends in the same state as with the calls.
    """
    out = list(items)
    size = len(out)
    if size < 2:
        return out
    # every bound n = 2 .. size accepts all outputs below 2**64 - (2**64 mod n) >= 2**64 - n
    safe = _TWO64 - size
    state = rng.state
    for i in range(size - 1, 0, -1):
        state = (state + GOLDEN_GAMMA) & MASK64
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        z ^= z >> 31
        if z >= safe:
            # below()'s own test, redrawing while rejected (never seen in practice)
            limit = _TWO64 - _TWO64 % (i + 1)
            while z >= limit:
                state = (state + GOLDEN_GAMMA) & MASK64
                z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
                z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
                z ^= z >> 31
        j = z % (i + 1)
        out[i], out[j] = out[j], out[i]
    rng.state = state
    return out


def derive_seed(label: str, number: int) -> int:
    """A 64-bit seed for deal ``number`` of the stream named ``label`` (e.g. ``"HH1-N"``)."""
    digest = hashlib.blake2b(f"{label}:{number}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")
