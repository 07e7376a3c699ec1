"""Which inputs of a measurement differ between two runs (suite content, tokenizer file,
backend version, settings, definitions, word segmenters, machine) and which rows that
concerns; ``allow_change`` names the kinds compared anyway."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tokbench.constants import VOCAB_SUITE
from tokbench.errors import UnknownNameError
from tokbench.metrics import METRICS, conventions, metric_info, setting_scopes
from tokbench.metrics.definitions import morph_scheme_metrics
from tokbench.record import RunMeta, SuiteInfo, TokenizerInfo
from tokbench.results import Results

#: inputs whose change makes rows not comparable; ``allow_change`` takes these names
CHANGE_KINDS = ("suite", "tokenizer", "backend", "settings", "machine", "segmenter",
                "definition")


#: inputs compared anyway without being allowed: the tokenizer under test is a slot
#: judged by name, and its file or backend changing is what a gate is there to catch
COMPARED_BY_DEFAULT = frozenset({"tokenizer", "backend"})


# A setting some metrics declare (``MetricInfo.settings``) changes only those; a setting
# no metric declares changes every row, unless it is one of these:
#: settings that change no value, only how precisely or where timings are taken
NEUTRAL_SETTINGS = frozenset({"throughput_repeats", "throughput_subsets", "threads",
                              "speed_latency_budget_s", "speed_rate_budget_s",
                              "speed_rate_target_ci", "speed_scaling_budget_s",
                              "speed_budget_scale", "speed_parts",
                              # intervals and paired comparisons change no value; a
                              # precision changes the sample, compared as suite content
                              "ci", "reference", "precision"})


def parse_allow_change(kinds: Iterable[str] | None) -> frozenset[str]:
    """Validate ``allow_change`` names (comma-separated strings are split)."""
    out: set[str] = set()
    for item in kinds or ():
        for kind in filter(None, (k.strip() for k in item.split(","))):
            if kind == "all":
                out.update(CHANGE_KINDS)
            elif kind in CHANGE_KINDS:
                out.add(kind)
            else:
                raise UnknownNameError("input kind", kind, [*CHANGE_KINDS, "all"],
                                       hint="for --allow-change")
    return frozenset(out)


class InputCheck:
    """Which inputs of a (tokenizer, suite) pair differ between the runs."""

    def __init__(self, base: Results, new: Results, allowed: frozenset[str]) -> None:
        self.base, self.new, self.allowed = base.meta, new.meta, allowed
        self._cache: dict[tuple[str, str], list[tuple[str, str, tuple[str, ...] | None]]] = {}
        self._notes: dict[str, str] = {}  # text -> kind, in the order met
        self._segmenter_lang: dict[str, str] = {}  # a segmenter change's text -> its language
        self._langs = {*(self.base.segmenters or {}), *(self.new.segmenters or {})}
        self._machine = _machine_change(self.base, self.new)
        self._settings = _settings_changes(self.base, self.new)
        self._definitions = _definition_changes(self.base, self.new)

    def _all_changes(self, tokenizer: str, suite: str
                     ) -> list[tuple[str, str, tuple[str, ...] | None]]:
        """(kind, text, metrics it concerns or None for all) for every differing input."""
        key = (tokenizer, suite)
        if key in self._cache:
            return self._cache[key]
        out: list[tuple[str, str, tuple[str, ...] | None]] = []
        if suite != VOCAB_SUITE:
            bs, ns = suite_info(self.base, suite).sha256, suite_info(self.new, suite).sha256
            if bs and ns and bs != ns:
                out.append(("suite", f"suite {suite!r} content changed "
                                     f"(sha256 {bs[:12]} → {ns[:12]})", None))
            else:
                drawn = [(suite_info(m, suite).sample or {}).get("bytes")
                         for m in (self.base, self.new)]
                if drawn[0] != drawn[1]:
                    out.append(("suite", f"suite {suite!r} is another sample ({drawn[0]} → "
                                         f"{drawn[1]} bytes drawn)", None))
        base_tok = tokenizer_info(self.base, tokenizer)
        new_tok = tokenizer_info(self.new, tokenizer)
        bt = base_tok.source.sha256
        nt = new_tok.source.sha256
        if bt and nt and bt != nt:
            out.append(("tokenizer", f"tokenizer {tokenizer!r} file changed "
                                     f"(sha256 {bt[:12]} → {nt[:12]})", None))
        bb, nb = base_tok.backend_version, new_tok.backend_version
        if bb and nb and bb != nb:
            backend = new_tok.backend or "backend"
            out.append(("backend", f"{backend} version changed ({bb} → {nb})", None))
        out += [("settings", text, scope) for text, scope in self._settings]
        out += [("definition", text, scope) for text, scope in self._definitions]
        words = setting_scopes().get(conventions.SETTING, ())
        for lang, scheme, text in _segmenter_changes(self.base, self.new, suite):
            self._segmenter_lang[text] = lang
            out.append(("segmenter", text,
                        words if scheme is None else morph_scheme_metrics(scheme)))
        if self._machine:
            timings = tuple(m for m in METRICS.names() if not metric_info(m).deterministic)
            out.append(("machine", self._machine, timings))
        self._cache[key] = out
        return out

    def check(self, tokenizer: str, suite: str, metric: str, subset: str) -> list[str]:
        """The reasons the row is not comparable; allowed changes are kept for ``notes``.
        A language's segmenter concerns its own rows and those mixing languages."""
        reasons: list[str] = []
        for kind, text, scope in self._all_changes(tokenizer, suite):
            if scope is not None and metric not in scope:
                continue
            lang = self._segmenter_lang.get(text) if kind == "segmenter" else None
            if lang is not None and subset != lang and subset in self._langs:
                continue
            if kind in self.allowed:
                self._notes.setdefault(text, kind)
            else:
                reasons.append(text)
        return reasons

    def notes(self) -> list[str]:
        """Each changed input that was compared anyway, once."""
        return [f"{text}; compared as the same tokenizer" if kind in COMPARED_BY_DEFAULT
                else f"{text}; compared anyway (--allow-change {kind})"
                for text, kind in self._notes.items()]

    def only_content(self, tokenizer: str, suite: str, metric: str) -> bool:
        """Whether the suite's content is the only input of the row that differs."""
        kinds = {kind for kind, _, scope in self._all_changes(tokenizer, suite)
                 if (scope is None or metric in scope) and kind not in self.allowed}
        return kinds == {"suite"}

    def pair_reasons(self, tokenizer: str, suite: str) -> list[str]:
        """Reasons that concern every row of the pair (not only timings or one metric)."""
        return [text for kind, text, scope in self._all_changes(tokenizer, suite)
                if scope is None and kind not in self.allowed]


def suite_info(meta: RunMeta, name: str) -> SuiteInfo:
    """What ``meta`` says of suite ``name`` (an empty record if nothing)."""
    return meta.suites.get(name) or SuiteInfo()


def tokenizer_info(meta: RunMeta, name: str) -> TokenizerInfo:
    """What ``meta`` says of tokenizer ``name`` (an empty record if nothing)."""
    return meta.tokenizers.get(name) or TokenizerInfo()


def _machine_change(base: RunMeta, new: RunMeta) -> str | None:
    bm, nm = base.machine, new.machine
    fields = ("hostname", "cpus", "processor")
    if not bm or not nm or all(bm.get(f) == nm.get(f) for f in fields):
        return None

    def show(m: Mapping[str, Any]) -> str:
        return f"{m.get('hostname')}, {m.get('cpus')} CPUs"

    return f"timings from different machines ({show(bm)} → {show(nm)})"


def _definition_changes(base: RunMeta, new: RunMeta
                        ) -> list[tuple[str, tuple[str, ...] | None]]:
    """Metrics whose recorded formula differs between the runs (each concerns one metric)."""
    bf, nf = base.metric_formulas or {}, new.metric_formulas or {}
    return [(f"definition of {m} changed ({bf[m]} → {nf[m]})", (m,))
            for m in sorted(bf.keys() & nf.keys()) if bf[m] != nf[m]]


def _segmenter_changes(base: RunMeta, new: RunMeta, suite: str
                       ) -> list[tuple[str, str | None, str]]:
    """(language, analyzer scheme or None for the word segmenter, what changed) for the
    languages of ``suite`` whose word segmenter or morpheme analyzer (``LANG/SCHEME``:
    name and version) differs."""
    bs, ns = base.segmenters or {}, new.segmenters or {}
    langs = suite_info(new, suite).languages or sorted({k.split("/")[0]
                                                        for k in bs.keys() & ns.keys()})
    out: list[tuple[str, str | None, str]] = []
    for lang in langs:
        keys = [lang, *sorted(k for k in bs.keys() & ns.keys() if k.startswith(f"{lang}/"))]
        for key in keys:
            if key in bs and key in ns and bs[key] != ns[key]:
                scheme = key.partition("/")[2] or None
                what = "word segmenter" if scheme is None else f"{scheme} morpheme analyzer"
                out.append((lang, scheme, f"{what} of {lang} changed ({bs[key] or 'none'} → "
                                          f"{ns[key] or 'none'})"))
    return out


def _settings_changes(base: RunMeta, new: RunMeta) -> list[tuple[str, tuple[str, ...] | None]]:
    bs, ns = base.settings, new.settings
    if not bs or not ns:
        return []
    from tokbench.engine.runner import Settings

    # a setting one run does not record is one its tokbench version did not have: it ran
    # as the setting's default does (a setting is added with the old behaviour as default)
    defaults = Settings().to_dict()
    out: list[tuple[str, tuple[str, ...] | None]] = []
    scopes = setting_scopes()
    for key in sorted(bs.keys() | ns.keys()):
        scope = scopes.get(key)
        before, after = bs.get(key, defaults.get(key)), ns.get(key, defaults.get(key))
        if (scope is None and key in NEUTRAL_SETTINGS) or before == after:
            continue
        out.append((f"setting {key} changed ({before!r} → {after!r})", scope))
    return out
