"""What a store raises: a failure of the store, and an append that found its place taken."""

from __future__ import annotations


class StoreError(RuntimeError):
    """The store could not do what was asked (a bug or an outage, never the player's input)."""


class MoveConflict(StoreError):
    """Another writer already logged this entry of an append-only log (a move, an event):
    the caller's copy of the game is stale."""
