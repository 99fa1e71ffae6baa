"""The open-data page's API (docs/research.md, "The site's open-data page"): the months
``ginrummy export`` wrote to the folder of ``serve --open-data``, with their counts,
sizes and checksums, and their files for download."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.responses import FileResponse, PlainTextResponse, Response

from ...i18n import t
from ...research.months import SUMS, read_months
from ..errors import TableError
from ..site import Site

__all__ = ["register"]

_TYPES = {".zst": "application/zstd", ".parquet": "application/vnd.apache.parquet"}


def _listing(folder: Path | None) -> dict[str, Any]:
    """The months (newest first), each file with its download address."""
    months = read_months(folder) if folder is not None else []
    for m in months:
        for f in m["files"]:
            f["url"] = f"/open-data/files/{f['name']}"
    return {"published": folder is not None, "months": months,
            "sums": "/open-data/files/SHA256SUMS" if months else None}


def register(app: FastAPI, site: Site) -> None:
    """Add ``GET /api/open-data`` and ``GET /open-data/files/{name}``."""
    folder = Path(site.settings.open_data) if site.settings.open_data else None

    @app.get("/api/open-data")
    async def open_data() -> dict[str, Any]:
        return await asyncio.to_thread(_listing, folder)

    @app.get("/open-data/files/{name}", include_in_schema=False)
    async def open_data_file(name: str) -> Response:
        listing = await asyncio.to_thread(_listing, folder)
        if name == SUMS and listing["sums"] and folder is not None:
            return PlainTextResponse((folder / SUMS).read_text(encoding="utf-8"))
        # only a file a listed month names: never another file of the folder (or above it)
        if folder is None or not any(f["name"] == name for m in listing["months"]
                                     for f in m["files"]):
            raise TableError(404, t("There is no such file among the published months."))
        media = _TYPES.get(Path(name).suffix, "application/octet-stream")
        return FileResponse(folder / name, media_type=media, filename=name,
                            headers={"Cache-Control": "public, max-age=3600"})
