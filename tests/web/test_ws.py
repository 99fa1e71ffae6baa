"""The web table's WebSocket (docs/web-api.md): each seat gets its own STATE on connect and
after every change (R11), actions and ``next`` over the socket, and every refusal as an
error message that leaves the socket open."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from ginrummy.web.app import MAX_BODY

from .conftest import LeakChecker, auth, create, invite_token, seat_socket, site, state


def _url(mid: str, token: str) -> str:
    return f"/api/matches/{mid}/ws?token={token}"


def _recv(ws: WebSocketTestSession) -> dict[str, Any]:
    msg: dict[str, Any] = ws.receive_json()
    return msg


def _state(ws: WebSocketTestSession) -> dict[str, Any]:
    msg = _recv(ws)
    assert msg["type"] == "state", msg
    out: dict[str, Any] = msg["state"]
    return out


def _error(ws: WebSocketTestSession) -> dict[str, Any]:
    msg = _recv(ws)
    assert msg["type"] == "error", msg
    return msg


@pytest.mark.parametrize(
    ("token", "status"), [("", 401), ("not-a-seat", 403)]
)
def test_ws_refuses_missing_or_wrong_token(client: TestClient, token: str, status: int) -> None:
    m = create(client, opponent="friend")
    with seat_socket(client, _url(m["id"], token)) as ws:
        err = _error(ws)
        assert err["status"] == status and err["message"]
        with pytest.raises(WebSocketDisconnect) as e:
            ws.receive_json()
        assert e.value.code == 4000 + status


def test_ws_unknown_match(client: TestClient) -> None:
    with seat_socket(client, _url("nope", "x")) as ws:
        err = _error(ws)
        assert err["status"] == 404 and "no match" in err["message"]
        with pytest.raises(WebSocketDisconnect) as e:
            ws.receive_json()
        assert e.value.code == 4404


def test_ws_each_seat_gets_its_own_state_after_every_change(client: TestClient) -> None:
    m = create(client, opponent="friend", name="Ann")
    mid = m["id"]
    with seat_socket(client, _url(mid, m["token"])) as ws0:
        s0 = _state(ws0)
        assert s0["seat"] == 0 and s0["status"] == "waiting"
        toks = [m["token"], invite_token(client, m)]  # the friend uses the invite
        s0 = _state(ws0)  # pushed: the friend joined
        assert s0["status"] == "playing" and s0["waiting_for_opponent"] is not None
        with seat_socket(client, _url(mid, toks[1])) as ws1:
            s1 = _state(ws1)
            assert s1["seat"] == 1 and s1["status"] == "playing"
            assert s0["version"] == s1["version"]
            assert set(s0["view"]["hand"]).isdisjoint(s1["view"]["hand"])
            socks = [ws0, ws1]
            mine = [s0, s1]
            rng = random.Random(4)
            for _ in range(12):  # a few turns driven over the sockets
                seat = mine[0]["view"]["to_play"]
                if seat is None:
                    break
                # never a knock: the hand goes on, so the HTTP move below has a mover
                action = rng.choice([a for a in mine[seat]["legal"] if not a.get("knock")])
                socks[seat].send_json(
                    {"type": "action", "action": action, "version": mine[seat]["version"]}
                )
                new = [_state(socks[0]), _state(socks[1])]
                assert new[0]["version"] == new[1]["version"] == mine[0]["version"] + 1
                assert [n["seat"] for n in new] == [0, 1]
                assert set(new[0]["view"]["hand"]).isdisjoint(new[1]["view"]["hand"])
                assert new[0]["view"]["history"][-1]["act"] == action["act"]
                mine = new
            # a change made over HTTP reaches the sockets too
            seat = mine[0]["view"]["to_play"]
            r = client.post(f"/api/matches/{mid}/actions", headers=auth(toks[seat]),
                            json={"action": mine[seat]["legal"][0],
                                  "version": mine[seat]["version"]})
            assert r.status_code == 200
            assert _state(ws0)["version"] == _state(ws1)["version"] == r.json()["version"]


def test_ws_refusals_leave_the_socket_open(client: TestClient) -> None:
    m = create(client, opponent="friend")
    mid, toks = m["id"], [m["token"], invite_token(client, m)]
    seat = state(client, mid, toks[0])["view"]["to_play"]
    with seat_socket(client, _url(mid, toks[seat])) as ws:
        s = _state(ws)
        v = s["version"]
        ws.send_text("{oops")
        err = _error(ws)
        assert err["status"] == 400 and "not valid JSON" in err["message"]
        ws.send_json([1, 2])
        assert _error(ws)["status"] == 400
        ws.send_json({"type": "dance"})
        assert "Unknown message type" in _error(ws)["message"]
        ws.send_json({"type": "action", "action": {"act": "pass"}})
        assert "version" in _error(ws)["message"]
        ws.send_json({"type": "action", "action": {"act": "pass"}, "version": v + 5})
        err = _error(ws)
        assert err["status"] == 409 and err["state"]["version"] == v
        ws.send_json({"type": "action", "action": {"act": "draw", "from": "stock"},
                      "version": v})
        err = _error(ws)
        assert err["status"] == 400 and "up-card is offered" in err["message"]
        ws.send_json({"type": "next", "version": v})
        assert _error(ws)["message"] == "The hand is still being played."
        ws.send_text(json.dumps({"type": "ping", "pad": "x" * MAX_BODY}))
        assert _error(ws)["status"] == 413
        # R5 straight back, over the socket
        up = s["view"]["upcard"]
        ws.send_json({"type": "action", "action": {"act": "draw", "from": "discard"},
                      "version": v})
        s = _state(ws)
        ws.send_json({"type": "action", "action": {"act": "discard", "card": up},
                      "version": s["version"]})
        err = _error(ws)
        assert err == {"type": "error", "status": 400,
                       "message": "You cannot put that straight back."}
        ws.send_json({"type": "ping"})
        assert _recv(ws) == {"type": "pong"}
    # the other seat acting out of turn
    with seat_socket(client, _url(mid, toks[1 - seat])) as ws:
        s = _state(ws)
        ws.send_json({"type": "action", "action": {"act": "draw", "from": "stock"},
                      "version": s["version"]})
        err = _error(ws)
        assert err["status"] == 409 and err["message"].startswith("It is not your turn")


def test_ws_against_the_computer_whole_hand_without_leaks(client: TestClient) -> None:
    """Computer moves arrive as pushed states; nothing pushed shows hidden cards (R11)."""
    site(client).lobby.seed_source = lambda: (4, 0)
    m = create(client, opponent="computer", bot="easy")
    mid, tok = m["id"], m["token"]
    seen: list[dict[str, Any]] = []
    rng = random.Random(9)
    with seat_socket(client, _url(mid, tok)) as ws:
        s = _state(ws)
        seen.append(s)
        while s["hand_over"] is None:
            if s["my_turn"]:
                ws.send_json({"type": "action", "action": rng.choice(s["legal"]),
                              "version": s["version"]})
            s = _state(ws)
            seen.append(s)
        assert s["hand_over"]["ready"] == [False, True]  # the computer is always ready
        first_dead = s["hand_over"]["result"]["result"] == "dead"
        ws.send_json({"type": "next", "version": s["version"]})
        s = _state(ws)
        assert s["hand_over"] is None and s["view"]["hand_index"] == 1
    # reconnecting gets the current state at once
    with seat_socket(client, _url(mid, tok)) as ws:
        again = _state(ws)
        assert again["version"] >= s["version"] and again["view"]["hand_index"] == 1
    rec = client.get(f"/api/matches/{mid}/record",
                     headers={"Authorization": f"Bearer {tok}"}).json()
    # before the match ends a record stops before the first dead hand (R7, R11); the
    # computer's seed depends on the match's id, so either may come
    assert len(rec["hands"]) == (0 if first_dead else 1)
    # once the match is over the record is whole, dead hands included: check against it
    r = client.post(f"/api/matches/{mid}/resign", headers=auth(tok))
    assert r.status_code == 200, r.text
    rec = client.get(f"/api/matches/{mid}/record",
                     headers={"Authorization": f"Bearer {tok}"}).json()
    assert len(rec["hands"]) >= 1
    checker = LeakChecker(rec)
    for p in [*seen, s, again]:
        checker.check(0, p)


def test_pushed_json_is_the_same_with_or_without_orjson(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast encoder is optional: both encoders give the same JSON value (names with
    any characters included)."""
    from ginrummy.web.tables import views as service

    payload = {"type": "state", "state": {"players": ["Zoë \u2665", "Friend"], "n": 2**53,
                                          "hand_over": None, "ok": True, "x": [1.5, "10H"]}}
    encoded = [service.dumps(payload)]
    monkeypatch.setattr(service, "_orjson", None)
    encoded.append(service.dumps(payload))
    assert [json.loads(e) for e in encoded] == [payload, payload]
