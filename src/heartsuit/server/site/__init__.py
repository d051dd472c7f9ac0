"""The site as one app: the factory that wires the core, storage, players and both games
together, and the HTML pages of both games. The one place that names every game; the
next step of issue 29 has each game register itself and mount its own routes.
"""
