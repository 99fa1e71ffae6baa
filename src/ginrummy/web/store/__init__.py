"""The web table's database: every statement the web layer runs is in this package.

:class:`Store` (:mod:`.matches`) holds matches and their actions, salts and the stores of
the other tables: :class:`RematchStore`, :class:`ClaimStore` (computer-turn claims while the
broker is away), :class:`ReviewStore` and :class:`PuzzleStore`. :mod:`.schema` defines
every table; the migrations (:mod:`ginrummy.web.migrations`) create and upgrade them;
:mod:`.seeds` keeps the secrets a row holds (match seeds) encrypted at rest.
"""

from .claims import ClaimStore
from .engine import (
    DEFAULT_DB_URL,
    StaleVersionError,
    StoreError,
    hash_token,
    open_engine,
    resolve_db_url,
    sqlite_path,
)
from .matches import Store
from .puzzles import PuzzleStore
from .rematches import RematchLink, RematchStore
from .reviews import ReviewStore
from .rows import NO_TOKEN, Change, StoredAction, StoredMatch
from .schema import metadata

__all__ = [
    "Change",
    "ClaimStore",
    "DEFAULT_DB_URL",
    "NO_TOKEN",
    "PuzzleStore",
    "RematchLink",
    "RematchStore",
    "ReviewStore",
    "StaleVersionError",
    "Store",
    "StoreError",
    "StoredAction",
    "StoredMatch",
    "hash_token",
    "metadata",
    "open_engine",
    "resolve_db_url",
    "sqlite_path",
]
