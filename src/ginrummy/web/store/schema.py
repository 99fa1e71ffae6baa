"""Every table of the web table's database, on one MetaData (:data:`metadata`).

The schema itself is made and upgraded by the migrations (:mod:`ginrummy.web.migrations`,
one revision per change), never by ``create_all``; ``tests/web/test_migrations.py`` fails
while these definitions and the head revision differ. Only the store modules beside this
one run statements on these tables.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

__all__ = [
    "account_matches_table",
    "flags_table",
    "mod_log_table",
    "refunds_table",
    "reports_table",
    "screen_jobs_table",
    "screenings_table",
    "accounts_table",
    "actions_table",
    "api_tokens_table",
    "challenges_table",
    "browser_accounts_table",
    "browsers_table",
    "clock_beats_table",
    "claims_table",
    "daily_plays_table",
    "daily_seeds_table",
    "hints_table",
    "matches_table",
    "metadata",
    "puzzle_attempts_table",
    "puzzle_ratings_table",
    "puzzles_table",
    "rematches_table",
    "reviews_table",
    "rated_offences_table",
    "rating_history_table",
    "salts_table",
    "seeks_table",
    "sessions_table",
    "tournament_matches_table",
    "tournament_players_table",
    "tournaments_table",
]

metadata = MetaData()

matches_table = Table(
    "matches",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("token_hash0", String(64), nullable=False, index=True),
    Column("token_hash1", String(64), nullable=False, index=True),
    Column("options", Text, nullable=False),
    Column("players", Text, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("first_dealer", Integer, nullable=False),
    Column("opponent", String(16), nullable=False),
    Column("bot_level", String(32), nullable=True),
    Column("bot_name", String(64), nullable=True),
    Column("version", Integer, nullable=False),
    Column("status", String(16), nullable=False),
    Column("joined", Boolean, nullable=False),
    Column("hands_dealt", Integer, nullable=False),
    Column("ready", String(16), nullable=False),
    Column("score0", Integer, nullable=False),
    Column("score1", Integer, nullable=False),
    Column("winner", Integer, nullable=True),
    Column("to_play", Integer, nullable=True),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    Column("invite_hash", String(64), nullable=True),
    Column("seed_enc", Text, nullable=True),
    Column("joined_at", Float, nullable=True),
    Column("deal_scheme", String(32), nullable=True),
    Column("clock_move", Integer, nullable=True),
    Column("clock_bank", Integer, nullable=True),
    Column("bank0", Float, nullable=True),
    Column("bank1", Float, nullable=True),
    Column("deadline", Float, nullable=True, index=True),
    Column("end_reason", String(16), nullable=True),
    Column("ended_by", Integer, nullable=True),
    Column("bot_seats", String(2), nullable=True),
    Column("no_coach", Boolean, nullable=True),
)
"""One row per match: settings, token hashes, the secret seed (``seed_enc`` encrypted;
``seed`` holds older versions' plain seeds, else 0), the version every change bumps, and
the summary the lobby lists. ``deal_scheme`` names how the seed deals
(:mod:`ginrummy.fairness`); null for matches stored before it was recorded, which were all
dealt with ``python-random/1``.

The turn clock (revision 0004; all null for a table without one): ``clock_move`` and
``clock_bank`` are the seconds a decision gets and the seconds each seat's bank starts
with; ``bank0``/``bank1`` what is left of each bank; ``deadline`` (Unix seconds, indexed:
the clocks' scan reads the expired ones) when the decision being waited for runs out,
null when nobody is to play. ``end_reason`` is the record's ``end`` once the match is over
and ``ended_by`` the seat that resigned or ran out of time: a resignation or an abort is
not an action, so a rebuilt match learns it from here.

``bot_seats`` (revision 0007) marks the seats played by BOT accounts ("01": seat 1), so
every page shows them as such; null for a match of people (and every older match). Since
revision 0010 a seat that acted through an API token is marked too: a program plays it.
``no_coach`` (revision 0010) is true for a rated, arena or daily match: no hint is given
at it, and its review opens only when it is over (a daily's when its day is over).
"""

actions_table = Table(
    "actions",
    metadata,
    Column("match_id", String(32), ForeignKey("matches.id"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("hand", Integer, nullable=False),
    Column("seat", Integer, nullable=False),
    Column("action", Text, nullable=False),
)
"""One row per accepted action, in order (``seq`` from 0)."""

rematches_table = Table(
    "rematches",
    metadata,
    Column("old_id", String(32), primary_key=True),
    Column("new_id", String(32), nullable=False),
    Column("offered_by", String(1), nullable=False),
    Column("invite", String(64), nullable=True),
    Column("pending", Boolean, nullable=True),
)
"""A finished match's rematch: the new match, which old seat asked, and whether the other
player has still to accept (``pending``). The other player takes the new match's seat with
the old match's seat token, so no invite code is kept: ``invite`` is no longer written
(it held older versions' plain codes; revision 0003 cleared it)."""

salts_table = Table(
    "deal_salts",
    metadata,
    Column("match_id", String(32), primary_key=True),
    Column("salt", String(64), nullable=False),
    Column("salt_enc", Text, nullable=True),
)
"""Each match's secret salt (docs/fairness.md), revealed with the seed when the match is
over. Encrypted like the seed (``salt_enc``; ``salt`` is then empty); older versions' rows
hold it in plain in ``salt``."""

claims_table = Table(
    "turn_claims",
    metadata,
    Column("match_id", String(32), primary_key=True),
    Column("holder", String(64), nullable=False),
    Column("expires_at", Float, nullable=False),
)
"""Computer-turn claims kept in the database while the broker is away: which process
drives a match's computer turn, until when (the broker's leases, in the database)."""

reviews_table = Table(
    "reviews",
    metadata,
    Column("match_id", String(32), primary_key=True),
    Column("status", String(16), nullable=False),  # idle | running | failed
    Column("job", String(32), nullable=True),  # the running job's claim
    Column("started_at", Float, nullable=True),
    Column("beat_at", Float, nullable=True),
    Column("done", Integer, nullable=False),
    Column("total", Integer, nullable=False),
    Column("parts", Text, nullable=False),  # JSON {"HAND:SEAT": {"decisions", "luck"}}
    Column("error", Text, nullable=True),
)
"""One row per reviewed match: the stored parts and the state of its (single) job."""

hints_table = Table(
    "review_hints",
    metadata,
    Column("match_id", String(32), primary_key=True),
    Column("hand", Integer, primary_key=True),
    Column("action", Integer, primary_key=True),
    Column("seat", Integer, nullable=False),
    Column("hint", Text, nullable=False),  # the suggested action (JSON)
    Column("shown_at", Float, nullable=False),
)
"""Every decision at which a seat was shown a hint (hand index, action index in the hand)."""

accounts_table = Table(
    "accounts",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("username", String(20), nullable=False),
    Column("username_key", String(20), nullable=False, unique=True),
    Column("password_hash", Text, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("rating", Float, nullable=False),
    Column("deviation", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("rated_matches", Integer, nullable=False),
    Column("rated_at", Float, nullable=True),
    Column("bot", Boolean, nullable=True),
    Column("closed_at", Float, nullable=True),
    Column("moderator", Boolean, nullable=True),
    Column("mark", String(16), nullable=True),
    Column("marked_at", Float, nullable=True),
    Column("lang", String(8), nullable=True),
    Column("program", Boolean, nullable=True),
)
"""One row per account: the username as chosen and folded for uniqueness
(``username_key``, unique without regard to case), the argon2 hash of the password, and
the Glicko-2 rating (:mod:`ginrummy.ratings`) with the number of rated matches. ``bot``
(revision 0007) is true for a BOT account (it plays only through API tokens; the site's
computer levels are such accounts), ``closed_at`` when an operator closed the account
(null: open); both null on older rows. ``moderator`` (revision 0010) grants the
moderators' pages and API; ``mark`` is a moderator's mark (``engine`` or ``booster``;
null: none), set at ``marked_at``: a marked account is off the leaderboard. ``lang``
(revision 0011) is the language the account chose (``en``, ``es``, ``pt-BR``, ...; null:
the browser's). ``program``
(revision 0010) is true once the account has played through an API token (a seat's move
or socket, a seek, a challenge or an arena made with one): it is then paired like a BOT
(never with a person who did not ask for BOTs); null: never."""

sessions_table = Table(
    "account_sessions",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("account_id", String(32), ForeignKey("accounts.id"), nullable=False, index=True),
    Column("created_at", Float, nullable=False),
    Column("expires_at", Float, nullable=False),
)
"""One row per logged-in browser: only the SHA-256 of its session cookie is kept."""

account_matches_table = Table(
    "account_matches",
    metadata,
    Column("match_id", String(32), primary_key=True),
    Column("account0", String(32), nullable=True, index=True),
    Column("account1", String(32), nullable=True, index=True),
    Column("rated", Boolean, nullable=False),
    Column("public", Boolean, nullable=False),
    Column("settled", Boolean, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("same_address", Boolean, nullable=True),
    Column("rating_note", String(32), nullable=True),
)
"""Who plays a match beyond its seat tokens: the account of each seat (null: a guest),
whether it is rated (both seats accounts, from a rated quick match), public (listed live
and watchable) and, for a rated one, whether its result has been applied to the ratings
(``settled``: once). Revision 0006: ``same_address``, whether both seeks came from one
address (the result then moves each rating by little), and ``rating_note``, why a rated
match moved no rating (``aborted``, ``repeated pairing``; null when it moved them)."""

rating_history_table = Table(
    "rating_history",
    metadata,
    Column("account_id", String(32), primary_key=True),
    Column("match_id", String(32), primary_key=True),
    Column("opponent_id", String(32), nullable=False),
    Column("score", Float, nullable=False),
    Column("rating", Float, nullable=False),
    Column("deviation", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("at", Float, nullable=False),
)
"""Each account's rating after each rated match it played (its profile's graph and
record by opponent)."""

seeks_table = Table(
    "seeks",
    metadata,
    Column("id_hash", String(64), primary_key=True),
    Column("account_id", String(32), nullable=True),
    Column("name", String(32), nullable=False),
    Column("rating", Float, nullable=False),
    Column("options", Text, nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("status", String(16), nullable=False, index=True),  # waiting | taken | paired
    Column("created_at", Float, nullable=False),
    Column("expires_at", Float, nullable=False),
    Column("taken_at", Float, nullable=True),
    Column("match_id", String(32), nullable=True),
    Column("seat", Integer, nullable=True),
    Column("seat_token_hash", String(64), nullable=False),
    Column("bot", Boolean, nullable=True),
    Column("bots", Boolean, nullable=True),
    Column("browser_hash", String(64), nullable=True, index=True),
    Column("nonce", String(32), nullable=True),
    Column("address_hash", String(64), nullable=True),
    Column("seeker_hash", String(64), nullable=True),
    Column("token_enc", Text, nullable=True),
    Column("taken_by", String(32), nullable=True),
)
"""Quick-match requests waiting for an opponent, in the database so that every process
pairs them. Only the hash of the seek's id is stored, and of the seat token it will hold
(``seat_token_hash``, given to the match it is paired into): a copy of the database seats
nobody. Revision 0006: ``browser_hash`` (the seeker's browser cookie, hashed: a browser is
never paired with itself), ``nonce`` (with the browser's cookie, it derives the seek's id,
so a second identical seek from the browser is answered with the first) and
``address_hash``.
``bot`` (revision 0007): the seeker is a BOT account; ``bots``: the seeker accepts
BOT opponents (a BOT is paired only with seeks that do); null on older rows (neither).
Revision 0010: the seat token is random, made with the seek and kept hashed and encrypted
(``token_enc``, like a challenge's), no longer derived from the id; ``seeker_hash`` is
the hash of the seeker's secret (a cookie, never in a URL), which with the account is who
may read or cancel the seek; ``taken_by`` names the pairing that took it, so a pairing
whose take went stale (its process stalled) can tell and gives its match up."""

api_tokens_table = Table(
    "api_tokens",
    metadata,
    Column("id", String(16), primary_key=True),
    Column("account_id", String(32), ForeignKey("accounts.id"), nullable=False, index=True),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("name", String(40), nullable=False),
    Column("created_at", Float, nullable=False),
    Column("last_used", Float, nullable=True),
    Column("revoked_at", Float, nullable=True),
)
"""An account's API tokens (revision 0007): ``Authorization: Bearer TOKEN`` acts as the
account on every endpoint and socket. Only the token's SHA-256 is kept; a revoked token's
row stays (``revoked_at``) so that its holder is told it was revoked."""

challenges_table = Table(
    "challenges",
    metadata,
    Column("id", String(16), primary_key=True),
    Column("from_account", String(32), nullable=True, index=True),
    Column("from_name", String(32), nullable=False),
    Column("to_account", String(32), nullable=True, index=True),
    Column("options", Text, nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("status", String(16), nullable=False),
    Column("reason", String(16), nullable=True),
    Column("created_at", Float, nullable=False),
    Column("expires_at", Float, nullable=False),
    Column("taken_at", Float, nullable=True),
    Column("answered_at", Float, nullable=True),
    Column("accepted_by", String(32), nullable=True),
    Column("match_id", String(32), nullable=True),
    Column("seat_token_hash", String(64), nullable=False),
    Column("seat_token_enc", Text, nullable=False),
    Column("address_hash", String(64), nullable=True),
    Column("taken_by", String(32), nullable=True),
)
"""Challenges (revision 0007): from an account (null: a guest's open link) to an account
(null: an open link anyone may accept), with the table's options (JSON, clock included)
and whether it is rated. ``status`` is ``open``, ``taking`` (being accepted: a conditional
update, so a challenge is accepted once), ``accepted``, ``declined`` (with ``reason``) or
``cancelled``; an open one past ``expires_at`` has expired. The challenger's seat token is
kept as its hash (the match is created with it) and encrypted with the seed key
(``seat_token_enc``), so the challenger can be given it again and a copy of the database
seats nobody. ``address_hash`` (revision 0010): the challenger's address, hashed: a rated
result between a challenger and an acceptor from one address moves each rating by little.
``taken_by`` (revision 0010): the acceptance that took it; only that one may mark it
accepted (an acceptance that stalled past the take's life makes no second match)."""


browsers_table = Table(
    "browsers",
    metadata,
    Column("browser_hash", String(64), primary_key=True),
    Column("created_at", Float, nullable=False),
    Column("seen_at", Float, nullable=False),
)
"""One row per browser cookie seen at a seek (only its SHA-256): the row a browser's seeks
lock while one is added, so a double click makes one seek on every process."""

browser_accounts_table = Table(
    "browser_accounts",
    metadata,
    Column("browser_hash", String(64), primary_key=True),
    Column("account_id", String(32), primary_key=True, index=True),
    Column("seen_at", Float, nullable=False),
)
"""Which accounts have used which browser: accounts that share one are never paired."""

rated_offences_table = Table(
    "rated_offences",
    metadata,
    Column("account_id", String(32), primary_key=True),
    Column("match_id", String(32), primary_key=True),
    Column("kind", String(16), nullable=False),  # aborted | left
    Column("at", Float, nullable=False),
)
"""Each rated match an account aborted (or resigned before both players moved) or left
(lost to its clock): repeated within a day, they make it wait before its next rated seek
(:mod:`ginrummy.web.online.waits`)."""

clock_beats_table = Table(
    "clock_beats",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("at", Float, nullable=False),
)
"""One row (id 1): when a process last found the database working. The clocks' scan
writes it every second; a process that finds it far behind (the database was away, or no
process ran) moves every running deadline on by the gap, once, before any clock is
enforced again (:mod:`ginrummy.web.store.clocks`)."""

puzzles_table = Table(
    "puzzles",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("key", String(200), nullable=False, unique=True),
    Column("owner", String(32), nullable=True, index=True),
    Column("match_id", String(64), nullable=True),
    Column("hand", Integer, nullable=False),
    Column("action", Integer, nullable=False),
    Column("seat", Integer, nullable=False),
    Column("themes", String(300), nullable=False),
    Column("body", Text, nullable=False),
    Column("rating", Float, nullable=False, index=True),
    Column("deviation", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("solved", Integer, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("solved_at", Float, nullable=True),
)
"""Puzzles (revision 0008, docs/training.md): ``key`` names the decision it came from
(unique: making puzzles twice stores each once); ``owner`` is null for a public puzzle and
the account's id for a private one (a decision it was marked for in a review of
``match_id``); ``themes`` the theme names between spaces (`` take-or-pass last-cards ``,
so one is found with LIKE); ``body`` the JSON of the seat's view only (R11), its legal
moves and their measured values, the best, the margin, the samples and the sentence why.
The Glicko-2 difficulty moves as players solve or fail it; ``attempts`` and ``solved``
count rated answers (a private puzzle: every answer), ``solved_at`` when a private puzzle's
owner answered it right (it is then no longer shown)."""

puzzle_attempts_table = Table(
    "puzzle_attempts",
    metadata,
    Column("account_id", String(32), primary_key=True),
    Column("puzzle_id", String(32), primary_key=True),
    Column("correct", Boolean, nullable=False),
    Column("action", Text, nullable=False),
    Column("rating", Float, nullable=False),
    Column("at", Float, nullable=False, index=True),
)
"""An account's first answer to each public puzzle (the one rated): right or wrong, the
move (JSON) and the account's puzzle rating after it: the history of solved puzzles."""

puzzle_ratings_table = Table(
    "puzzle_ratings",
    metadata,
    Column("account_id", String(32), primary_key=True),
    Column("rating", Float, nullable=False),
    Column("deviation", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("puzzles", Integer, nullable=False),
    Column("rated_at", Float, nullable=True),
)
"""An account's puzzle rating (Glicko-2, apart from its rating in play): no row until its
first rated answer (a newcomer's rating until then)."""

tournaments_table = Table(
    "tournaments",
    metadata,
    Column("id", String(16), primary_key=True),
    Column("name", String(40), nullable=False),
    Column("creator", String(32), nullable=False, index=True),
    Column("minutes", Float, nullable=False),
    Column("options", Text, nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("status", String(16), nullable=False, index=True),
    Column("created_at", Float, nullable=False),
    Column("started_at", Float, nullable=True),
    Column("ends_at", Float, nullable=True),
    Column("finished_at", Float, nullable=True),
    Column("winner", String(32), nullable=True),
    Column("bots", Boolean, nullable=True),
)
"""Arena tournaments (revision 0009): made by an account (``creator``) with a name, how
long they run once started (``minutes``), the table options every match gets (JSON, clock
included) and whether those matches are rated. ``status`` is ``created``, ``started``
(``started_at`` and ``ends_at`` set) or ``finished`` (time up and every match over;
``winner`` the account on top, null when nobody scored). ``bots`` (revision 0010): the
arena admits BOT accounts and programs (made by a BOT or a program, or asked for); null or
false: a person's arena, which admits neither."""

tournament_players_table = Table(
    "tournament_players",
    metadata,
    Column("tournament_id", String(16), primary_key=True),
    Column("account_id", String(32), primary_key=True),
    Column("joined_at", Float, nullable=False),
    Column("active", Boolean, nullable=False),
    Column("match_id", String(40), nullable=True),
    Column("taken_at", Float, nullable=True),
    Column("last_opponent", String(32), nullable=True),
    Column("address_hash", String(64), nullable=True),
    Column("withdrawals", Text, nullable=True),
)
"""Who plays in an arena (revision 0009): ``active`` until the player withdraws (a player
who joins again is active again, ``joined_at`` the latest join). ``match_id`` is the
player's current or last arena match, or ``pending:TOKEN`` while a process is pairing the
player (taken at ``taken_at`` by a conditional update, so a player is paired once; a take
never completed reads as free again after a few seconds); ``last_opponent`` is the account
the player last met, whom the pairing avoids while another player is free. Revision 0010:
``address_hash``, the player's address when it last joined (hashed: a rated result between
two players from one address moves each rating by little), and ``withdrawals``, when it
withdrew (a JSON list of Unix seconds: a withdrawal ends the player's streak)."""

tournament_matches_table = Table(
    "tournament_matches",
    metadata,
    Column("match_id", String(32), primary_key=True),
    Column("tournament_id", String(16), nullable=False, index=True),
    Column("account0", String(32), nullable=False),
    Column("account1", String(32), nullable=False),
    Column("created_at", Float, nullable=False),
)
"""Each arena's matches (revision 0009) and the accounts at their seats. The scores are
not stored: they follow from these matches' endings in ``matches`` (the one truth), so a
process that dies after a match ended loses nothing."""

daily_seeds_table = Table(
    "daily_seeds",
    metadata,
    Column("day", String(10), primary_key=True),
    Column("secret", Text, nullable=False),
    Column("commitment", String(64), nullable=False),
    Column("first_dealer", Integer, nullable=False),
    Column("created_at", Float, nullable=False),
)
"""The daily deal's seed of each UTC day (revision 0009), ``YYYY-MM-DD``: made by the
first process that needs it (the day's row is inserted once), its ``secret`` (seed and
salt) encrypted with the seed key like a match's, and its public ``commitment``."""

daily_plays_table = Table(
    "daily_plays",
    metadata,
    Column("day", String(10), primary_key=True),
    Column("account_id", String(32), primary_key=True),
    Column("match_id", String(32), nullable=True, index=True),
    Column("started_at", Float, nullable=False),
)
"""Each account's one daily deal a day (revision 0009): the row is claimed before the
match is made (so an account plays once however many requests it sends), then names the
match. The margins are not stored: they follow from the match's scores."""


screen_jobs_table = Table(
    "screen_jobs",
    metadata,
    Column("match_id", String(32), primary_key=True),
    Column("status", String(16), nullable=False, index=True),
    Column("holder", String(32), nullable=True),
    Column("beat_at", Float, nullable=True),
    Column("tries", Integer, nullable=False),
    Column("created_at", Float, nullable=False),
)
"""Finished rated matches waiting to be screened (revision 0010): ``pending``, ``running``
(taken by ``holder``, whose heartbeat ``beat_at`` keeps it; a stale one is taken again),
``done`` or ``failed`` (after three tries)."""

screenings_table = Table(
    "screenings",
    metadata,
    Column("match_id", String(32), primary_key=True),
    Column("account_id", String(32), primary_key=True, index=True),
    Column("seat", Integer, nullable=False),
    Column("decisions", Integer, nullable=False),
    Column("agree", Integer, nullable=False),
    Column("loss", Float, nullable=False),
    Column("contested", Integer, nullable=False),
    Column("contested_agree", Integer, nullable=False),
    Column("at", Float, nullable=False),
)
"""The screening figures of one account's seat in one rated match (revision 0010;
:mod:`ginrummy.review.screening`): decisions, agreements with the coach's first choice,
the summed normalized loss, and the same over contested decisions; ``at`` is when it was
screened."""

flags_table = Table(
    "flags",
    metadata,
    Column("account_id", String(32), primary_key=True),
    Column("status", String(16), nullable=False, index=True),
    Column("reason", Text, nullable=False),
    Column("decisions", Integer, nullable=False),
    Column("agree", Integer, nullable=False),
    Column("loss", Float, nullable=False),
    Column("contested", Integer, nullable=False),
    Column("contested_agree", Integer, nullable=False),
    Column("matches", Text, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    Column("closed_at", Float, nullable=True),
    Column("closed_by", String(32), nullable=True),
)
"""An account the screening flagged (revision 0010): ``open`` until a moderator marks the
account (``marked``) or finds nothing (``cleared``); the figures that raised it and the
matches behind them (JSON). A cleared account is flagged again only on play after it."""

reports_table = Table(
    "reports",
    metadata,
    Column("id", String(16), primary_key=True),
    Column("account_id", String(32), nullable=False, index=True),
    Column("by_account", String(32), nullable=False, index=True),
    Column("reason", String(16), nullable=False),
    Column("text", Text, nullable=False),
    Column("match_id", String(32), nullable=True),
    Column("context", Text, nullable=True),
    Column("status", String(16), nullable=False, index=True),
    Column("created_at", Float, nullable=False),
    Column("closed_at", Float, nullable=True),
    Column("closed_by", String(32), nullable=True),
)
"""Players' reports of an account (revision 0010): the reason (``engine``, ``boosting``,
``abuse`` or ``other``), the reporter's words, the match it is about if any and what else
the moderators need to judge it (``context``, JSON), ``open`` until a moderator closes it."""

mod_log_table = Table(
    "mod_log",
    metadata,
    Column("id", String(16), primary_key=True),
    Column("account_id", String(32), nullable=False, index=True),
    Column("moderator_id", String(32), nullable=True),
    Column("action", String(16), nullable=False),
    Column("mark", String(16), nullable=True),
    Column("text", Text, nullable=False),
    Column("at", Float, nullable=False),
)
"""What moderators did to an account (revision 0010), newest last: ``mark`` (with the
mark, null for taking one away), ``note``, ``clear`` (a flag found to be nothing),
``close`` (a report dealt with), ``mute`` and the like; ``moderator_id`` null for the
operator's command line."""

refunds_table = Table(
    "refunds",
    metadata,
    Column("account_id", String(32), primary_key=True),
    Column("match_id", String(32), primary_key=True),
    Column("marked_id", String(32), nullable=False, index=True),
    Column("points", Float, nullable=False),
    Column("at", Float, nullable=False),
)
"""Rating points given back (revision 0010): ``account_id`` lost ``points`` in
``match_id`` to ``marked_id``, an account later marked; one row per match, so a refund is
given once."""
