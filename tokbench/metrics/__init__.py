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
    MetricInfo("digits_l2r3", "none", "share of digit runs cut in groups of 3 from the left",
               "runs / runs"),
    MetricInfo("digits_r2l3", "none", "share of digit runs cut in groups of 3 from the right",
               "runs / runs"),
    MetricInfo("digits_other", "none", "share of digit runs cut any other way", "runs / runs"),
    # the tokenizer itself (suite "vocab")
    MetricInfo("vocab_size", "none", "declared vocabulary size", decimals=0),
    MetricInfo("special_tokens", "none", "special (control) tokens", decimals=0),
    MetricInfo("invalid_utf8_tokens", "none", "tokens whose bytes are not valid UTF-8 alone",
               decimals=0),
    MetricInfo("unreachable_tokens", "lower",
               "tokens t with encode(decode([t])) != [t] (among valid UTF-8 tokens)", decimals=0),
]

def _speed_infos() -> list[MetricInfo]:
    """The ``speed`` family (``tokbench bench``; see tokbench/speed): timings, each judged
    by ``compare`` against its confidence interval and a tolerance for its noise."""
    out = []
    for op in ("encode", "decode"):
        # tolerances fit a shared machine, where reruns moved µs-scale percentiles by up to
        # 30% even on the CPU clock; a 2x slowdown (+100%) still fails. Tighten them with
        # --fail on a quiet runner.
        for p, tol in (("p50", 0.5), ("p90", 0.5), ("p99", 0.5)):
            out.append(MetricInfo(f"{op}_{p}_us", "lower", f"{op} latency of one request, {p}",
                                  f"{p} of per-call wall time", unit="µs", deterministic=False,
                                  decimals=1, tolerance=tol))
        out.append(MetricInfo(f"{op}_max_us", "none", f"slowest {op} call (not judged: one call)",
                              "max of per-call wall time", unit="µs", deterministic=False,
                              decimals=1))
    return [*out,
        MetricInfo("encode_mb_s", "higher", "encode speed, one thread, to a ±1% interval",
                   "MB / thread CPU s (median)", unit="MB/s", deterministic=False, decimals=2,
                   tolerance=0.25),
        MetricInfo("batch_mb_s", "higher", "batch encode speed at N threads (subset via:N)",
                   "MB / wall s (median)", unit="MB/s", deterministic=False, decimals=2,
                   tolerance=0.4),
        MetricInfo("threads_used", "none", "threads busy during the batch (CPU s / wall s)",
                   "process CPU s / wall s", deterministic=False, decimals=2),
        MetricInfo("scaling_exponent", "lower", "log-log slope of encode time on input length; "
                   "> 1.2 is superlinear", "d log t / d log bytes, 4 KB .. 1 MB",
                   deterministic=False, decimals=2, tolerance=0.2),
        MetricInfo("load_s", "lower", "time to load from the cached file (fresh process)",
                   "wall s", unit="s", deterministic=False, decimals=3, tolerance=0.5),
        MetricInfo("import_s", "none", "time to import the backend library (fresh process)",
                   "wall s", unit="s", deterministic=False, decimals=3),
        MetricInfo("first_call_ms", "none", "first encode call after loading (one call: "
                   "shown, not judged)", "wall ms", unit="ms", deterministic=False, decimals=3),
        MetricInfo("rss_mb", "lower", "resident memory the loaded tokenizer adds",
                   "RSS after load - RSS before (MB)", unit="MB", deterministic=False,
                   decimals=1, tolerance=0.1),
    ]


_INFOS += _speed_infos()
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
    "tokenizer": ("vocab_size", "special_tokens", "invalid_utf8_tokens", "unreachable_tokens"),
    "speed": tuple(i.name for i in _speed_infos()),
}
#: families only run when asked for by name (minutes, not seconds): not in the default
OPT_IN_FAMILIES = ("speed",)


def metric_info(name: str) -> MetricInfo:
    """Metadata of a metric; unknown metrics (from other tools) get a neutral default."""
    if name in METRICS:
        return METRICS.get(name)
    return MetricInfo(name, "none", name)


def resolve_families(selection: Iterable[str] | None) -> list[str]:
    """Families needed for a selection of metric or family names (None: all)."""
    if selection is None:
        return [f for f in FAMILIES if f not in OPT_IN_FAMILIES]
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


__all__ = ["FAMILIES", "METRICS", "OPT_IN_FAMILIES", "MetricInfo", "metric_info",
           "resolve_families"]
