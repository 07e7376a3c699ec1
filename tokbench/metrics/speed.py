"""The ``speed`` family's metrics (``tokbench bench``, ``tokbench.speed``): timings, each
judged by ``compare`` against its confidence interval and a tolerance for its noise.

Tolerances fit a shared machine, where reruns moved µs-scale percentiles by up to 30%
even on the CPU clock; a 2x slowdown (+100% latency, -50% rate) still fails. Tighten
them with ``--fail`` on a quiet runner.
"""

from __future__ import annotations

from tokbench.metrics.base import MetricInfo

FAMILY = "speed"


def _latency() -> list[MetricInfo]:
    out = []
    for op in ("encode", "decode"):
        for p in ("p50", "p90", "p99"):
            out.append(MetricInfo(f"{op}_{p}_us", "lower", f"{op} latency of one request, {p}",
                                  f"{p} of per-call wall time", unit="µs", deterministic=False,
                                  decimals=1, tolerance=0.5, family=FAMILY))
        out.append(MetricInfo(f"{op}_max_us", "none", f"slowest {op} call (not judged: one call)",
                              "max of per-call wall time", unit="µs", deterministic=False,
                              decimals=1, family=FAMILY))
    return out


SPEED_METRICS: list[MetricInfo] = [
    *_latency(),
    MetricInfo("encode_mb_s", "higher", "encode speed, one thread, to a ±1% interval",
               "MB / thread CPU s (median)", unit="MB/s", deterministic=False, decimals=2,
               tolerance=0.25, family=FAMILY),
    MetricInfo("batch_mb_s", "higher", "batch encode speed at N threads (subset via:N)",
               "MB / wall s (median)", unit="MB/s", deterministic=False, decimals=2,
               tolerance=0.4, family=FAMILY),
    MetricInfo("threads_used", "none", "threads busy during the batch (CPU s / wall s)",
               "process CPU s / wall s", deterministic=False, decimals=2, family=FAMILY),
    MetricInfo("scaling_exponent", "lower", "log-log slope of encode time on input length; "
               "> 1.2 is superlinear", "d log t / d log bytes, 4 KB .. 1 MB",
               deterministic=False, decimals=2, tolerance=0.2, family=FAMILY),
    MetricInfo("load_s", "lower", "time to load from the cached file (fresh process)",
               "wall s", unit="s", deterministic=False, decimals=3, tolerance=0.5, family=FAMILY),
    MetricInfo("import_s", "none", "time to import the backend library (fresh process)",
               "wall s", unit="s", deterministic=False, decimals=3, family=FAMILY),
    MetricInfo("first_call_ms", "none", "first encode call after loading (one call: shown, "
               "not judged)", "wall ms", unit="ms", deterministic=False, decimals=3,
               family=FAMILY),
    MetricInfo("rss_mb", "lower", "resident memory the loaded tokenizer adds",
               "RSS after load - RSS before (MB)", unit="MB", deterministic=False, decimals=1,
               tolerance=0.1, family=FAMILY),
]
