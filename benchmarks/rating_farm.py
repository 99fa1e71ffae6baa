"""Rating farming: the most two accounts of one person can move a rating in an hour.

Starts ``ginrummy serve`` on a throw-away SQLite database and plays the best farming
strategy found against its rules (issue 36; docs/web-api.md, "What is rated"): a *main*
account and its *alt* seek rated matches with each other as fast as the site lets them,
both make the one move each that makes a match count as played (each passes the up-card:
before it, any ending is an abort that rates nobody), then the alt resigns, so the main
wins every match, and no one is ever charged an abort or a leave. A real hour allows at
most ``--matches`` such matches: seeks count as creations, 20 a minute per address, and a
match takes two seeks, so 600 from one machine (the default). They are played here as fast
as the server answers (rate limits opened), all inside the day that the pair rule looks
at, so the rules see exactly what they would see in that hour.

The scenarios (each on fresh accounts unless the alt is *settled*: set to 1500 +- 60, as
if it had already played many honest matches):

* ``same browser``: both accounts in one browser (one cookie jar, logging in and out);
* ``one machine``: two browsers on one machine (two cookie jars, one address);
* ``one machine, settled alt`` and ``one machine, both settled``;
* ``two networks`` (a second address, ``X-Forwarded-For`` through the trusted loopback
  proxy), with a fresh, a settled alt, and both settled: beyond what a browser or an
  address can tell, for the record.

Reports, per scenario, the matches paired, how many moved ratings, and the main
account's largest rating gain over the hour (its rating at the end minus at the start;
the most it ever was is the same here, since it never loses).

    PYTHONPATH=src python3 benchmarks/rating_farm.py                  # 600 a scenario
    PYTHONPATH=src python3 benchmarks/rating_farm.py --matches 60 --json
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx

SRC = str(Path(__file__).resolve().parent.parent / "src")
OPEN = "1000000/minute"
PASSWORD = "a long farm password"
SESSION = "ginrummy_session"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serve(db: Path) -> Iterator[str]:
    """``ginrummy serve`` on ``db`` with the rate limits opened; its base URL."""
    port = _free_port()
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    rates = [a for k in ("create", "join", "lookup", "actions", "reads", "pages", "auth",
                         "login", "signup") for a in (f"--rate-{k}", OPEN)]
    proc = subprocess.Popen(
        [sys.executable, "-c",
         "import sys; from ginrummy.web.server import main; sys.exit(main(sys.argv[1:]))",
         "--port", str(port), "--db", f"sqlite:///{db}", "--bot-delay", "0", *rates],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(base + "/api/bots", timeout=2).status_code == 200:
                    break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        proc.wait(20)


class Player:
    """One account in one browser (a cookie jar; ``address``: its network, if not the
    machine's own)."""

    def __init__(self, base: str, name: str, address: str | None = None,
                 jar: httpx.Client | None = None) -> None:
        headers = {"X-Forwarded-For": address} if address else {}
        self.http = jar if jar is not None else httpx.Client(base_url=base, timeout=30,
                                                             headers=headers)
        self.name = name
        self.http.get("/quick", headers={"Accept": "text/html"})  # the browser cookie
        self.http.cookies.delete(SESSION)
        r = self.http.post("/api/accounts", json={"username": name, "password": PASSWORD})
        assert r.status_code == 201, r.text
        self.csrf = str(r.json()["csrf"])
        self.session = str(self.http.cookies[SESSION])

    def use(self) -> None:
        """Log this account in on its jar (a shared browser switches accounts so)."""
        self.http.cookies.set(SESSION, self.session)

    def seek(self) -> dict[str, Any]:
        self.use()
        r = self.http.post("/api/seeks", json={"rated": True, "target": 100},
                           headers={"X-CSRF-Token": self.csrf})
        assert r.status_code in (200, 201), r.text
        out: dict[str, Any] = r.json()
        return out

    def rating(self) -> float:
        return float(self.http.get(f"/api/players/{self.name}").json()["rating"])


def _act(p: Player, mid: str, token: str, path: str, body: Any = None) -> httpx.Response:
    return p.http.post(f"/api/matches/{mid}/{path}", json=body,
                       headers={"Authorization": f"Bearer {token}"})


def farm_once(main: Player, alt: Player) -> bool:
    """One farmed match: the alt seeks, the main pairs with it, both pass the up-card, the
    alt resigns. False when the site did not pair them."""
    waiting = alt.seek()
    mine = main.seek()
    end = time.monotonic() + 6  # far apart in rating: the window widens as they wait
    while "match" not in mine and time.monotonic() < end:
        time.sleep(0.25)
        mine = main.http.get(f"/api/seeks/{mine['seek']}").json() | {"seek": mine["seek"]}
    if "match" not in mine:
        for p, s in ((alt, waiting), (main, mine)):
            if "seek" in s:
                p.http.delete(f"/api/seeks/{s['seek']}")
        return False
    mid, main_token = mine["match"]["id"], mine["match"]["token"]
    alt_token = alt.http.get(f"/api/seeks/{waiting['seek']}").json()["match"]["token"]
    tokens = {"main": main_token, "alt": alt_token}
    for _ in range(2):
        s = main.http.get(f"/api/matches/{mid}",
                          headers={"Authorization": f"Bearer {main_token}"}).json()
        who = "main" if s["view"]["to_play"] == s["seat"] else "alt"
        p = main if who == "main" else alt
        st = p.http.get(f"/api/matches/{mid}",
                        headers={"Authorization": f"Bearer {tokens[who]}"}).json()
        r = _act(p, mid, tokens[who], "actions", {"action": {"act": "pass"},
                                                  "version": st["version"]})
        assert r.status_code == 200, r.text
    r = _act(alt, mid, alt_token, "resign")
    assert r.status_code == 200 and r.json()["end"] == "resigned", r.text
    return True


@dataclass
class Result:
    scenario: str
    matches: int
    paired: int
    counted: int
    main_gain: float
    alt_change: float
    seconds: float


def settle(db: Path, name: str) -> None:
    """Make an account settled (1500 +- 60), as after many honest matches."""
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE accounts SET deviation = 60, rated_matches = 40 "
                     "WHERE username_key = ?", (name.casefold(),))


def run(base: str, db: Path, scenario: str, matches: int, k: int) -> Result:
    shared = "same browser" in scenario
    alt_address = "10.20.30.40" if "two networks" in scenario else None
    main = Player(base, f"main{k}")
    alt = Player(base, f"alt{k}", alt_address, jar=main.http if shared else None)
    if "settled alt" in scenario or "both settled" in scenario:
        settle(db, alt.name)
    if "both settled" in scenario:
        settle(db, main.name)
    start_main, start_alt = main.rating(), alt.rating()
    t0 = time.monotonic()
    paired = misses = 0
    for _ in range(matches):
        if farm_once(main, alt):
            paired, misses = paired + 1, 0
        elif (misses := misses + 1) >= 3:
            break  # the site does not pair these two: waiting longer changes nothing
    seconds = time.monotonic() - t0
    time.sleep(0.5)  # the last result settles
    hist = main.http.get(f"/api/players/{main.name}").json()["history"]
    return Result(scenario, matches, paired, len(hist), round(main.rating() - start_main, 1),
                  round(alt.rating() - start_alt, 1), round(seconds, 1))


SCENARIOS = ["same browser", "one machine", "one machine, settled alt",
             "one machine, both settled", "two networks", "two networks, settled alt",
             "two networks, both settled"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matches", type=int, default=600,
                    help="farmed matches per scenario: an hour's worth (default 600)")
    ap.add_argument("--json", action="store_true", help="print JSON")
    args = ap.parse_args(argv)
    if not 1 <= args.matches <= 2000:
        ap.error("--matches is 1 to 2000")
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "farm.sqlite3"
        with serve(db) as base:
            for k, scenario in enumerate(SCENARIOS):
                results.append(run(base, db, scenario, args.matches, k))
    if args.json:
        print(json.dumps([asdict(r) for r in results], indent=2))
        return 0
    print(f"{'scenario':28} {'paired':>7} {'counted':>7} {'main gain':>10} {'alt':>8} "
          f"{'seconds':>8}")
    for r in results:
        print(f"{r.scenario:28} {r.paired:>7} {r.counted:>7} {r.main_gain:>+10.1f} "
              f"{r.alt_change:>+8.1f} {r.seconds:>8.1f}")
    worst = max(results[:4], key=lambda r: r.main_gain)
    print(f"largest gain in an hour from one machine: {worst.main_gain:+.1f} "
          f"({worst.scenario}, {args.matches} matches tried)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
