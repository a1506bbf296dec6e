"""The floor: what the randomness of a game costs alone, with the engine's own RNG.

``play_floor`` derives each game's streams as the engine does, shuffles Luna's grade-1 deck, and for
each of 7 rounds draws five cards (three action slots, two majority cards), shuffles the three slot
cards onto the discard pile and rebuilds the deck from the discard pile when it runs out. No rule is
applied. A game of the engine costs "x floor" times a game of this kernel.

It is one function on purpose: numba reference-counts every array passed to a call, which would
cost more than the random numbers being measured.
"""

from __future__ import annotations

import numpy as np

from sim.fast._jit import jit
from sim.fast.rng import GAMMA, U32, game_state, mix64

ROUNDS = 7
SLOTS = 3


@jit  # the engine's options and cache folder: it calls the engine's RNG kernels
def play_floor(seed, first_game, deck_size, out):
    """Shuffle and draw Luna's deck for games ``first_game ..``; ``out[g]`` gets a checksum of game g."""
    deck = np.zeros(deck_size, np.int64)
    discard = np.zeros(deck_size, np.int64)
    drawn = np.zeros(SLOTS + 2, np.int64)
    for index in range(out.shape[0]):
        state = mix64((game_state(seed, np.uint64(first_game + index)) ^ np.uint64(1)) + GAMMA)  # seat 0
        for i in range(deck_size):
            deck[i] = i
        for i in range(deck_size - 1, 0, -1):
            state += GAMMA
            j = np.int64(((mix64(state) >> U32) * np.uint64(i + 1)) >> U32)
            deck[i], deck[j] = deck[j], deck[i]
        in_deck, in_discard = deck_size, 0
        checksum = 0
        for _ in range(ROUNDS):
            for k in range(SLOTS + 2):
                if in_deck == 0:  # rebuild from the discard pile
                    for i in range(in_discard):
                        deck[i] = discard[i]
                    in_deck, in_discard = in_discard, 0
                    for i in range(in_deck - 1, 0, -1):
                        state += GAMMA
                        j = np.int64(((mix64(state) >> U32) * np.uint64(i + 1)) >> U32)
                        deck[i], deck[j] = deck[j], deck[i]
                in_deck -= 1
                drawn[k] = deck[in_deck]
                checksum += drawn[k]
            for k in range(SLOTS + 2):
                discard[in_discard + k] = drawn[k]
            for i in range(SLOTS - 1, 0, -1):  # the slot cards go face up in random order
                state += GAMMA
                j = in_discard + np.int64(((mix64(state) >> U32) * np.uint64(i + 1)) >> U32)
                discard[in_discard + i], discard[j] = discard[j], discard[in_discard + i]
            in_discard += SLOTS + 2
        out[index] = checksum
