"""The metrics tokbench computes: their metadata (``METRICS``) and families.

Metrics are computed together in families (one pass over the encoded corpus
feeds many metrics); ``--metrics`` accepts metric names or family names.
Third parties add metric metadata through the ``tokbench.metrics`` entry-point group.
"""

from __future__ import annotations

from collections.abc import Iterable

from tokbench.errors import UnknownNameError
from tokbench.metrics.base import MetricInfo
from tokbench.registry import Registry

METRICS: Registry[MetricInfo] = Registry("metric", "tokbench.metrics")

_RUST = "Rust et al. 2021, How Good is Your Tokenizer?"
_PETROV = "Petrov et al. 2023, Language Model Tokenizers Introduce Unfairness Between Languages"
_ZOUHAR = "Zouhar et al. 2023, Tokenization and the Noiseless Channel"

_INFOS = [
    # compression
    MetricInfo("tokens", "lower", "tokens produced", "Σ tokens", decimals=0),
    MetricInfo("bytes_per_token", "higher", "UTF-8 bytes per token", "Σ bytes / Σ tokens"),
    MetricInfo("chars_per_token", "higher", "code points per token", "Σ chars / Σ tokens"),
    # fertility
    MetricInfo("fertility", "lower", "tokens per word (language's word segmenter)",
               "Σ tokens / Σ words", _RUST),
    MetricInfo("continued_words", "lower", "share of words split over two or more tokens",
               "Σ words covered by ≥2 tokens / Σ words", _RUST),
    # premium
    MetricInfo("premium", "lower", "tokens relative to English on the same parallel documents",
               "Σ tokens(lang) / Σ tokens(eng_Latn), same aligned documents", _PETROV),
    # round-trip
    MetricInfo("roundtrip", "higher", "share of documents with decode(encode(x)) == x",
               "documents round-tripped exactly / documents"),
    # unknowns
    MetricInfo("unk_rate", "lower", "unknown tokens per token", "Σ unk tokens / Σ tokens"),
    MetricInfo("unk_chars", "lower", "share of characters inside unknown tokens",
               "Σ chars in unk tokens / Σ chars"),
    MetricInfo("byte_fallback", "lower", "byte-fallback pieces per token",
               "Σ byte pieces / Σ tokens"),
    # vocabulary use
    MetricInfo("vocab_used", "none", "share of the vocabulary seen", "distinct ids / vocab size"),
    MetricInfo("renyi_efficiency", "higher", "Rényi efficiency of the unigram distribution, α=2.5",
               "H_2.5(p) / log |V|", _ZOUHAR),
    MetricInfo("renyi_efficiency_vocab", "higher",
               "Rényi efficiency of the unigram distribution, α=2.5, over the declared "
               "vocabulary (special and unused ids included)",
               "H_2.5(p) / log |V declared|", _ZOUHAR),
    MetricInfo("renyi_efficiency_seen", "higher",
               "Rényi efficiency of the unigram distribution, α=2.5, over the distinct tokens "
               "seen in the corpus (tokenization-scorer's default denominator; its default α "
               "is 3.0)", "H_2.5(p) / log |types seen|", _ZOUHAR),
    # throughput
    MetricInfo("throughput_mb_s", "higher", "encode speed, one thread (median of repeats)",
               "MB / s", unit="MB/s", deterministic=False, decimals=2),
    MetricInfo("throughput_tokens_s", "higher", "tokens encoded per second, one thread",
               "tokens / s", unit="tok/s", deterministic=False, decimals=0),
    # numbers
    MetricInfo("tokens_per_digit", "lower", "tokens covering digit runs per digit",
               "Σ tokens overlapping digit runs / Σ digits"),
    MetricInfo("digits_single", "none", "share of digit runs (≥4 digits) cut into single digits",
               "runs / runs"),
    MetricInfo("digits_l2r3", "none", "share of digit runs (≥4, length not a multiple of 3) "
               "cut in groups of 3 from the left", "runs / runs"),
    MetricInfo("digits_r2l3", "none", "share of digit runs (≥4, length not a multiple of 3) "
               "cut in groups of 3 from the right", "runs / runs"),
    MetricInfo("digits_groups3", "none", "share of digit runs whose length is a multiple of 3 "
               "cut in groups of 3 (left and right give the same cut)", "runs / runs"),
    MetricInfo("digits_whole", "none", "share of digit runs (≥4 digits) left in one token",
               "runs / runs"),
    MetricInfo("digits_other", "none", "share of digit runs cut any other way", "runs / runs"),
    # the tokenizer itself (suite "vocab")
    MetricInfo("vocab_size", "none", "declared vocabulary size", decimals=0),
    MetricInfo("special_tokens", "none", "special (control) tokens", decimals=0),
    MetricInfo("utf8_fragment_tokens", "none",
               "tokens of two or more bytes that are not valid UTF-8 alone (parts of a "
               "character; the count published for byte-level vocabularies)", decimals=0),
    MetricInfo("single_byte_tokens", "none",
               "tokens of one byte 0x80-0xFF (not valid UTF-8 alone)", decimals=0),
    MetricInfo("unreachable_tokens", "lower",
               "valid UTF-8 tokens no text encodes to: encode(decode([t])) != [t]; with a dummy "
               "prefix, tokens that do not start a word are tested inside a word "
               "(after a separator character)", decimals=0),
]
for _info in _INFOS:
    METRICS.register(_info.name, _info)

#: family -> the metrics it produces
FAMILIES: dict[str, tuple[str, ...]] = {
    "compression": ("tokens", "bytes_per_token", "chars_per_token"),
    "fertility": ("fertility", "continued_words"),
    "premium": ("premium",),
    "roundtrip": ("roundtrip",),
    "unknown": ("unk_rate", "unk_chars", "byte_fallback"),
    "vocab_use": ("vocab_used", "renyi_efficiency"),
    "throughput": ("throughput_mb_s", "throughput_tokens_s"),
    "numbers": ("tokens_per_digit", "digits_single", "digits_l2r3", "digits_r2l3", "digits_other"),
    "tokenizer": ("vocab_size", "special_tokens", "utf8_fragment_tokens", "single_byte_tokens",
                  "unreachable_tokens"),
}


def metric_info(name: str) -> MetricInfo:
    """Metadata of a metric; unknown metrics (from other tools) get a neutral default."""
    if name in METRICS:
        return METRICS.get(name)
    return MetricInfo(name, "none", name)


def resolve_families(selection: Iterable[str] | None) -> list[str]:
    """Families needed for a selection of metric or family names (None: all)."""
    if selection is None:
        return list(FAMILIES)
    wanted: list[str] = []
    by_metric = {m: fam for fam, ms in FAMILIES.items() for m in ms}
    for name in selection:
        name = name.strip()
        if not name:
            continue
        if name in ("all", "*"):
            return list(FAMILIES)
        fam = name if name in FAMILIES else by_metric.get(name)
        if fam is None:
            raise UnknownNameError("metric", name, list(FAMILIES) + list(by_metric))
        if fam not in wanted:
            wanted.append(fam)
    return wanted


__all__ = ["FAMILIES", "METRICS", "MetricInfo", "metric_info", "resolve_families"]
