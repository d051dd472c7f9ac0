"""The site: Starlette + uvicorn and WebSockets; the only package with asyncio and SQL.

``app.create_app(settings)`` builds the application; see ``docs/site.md``.
"""
