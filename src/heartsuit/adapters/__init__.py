"""Hearts for research tools: an OpenSpiel game and a PettingZoo environment.

Each adapter is an optional extra and imports its library only when it is imported itself:
``heartsuit.adapters.openspiel`` (``pip install 'heartsuit[openspiel]'``) and
``heartsuit.adapters.pettingzoo`` (``pip install 'heartsuit[pettingzoo]'``). What they share —
card numbers, the hand driven one card at a time, the encodings of a seat's view and the
resampling of hidden cards — is in :mod:`heartsuit.adapters.shared`, which needs neither.
The rules core never imports this package (``tests/test_purity.py``). See docs/adapters.md.
"""
