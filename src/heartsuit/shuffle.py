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
import struct
from collections.abc import Sequence
from functools import lru_cache
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

    The same draws as ``rng.below(i + 1)`` for ``i`` from ``len - 1`` down to 1, and ``rng``
    ends in the same state as with those calls. Every deal runs this, so for up to
    :data:`_LANES_MAX` items the draws are computed together (:func:`_outputs`); when one of
    them would be rejected by ``below`` (an output within ``len`` of ``2**64``: about one
    shuffle in ``2**64 / len**2``), the shuffle is redone draw by draw (:func:`_shuffled_by_draws`).
    """
    out = list(items)
    size = len(out)
    if size < 2:
        return out
    if size > _LANES_MAX:
        return _shuffled_by_draws(out, rng)
    outputs = _outputs(rng.state, size - 1)
    # every bound n = 2 .. size accepts all outputs below 2**64 - (2**64 mod n) >= 2**64 - size
    if max(outputs) >= _TWO64 - size:
        return _shuffled_by_draws(out, rng)
    i = size
    for z in outputs:
        i -= 1
        j = z % (i + 1)
        out[i], out[j] = out[j], out[i]
    rng.state = (rng.state + (size - 1) * GOLDEN_GAMMA) & MASK64
    return out


def _shuffled_by_draws(out: list[T], rng: Rng) -> list[T]:
    # the shuffle of ``out`` in place, with next64 and below written out inline
    state = rng.state
    for i in range(len(out) - 1, 0, -1):
        n = i + 1
        limit = _TWO64 - _TWO64 % n
        while True:
            state = (state + GOLDEN_GAMMA) & MASK64
            z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
            z ^= z >> 31
            if z < limit:
                break
        j = z % n
        out[i], out[j] = out[j], out[i]
    rng.state = state
    return out


#: the most items :func:`shuffled` draws for together (a deck of two packs is 104)
_LANES_MAX = 128
_LANE = 128  # bits per draw in the packed integer: a 64-bit value times a 64-bit constant fits


@lru_cache(maxsize=_LANES_MAX)
def _lanes(count: int) -> tuple[int, int, int, struct.Struct]:
    # 1 and k in lane k (k = 1 .. count), the 64-bit mask of every lane, and the unpacking
    ones = sum(1 << (_LANE * k) for k in range(count))
    steps = sum((k + 1) << (_LANE * k) for k in range(count))
    mask = ones * MASK64
    return ones, steps * GOLDEN_GAMMA, mask, struct.Struct("<" + "Q8x" * count)


def _outputs(state: int, count: int) -> tuple[int, ...]:
    """The next ``count`` outputs of SplitMix64 from ``state``, computed side by side.

    Output ``k`` is ``mix64(state + k * GOLDEN_GAMMA)``, so all of them are the same few
    operations on one integer holding every ``state + k * GOLDEN_GAMMA`` in its own 128-bit
    lane: a shift carries a neighbour's low bits only above bit 64 of a lane, which the masks
    clear before each multiplication, and a 64-bit value times a 64-bit constant stays inside
    its 128 bits. ``tests/test_shuffle.py`` checks them against :meth:`Rng.next64`.
    """
    ones, steps, mask, layout = _lanes(count)
    z = (state * ones + steps) & mask
    z = (((z ^ (z >> 30)) & mask) * 0xBF58476D1CE4E5B9) & mask
    z = (((z ^ (z >> 27)) & mask) * 0x94D049BB133111EB) & mask
    z ^= z >> 31  # the bits above 64 in a lane are not read
    outputs: tuple[int, ...] = layout.unpack(z.to_bytes(layout.size, "little"))
    return outputs


def derive_seed(label: str, number: int) -> int:
    """A 64-bit seed for deal ``number`` of the stream named ``label`` (e.g. ``"HH1-N"``)."""
    digest = hashlib.blake2b(f"{label}:{number}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")
