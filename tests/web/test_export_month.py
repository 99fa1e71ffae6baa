"""`ginrummy export --db URL --month YYYY-MM --out DIR` (docs/research.md): the month's
finished public matches (not aborted, not private, not in play) as sealed records, oldest
first, and their decisions labelled by the coach, with the checksums; byte-identical with
--jobs 2; exit 1 for a month without games, 2 for a bad month or database."""

from __future__ import annotations

import contextlib
import importlib
import io
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

pytest.importorskip("zstandard", reason="the research extra is not installed")
pytest.importorskip("pyarrow", reason="the research extra is not installed")

from ginrummy.cli import main  # noqa: E402
from ginrummy.fairness import verify_record  # noqa: E402
from ginrummy.research.months import add_month, read_months  # noqa: E402
from ginrummy.web.app import create_app  # noqa: E402
from ginrummy.web.commands.export import file_names  # noqa: E402
from ginrummy.web.guard import Settings  # noqa: E402
from opendata import check_rows, check_sums, read_records, read_rows  # noqa: E402

from .conftest import site  # noqa: E402
from .test_challenges import Player  # noqa: E402
from .test_games_export import finished  # noqa: E402


def export(*argv: str) -> tuple[int, str, str]:
    """``ginrummy export ARGV``: (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["export", *argv])
        except SystemExit as e:
            code = int(e.code or 0)
    return code, out.getvalue(), err.getvalue()


def test_a_months_public_games_and_their_labelled_decisions(
        client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ann = Player(client, "Ann")
    games = [finished(ann, True) for _ in range(3)]
    finished(ann, False)  # a casual table against the computer: private
    aborted = ann.post("/api/challenges", {"to": "easy", "rated": True}).json()["match"]
    assert ann.post(f"/api/matches/{aborted['id']}/abort").status_code == 200  # no game
    ann.post("/api/challenges", {"to": "easy", "rated": True})  # in play: not yet a game
    ends = [m.updated_at for m in (site(client).store.load(mid) for mid in games) if m]
    month = datetime.fromtimestamp(ends[0], tz=UTC).strftime("%Y-%m")
    if datetime.fromtimestamp(ends[-1], tz=UTC).strftime("%Y-%m") != month:
        pytest.skip("the matches ended on both sides of a month's end")
    db = str(tmp_path / "web.sqlite3")
    out = tmp_path / "open"
    code, said, err = export("--db", db, "--month", month, "--out", str(out), "--samples", "8")
    assert code == 0, err
    records_name, decisions_name = f"ginrummy_{month}.jsonl.zst", f"decisions_{month}.parquet"
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [records_name, decisions_name, "SHA256SUMS", "index.json"])
    check_sums(out, {records_name, decisions_name})
    records = read_records(out / records_name)
    assert [r["id"] for r in records] == games  # oldest first
    sealed = [client.get(f"/api/matches/{mid}/fairness").json()["commitment"] for mid in games]
    assert [r["commitment"] for r in records] == sealed
    for r in records:
        assert r["format"] == "ginrummy/1" and r["end"] == "resigned"
        assert verify_record(r).ok, r
    rows = read_rows(out / decisions_name)
    n = check_rows(records, rows)
    assert n >= 3 * 2  # at least Ann's own two moves a match
    assert said.startswith(f"{month}: 3 games, {n} decisions") and said.count("\n") == 1
    assert f"{records_name} " in said and "bytes" in said and "Traceback" not in err
    (listed,) = read_months(out)
    assert (listed["month"], listed["games"], listed["decisions"]) == (month, 3, n)
    assert [f["name"] for f in listed["files"]] == [records_name, decisions_name]

    # the same bytes with two workers, and read two matches a page
    # (the module the command runs, as sys.modules has it: a test before may have
    # imported the package afresh)
    monkeypatch.setattr(importlib.import_module("ginrummy.web.commands.export"), "PAGE", 2)
    again = tmp_path / "again"
    code, _, err = export("--db", db, "--month", month, "--out", str(again), "--samples", "8",
                          "--jobs", "2")
    assert code == 0, err
    for name in (records_name, decisions_name, "SHA256SUMS"):
        assert (again / name).read_bytes() == (out / name).read_bytes(), name


def test_an_empty_month_is_exit_1_and_writes_nothing(client: TestClient,
                                                     tmp_path: Path) -> None:
    Player(client, "Ann")
    out = tmp_path / "open"
    code, said, err = export("--db", str(tmp_path / "web.sqlite3"), "--month", "2001-02",
                             "--out", str(out))
    assert code == 1 and said == ""
    assert err == "ginrummy export: no finished public match ended in 2001-02 (UTC): " \
        "nothing written.\n"
    assert not out.exists()


@pytest.mark.parametrize("month", ["2025-13", "2025-00", "2025-1", "25-01", "January",
                                   "2025-01-01", ""])
def test_a_bad_month_is_one_line_and_exit_2(client: TestClient, tmp_path: Path,
                                            month: str) -> None:
    code, said, err = export("--db", str(tmp_path / "web.sqlite3"), "--month", month,
                             "--out", str(tmp_path / "open"))
    assert code == 2 and said == ""
    assert err.startswith("ginrummy export: --month is a month as YYYY-MM") and \
        err.count("\n") == 1, err
    assert not (tmp_path / "open").exists()


def test_a_bad_database_is_one_line_and_exit_2(tmp_path: Path) -> None:
    code, _, err = export("--db", str(tmp_path / "none.sqlite3"), "--month", "2025-01",
                          "--out", str(tmp_path / "open"))
    assert code == 2 and err.count("\n") == 1 and "none.sqlite3" in err, err
    assert not (tmp_path / "none.sqlite3").exists()  # not made by the export
    not_a_db = tmp_path / "junk.sqlite3"
    not_a_db.write_text("this is no database\n" * 100)
    code, _, err = export("--db", str(not_a_db), "--month", "2025-01",
                          "--out", str(tmp_path / "open"))
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    code, _, err = export("--db", "postgresql+psycopg://nobody@127.0.0.1:9/none", "--month",
                          "2025-01", "--out", str(tmp_path / "open"))
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert not (tmp_path / "open").exists()


def test_the_site_lists_and_serves_the_published_months(tmp_path: Path) -> None:
    """``serve --open-data DIR``: /open-data lists the months of DIR's index, newest first,
    and serves their files and the checksums, and nothing else of the folder."""
    out = tmp_path / "open"
    out.mkdir()
    (out / "secret.txt").write_text("not published\n")
    for month, body in (("2025-01", b"january"), ("2025-02", b"february!")):
        for name in file_names(month):
            (out / name).write_bytes(body)
        add_month(out, month, games=len(body), decisions=10 * len(body),
                  files=list(file_names(month)))
    check_sums(out, {n for m in ("2025-01", "2025-02") for n in file_names(m)})
    url = f"sqlite:///{tmp_path / 'web.sqlite3'}"
    with TestClient(create_app(url, bot_delay=0, settings=Settings(open_data=str(out)))) as c:
        got = c.get("/api/open-data").json()
        assert got["published"] and [m["month"] for m in got["months"]] == ["2025-02", "2025-01"]
        feb = got["months"][0]
        assert (feb["games"], feb["decisions"]) == (9, 90)
        f = feb["files"][0]
        assert f["bytes"] == 9 and f["url"] == "/open-data/files/ginrummy_2025-02.jsonl.zst"
        r = c.get(f["url"])
        assert r.status_code == 200 and r.content == b"february!"
        assert "attachment" in r.headers["content-disposition"]
        sums = c.get(got["sums"])
        assert sums.status_code == 200 and sums.text == (out / "SHA256SUMS").read_text()
        for name in ("secret.txt", "index.json", "..%2Fweb.sqlite3", "nothing.parquet"):
            r = c.get(f"/open-data/files/{name}")
            assert r.status_code == 404 and "error" in r.json(), name
        page = c.get("/open-data", headers={"Accept": "text/html"})
        assert page.status_code == 200 and 'data-page="open-data"' in page.text
    with TestClient(create_app(url, bot_delay=0)) as c:  # no folder given: none published
        assert c.get("/api/open-data").json() == {"published": False, "months": [],
                                                  "sums": None}
        assert c.get("/open-data/files/SHA256SUMS").status_code == 404
