"""Every built-in metric, defined once: metadata, the statistics it needs, its formula.

Formulas read the merged statistics of one (tokenizer, suite, subset) (see
``tokbench.metrics.stats``) and return None where a value is not defined. All corpus
metrics are ratios of sums, never means of per-document ratios.
"""

from __future__ import annotations

import math

import numpy as np

from tokbench.metrics.base import (
    SUMMARY_RUN,
    SUMMARY_SWEEP,
    Formula,
    MetricContext,
    MetricInfo,
    SumsView,
)
from tokbench.metrics.conventions import SETTING as FERTILITY_SETTING
from tokbench.metrics.fairness import FAIRNESS_METRICS, PREMIUM_SETTINGS
from tokbench.metrics.morph import GOLD_STATS, stat_names
from tokbench.metrics.stats import RUN_KINDS, robust_stat_names
from tokbench.suites.variants import VARIANTS

RENYI_ALPHA = 2.5

_RUST = "Rust et al. 2021, How Good is Your Tokenizer?"
_PETROV = "Petrov et al. 2023, Language Model Tokenizers Introduce Unfairness Between Languages"
_ZOUHAR = "Zouhar et al. 2023, Tokenization and the Noiseless Channel"
_BOTH = (SUMMARY_RUN, SUMMARY_SWEEP)
#: the word-counting convention: fertility-family values depend on it (and its segmenters)
_WORDS = (FERTILITY_SETTING,)
_ARNETT = ("Arnett & Bergen 2024, Why do language models perform worse for morphologically "
           "complex languages? (MorphScore)")
_UZAN = ("Uzan et al. 2024, Greed is All You Need: An Evaluation of Tokenizer Inference "
         "Methods (boundary precision/recall/F1 against gold segmentations)")


def ratio(num: float, den: float) -> float | None:
    """``num / den``, or None when there is nothing to divide by."""
    return num / den if den else None


def renyi_entropy(counts: np.ndarray, alpha: float = RENYI_ALPHA) -> float | None:
    """Rényi entropy H_α (nats) of the unigram distribution given by token ``counts``."""
    counts = counts[counts > 0].astype(np.float64)
    total = counts.sum()
    if total == 0:
        return None
    p = counts / total
    return math.log(float(np.sum(p ** alpha))) / (1.0 - alpha)


def renyi_from_counts(counts: np.ndarray, vocab_size: int, alpha: float = RENYI_ALPHA
                      ) -> float | None:
    """Rényi efficiency: H_α of the unigram distribution given by ``counts`` over
    log ``vocab_size`` (Zouhar et al. 2023). Two denominators are in use, and tokbench
    reports both under different names: the declared vocabulary size, special and unused
    ids included (``renyi_efficiency_vocab``), and the number of distinct tokens seen
    (``renyi_efficiency_seen``: the default of the reference implementation,
    tokenization-scorer, whose default α is 3.0; ``-e power=2.5`` gives tokbench's)."""
    h = renyi_entropy(counts, alpha)
    if h is None or vocab_size < 2:
        return None
    return h / math.log(vocab_size)


def _ratio(num: str, den: str) -> Formula:
    """The formula Σ num / Σ den (None when there is nothing to divide by)."""
    return lambda s, c: ratio(s[num], s[den])


def _segmented(s: SumsView) -> bool:
    """Fertility is defined when every encoded document of the subset has a segmenter."""
    return s["seg_docs"] == s["ok"] and s["seg_docs"] > 0


def _vocab_used(s: SumsView, ctx: MetricContext) -> float | None:
    hist = s.histogram
    return ratio(0 if hist is None else len(hist[0]), ctx.vocab_size)  # type: ignore[arg-type]


def _renyi_vocab(s: SumsView, ctx: MetricContext) -> float | None:
    hist = s.histogram
    if hist is None:
        return None
    return renyi_from_counts(np.asarray(hist[1]), ctx.vocab_size)


def _renyi_seen(s: SumsView, ctx: MetricContext) -> float | None:
    hist = s.histogram
    if hist is None:
        return None
    counts = np.asarray(hist[1])
    return renyi_from_counts(counts, int(np.count_nonzero(counts)))


def _run_share(kind: str) -> object:
    def share(s: SumsView, ctx: MetricContext) -> float | None:
        total = sum(s[k] for k in RUN_KINDS)
        return s[kind] / total if s["digits"] and total else None
    return share


def _analyzed(s: SumsView, scheme: str) -> bool:
    """Morph metrics are defined when every encoded document of the subset was analyzed."""
    return s[f"{scheme}_docs"] == s["ok"] and s["ok"] > 0


def _morph_formula(scheme: str, what: str) -> Formula:
    def value(s: SumsView, c: MetricContext) -> float | None:
        if not _analyzed(s, scheme):
            return None
        hits = s[f"{scheme}_hits"]
        if what == "precision":
            return ratio(hits, s[f"{scheme}_cuts"])
        if what == "recall":
            return ratio(hits, s[f"{scheme}_gold"])
        if what == "crossing":
            return ratio(s[f"{scheme}_crossers"], s[f"{scheme}_tokens"])
        return ratio(2 * hits, s[f"{scheme}_cuts"] + s[f"{scheme}_gold"])
    return value


def morph_scheme_metrics(scheme: str) -> tuple[str, ...]:
    """The metrics measured against the morphemes of analyzer scheme ``scheme`` (recorded
    in ``meta.segmenters`` as ``LANG/SCHEME``): what a change of that analyzer concerns."""
    return tuple(f"{scheme}_{part}" for part in ("precision", "recall", "f1", "crossing"))


def _morph_metrics(scheme: str, family: str, gold: str) -> list[MetricInfo]:
    """Boundary precision, recall, F1 and crossing tokens against ``gold`` boundaries."""
    needs = stat_names(scheme)
    cut = "token boundaries inside words"
    return [
        MetricInfo(f"{scheme}_precision", "higher",
                   f"share of {cut} that are morpheme boundaries of {gold}",
                   f"Σ {cut} at a morpheme boundary / Σ {cut}", _UZAN, family=family,
                   needs=needs, percent=True,
                   compute=_morph_formula(scheme, "precision")),
        MetricInfo(f"{scheme}_recall", "higher",
                   f"share of morpheme boundaries inside words ({gold}) that are token "
                   "boundaries", "Σ morpheme boundaries at a token boundary / Σ morpheme "
                   "boundaries inside words", _UZAN, family=family, needs=needs,
                   percent=True,
                   compute=_morph_formula(scheme, "recall")),
        MetricInfo(f"{scheme}_f1", "higher",
                   f"boundary F1 against {gold}: harmonic mean of the summed precision and "
                   "recall (0 when no token boundary is a morpheme boundary)",
                   "2 P R / (P + R) = 2 Σ hits / (Σ token boundaries + Σ morpheme boundaries)",
                   _UZAN, family=family, needs=needs,
                   percent=True,
                   compute=_morph_formula(scheme, "f1")),
        MetricInfo(f"{scheme}_crossing", "lower",
                   f"share of tokens covering part of a word that cross a morpheme boundary "
                   f"of {gold} (the boundary strictly inside the token)",
                   "Σ tokens containing a morpheme boundary / Σ tokens on words",
                   family=family, needs=needs, percent=True,
                   compute=_morph_formula(scheme, "crossing")),
    ]


_TOKSUITE = ("TokSuite 2025 (tokenization robustness to perturbations); "
             "Levenshtein distance over token ids")
_VARIANT_TEXT = {
    "nfkc": "the text in Unicode NFKC", "nfd": "the text in Unicode NFD",
    "fullwidth": "ASCII in full-width forms", "halfwidth":
        "full-width ASCII and katakana in half-width forms",
    "katakana": "hiragana written in katakana", "hiragana": "katakana written in hiragana",
    "lower": "the text lower-cased", "upper": "the text upper-cased",
    "space_add": "spaces added around punctuation",
    "space_remove": "spaces next to punctuation removed",
    "typo": "one seeded typo (two adjacent letters swapped)",
}


def _robust_sum(s: SumsView, variants: tuple[str, ...], kind: str) -> int:
    return sum(s[f"rob_{v}_{kind}"] for v in variants)


def _robust_formula(variants: tuple[str, ...], what: str) -> Formula:
    def value(s: SumsView, c: MetricContext) -> float | None:
        tokens = _robust_sum(s, variants, "tokens")
        if what == "inflation":
            return ratio(_robust_sum(s, variants, "vtokens"), tokens)
        if what == "edit":
            return ratio(_robust_sum(s, variants, "edit"), tokens)
        return ratio(_robust_sum(s, variants, "moved"), _robust_sum(s, variants, "docs"))
    return value


def _robust_metrics(variant: str | None) -> list[MetricInfo]:
    """Inflation, moved share and edit distance for one variant (None: all together)."""
    variants = (variant,) if variant else VARIANTS
    name = f"robust_{variant}" if variant else "robust"
    what = _VARIANT_TEXT[variant] if variant else "every variant that applies (pooled)"
    needs = robust_stat_names(variants)
    return [
        MetricInfo(f"{name}_inflation", "lower",
                   f"tokens of the variant over tokens of the original: {what}",
                   "Σ tokens(variant) / Σ tokens(original), documents the variant changes",
                   _TOKSUITE, family="robustness", needs=needs,
                   compute=_robust_formula(variants, "inflation")),
        MetricInfo(f"{name}_moved", "lower",
                   f"share of documents whose token boundaries inside the unchanged text "
                   f"move: {what}", "documents moved / documents the variant changes",
                   _TOKSUITE, family="robustness", needs=needs,
                   percent=True, compute=_robust_formula(variants, "moved")),
        MetricInfo(f"{name}_edit", "lower",
                   f"token edit distance between original and variant per original token: "
                   f"{what}", "Σ Levenshtein(ids, variant ids) / Σ tokens(original)",
                   _TOKSUITE, family="robustness", needs=needs,
                   compute=_robust_formula(variants, "edit")),
    ]


def _m(name: str, family: str, direction: str, description: str, formula: str = "",
       **kw: object) -> MetricInfo:
    return MetricInfo(name, direction, description, formula, family=family,  # type: ignore[arg-type]
                      **kw)  # type: ignore[arg-type]


BUILTIN_METRICS: list[MetricInfo] = [
    _m("tokens", "compression", "lower", "tokens produced", "Σ tokens", decimals=0,
       needs=("tokens",), summary=_BOTH, compute=lambda s, c: s["tokens"]),
    _m("bytes_per_token", "compression", "higher", "UTF-8 bytes per token",
       "Σ bytes / Σ tokens", needs=("bytes", "tokens"),
       label="bytes per token", summary=_BOTH,
       ratio=(("bytes",), ("tokens",)),
       compute=_ratio("bytes", "tokens")),
    _m("chars_per_token", "compression", "higher", "code points per token",
       "Σ chars / Σ tokens", needs=("chars", "tokens"),
       label="chars per token", summary=(SUMMARY_RUN,),
       ratio=(("chars",), ("tokens",)),
       compute=_ratio("chars", "tokens")),
    _m("fertility", "fertility", "lower", "tokens per word (as --fertility counts: by default "
       "the document's tokens over the words of the language's segmenter)",
       "Σ tokens / Σ words", citation=_RUST, needs=("seg_tokens", "words"),
       summary=_BOTH, settings=_WORDS,
       ratio=(("seg_tokens",), ("words",)),
       compute=lambda s, c: ratio(s["seg_tokens"], s["words"]) if _segmented(s) else None),
    _m("continued_words", "fertility", "lower", "share of words split over two or more tokens",
       "Σ words covered by ≥2 tokens / Σ words", citation=_RUST, needs=("continued", "words"),
       percent=True, settings=_WORDS,
       ratio=(("continued",), ("words",)),
       compute=lambda s, c: ratio(s["continued"], s["words"]) if _segmented(s) else None),
    _m("strr", "fertility", "higher",
       "single-token retention rate: share of words that are one token (toklens's STRR with "
       "--fertility alone/whitespace)", "Σ words of exactly 1 token / Σ words",
       needs=("single_words", "words"), percent=True, settings=_WORDS,
       ratio=(("single_words",), ("words",)),
       compute=lambda s, c: ratio(s["single_words"], s["words"]) if _segmented(s) else None),
    _m("premium", "premium", "lower", "tokens relative to English on the same parallel documents",
       "Σ tokens(lang) / Σ tokens(eng_Latn), same aligned documents", citation=_PETROV,
       needs=("aligned_tokens",), summary=(SUMMARY_RUN,), settings=PREMIUM_SETTINGS),
    *FAIRNESS_METRICS,
    _m("roundtrip", "roundtrip", "higher", "share of documents with decode(encode(x)) == x",
       "documents round-tripped exactly / documents", needs=("roundtrip",),
       percent=True, label="round trip", summary=_BOTH,
       settings=("decode_skip_special_tokens",),
       ratio=(("roundtrip",), ("ok",)),
       compute=lambda s, c: s["roundtrip"] / s["ok"] if s["ok"] else None),
    _m("unk_rate", "unknown", "lower", "unknown tokens per token", "Σ unk tokens / Σ tokens",
       needs=("unk", "tokens"), percent=True, label="unk", summary=_BOTH,
       ratio=(("unk",), ("tokens",)),
       compute=lambda s, c: ratio(s["unk"], s["tokens"]) if c.has_unk else 0.0),
    _m("unk_chars", "unknown", "lower", "share of characters inside unknown tokens",
       "Σ chars in unk tokens / Σ chars", needs=("unk_chars", "chars"), percent=True,
       ratio=(("unk_chars",), ("chars",)),
       compute=_ratio("unk_chars", "chars")),
    _m("byte_fallback", "unknown", "lower", "byte-fallback pieces per token",
       "Σ byte pieces / Σ tokens", needs=("fallback", "tokens"),
       percent=True, summary=(SUMMARY_SWEEP,),
       ratio=(("fallback",), ("tokens",)),
       compute=_ratio("fallback", "tokens")),
    _m("byte_token_rate", "unknown", "lower",
       "tokens whose bytes are not valid UTF-8 alone (parts of a character, single bytes "
       "0x80-0xFF, byte-fallback pieces of such bytes) per token: what byte-level BPE does "
       "where it knows a script badly (unk_rate and byte_fallback stay 0 there)",
       "Σ tokens not valid UTF-8 alone / Σ tokens", needs=("byte_tokens", "tokens"), percent=True,
       ratio=(("byte_tokens",), ("tokens",)),
       compute=_ratio("byte_tokens", "tokens")),
    _m("vocab_used", "vocab_use", "none", "share of the vocabulary seen",
       "distinct ids / vocab size", needs=("histogram",),
       percent=True, summary=(SUMMARY_SWEEP,), compute=_vocab_used),
    _m("renyi_efficiency_vocab", "vocab_use", "higher",
       "Rényi efficiency of the unigram distribution, α=2.5, over the declared vocabulary "
       "(special and unused ids included)", "H_2.5(p) / log |V declared|",
       citation=_ZOUHAR, needs=("histogram",), summary=(SUMMARY_SWEEP,),
       compute=_renyi_vocab),
    _m("renyi_efficiency_seen", "vocab_use", "higher",
       "Rényi efficiency of the unigram distribution, α=2.5, over the distinct tokens seen "
       "(tokenization-scorer's default denominator; its default α is 3.0)",
       "H_2.5(p) / log |types seen|", citation=_ZOUHAR, needs=("histogram",),
       compute=_renyi_seen),
    _m("throughput_mb_s", "throughput", "higher", "encode speed, one thread (median of repeats)",
       "MB / s", unit="MB/s", deterministic=False, decimals=2,
       label="MB/s", summary=(SUMMARY_RUN,)),
    _m("throughput_tokens_s", "throughput", "higher", "tokens encoded per second, one thread",
       "tokens / s", unit="tok/s", deterministic=False, decimals=0),
    _m("tokens_per_digit", "numbers", "lower", "tokens covering digit runs per digit",
       "Σ tokens overlapping digit runs / Σ digits", needs=("digits", "digit_tokens"),
       ratio=(("digit_tokens",), ("digits",)),
       compute=lambda s, c: ratio(s["digit_tokens"], s["digits"]) if s["digits"] else None),
    _m("digits_single", "numbers", "none",
       "share of digit runs (≥4 digits) cut into single digits", "runs / runs", percent=True,
       needs=("runs_single",),
       ratio=(("runs_single",), RUN_KINDS), compute=_run_share("runs_single")),
    _m("digits_l2r3", "numbers", "none", "share of digit runs (≥4, length not a multiple of 3) "
       "cut in groups of 3 from the left", "runs / runs", percent=True, needs=("runs_l2r3",),
       ratio=(("runs_l2r3",), RUN_KINDS),
       compute=_run_share("runs_l2r3")),
    _m("digits_r2l3", "numbers", "none", "share of digit runs (≥4, length not a multiple of 3) "
       "cut in groups of 3 from the right", "runs / runs", percent=True, needs=("runs_r2l3",),
       ratio=(("runs_r2l3",), RUN_KINDS),
       compute=_run_share("runs_r2l3")),
    _m("digits_groups3", "numbers", "none", "share of digit runs whose length is a multiple of "
       "3 cut in groups of 3 (from the left and from the right give the same cut)",
       "runs / runs", percent=True, needs=("runs_groups3",),
       ratio=(("runs_groups3",), RUN_KINDS), compute=_run_share("runs_groups3")),
    _m("digits_whole", "numbers", "none", "share of digit runs (≥4 digits) left in one token",
       "runs / runs", percent=True, needs=("runs_whole",),
       ratio=(("runs_whole",), RUN_KINDS), compute=_run_share("runs_whole")),
    _m("digits_other", "numbers", "none", "share of digit runs cut any other way",
       "runs / runs", percent=True, needs=("runs_other",),
       ratio=(("runs_other",), RUN_KINDS), compute=_run_share("runs_other")),
    *_morph_metrics("morph", "morph", "MeCab UniDic-lite short units (Japanese) or Kiwi "
                    "morphemes (Korean)"),
    *_morph_metrics("sudachi_a", "morph_sudachi", "Sudachi split mode A"),
    *_morph_metrics("sudachi_b", "morph_sudachi", "Sudachi split mode B"),
    *_morph_metrics("sudachi_c", "morph_sudachi", "Sudachi split mode C"),
    _m("morphscore", "morph_gold", "higher",
       "MorphScore on the --morph-gold file: share of gold morpheme boundaries with a token "
       "boundary on them, each word encoded alone without a leading space; words left in "
       "one token excluded", "Σ gold boundaries at a token boundary / Σ gold boundaries, "
       "words of ≥2 tokens", citation=_ARNETT, needs=GOLD_STATS, settings=("morph_gold",),
       percent=True,
       compute=_ratio("ms_hits", "ms_gold")),
    _m("morph_gold_precision", "morph_gold", "higher",
       "share of the token boundaries inside the --morph-gold words that are gold morpheme "
       "boundaries (every word, each encoded alone)", "Σ hits / Σ token boundaries",
       citation=_UZAN, needs=GOLD_STATS, settings=("morph_gold",), percent=True,
       compute=_ratio("item_hits", "item_cuts")),
    _m("morph_gold_recall", "morph_gold", "higher",
       "share of the gold morpheme boundaries of the --morph-gold words that are token "
       "boundaries (every word, one-token words included)", "Σ hits / Σ gold boundaries",
       citation=_UZAN, needs=GOLD_STATS, settings=("morph_gold",), percent=True,
       compute=_ratio("item_hits", "item_gold")),
    _m("morph_gold_f1", "morph_gold", "higher", "boundary F1 on the --morph-gold words",
       "2 Σ hits / (Σ token boundaries + Σ gold boundaries)", citation=_UZAN,
       needs=GOLD_STATS, settings=("morph_gold",),
       percent=True,
       compute=lambda s, c: ratio(2 * s["item_hits"], s["item_cuts"] + s["item_gold"])),
    _m("morph_gold_single", "morph_gold", "none",
       "share of the --morph-gold words kept in one token (left out of MorphScore)",
       "words of 1 token / words", needs=GOLD_STATS, settings=("morph_gold",), percent=True,
       compute=_ratio("ms_single", "item_docs")),
    *_robust_metrics(None),
    *(m for v in VARIANTS for m in _robust_metrics(v)),
    _m("vocab_size", "tokenizer", "none", "declared vocabulary size", decimals=0),
    _m("special_tokens", "tokenizer", "none", "special (control) tokens", decimals=0),
    _m("utf8_fragment_tokens", "tokenizer", "none",
       "tokens of two or more bytes that are not valid UTF-8 alone (parts of a character; the "
       "count published for byte-level vocabularies)", decimals=0),
    _m("single_byte_tokens", "tokenizer", "none",
       "tokens of one byte 0x80-0xFF (not valid UTF-8 alone)", decimals=0),
    _m("unreachable_tokens", "tokenizer", "lower",
       "valid UTF-8 tokens no text encodes to: encode(decode([t])) != [t]; with a dummy prefix, "
       "tokens that do not start a word are tested inside a word (after a separator "
       "character)", decimals=0),
]
