"""Open data for research (docs/research.md): every decision of a match labelled with the
coach's win chance of each legal action (:mod:`.labels`), written as zstandard-compressed
records and a Parquet file of decisions with a SHA-256 list (:mod:`.files`), from
self-play (``ginrummy dataset``, :mod:`.dataset`) or from the web table's finished public
matches (``ginrummy export``, :mod:`ginrummy.web.commands.export`).

The labelling needs only the core; the writers need the ``research`` extra (zstandard,
pyarrow), imported only when a file is written.
"""

from __future__ import annotations

from .labels import (
    COLUMNS,
    DEFAULT_SAMPLES,
    Decision,
    label_match,
    label_record,
    label_seed,
    record_line,
)

__all__ = ["COLUMNS", "DEFAULT_SAMPLES", "Decision", "label_match", "label_record", "label_seed",
           "record_line"]
