"""Word segmentation for fertility (tokens per word) and continued-word rates.

``segmenter_for(lang)`` picks the segmenter of a language; ``spans(text)`` gives the
character offsets ``(start, end)`` of its words, in order and never overlapping.
Whitespace and punctuation are never words: every segmenter keeps only pieces that
contain at least one letter, mark or digit (Unicode categories L*, M*, N*).

Per language (first match wins):

- Japanese (jpn): MeCab through fugashi with the UniDic-lite dictionary.
- Chinese (zho, cmn, yue): jieba (default dictionary, HMM on).
- Thai (tha): PyThaiNLP ``newmm``.
- Khmer, Lao, Burmese (khm, lao, mya): ICU's dictionary word break through PyICU when
  it is installed, else None.
- Other scripts written without spaces (Tibetan, Shan in Myanmar script...), and the
  special codes ``zxx_Zyyy``/``und_Zyyy``/``mul_Zyyy``: None, so fertility stays empty
  rather than counting whole sentences as words.
- Every other language: the ``unicode-whitespace-punct`` rule (``RuleSegmenter``).
  Vietnamese writes spaces between syllables, so its "words" are syllables.

Libraries are imported on the first ``spans`` call. A language whose segmenter's library
is not installed (a plain install without the ``words`` extra) gets None from
``segmenter_for``, like a language without an honest segmenter, so its fertility is left
empty; ``missing_segmenters`` names those languages and the pip command (the run says it
once). Segmenters are shared per language and keep a bounded cache of recent texts;
``segment_documents`` segments a whole suite.
"""

from __future__ import annotations

import importlib.util
import logging
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from functools import cache, lru_cache
from importlib import metadata
from typing import TYPE_CHECKING, Any

from tokbench.errors import MissingDependencyError, TokbenchError
from tokbench.suites.langs import ALIASES, CODE, MULTIPLE, UNDETERMINED, UNSPACED_SCRIPTS

if TYPE_CHECKING:
    from tokbench.suites.model import Document

Span = tuple[int, int]

CACHE_SIZE = 4096
"""Texts whose spans each segmenter remembers (least recently used are dropped)."""

_WORD_CHARS = r"\p{L}\p{M}\p{N}"
# Characters kept inside a word when a word character stands on both sides:
# apostrophes ' ’ ʼ, hyphens - ‐ ‑, middle dot · (Catalan l·l), Hebrew geresh ׳ and
# gershayim ״, soft hyphen, zero-width non-joiner and joiner (Persian, Indic scripts).
_JOINERS = "'\u2019\u02bc\\-\u2010\u2011\u00b7\u05f3\u05f4\u00ad\u200c\u200d"
# Between two decimal digits only: . , and the Arabic decimal and thousands separators.
_NUMBER_JOINERS = ".,\u066b\u066c"
RULE_PATTERN = (
    rf"[{_WORD_CHARS}]+"
    rf"(?:(?:[{_JOINERS}]|(?<=\p{{Nd}})[{_NUMBER_JOINERS}](?=\p{{Nd}}))[{_WORD_CHARS}]+)*"
)
"""The ``unicode-whitespace-punct`` word: a maximal run of letters, marks and digits,
which may continue across one joiner (apostrophe, hyphen, middle dot, geresh, soft hyphen,
ZWNJ, ZWJ) or, between two digits, across one ``.`` ``,`` ``٫`` ``٬``."""


@cache
def _regex(pattern: str) -> Any:
    import regex  # a dependency of tiktoken and transformers; needed for \\p{...}

    return regex.compile(pattern)


def is_word(piece: str) -> bool:
    """True if ``piece`` contains a letter, mark or digit (else it is space or punctuation)."""
    return _regex(rf"[{_WORD_CHARS}]").search(piece) is not None


def dist_versions(*dists: str) -> str:
    """``"dist version, ..."`` of installed distributions (a segmenter's or analyzer's
    identity in the results)."""
    return ", ".join(_dist_version(dist) for dist in dists)


@cache
def _dist_version(dist: str) -> str:
    """``"dist version"``, looked up once per process (each look-up reads the installed
    distributions' metadata: milliseconds, asked for every language of every shard)."""
    try:
        return f"{dist} {metadata.version(dist)}"
    except metadata.PackageNotFoundError:
        return f"{dist} (not installed)"


def place_pieces(text: str, pieces: Iterable[str], what: str,
                 keep: Callable[[str], bool] = bool) -> list[Span]:
    """Spans of the ``pieces`` a segmenter or analyzer returned, found in order in ``text``
    (anything may lie between), those ``keep`` accepts."""
    out: list[Span] = []
    pos = 0
    for piece in pieces:
        if not piece:
            continue
        start = pos if text.startswith(piece, pos) else text.find(piece, pos)
        if start < 0:
            raise TokbenchError(f"{what} returned {piece!r}, which is not in the text after "
                                f"offset {pos}; please report this text")
        pos = start + len(piece)
        if keep(piece):
            out.append((start, pos))
    return out


def _offsets(text: str, pieces: Iterable[str], name: str) -> list[Span]:
    """Spans of the word ``pieces`` found in order in ``text``."""
    return place_pieces(text, pieces, f"word segmenter {name}", keep=is_word)


def unidic_lite_tagger(*, extra: str, purpose: str) -> Any:
    """A MeCab tagger (fugashi) on UniDic-lite, the dictionary named explicitly so an
    installed full UniDic does not change the results."""
    try:
        import fugashi
        import unidic_lite
    except ImportError as e:
        raise MissingDependencyError(e.name or "fugashi", extra=extra, purpose=purpose) from None
    import os

    rc = os.path.join(unidic_lite.DICDIR, "mecabrc")
    return fugashi.Tagger(f'-d "{unidic_lite.DICDIR}" -r "{rc}"')


class Segmenter(ABC):
    """Splits text into words; ``spans(text)`` returns their character offsets."""

    name: str = ""
    """Stable identifier recorded with results, e.g. ``mecab-unidic-lite``."""
    persistent: bool = True
    """Whether a corpus's spans are worth keeping on disk (``tokbench.suites.wordcache``):
    a dictionary segmenter, not a regular expression."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cached: Callable[[str], tuple[Span, ...]] = lru_cache(maxsize=CACHE_SIZE)(
            self._cached_spans)

    @property
    def version(self) -> str:
        """Versions of the libraries and data behind this segmenter (for results)."""
        return ""

    #: the modules the segmenter imports, and the pip command that installs them when a
    #: plain install is expected to have them (missing_segmenters names those)
    modules: tuple[str, ...] = ()
    install: str = ""

    def available(self) -> bool:
        """Whether the libraries can be imported (without importing them)."""
        return all(importlib.util.find_spec(m) is not None for m in self.modules)

    def load(self) -> None:  # noqa: B027 (optional hook: most segmenters import something)
        """Import the library now (raises MissingDependencyError if it is missing)."""

    def spans(self, text: str) -> list[Span]:
        """``(start, end)`` character offsets of the words of ``text``, in order."""
        return list(self._cached(text))

    def words(self, text: str) -> list[str]:
        return [text[a:b] for a, b in self.spans(text)]

    def count(self, text: str) -> int:
        return len(self._cached(text))

    def _cached_spans(self, text: str) -> tuple[Span, ...]:
        with self._lock:  # the wrapped libraries keep state per call
            return tuple(self._spans(text))

    @abstractmethod
    def _spans(self, text: str) -> list[Span]:
        """Uncached segmentation."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class RuleSegmenter(Segmenter):
    """Words of space-delimited scripts: see ``RULE_PATTERN``.

    ``don't``, ``e-mail``, ``l·l``, ``3.14`` and ``1,000`` are one word each;
    ``U.S.`` is two (``U``, ``S``); ``C++`` is ``C``; emoji and symbols are no words.
    """

    name = "unicode-whitespace-punct"
    persistent = False

    @property
    def version(self) -> str:
        return "1; " + dist_versions("regex")  # its Unicode version decides the categories

    def load(self) -> None:
        _regex(RULE_PATTERN)

    def _cached_spans(self, text: str) -> tuple[Span, ...]:
        return tuple(self._spans(text))  # stateless: no lock needed

    def _spans(self, text: str) -> list[Span]:
        return [m.span() for m in _regex(RULE_PATTERN).finditer(text)]


class MecabSegmenter(Segmenter):
    """Japanese: MeCab (fugashi) with UniDic-lite, the dictionary named explicitly so an
    installed full UniDic does not change the results."""

    name = "mecab-unidic-lite"
    modules = ("fugashi", "unidic_lite")
    install = 'pip install "tokbench[words]"'

    def __init__(self) -> None:
        super().__init__()
        self._tagger: Any = None

    @property
    def version(self) -> str:
        return dist_versions("fugashi", "unidic-lite")

    def load(self) -> None:
        if self._tagger is None:
            self._tagger = unidic_lite_tagger(extra="words", purpose="Japanese word segmentation")

    def _spans(self, text: str) -> list[Span]:
        self.load()
        out: list[Span] = []
        base = 0
        for part in text.split("\0"):  # MeCab reads C strings: NUL would end the text
            pos = base
            for node in self._tagger(part):
                pos += len(node.white_space)
                surface = node.surface
                if not part.startswith(surface, pos - base):
                    found = part.find(surface, pos - base)
                    if found < 0:
                        raise TokbenchError(f"MeCab returned {surface!r}, not found in the "
                                            "text; please report this text")
                    pos = base + found
                if is_word(surface):
                    out.append((pos, pos + len(surface)))
                pos += len(surface)
            base += len(part) + 1
        return out


class JiebaSegmenter(Segmenter):
    """Chinese: jieba with its default dictionary and HMM for unknown words."""

    name = "jieba"
    modules = ("jieba",)
    install = 'pip install "tokbench[words]"'

    def __init__(self) -> None:
        super().__init__()
        self._tokenizer: Any = None

    @property
    def version(self) -> str:
        return dist_versions("jieba")

    def load(self) -> None:
        if self._tokenizer is not None:
            return
        try:
            import jieba
        except ImportError:
            raise MissingDependencyError("jieba", extra="words",
                                         purpose="Chinese word segmentation") from None
        jieba.setLogLevel(logging.WARNING)  # it logs dictionary loading to stderr
        tokenizer = jieba.Tokenizer()
        tokenizer.initialize()
        self._tokenizer = tokenizer

    def _spans(self, text: str) -> list[Span]:
        self.load()
        return [(a, b) for w, a, b in self._tokenizer.tokenize(text, HMM=True) if is_word(w)]


class ThaiSegmenter(Segmenter):
    """Thai: PyThaiNLP's dictionary-based maximal matching (``newmm``)."""

    name = "pythainlp-newmm"
    modules = ("pythainlp",)
    install = 'pip install "tokbench[words]"'

    def __init__(self) -> None:
        super().__init__()
        self._tokenize: Any = None

    @property
    def version(self) -> str:
        return dist_versions("pythainlp")

    def load(self) -> None:
        if self._tokenize is not None:
            return
        try:
            from pythainlp.tokenize import word_tokenize
        except ImportError:
            raise MissingDependencyError("pythainlp", extra="words",
                                         purpose="Thai word segmentation") from None
        word_tokenize("ไทย", engine="newmm")  # builds the dictionary trie (about 1 s)
        self._tokenize = word_tokenize

    def _spans(self, text: str) -> list[Span]:
        self.load()
        pieces = self._tokenize(text, engine="newmm", keep_whitespace=True)
        return _offsets(text, pieces, self.name)


class IcuSegmenter(Segmenter):
    """ICU's word break iterator (dictionary-based for Khmer, Lao, Burmese), via PyICU.

    Only boundaries whose rule status marks a word (number, letter, kana, ideograph)
    count; ICU works in UTF-16 units, converted back to character offsets.
    """

    name = "icu"
    modules = ("icu",)  # no install: an opt-in extra, without which fertility is empty

    def __init__(self, locale: str) -> None:
        super().__init__()
        self.locale = locale
        self._iterator: Any = None

    @property
    def version(self) -> str:
        try:
            import icu
        except ImportError:
            return "PyICU (not installed)"
        return f"PyICU {icu.VERSION}, ICU {icu.ICU_VERSION}"

    def load(self) -> None:
        if self._iterator is not None:
            return
        try:
            import icu
        except ImportError:
            raise MissingDependencyError("icu", "PyICU",
                                         purpose="Khmer, Lao and Burmese word segmentation "
                                                 "(needs the ICU C library)") from None
        self._iterator = icu.BreakIterator.createWordInstance(icu.Locale(self.locale))

    def _spans(self, text: str) -> list[Span]:
        self.load()
        it = self._iterator
        it.setText(text)
        bounds: list[int] = []
        start = it.first()
        for end in it:
            if it.getRuleStatus() >= 100:  # UBRK_WORD_NONE is 0..99
                bounds += (start, end)
            start = end
        if len(text.encode("utf-16-le")) != 2 * len(text):  # characters beyond the BMP
            index: list[int] = []
            for i, ch in enumerate(text):
                index += [i, i] if ord(ch) > 0xFFFF else [i]
            index.append(len(text))
            bounds = [index[b] for b in bounds]
        return list(zip(bounds[::2], bounds[1::2], strict=True))


_RULE = RuleSegmenter()
_SHARED: dict[str, Segmenter] = {}
_SHARED_LOCK = threading.Lock()
_SPECIAL = frozenset({CODE, UNDETERMINED, MULTIPLE})


def _shared(key: str, make: Callable[[], Segmenter]) -> Segmenter:
    with _SHARED_LOCK:
        if key not in _SHARED:
            _SHARED[key] = make()
        return _SHARED[key]


def icu_available() -> bool:
    """True if PyICU can be imported (it needs the ICU C library to build)."""
    return importlib.util.find_spec("icu") is not None


_ICU_LOCALES = {"khm": "km", "lao": "lo", "mya": "my"}
_CHINESE = frozenset({"zho", "cmn", "yue"})


def segmenter_for(lang: str) -> Segmenter | None:
    """The word segmenter for a FLORES-style ``lang`` code, or None when the language has
    no honest one or its library is not installed (fertility is then left empty). Never
    imports the library itself."""
    seg = _chosen(lang)
    return seg if seg is not None and _available(seg) else None


def missing_segmenters(langs: Iterable[str]) -> dict[str, str]:
    """``lang -> pip command`` for the languages whose segmenter exists but whose library
    is not installed (their fertility is left empty). ICU (Khmer, Lao, Burmese) is an
    opt-in extra that needs a C library, documented as empty without it: not listed."""
    out = {}
    for lang in langs:
        seg = _chosen(lang)
        if seg is not None and seg.install and not _available(seg):
            out[lang] = seg.install
    return out


_AVAILABLE: dict[str, bool] = {}


def _available(seg: Segmenter) -> bool:
    """``seg.available()``, asked once per process and segmenter kind when it is True."""
    if not _AVAILABLE.get(seg.name):
        _AVAILABLE[seg.name] = seg.available()
    return _AVAILABLE[seg.name]


@cache
def _chosen(lang: str) -> Segmenter | None:
    """The segmenter of ``lang``, installed or not."""
    lang = ALIASES.get(lang.lower(), lang)
    if lang in _SPECIAL:
        return None
    iso, _, script = lang.partition("_")
    iso = iso.lower()
    if iso == "jpn":
        return _shared("mecab", MecabSegmenter)
    if iso in _CHINESE:
        return _shared("jieba", JiebaSegmenter)
    if iso == "tha":
        return _shared("thai", ThaiSegmenter)
    if iso in _ICU_LOCALES:
        locale = _ICU_LOCALES[iso]
        return _shared(f"icu-{locale}", lambda: IcuSegmenter(locale))
    if not script or script.capitalize() in UNSPACED_SCRIPTS:
        return None
    return _RULE


def segment_documents(docs: Iterable[Document]) -> list[list[Span] | None]:
    """Word spans of every document (None where its language has no segmenter).

    Call once per suite and share the result between tokenizers.
    """
    from tokbench.suites.wordcache import cached_spans

    docs = list(docs)
    out: list[list[Span] | None] = [None] * len(docs)
    by_lang: dict[str, list[int]] = {}
    for i, doc in enumerate(docs):
        by_lang.setdefault(doc.lang, []).append(i)
    for lang, idx in by_lang.items():
        seg = segmenter_for(lang)
        if seg is None:
            continue
        texts = [docs[i].text for i in idx]
        if seg.persistent:  # a dictionary segmenter: spans of a corpus seen before are read
            spans = cached_spans((type(seg).__qualname__, seg.name, seg.version),
                                 type(seg).__module__, texts, seg.spans)
        else:
            spans = [seg.spans(t) for t in texts]
        for i, sp in zip(idx, spans, strict=True):
            out[i] = sp
    return out


def segmenters(langs: Sequence[str]) -> dict[str, str | None]:
    """``lang -> segmenter name`` (None: no segmenter), to record with results."""
    out: dict[str, str | None] = {}
    for lang in langs:
        seg = segmenter_for(lang)
        out[lang] = seg.name if seg is not None else None
    return out
