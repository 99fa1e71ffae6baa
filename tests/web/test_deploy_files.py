"""The Dockerfile, compose.yaml and deploy/nginx.conf agree with what the server reads.

Nothing is built here (no registry, no container engine): the files are read as the
tools would read them and checked against ``ginrummy serve``'s own parser, the routes the
app serves and the environment variables the package reads, and nginx checks its part.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from ginrummy.web.app import create_app
from ginrummy.web.server import build_parser

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "ginrummy"


def _compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "compose.yaml").read_text())
    return data


def _expand(text: str) -> str:
    """``${NAME:?message}`` and ``${NAME}`` as compose fills them (a placeholder value)."""
    return re.sub(r"\$\{([A-Z_]+)(?::\?[^}]*)?\}", lambda m: f"x{m.group(1).lower()}", text)


def _web_services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {name: svc for name, svc in compose["services"].items()
            if "ginrummy serve" in str(svc.get("command", ""))}


def _serve_args(command: str) -> Any:
    argv = shlex.split(_expand(command))
    assert argv[:2] == ["ginrummy", "serve"], argv
    return build_parser().parse_args(argv[2:])


def _env_names_read() -> set[str]:
    """Every environment variable name the package reads (string literals of env names)."""
    names: set[str] = set()
    for path in SRC.rglob("*.py"):
        names |= set(re.findall(r'"((?:GINRUMMY|FORWARDED)_[A-Z_]+)"', path.read_text()))
    return names


def _routes() -> set[str]:
    app = create_app("sqlite:///:memory:", migrate=True)
    return {getattr(r, "path", "") for r in app.routes}


def test_compose_runs_two_web_processes_on_postgres_and_redis() -> None:
    compose = _compose()
    services = compose["services"]
    webs = _web_services(compose)
    assert len(webs) >= 2, "the compose file should start two or more web processes"
    db_env = services["db"]["environment"]
    for name, svc in webs.items():
        args = _serve_args(svc["command"])
        db = urlsplit(args.db)
        assert db.scheme == "postgresql+psycopg", (name, args.db)
        assert db.hostname == "db" and db.path.lstrip("/") == db_env["POSTGRES_DB"]
        assert db.username == db_env["POSTGRES_USER"]
        broker = urlsplit(args.broker)
        assert broker.scheme == "redis" and broker.hostname == "redis", (name, args.broker)
        assert args.host == "0.0.0.0"
        assert set(svc["depends_on"]) == {"db", "redis"}
        assert "GINRUMMY_SEED_KEY" in svc["environment"], "every process must share one key"
        unknown = set(svc["environment"]) - _env_names_read()
        assert not unknown, f"{name} sets variables the server never reads: {unknown}"
        probe = " ".join(svc["healthcheck"]["test"])
        path = re.search(r"http://127\.0\.0\.1:(\d+)(/\w+)", probe)
        assert path and int(path.group(1)) == args.port
        assert path.group(2) in _routes()


def test_nginx_sends_to_every_web_process() -> None:
    compose = _compose()
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    upstream = set(re.findall(r"^\s*server\s+([\w.-]+:\d+)", conf, re.M))
    expected = {f"{name}:{_serve_args(svc['command']).port}"
                for name, svc in _web_services(compose).items()}
    assert upstream == expected
    mounted = " ".join(compose["services"]["nginx"]["volumes"])
    assert "./deploy/nginx.conf:" in mounted
    assert re.search(r"location = /metrics \{ return 404; \}", conf), "keep /metrics private"


def test_nginx_reads_the_config(tmp_path: Path) -> None:
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists()
                                      else None)
    if not nginx:
        pytest.skip("nginx is not installed")
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    conf = re.sub(r"server\s+web\d+:(\d+)", r"server 127.0.0.1:\1", conf)  # no compose DNS
    conf = conf.replace("listen 80;", "listen 127.0.0.1:1;")
    full = tmp_path / "nginx.conf"
    full.write_text(f"pid {tmp_path}/nginx.pid;\nerror_log {tmp_path}/error.log;\n"
                    f"events {{}}\nhttp {{\naccess_log off;\n{conf}\n}}\n")
    out = subprocess.run([nginx, "-t", "-c", str(full), "-p", str(tmp_path)],
                         capture_output=True, text=True, timeout=30, check=False)
    assert out.returncode == 0, out.stderr


def test_dockerfile_installs_the_compiled_kernel_and_serves_what_it_exposes() -> None:
    text = (ROOT / "Dockerfile").read_text()
    assert re.search(r"pip install '\.\[web,fast\]'", text)
    assert "import ginrummy.kernel" in text, "warm the compiled kernel into the image"
    cmd = re.search(r'^CMD (\[.*\])$', text, re.M)
    assert cmd
    argv = yaml.safe_load(cmd.group(1))
    assert argv[:2] == ["ginrummy", "serve"]
    args = build_parser().parse_args(argv[2:])
    assert re.search(rf"^EXPOSE {args.port}$", text, re.M)
    health = re.search(r"127\.0\.0\.1:(\d+)(/\w+)", text)
    assert health and int(health.group(1)) == args.port and health.group(2) == "/healthz"
    assert health.group(2) in _routes()
    for copied in re.findall(r"^COPY (.+) \./", text, re.M):
        for name in copied.split():
            assert (ROOT / name).exists(), f"the Dockerfile copies {name}, which is missing"
