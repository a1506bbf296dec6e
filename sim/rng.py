"""The project's random numbers, in plain 64-bit integer arithmetic.

Every game owns its streams: a stream's state is derived from (run seed, game index, stream id)
alone, so a game plays the same whichever worker, chunk or thread runs it. Stream 0 sets up the
board; stream ``1 + seat`` belongs to that seat (Luna's shuffles, a scripted player's choices), so
that what one seat draws never shifts another seat's randomness.

The generator is SplitMix64 (Steele, Lea and Flood, 2014): the state advances by a fixed odd
constant and each output is the state passed through a 64-bit finaliser. It is tiny, passes
BigCrush, and is written here with explicit masking so that the numba engine, which uses wrapping
``uint64`` arithmetic, reproduces it bit for bit.

Definitions (all arithmetic modulo 2**64):
    mix64(z)      = z ^= z >> 30; z *= 0xBF58476D1CE4E5B9; z ^= z >> 27; z *= 0x94D049BB133111EB; z ^ (z >> 31)
    stream_state  = mix64((mix64((mix64(seed + G) ^ game) + G) ^ stream) + G),  G = 0x9E3779B97F4A7C15
    next_u64      : state += G; return mix64(state)
    below(n)      = ((next_u64 >> 32) * n) >> 32          (an integer in [0, n), n < 2**32)
    shuffle(xs)   : for i from len(xs)-1 down to 1: j = below(i + 1); swap xs[i], xs[j]
"""

from __future__ import annotations

MASK64 = (1 << 64) - 1
GOLDEN_GAMMA = 0x9E3779B97F4A7C15
MIX_MULTIPLIER_1 = 0xBF58476D1CE4E5B9
MIX_MULTIPLIER_2 = 0x94D049BB133111EB

BOARD_STREAM = 0


def seat_stream(seat: int) -> int:
    """Stream id of a seat's own randomness."""
    return 1 + seat


def mix64(z: int) -> int:
    """SplitMix64's output finaliser (a bijection on 64-bit integers)."""
    z &= MASK64
    z = ((z ^ (z >> 30)) * MIX_MULTIPLIER_1) & MASK64
    z = ((z ^ (z >> 27)) * MIX_MULTIPLIER_2) & MASK64
    return z ^ (z >> 31)


def stream_state(seed: int, game: int, stream: int) -> int:
    """Initial state of one stream of one game."""
    state = mix64((seed + GOLDEN_GAMMA) & MASK64)
    state = mix64(((state ^ game) + GOLDEN_GAMMA) & MASK64)
    return mix64(((state ^ stream) + GOLDEN_GAMMA) & MASK64)


class Stream:
    """One SplitMix64 stream. ``state`` is the whole of it (a plain int in [0, 2**64))."""

    __slots__ = ("draws", "state")

    def __init__(self, seed: int, game: int, stream: int) -> None:
        self.state = stream_state(seed, game, stream)
        self.draws = 0  # how many 64-bit outputs were taken; for tests and the floor benchmark

    def next_u64(self) -> int:
        self.state = (self.state + GOLDEN_GAMMA) & MASK64
        self.draws += 1
        return mix64(self.state)

    def below(self, n: int) -> int:
        """A uniform integer in [0, n) by the multiply-shift method (bias below n / 2**32)."""
        return ((self.next_u64() >> 32) * n) >> 32

    def shuffle(self, items: list) -> None:
        """Fisher-Yates in place, from the last index down."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
