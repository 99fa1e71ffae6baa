"""What an operator's tools ask a process (docs/deploy.md, "Health and metrics").

* ``GET /healthz``: the process is alive and its event loop answers (a load balancer's
  liveness check); never touches the database.
* ``GET /readyz``: the process can serve: its database answers a ``SELECT 1`` within a
  second and its broker is reachable; 503 with which one is not, so a load balancer sends
  players elsewhere while this process is cut off.
* ``GET /metrics``: the process's counters in Prometheus' text format. Who may read it is
  a setting (``--metrics``): ``local`` (the default) answers clients on the machine itself
  (127.0.0.1 or ::1, as the trusted proxy reports the client), ``open`` anyone, ``off``
  nobody (404); with ``GINRUMMY_METRICS_TOKEN`` set, a scraper elsewhere sends
  ``Authorization: Bearer TOKEN``.

None of the three counts against the rate limits (a balancer polls every few seconds).
"""

from __future__ import annotations

import hmac
import ipaddress
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response

from ...i18n import t
from ..site import Site
from .common import error

__all__ = ["OPS_PATHS", "register"]

OPS_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})
"""Paths that no rate limit counts."""

PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8"


def _loopback(host: str | None) -> bool:
    if not host:
        return False
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def may_read_metrics(mode: str, token: str | None, request: Request) -> bool:
    """Whether ``request`` may read ``/metrics`` under the site's setting."""
    if mode == "off":
        return False
    if token:
        given = request.headers.get("authorization", "")
        if hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
            return True
    if mode == "open":
        return True
    client = request.client
    return _loopback(client.host if client else None)


def register(app: FastAPI, site: Site) -> None:
    """Add the health and metrics routes."""

    @app.get("/healthz")
    async def healthz() -> dict[str, Any]:
        return {"status": "ok"}

    @app.get("/readyz")
    async def readyz() -> JSONResponse:
        database = await site.db.ping(timeout=1.0)
        broker = site.broker.healthy
        body = {"status": "ready" if database and broker else "unavailable",
                "database": database, "broker": broker}
        return JSONResponse(body, status_code=200 if database and broker else 503)

    @app.get("/metrics")
    async def metrics(request: Request) -> Response:
        s = site.settings
        if s.metrics == "off":
            return error(404, t("Not found."))
        if not may_read_metrics(s.metrics, s.metrics_token, request):
            return error(403, t("The metrics are readable only from this machine or "
                                "with the metrics token."))
        return PlainTextResponse(site.metrics.render(), media_type=PROMETHEUS_TEXT)
