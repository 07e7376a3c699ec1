"""The one-screen answer of a run: which tokenizer is cheapest, by how much, and the catch.

Computed once from a run's rows; the terminal, report.md and report.html only format it.

* **cost** (``tokbench run``): per suite, tokens per 1,000 characters (1000 /
  ``chars_per_token``, i.e. 1000 Σ tokens / Σ characters) of every tokenizer on all of
  the suite's documents. The winner is the cheapest *lossless* one (no caveat from
  ``tokbench.metrics.trust``); the margin is how many fewer tokens it needs than the
  runner-up among the lossless. For a suite split by language the winner of each language
  is counted too, and a suite of two to four languages gets a line per language.
* **speed** (``tokbench bench``): per request size (chat, paragraph, document), the median
  encode latency per 1,000 characters of the requests; the fastest and its margin.

Each line carries its main caveat: a cheaper tokenizer that is not lossless, losslessness
not measured, winners that differ by language, a near tie, a busy machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from tokbench.constants import ALL
from tokbench.metrics.trust import Caveat, Trust
from tokbench.results import Results
from tokbench.timing import LatencyDetails

#: costs are given per this many characters
PER_CHARS = 1000
#: a margin below this share is called a tie
TIE = 0.01
#: a latency whose CPU share is below this was mostly waiting for the CPU
BUSY_CPU_SHARE = 0.8
#: a suite with at most this many languages gets a verdict line per language
FEW_LANGUAGES = 4
#: request sizes of ``tokbench bench``, in the order shown
REQUEST_SIZES = ("chat", "paragraph", "document")
#: the speed family's pseudo-suite
SPEED_SUITE = "speed"


@dataclass(frozen=True)
class Entry:
    """One tokenizer's figure on one line of the verdict."""

    tokenizer: str
    value: float  # tokens (cost) or microseconds (speed) per PER_CHARS characters
    caveat: Caveat | None = None


@dataclass
class Line:
    """One line of the verdict: a suite (cost) or a request size (speed)."""

    kind: str  # "cost" or "speed"
    subject: str  # suite name, or request size
    winner: Entry | None
    runner_up: Entry | None = None
    margin: float | None = None  # share fewer tokens / less time than the runner-up
    caveats: list[str] = field(default_factory=list)
    by_language: list[tuple[str, int]] = field(default_factory=list)  # (winner, languages)
    languages: int = 0

    @property
    def caveat(self) -> str:
        """The main caveat (the first found), or ""."""
        return self.caveats[0] if self.caveats else ""

    @property
    def unit(self) -> str:
        return (f"tokens / {PER_CHARS:,} chars" if self.kind == "cost"
                else f"µs / {PER_CHARS:,} chars")

    def margin_text(self) -> str:
        """``"27.5% fewer tokens than gpt2"`` / ``"41.0% faster than gpt2"``, or ""."""
        if self.margin is None or self.runner_up is None:
            return ""
        what = "fewer tokens than" if self.kind == "cost" else "less time than"
        return f"{100 * self.margin:.1f}% {what} {self.runner_up.tokenizer}"


@dataclass
class Verdict:
    """Every line of a run's verdict (cost lines, then speed lines)."""

    lines: list[Line] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.lines)

    def of(self, kind: str) -> list[Line]:
        return [x for x in self.lines if x.kind == kind]


def verdict(results: Results, trust: Trust | None = None) -> Verdict:
    """The verdict of a run (empty when it measured neither compression nor latency);
    ``trust``: ``Trust.of(results)`` when the caller has it already."""
    trust = trust or Trust.of(results)
    costs = _per_1k(results)
    lines: list[Line | None] = []
    for suite in results.meta.suites:
        lines.append(_cost_line(results, costs, trust, suite))
        for lang in _few_languages(results, suite):  # a line each when they fit a screen
            lines.append(_cost_line(results, costs, trust, suite, lang))
    lines += _speed_lines(results)
    return Verdict([x for x in lines if x is not None])


def _language_subsets(results: Results, suite: str) -> list[str]:
    """The language subsets of a suite split by language (none for other suites)."""
    info = results.meta.suites.get(suite)
    if info is None or info.subset_by != "lang":
        return []
    return sorted({r.subset for r in results.rows if r.suite == suite
                   and r.metric == "chars_per_token" and r.subset != ALL})


def _few_languages(results: Results, suite: str) -> list[str]:
    """The languages that get a verdict line of their own: all of them when there are two
    to ``FEW_LANGUAGES`` (a larger suite is summarized by winners per language)."""
    langs = _language_subsets(results, suite)
    return langs if 2 <= len(langs) <= FEW_LANGUAGES else []


#: (suite, subset) -> tokenizer -> tokens per ``PER_CHARS`` characters
Costs = dict[tuple[str, str], dict[str, float]]


def _per_1k(results: Results) -> Costs:
    out: Costs = {}
    for r in results.rows:
        if r.metric == "chars_per_token" and isinstance(r.value, (int, float)) \
                and r.value > 0:
            out.setdefault((r.suite, r.subset), {})[r.tokenizer] = PER_CHARS / float(r.value)
    return out


def _ranked(costs: dict[str, float], trust: Trust, suite: str, subset: str
            ) -> tuple[list[Entry], list[Entry]]:
    """(lossless entries, flagged entries), each cheapest first (ties by name)."""
    entries = sorted((Entry(t, v, trust.caveat(t, suite, subset, "chars_per_token"))
                      for t, v in costs.items()), key=lambda e: (e.value, e.tokenizer))
    return [e for e in entries if e.caveat is None], [e for e in entries if e.caveat]


def _cost_line(results: Results, index: Costs, trust: Trust, suite: str, subset: str = ALL
               ) -> Line | None:
    costs = index.get((suite, subset), {})
    if not costs:
        return None
    clean, flagged = _ranked(costs, trust, suite, subset)
    winner = clean[0] if clean else None
    line = Line("cost", suite if subset == ALL else f"{suite} · {subset}", winner)
    if winner is not None and len(clean) > 1:
        line.runner_up = clean[1]
        line.margin = 1.0 - winner.value / clean[1].value
    cheaper = [e for e in flagged if winner is None or e.value < winner.value]
    if winner is None:
        line.caveats.append("no tokenizer is lossless here: " + "; ".join(
            f"{e.tokenizer} {(e.caveat.reason if e.caveat else '')}" for e in flagged))
    elif cheaper:
        e = cheaper[0]
        line.caveats.append(f"{e.tokenizer} needs {100 * (1 - e.value / winner.value):.1f}% "
                            f"fewer tokens but loses text "
                            f"({e.caveat.reason if e.caveat else ''})")
    if not any(trust.measured(t, suite, subset) is not None for t in costs):
        line.caveats.append("losslessness not measured (add -m roundtrip,unknown)")
    if subset == ALL:
        _languages(results, index, trust, suite, line)
    if line.margin is not None and line.margin < TIE and line.runner_up is not None:
        line.caveats.append(f"a near tie with {line.runner_up.tokenizer} "
                            f"(within {100 * TIE:.0f}%)")
    elif winner is not None and line.runner_up is not None:
        same = _indistinct(results, suite, subset, line.runner_up.tokenizer, winner.tokenizer)
        if same:
            line.caveats.append(f"not distinguishable from {line.runner_up.tokenizer} on these "
                                f"documents ({same})")
    return line


def _indistinct(results: Results, suite: str, subset: str, tokenizer: str, best: str
                ) -> str | None:
    """The paired interval of ``tokenizer``'s chars_per_token over ``best``'s when it holds
    1 (``tokbench.metrics.confidence``), else None."""
    key = (tokenizer, suite, subset, "chars_per_token")
    for r in results.rows:
        if r.key == key and r.extra.get("vs") == best and r.extra.get("vs_distinct") is False:
            return (f"paired {100 * float(r.extra.get('ci_level', 0.95)):.0f}% interval "
                    f"of the ratio {float(r.extra['vs_low']):.4f}–"
                    f"{float(r.extra['vs_high']):.4f}")
    return None


def _languages(results: Results, index: Costs, trust: Trust, suite: str, line: Line
               ) -> None:
    """Winners per language of a suite split by language (two or more languages)."""
    subsets = _language_subsets(results, suite)
    if len(subsets) < 2:
        return
    wins: dict[str, int] = {}
    for subset in subsets:
        clean, _ = _ranked(index.get((suite, subset), {}), trust, suite, subset)
        if clean:
            wins[clean[0].tokenizer] = wins.get(clean[0].tokenizer, 0) + 1
    line.languages = len(subsets)
    line.by_language = sorted(wins.items(), key=lambda kv: (-kv[1], kv[0]))
    if line.winner is not None and len(line.by_language) > 1:
        mine = dict(line.by_language).get(line.winner.tokenizer, 0)
        others = ", ".join(f"{t} in {n}" for t, n in line.by_language
                           if t != line.winner.tokenizer)
        line.caveats.append(f"cheapest in {mine} of {len(subsets)} languages only "
                            f"(also {others})")


def _speed_lines(results: Results) -> list[Line]:
    """Median encode latency per 1,000 characters per request size (tokbench bench)."""
    by_size: dict[str, dict[str, tuple[float, float | None]]] = {}
    for r in results.rows:
        if r.suite != SPEED_SUITE or r.metric != "encode_p50_us" or \
                not isinstance(r.value, (int, float)):
            continue
        details = LatencyDetails.of(r)
        chars = details.request_chars
        if chars is None or chars <= 0:
            continue
        by_size.setdefault(r.subset, {})[r.tokenizer] = (
            float(r.value) * PER_CHARS / chars, details.cpu_share)
    lines = []
    for size in [s for s in REQUEST_SIZES if s in by_size] + \
            sorted(set(by_size) - set(REQUEST_SIZES)):
        entries = sorted((Entry(t, v) for t, (v, _) in by_size[size].items()),
                         key=lambda e: (e.value, e.tokenizer))
        line = Line("speed", size, entries[0])
        if len(entries) > 1:
            line.runner_up = entries[1]
            line.margin = 1.0 - entries[0].value / entries[1].value
            if line.margin < TIE:
                line.caveats.append(f"a near tie with {entries[1].tokenizer} "
                                    f"(within {100 * TIE:.0f}%)")
        busy = sorted(t for t, (_, share) in by_size[size].items()
                      if share is not None and share < BUSY_CPU_SHARE)
        if busy:
            line.caveats.insert(0, "the machine was busy: the median call of "
                                + _names(busy) + " waited for the CPU (wall time above "
                                "its CPU time); rerun on a quiet machine")
        lines.append(line)
    return lines


def _names(names: Sequence[str]) -> str:
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
