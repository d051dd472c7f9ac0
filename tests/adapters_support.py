"""Shared by the adapter tests: OpenSpiel's Python algorithms, imported safely under pytest.

``open_spiel.python.algorithms`` logs through absl, whose handler keeps the ``sys.stderr`` of
the moment it is made: under pytest, a captured stream. When a later test reconfigures logging
(the server's tests do, through uvicorn), the standard library closes every handler, and
absl's closes that stream unless it is one of ``sys.stdout``/``sys.stderr`` *now*: it would
close pytest's capture, and pytest loses its output. Pointing the handler at the real standard
error keeps absl from closing anything it does not own.
"""

from __future__ import annotations

import sys

from absl import logging as absl_logging
from open_spiel.python.algorithms import ismcts, mcts

absl_logging.get_absl_handler().python_handler.stream = sys.__stderr__

__all__ = ["ismcts", "mcts"]
