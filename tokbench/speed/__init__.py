"""Speed profiles of tokenizers: tail latency, thread and length scaling, load cost.

``speed_rows(tok, texts, ...)`` (tokbench.speed.rows) measures one tokenizer and
returns results rows (the ``speed`` metric family); ``tokbench bench`` runs it for
several tokenizers (tokbench.speed.bench). Modules: ``stats`` (percentiles and their
intervals), ``clock``, ``workload`` (request sizes and hard inputs), ``latency``,
``rate`` (single-thread MB/s to a target interval), ``threads``, ``length``,
``footprint`` and ``worker`` (the fresh processes those two need).
"""

from __future__ import annotations

from tokbench.speed.rows import SpeedSettings, speed_rows

__all__ = ["SpeedSettings", "speed_rows"]
