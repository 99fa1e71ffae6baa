"""Fuzzing the readers of outside input: any mutation of a valid record or of a bot
protocol message gives the documented error (RecordError, ViewError, a warning line),
never a KeyError, TypeError or other traceback."""

from __future__ import annotations

import copy
import io
import json
import random
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ginrummy import Match, View
from ginrummy.bots import make_bot
from ginrummy.hand import ViewError
from ginrummy.protocol import decide_message, serve
from ginrummy.record import RecordError, match_from_record, replay

RECORD = json.loads((Path(__file__).parent / "data" / "short_match.json").read_text())

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 60) | st.floats(allow_nan=False)
    | st.sampled_from(["", "AS", "KH", "10d", "ZZ", "pass", "draw", "discard", "stock",
                       "knock", "dead", "offer", "ginrummy/1"]),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(
        st.sampled_from(["act", "card", "seat", "from", "knock", "x"]), kids, max_size=3),
    max_leaves=6,
)


def _paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside ``obj`` (dict keys and list indexes)."""
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _paths(v, (*prefix, i))
    return out


@st.composite
def mutated(draw: st.DrawFn, base: Any) -> Any:
    """``base`` with one to three random edits: a value replaced, a member or list item
    deleted, a list item duplicated or two items swapped."""
    obj = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(obj)[1:]  # deepest edits are the interesting ones: leaves last
        if not paths:
            obj = draw(JSON_VALUES)
            continue
        path = draw(st.sampled_from(paths[::-1]))
        parent = obj
        try:
            for key in path[:-1]:
                parent = parent[key]
        except (KeyError, IndexError, TypeError):
            continue
        key = path[-1]
        how = draw(st.sampled_from(["replace", "delete", "duplicate", "swap"]))
        if how == "replace":
            parent[key] = draw(JSON_VALUES)
        elif how == "delete":
            del parent[key]
        elif isinstance(parent, list) and parent:
            j = draw(st.integers(0, len(parent) - 1))
            if how == "duplicate":
                parent.insert(j, copy.deepcopy(parent[key]))
            else:
                parent[key], parent[j] = parent[j], parent[key]
    return obj


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rec=mutated(RECORD))
def test_record_reader_gives_only_record_errors(rec: Any) -> None:
    try:
        match_from_record(rec)
    except RecordError as e:
        assert str(e) and e.to_json()["message"]
    out, error = replay(rec)
    assert json.dumps(out) and (error is None or isinstance(error, RecordError))
    assert match_from_record(json.dumps(RECORD)).to_record()["hands"] == RECORD["hands"]


def _decide_messages() -> list[dict[str, Any]]:
    """Real decide messages from a few hands, including late ones with long histories."""
    m = Match(seed=8)
    rng = random.Random(8)
    out = []
    for step in range(260):
        if m.is_over():
            break
        if step % 37 == 0:
            out.append(decide_message(m.view(m.hand.to_play or 0)))
        m.play(rng.choice(m.legal_actions()))
    return out


DECIDES = _decide_messages()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(msg=st.sampled_from(DECIDES).flatmap(mutated))
def test_view_reader_gives_only_view_errors(msg: Any) -> None:
    view = msg.get("view") if isinstance(msg, dict) else msg
    legal = msg.get("legal", ()) if isinstance(msg, dict) else ()
    try:
        View.from_json(view, legal if isinstance(legal, list) else ())
    except ViewError as e:
        assert str(e)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(msg=st.sampled_from(DECIDES).flatmap(mutated))
def test_bot_program_survives_any_mutated_message(msg: Any) -> None:
    """``ginrummy bot`` answers a readable message, warns about any other, never crashes."""
    lines = [json.dumps({"type": "hello", "protocol": "ginrummy-bot/1"}), json.dumps(msg),
             json.dumps({"type": "hand_over", "result": msg, "hands": msg}),
             json.dumps({"type": "bye"})]
    out, err = io.StringIO(), io.StringIO()
    assert serve(make_bot("random", 1), io.StringIO("\n".join(lines) + "\n"), out, err) == 0
    answers = [json.loads(x) for x in out.getvalue().splitlines()]
    assert answers[0]["type"] == "hello"
    for a in answers[1:]:
        assert a["type"] == "action"
    assert len(answers) == 2 or "ignored" in err.getvalue()
