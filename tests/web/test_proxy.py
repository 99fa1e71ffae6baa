"""docs/deploy.md's nginx example, as written there, in front of two serve processes on
PostgreSQL and Redis: HTTPS and a secure WebSocket through it reach either process, and
the access log holds no token."""

from __future__ import annotations

import json
import re
import shutil
import ssl
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ginrummy.web.store.seeds import KEY_ENV, new_key_text

from .cluster import Serve, free_port

ws_client = pytest.importorskip("websockets.sync.client")
pytestmark = pytest.mark.postgres

DOC = Path(__file__).resolve().parents[2] / "docs" / "deploy.md"
OPEN = ["--rate-create", "1000/minute", "--rate-actions", "100000/minute",
        "--rate-messages", "100000/minute"]


def _config(doc: str, ports: list[int], listen: int, tmp: Path) -> str:
    block = re.search(r"```nginx\n(.*?)```", doc, re.S)
    assert block, "docs/deploy.md has no nginx example"
    conf = block.group(1)
    conf = conf.replace("127.0.0.1:8001", f"127.0.0.1:{ports[0]}")
    conf = conf.replace("127.0.0.1:8002", f"127.0.0.1:{ports[1]}")
    conf = conf.replace("listen 443 ssl", f"listen 127.0.0.1:{listen} ssl")
    conf = conf.replace("/etc/ssl/gin.example.org.pem", str(tmp / "cert.pem"))
    conf = conf.replace("/etc/ssl/gin.example.org.key", str(tmp / "key.pem"))
    conf = conf.replace("/var/log/nginx/ginrummy.log", str(tmp / "access.log"))
    return (f"pid {tmp}/nginx.pid;\nerror_log {tmp}/error.log;\nevents {{}}\n"
            f"http {{\nclient_body_temp_path {tmp};\nproxy_temp_path {tmp};\n{conf}\n}}\n")


@pytest.fixture
def proxy(tmp_path: Path, postgres_url: str, redis_url: str,
          serves: list[Serve]) -> Iterator[tuple[str, Path]]:
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists()
                                      else None)
    if not nginx or not shutil.which("openssl"):
        pytest.skip("nginx and openssl are needed to test the proxy example")
    env = {KEY_ENV: new_key_text()}
    for _ in range(2):
        serves.append(Serve("--db", postgres_url, "--broker", redis_url, *OPEN, env=env))
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=localhost", "-keyout", str(tmp_path / "key.pem"),
                    "-out", str(tmp_path / "cert.pem")], check=True, capture_output=True)
    listen = free_port()
    conf = tmp_path / "nginx.conf"
    conf.write_text(_config(DOC.read_text(), [s.port for s in serves], listen, tmp_path))
    proc = subprocess.Popen([nginx, "-c", str(conf), "-p", str(tmp_path),
                             "-g", "daemon off;"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"https://localhost:{listen}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                if httpx.get(base + "/api/bots", verify=False, timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"nginx did not start: {(tmp_path / 'error.log').read_text()}")
            time.sleep(0.1)
        yield base, tmp_path
    finally:
        proc.terminate()
        proc.wait(10)


def test_documented_proxy_config_serves_https_and_secure_websockets(
    proxy: tuple[str, Path],
) -> None:
    base, tmp = proxy
    http = httpx.Client(base_url=base, verify=False, timeout=15)
    m = http.post("/api/matches", json={"opponent": "friend"}).json()
    code = m["invite_url"].split("#invite=", 1)[1]
    tok1 = http.post(f"/api/matches/{m['id']}/join", json={"invite": code}).json()["token"]
    tls = ssl.create_default_context()
    tls.check_hostname = False
    tls.verify_mode = ssl.CERT_NONE
    url = f"{base.replace('https', 'wss')}/api/matches/{m['id']}/ws"
    socks = []
    for tok in (m["token"], tok1):  # nginx spreads them over both processes
        ws = ws_client.connect(url, ssl=tls, origin=base,  # type: ignore[arg-type]
                               open_timeout=15).__enter__()
        ws.send(json.dumps({"type": "auth", "token": tok}))
        st = json.loads(ws.recv(timeout=15))
        assert st["type"] == "state"
        socks.append((ws, st["state"]))
    try:
        s0 = socks[0][1]
        turn = s0["view"]["to_play"]
        me = socks[turn][1]
        r = http.post(f"/api/matches/{m['id']}/actions",
                      headers={"Authorization": f"Bearer {[m['token'], tok1][turn]}"},
                      json={"action": me["legal"][0], "version": me["version"]})
        assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
        for ws, _ in socks:  # both seats get the push, wherever they are connected
            while True:
                msg = json.loads(ws.recv(timeout=15))
                if msg["type"] == "state" and msg["state"]["version"] > me["version"]:
                    break
    finally:
        for ws, _ in socks:
            ws.close()
        http.close()
    log = (tmp / "access.log").read_text()
    assert "/api/matches" in log and "/ws" in log
    for secret in (m["token"], tok1, code):
        assert secret not in log
