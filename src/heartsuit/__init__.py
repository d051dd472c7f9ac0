"""heartsuit: Hearts and the Heart to Heart solitaire.

The pure rules cores live in :mod:`heartsuit.solitaire` and :mod:`heartsuit.hearts`; the site in
:mod:`heartsuit.server`; the command line in :mod:`heartsuit.cli`.
"""

__version__ = "0.1.0"
