"""The site: Starlette + uvicorn and WebSockets; the only package with asyncio and SQL.

``site.app.create_app(settings)`` builds the application; see ``docs/site.md``. The
packages: ``core`` (what every game runs on), ``storage``, ``players``, ``hearts``,
``solitaire``, and ``site`` (the app that wires them together).
"""
