"""The site's core, for every game: the HTTP and WebSocket transports, one connection, the
``/ws`` protocol's envelope, what a game must be to live on ``/ws``, settings, limits,
the bus between sockets, the clock, static files, security headers and the collector.

It imports no game (``tests/test_server_layout.py``): the games plug in through
:mod:`heartsuit.server.core.game_service`.
"""
