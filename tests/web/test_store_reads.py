"""A match read while another process commits to it: the row and its actions are read
at one moment, so the version a process believes it is at always matches the actions it
has played (otherwise its next change, based on that version, is refused as stale)."""

from __future__ import annotations

import secrets
import threading
import time

import pytest

from ginrummy.web.store import Change, Store, StoredAction, StoredMatch, hash_token

pytestmark = pytest.mark.postgres


def _match() -> StoredMatch:
    return StoredMatch(
        id=secrets.token_urlsafe(9), token_hash0=hash_token("a"), token_hash1=hash_token("b"),
        options={"target": 100, "gin_only": False, "oklahoma": False},
        players=["Ann", "Bob"], seed=secrets.randbits(62), first_dealer=1, opponent="friend",
        bot_level=None, bot_name=None, status="playing", joined=True, to_play=0,
    )


def test_a_load_sees_the_row_and_its_actions_at_one_moment(postgres_url: str) -> None:
    writer, reader = Store(postgres_url), Store(postgres_url)
    try:
        sm = _match()
        writer.create(sm)
        done = threading.Event()

        def write() -> None:  # another process playing: one action per version
            for v in range(1500):
                action = StoredAction(v, 0, v % 2, {"act": "pass"})
                writer.commit_batch([Change(
                    match_id=sm.id, expected_version=v, action=action, status="playing",
                    joined=True, hands_dealt=1, ready=(False, False), scores=(0, 0),
                    winner=None, to_play=v % 2)])
            done.set()

        thread = threading.Thread(target=write)
        thread.start()
        torn: list[tuple[int, int, int]] = []
        seen, deadline = 0, time.monotonic() + 20
        while not done.is_set() and time.monotonic() < deadline:
            got = reader.load(sm.id, seen)  # what is new since the last read, as a
            assert got is not None          # process catching up reads it
            if got.version != seen + len(got.actions):
                torn.append((seen, got.version, len(got.actions)))
            seen = got.version
        thread.join()
        assert not torn, f"row and actions read at different moments: {torn[:3]}"
    finally:
        writer.close()
        reader.close()
