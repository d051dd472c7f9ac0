"""Storage every store shares: the database (its engine, SQLite's single writer, the batch
writer, reads) and the schema's Alembic migrations. Each store is its own concern's
module (``players/store.py``, ``hearts/store.py``, ``solitaire/store.py``).
"""
