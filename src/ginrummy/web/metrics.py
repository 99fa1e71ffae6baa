"""What a process counts for its operator, in Prometheus' text format (``GET /metrics``).

Three kinds, as Prometheus names them: a *counter* only goes up (moves committed), a
*gauge* is read when scraped (tables in memory, whether the database is reachable), and a
*histogram* counts observations into cumulative buckets (request latency by route).
Values a part already keeps (the computer's decisions, the database's errors) are read
through a callback rather than copied, so there is one count and no lock: everything runs
on the event loop.

>>> m = Metrics()
>>> m.counter("ginrummy_moves_committed_total", "Changes committed.")
>>> m.inc("ginrummy_moves_committed_total")
>>> m.gauge("ginrummy_tables_in_memory", "Tables held in memory.", lambda: 3)
>>> print(m.render().strip())
# HELP ginrummy_moves_committed_total Changes committed.
# TYPE ginrummy_moves_committed_total counter
ginrummy_moves_committed_total 1
# HELP ginrummy_tables_in_memory Tables held in memory.
# TYPE ginrummy_tables_in_memory gauge
ginrummy_tables_in_memory 3
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

__all__ = ["LATENCY_BUCKETS", "Metrics"]

LATENCY_BUCKETS: tuple[float, ...] = (
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
)
"""Seconds: a move answered in a millisecond up to a slow page at ten seconds."""

Labels = tuple[tuple[str, str], ...]


def _labels(labels: dict[str, str] | None) -> Labels:
    return tuple(sorted((labels or {}).items()))


def _fmt_labels(labels: Labels, extra: tuple[str, str] | None = None) -> str:
    pairs = list(labels) + ([extra] if extra else [])
    if not pairs:
        return ""
    body = ",".join(f'{k}="{_escape(v)}"' for k, v in pairs)
    return "{" + body + "}"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _num(x: float) -> str:
    """A sample value as Prometheus writes it (integers without a decimal point)."""
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return repr(float(x))


@dataclass
class _Histogram:
    buckets: tuple[float, ...]
    counts: list[int] = field(default_factory=list)
    total: float = 0.0
    n: int = 0

    def observe(self, value: float) -> None:
        if not self.counts:
            self.counts = [0] * len(self.buckets)
        i = bisect.bisect_left(self.buckets, value)
        if i < len(self.counts):
            self.counts[i] += 1
        self.total += value
        self.n += 1


@dataclass
class _Family:
    name: str
    help: str
    kind: str  # "counter", "gauge" or "histogram"
    values: dict[Labels, float] = field(default_factory=dict)
    read: Callable[[], float | dict[Labels, float]] | None = None
    histograms: dict[Labels, _Histogram] = field(default_factory=dict)
    buckets: tuple[float, ...] = LATENCY_BUCKETS


class Metrics:
    """One process's metric families, in the order they were declared."""

    def __init__(self) -> None:
        self._families: dict[str, _Family] = {}

    # declaring ---------------------------------------------------------------------
    def counter(self, name: str, help: str,
                read: Callable[[], float] | None = None) -> None:
        """A counter, counted here with :meth:`inc` or read from ``read`` when scraped."""
        self._families[name] = _Family(name, help, "counter", read=read)

    def gauge(self, name: str, help: str,
              read: Callable[[], float | dict[Labels, float]]) -> None:
        """A gauge read from ``read`` when scraped (a number, or numbers by labels)."""
        self._families[name] = _Family(name, help, "gauge", read=read)

    def histogram(self, name: str, help: str,
                  buckets: Sequence[float] = LATENCY_BUCKETS) -> None:
        """A histogram, observed with :meth:`observe`."""
        self._families[name] = _Family(name, help, "histogram", buckets=tuple(buckets))

    # counting ----------------------------------------------------------------------
    def inc(self, name: str, amount: float = 1.0,
            labels: dict[str, str] | None = None) -> None:
        """Add ``amount`` to a counter (by its labels)."""
        fam = self._families[name]
        key = _labels(labels)
        fam.values[key] = fam.values.get(key, 0.0) + amount

    def observe(self, name: str, value: float, labels: dict[str, str] | None = None) -> None:
        """Count one observation of a histogram (by its labels)."""
        fam = self._families[name]
        key = _labels(labels)
        h = fam.histograms.get(key)
        if h is None:
            h = fam.histograms[key] = _Histogram(fam.buckets)
        h.observe(value)

    def value(self, name: str, labels: dict[str, str] | None = None) -> float:
        """A counter's or gauge's current value (for tests and the log line at stop)."""
        fam = self._families[name]
        if fam.read is not None:
            got = fam.read()
            return got.get(_labels(labels), 0.0) if isinstance(got, dict) else float(got)
        return fam.values.get(_labels(labels), 0.0)

    # showing -----------------------------------------------------------------------
    def render(self) -> str:
        """Every family in Prometheus' text exposition format (version 0.0.4)."""
        out: list[str] = []
        for fam in self._families.values():
            out.append(f"# HELP {fam.name} {fam.help}")
            out.append(f"# TYPE {fam.name} {fam.kind}")
            if fam.kind == "histogram":
                for labels, h in sorted(fam.histograms.items()):
                    running = 0
                    for bound, count in zip(fam.buckets, h.counts or [0] * len(fam.buckets),
                                            strict=True):
                        running += count
                        le = _fmt_labels(labels, ("le", _num(bound)))
                        out.append(f"{fam.name}_bucket{le} {running}")
                    out.append(f"{fam.name}_bucket{_fmt_labels(labels, ('le', '+Inf'))} {h.n}")
                    out.append(f"{fam.name}_sum{_fmt_labels(labels)} {_num(h.total)}")
                    out.append(f"{fam.name}_count{_fmt_labels(labels)} {h.n}")
                continue
            values: dict[Labels, float]
            if fam.read is not None:
                got = fam.read()
                values = got if isinstance(got, dict) else {(): float(got)}
            else:
                values = fam.values or {(): 0.0}
            for labels, v in sorted(values.items()):
                out.append(f"{fam.name}{_fmt_labels(labels)} {_num(v)}")
        return "\n".join(out) + "\n"
