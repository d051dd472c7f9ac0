"""Suite-wide settings.

Hypothesis's per-example deadline is a wall-clock check, and tests never assert a wall-clock
time (this machine is shared and noisy): the profile turns it off for every property test.
"""

from __future__ import annotations

from hypothesis import settings

settings.register_profile("heartsuit", deadline=None)
settings.load_profile("heartsuit")
