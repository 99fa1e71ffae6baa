"""The open-data files: records as zstandard-compressed JSON lines, decisions as Parquet,
and a ``SHA256SUMS`` list beside them (docs/research.md).

Both writers stream (a record or a batch of decisions at a time), and both are
deterministic: the same rows in the same order give the same bytes, with the same
library versions. zstandard runs at a fixed level on one thread; the Parquet file has a
fixed schema, compression and row-group size and no timestamp. The libraries are the
``research`` extra's and are imported here only, when a file is written, so the core and
``--help`` never need them (:func:`require` says in one line how to get them).
"""

from __future__ import annotations

import contextlib
import importlib
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from .labels import Decision
from .months import sha256_file, write_sums

__all__ = [
    "EXTRA",
    "PARQUET_COMPRESSION",
    "PARQUET_LEVEL",
    "ROW_GROUP",
    "ZSTD_LEVEL",
    "DecisionWriter",
    "ExtraMissing",
    "OpenData",
    "RecordWriter",
    "decisions_schema",
    "require",
    "require_all",
    "sha256_file",
    "write_sums",
]

EXTRA = "research"
"""The optional extra that brings the writers' libraries: ``pip install 'ginrummy[research]'``."""
ZSTD_LEVEL = 19
"""The records' zstandard level: the smallest files at a speed far above the labelling's."""
PARQUET_COMPRESSION = "zstd"
PARQUET_LEVEL = 9
"""The Parquet columns' codec and level."""
ROW_GROUP = 16384
"""Decisions per Parquet row group (every group full but the last): a reader's unit of
work, and the writer's whole memory."""


class ExtraMissing(RuntimeError):
    """A library of the ``research`` extra is not installed; the message says how to get it."""


def require(name: str) -> ModuleType:
    """The module ``name`` of the research extra, or :class:`ExtraMissing` in one line."""
    try:
        return importlib.import_module(name)
    except ImportError:
        top = name.split(".")[0]
        raise ExtraMissing(f"the {EXTRA} extra is not installed (no module {top!r}): "
                           f"pip install 'ginrummy[{EXTRA}]'") from None


def require_all() -> None:
    """Check, before any work, that both writers' libraries are there."""
    require("zstandard")
    require("pyarrow.parquet")


def decisions_schema() -> Any:
    """The decisions file's Arrow schema (docs/research.md, "The decisions"); the lists'
    items are named ``element``, as Parquet names them, so the schema read back is this."""
    pa = require("pyarrow")
    return pa.schema([
        ("match", pa.string()),
        ("hand", pa.int16()),
        ("index", pa.int16()),
        ("seat", pa.int8()),
        ("view", pa.string()),
        ("action", pa.string()),
        ("legal", pa.list_(pa.field("element", pa.string()))),
        ("win", pa.list_(pa.field("element", pa.float32()))),
    ])


class RecordWriter:
    """Records, one JSON line each (:func:`.labels.record_line`), into one zstandard frame."""

    def __init__(self, path: str | Path) -> None:
        zstd = require("zstandard")
        self.path = Path(path)
        self._file = open(self.path, "wb")  # noqa: SIM115 - closed by close()
        compressor = zstd.ZstdCompressor(level=ZSTD_LEVEL, threads=0, write_checksum=True)
        self._stream = compressor.stream_writer(self._file, closefd=False)
        self.count = 0

    def add(self, line: bytes) -> None:
        """One record's line."""
        self._stream.write(line)
        self.count += 1

    def close(self) -> None:
        """End the frame and close the file."""
        try:
            self._stream.close()
        finally:
            self._file.close()


class DecisionWriter:
    """Decisions into a Parquet file, a full row group at a time."""

    def __init__(self, path: str | Path) -> None:
        self._pa = require("pyarrow")
        pq = require("pyarrow.parquet")
        self.path = Path(path)
        self.schema = decisions_schema()
        self._writer = pq.ParquetWriter(
            str(self.path), self.schema, compression=PARQUET_COMPRESSION,
            compression_level=PARQUET_LEVEL, use_dictionary=True, write_statistics=True,
            version="2.6", data_page_version="1.0")
        self._rows: list[Decision] = []
        self.count = 0

    def add(self, decisions: Iterable[Decision]) -> None:
        """Some decisions (in file order); full row groups are written as they fill."""
        for d in decisions:
            self._rows.append(d)
            self.count += 1
            if len(self._rows) >= ROW_GROUP:
                self._flush()

    def _flush(self) -> None:
        if not self._rows:
            return
        rows, self._rows = self._rows, []
        table = self._pa.Table.from_arrays(
            [self._pa.array([getattr(d, field.name) for d in rows], type=field.type)
             for field in self.schema],
            schema=self.schema)
        self._writer.write_table(table, row_group_size=ROW_GROUP)

    def close(self) -> None:
        """Write the last row group and the footer."""
        try:
            self._flush()
        finally:
            self._writer.close()


class OpenData:
    """The two files of an export or a dataset, written as ``.part`` files in ``folder``
    and put in place by :meth:`finish` with the ``SHA256SUMS`` list (a stopped or failed
    run leaves no half-written file under a final name: :meth:`abandon`)."""

    def __init__(self, folder: str | Path, records: str, decisions: str) -> None:
        self.folder = Path(folder)
        self._made = not self.folder.exists()
        self.folder.mkdir(parents=True, exist_ok=True)
        self.names = (records, decisions)
        self._parts = [self.folder / f".{n}.part" for n in self.names]
        self.records = RecordWriter(self._parts[0])
        try:
            self.decisions = DecisionWriter(self._parts[1])
        except BaseException:
            self.records.close()
            self._parts[0].unlink(missing_ok=True)
            raise

    def add(self, line: bytes, decisions: Sequence[Decision]) -> None:
        """One match: its record's line and its decisions."""
        self.records.add(line)
        self.decisions.add(decisions)

    def _close(self) -> None:
        try:
            self.records.close()
        finally:
            self.decisions.close()

    def finish(self, others: Sequence[str] = (), sums: bool = True) -> dict[str, int]:
        """Close both files, put them in place and (unless ``sums`` is false: the caller
        writes the list) write ``SHA256SUMS`` over them and the ``others`` already in the
        folder; the size in bytes of each file by name."""
        self._close()
        for part, name in zip(self._parts, self.names, strict=True):
            os.replace(part, self.folder / name)
        files = [*self.names, *others]
        if sums:
            write_sums(self.folder, files)
        return {n: (self.folder / n).stat().st_size for n in files}

    def abandon(self) -> None:
        """Close and delete the ``.part`` files, and the folder if this made it and it is
        empty (the folder's other files are left)."""
        with contextlib.suppress(Exception):  # the run is being given up anyway
            self._close()
        for part in self._parts:
            part.unlink(missing_ok=True)
        if self._made:  # a folder made for nothing goes too
            with contextlib.suppress(OSError):
                self.folder.rmdir()
