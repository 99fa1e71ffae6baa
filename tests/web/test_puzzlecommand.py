"""``ginrummy puzzles make`` and ``check`` (docs/training.md): puzzles from expert
self-play, record files and the site's finished public matches written into the
database once each, re-measured by ``check``; bad input refused per the README's table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from ginrummy.cli import main
from ginrummy.training.sources import self_play
from ginrummy.web.store import Store

from .conftest import site
from .online import play_to_end
from .test_online import _rated_pair

QUICK = ["--samples", "256", "--screen", "32"]


def test_make_from_the_sites_finished_public_matches(client: TestClient, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    m, tokens = _rated_pair(client)
    play_to_end([client, client], m["id"], tokens)
    client.portal.call(site(client).ratings.settled)  # type: ignore[union-attr]
    db = site(client).store.url
    assert main(["puzzles", "make", "--db", db, "--from-db", *QUICK, "--limit", "2"]) == 0
    out = capsys.readouterr().out
    rows = site(client).store.puzzles.public()
    assert rows and out.startswith(f"{len(rows)} puzzles in 1 matches ({len(rows)} new")
    for r in rows:
        assert r.match_id == m["id"] and r.key.startswith(f"match/{m['id']}/")
        assert r.body["samples"] == 256 and r.body["margin"] > 3 * r.body["margin_se"]
    assert client.get("/api/puzzles/next").json()["id"] in {r.id for r in rows}
    assert main(["puzzles", "make", "--db", db, "--from-db", *QUICK, "--limit", "2"]) == 0
    assert "(0 new stored)" in capsys.readouterr().out  # stored once


def test_make_from_self_play_and_records_then_check(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    db = f"sqlite:///{tmp_path / 'p.sqlite3'}"
    assert main(["puzzles", "make", "--db", db, "--self-play", "1", "--bot", "simple",
                 "--seed", "5", *QUICK, "--limit", "2", "--json"]) == 0
    out, err = capsys.readouterr()
    made = [json.loads(line) for line in out.splitlines()]
    assert len(made) == 2 and "2 puzzles in 1 matches (2 new stored)" in err
    assert all(p["source"] == "self-play/simple/5/0" for p in made)
    folder = tmp_path / "records"
    folder.mkdir()
    (_, match), = self_play(1, seed=6, bot="simple")
    (folder / "a.json").write_text(json.dumps(match.to_record()))
    assert main(["puzzles", "make", "--db", db, "--records", str(folder), *QUICK,
                 "--limit", "1"]) == 0
    assert "(1 new stored)" in capsys.readouterr().out
    assert main(["puzzles", "check", "--db", db, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["checked"] == 3 and report["factor"] == 4
    assert report["confirmed"] + len(report["flipped"]) == 3
    store = Store(db)
    try:
        assert {r.key.split("/")[0] for r in store.puzzles.public()} == {"self-play",
                                                                          "record"}
    finally:
        store.close()


def test_bad_input_is_refused_as_the_readme_says(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    db = f"sqlite:///{tmp_path / 'p.sqlite3'}"
    assert main(["puzzles", "make", "--db", db]) == 2
    assert "name a source" in capsys.readouterr().err
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "x.json").write_text("{")
    assert main(["puzzles", "make", "--db", db, "--records", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("ginrummy puzzles make: ") and err.count("\n") == 1
    assert main(["puzzles", "make", "--db", "nosuch://x", "--self-play", "1"]) == 2
    assert capsys.readouterr().err.startswith("ginrummy puzzles make: ")
    with pytest.raises(SystemExit) as e:
        main(["puzzles", "make", "--samples", "0", "--self-play", "1"])
    assert e.value.code == 2
