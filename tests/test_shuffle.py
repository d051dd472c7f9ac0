"""The generator and shuffle are pinned forever: a change here would change every deal code."""

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from heartsuit.shuffle import GOLDEN_GAMMA, MASK64, Rng, _outputs, derive_seed, shuffled


def test_splitmix64_matches_the_reference_implementation() -> None:
    # outputs of Vigna's splitmix64.c started from state 0
    rng = Rng(0)
    assert [rng.next64() for _ in range(3)] == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
    ]


def test_pinned_outputs_for_a_large_seed() -> None:
    rng = Rng(0xFFFFFFFFFFFFFFFF)
    assert [rng.next64() for _ in range(2)] == PINNED_LARGE


def test_pinned_bounded_draws() -> None:
    rng = Rng(2026)
    assert [rng.below(52) for _ in range(10)] == PINNED_BELOW


def test_pinned_shuffle() -> None:
    assert shuffled(range(10), Rng(1)) == PINNED_SHUFFLE


def test_pinned_seed_derivation() -> None:
    assert derive_seed("HH1-N", 12) == PINNED_SEED


def test_below_rejects_a_non_positive_bound() -> None:
    with pytest.raises(ValueError):
        Rng(1).below(0)


def test_a_negative_seed_is_refused() -> None:
    with pytest.raises(ValueError):
        Rng(-1)


@given(st.lists(st.integers()), st.integers(min_value=0, max_value=2**64 - 1))
def test_shuffle_is_a_permutation_and_leaves_the_input_alone(items: list[int], seed: int) -> None:
    before = list(items)
    out = shuffled(items, Rng(seed))
    assert Counter(out) == Counter(items)
    assert items == before


def test_shuffle_positions_are_roughly_uniform() -> None:
    # 3 items have 6 orders; 6000 shuffles should give each about 1000 (chi-square, 5 dof)
    rng = Rng(99)
    counts = Counter(tuple(shuffled((0, 1, 2), rng)) for _ in range(6000))
    assert len(counts) == 6
    chi2 = sum((c - 1000) ** 2 / 1000 for c in counts.values())
    assert chi2 < 20.5  # p < 0.001 for 5 degrees of freedom


def shuffled_by_below(items: list[int], rng: Rng) -> list[int]:
    # the specification, word for word: for i from len - 1 down to 1, swap i with below(i + 1)
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = rng.below(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


@given(st.integers(min_value=0, max_value=2**64 - 1), st.integers(min_value=1, max_value=128))
def test_outputs_side_by_side_are_next64s(state: int, count: int) -> None:
    rng = Rng(state)
    assert list(_outputs(state, count)) == [rng.next64() for _ in range(count)]


@given(st.integers(min_value=0, max_value=2**64 - 1), st.integers(min_value=0, max_value=140))
def test_shuffle_makes_the_draws_of_below(seed: int, size: int) -> None:
    fast, slow = Rng(seed), Rng(seed)
    assert shuffled(range(size), fast) == shuffled_by_below(list(range(size)), slow)
    assert fast.state == slow.state


def unmix(z: int) -> int:
    # the state whose SplitMix64 output is z (the finaliser is a bijection of 64-bit words)
    def unxorshift(v: int, k: int) -> int:
        x = v
        for _ in range(64 // k + 1):
            x = v ^ (x >> k)
        return x

    z = unxorshift(z, 31)
    z = unxorshift((z * pow(0x94D049BB133111EB, -1, 1 << 64)) & MASK64, 27)
    return unxorshift((z * pow(0xBF58476D1CE4E5B9, -1, 1 << 64)) & MASK64, 30)


@pytest.mark.parametrize("draw", [0, 5, 49])
def test_a_rejected_output_is_redrawn_as_below_does(draw: int) -> None:
    # a state whose output number ``draw`` is 2**64 - 1: below(n) rejects it for every n that
    # is not a power of two, here n = 52 - draw, and draws again
    state = (unmix(MASK64) - (draw + 1) * GOLDEN_GAMMA) & MASK64
    probe = Rng(state)
    assert [probe.next64() for _ in range(draw + 1)][-1] == MASK64
    fast, slow = Rng(state), Rng(state)
    assert shuffled(range(52), fast) == shuffled_by_below(list(range(52)), slow)
    assert fast.state == slow.state == (state + 52 * GOLDEN_GAMMA) & MASK64


PINNED_LARGE = [0xE4D971771B652C20, 0xE99FF867DBF682C9]
PINNED_BELOW = [27, 41, 18, 14, 41, 23, 14, 13, 12, 38]
PINNED_SHUFFLE = [4, 2, 8, 1, 9, 3, 0, 6, 7, 5]
PINNED_SEED = 0x7560292A73C4739B
