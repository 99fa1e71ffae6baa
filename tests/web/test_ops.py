"""What an operator's tools ask a process: /healthz, /readyz and /metrics
(docs/deploy.md, "Health and metrics")."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from ginrummy.web.app import create_app
from ginrummy.web.guard import Settings

from .cluster import Serve, serves  # noqa: F401 - fixture
from .conftest import NO_RATE_LIMITS, auth, create, state, wait_for
from .faults import OwnPostgres, OwnRedis


def _settings(**kw: object) -> Settings:
    s = Settings(**{k: getattr(NO_RATE_LIMITS, k) for k in (
        "rate_create", "rate_join", "rate_lookup", "rate_actions", "rate_reads", "rate_pages",
        "rate_sockets", "rate_auth", "rate_login", "rate_signup")})
    for k, v in kw.items():
        setattr(s, k, v)
    return s


@pytest.fixture
def ops_client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(f"sqlite:///{tmp_path / 'web.sqlite3'}", bot_delay=0,
                     settings=_settings(metrics="open"))
    with TestClient(app) as c:
        yield c


def _sample(text: str, name: str, labels: str = "") -> float:
    """One sample's value from Prometheus text (labels as written, sorted by name)."""
    m = re.search(rf"^{re.escape(name + labels)} (\S+)$", text, re.M)
    assert m, f"{name}{labels} not in metrics:\n{text}"
    return float(m.group(1))


def test_healthz_and_readyz_answer_on_sqlite(ops_client: TestClient) -> None:
    r = ops_client.get("/healthz")
    assert r.status_code == 200 and r.json() == {"status": "ok"}
    r = ops_client.get("/readyz")
    assert r.status_code == 200
    assert r.json() == {"status": "ready", "database": True, "broker": True}


def test_metrics_count_moves_and_time_routes(ops_client: TestClient) -> None:
    text = ops_client.get("/metrics").text
    assert "# TYPE ginrummy_moves_committed_total counter" in text
    assert _sample(text, "ginrummy_tables_in_memory") == 0
    before = _sample(text, "ginrummy_moves_committed_total")
    m = create(ops_client, opponent="computer", bot="easy")
    s = wait_for(ops_client, m["id"], m["token"], lambda s: bool(s["legal"]))
    r = ops_client.post(f"/api/matches/{m['id']}/actions", headers=auth(m["token"]),
                        json={"action": s["legal"][0], "version": s["version"]})
    assert r.status_code == 200, r.text
    state(ops_client, m["id"], m["token"])
    r = ops_client.get("/metrics")
    assert r.headers["content-type"].startswith("text/plain; version=0.0.4")
    text = r.text
    assert _sample(text, "ginrummy_moves_committed_total") > before
    assert _sample(text, "ginrummy_tables_in_memory") == 1
    assert _sample(text, "ginrummy_database_up") == 1
    assert _sample(text, "ginrummy_moves_paused") == 0
    route = '{method="POST",route="/api/matches/{match_id}/actions"}'
    assert _sample(text, "ginrummy_http_request_seconds_count", route) >= 1
    assert _sample(text, "ginrummy_http_request_seconds_bucket",
                   route[:-1] + ',le="+Inf"}') >= 1
    # the health checks are not rate limited, and one series per route, not per match
    assert m["id"] not in text


def test_metrics_setting_and_token(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'web.sqlite3'}"
    # the test client is not on this machine's loopback: "local" refuses it
    with TestClient(create_app(url, settings=_settings())) as c:
        r = c.get("/metrics")
        assert r.status_code == 403 and "metrics token" in r.json()["error"]
    with TestClient(create_app(url, settings=_settings(metrics_token="s3cret"))) as c:
        assert c.get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 403
        r = c.get("/metrics", headers={"Authorization": "Bearer s3cret"})
        assert r.status_code == 200 and "ginrummy_open_sockets" in r.text
    with TestClient(create_app(url, settings=_settings(metrics="off"))) as c:
        assert c.get("/metrics").status_code == 404
        assert c.get("/healthz").status_code == 200


def test_health_checks_do_not_count_against_rate_limits(tmp_path: Path) -> None:
    s = _settings(metrics="open")
    s.rate_pages = "2/minute"
    s.rate_reads = "2/minute"
    with TestClient(create_app(f"sqlite:///{tmp_path / 'web.sqlite3'}", settings=s)) as c:
        for _ in range(10):
            assert c.get("/healthz").status_code == 200
            assert c.get("/readyz").status_code == 200
            assert c.get("/metrics").status_code == 200


def _ready(base: str) -> httpx.Response:
    return httpx.get(base + "/readyz", timeout=5)


def test_readyz_follows_the_database_and_metrics_show_the_outage(
        serves: list[Serve]) -> None:  # noqa: F811 - fixture
    pg, redis = OwnPostgres(), OwnRedis()
    try:
        srv = Serve("--db", pg.url, "--broker", redis.url)
        serves.append(srv)
        assert _ready(srv.base).json() == {"status": "ready", "database": True, "broker": True}
        text = httpx.get(srv.base + "/metrics").text  # loopback: "local" lets it read
        assert _sample(text, "ginrummy_database_up") == 1
        pg.stop_immediate()
        r = _ready(srv.base)
        assert r.status_code == 503 and r.json()["database"] is False
        assert httpx.get(srv.base + "/healthz").status_code == 200  # alive all the same
        deadline = time.monotonic() + 10
        while _sample(httpx.get(srv.base + "/metrics").text, "ginrummy_database_up") != 0:
            assert time.monotonic() < deadline, "the outage never showed in /metrics"
            time.sleep(0.2)
        text = httpx.get(srv.base + "/metrics").text
        assert _sample(text, "ginrummy_moves_paused") == 1
        assert _sample(text, "ginrummy_database_outages_total") >= 1
        redis.kill9()
        deadline = time.monotonic() + 10
        while _ready(srv.base).json()["broker"]:
            assert time.monotonic() < deadline, "the broker's loss never showed in /readyz"
            time.sleep(0.2)
        pg.start()
        redis.start()
        deadline = time.monotonic() + 20
        while _ready(srv.base).status_code != 200:
            assert time.monotonic() < deadline, "/readyz never came back"
            time.sleep(0.2)
    finally:
        pg.close()
        redis.close()
