"""Anonymous players, for every game: who a connection is, and each game's preferences
(the service and its store).
"""
