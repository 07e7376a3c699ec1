"""What getting the backend's offsets in the encode call costs, and what measuring costs.

For each tokenizer: time of ``encode_batch`` (ids only) and of ``encode_batch_offsets``
(ids and offsets from the same call) over a suite, and of ``measure_documents`` with those
offsets. Usage: python tests/bench/offsets_cost.py [--tokenizers a,b] [--suite SPEC]
"""

from __future__ import annotations

import argparse
import time

from tokbench.loading.loader import load_tokenizer
from tokbench.metrics.compute import SuiteLayout, TokenTable, measure_documents
from tokbench.suites import load_suite
from tokbench.suites.words import segment_documents


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tokenizers", default="cl100k_base,llama-2,xlm-roberta,qwen2,"
                                            "bert-base-uncased")
    ap.add_argument("--suite", default="flores200?split=devtest&languages=eng_Latn,jpn_Jpan,"
                                       "hin_Deva,amh_Ethi,zho_Hans,arb_Arab")
    args = ap.parse_args()
    suite = load_suite(args.suite)
    texts = [d.text for d in suite.documents]
    layout = SuiteLayout.build(texts, segment_documents(suite.documents), numbers=True)
    print(f"{len(texts)} documents, {len(layout.data) / 1e6:.2f} MB")
    print(f"{'tokenizer':18s} {'ids only':>9s} {'+offsets':>9s} {'measure':>9s}")
    for name in args.tokenizers.split(","):
        tok = load_tokenizer(name)
        tok.encode_batch(texts[:50])  # warm up
        t0 = time.perf_counter()
        tok.encode_batch(texts)
        t1 = time.perf_counter()
        encs = tok.encode_batch_offsets(texts)
        t2 = time.perf_counter()
        measure_documents(TokenTable(tok), texts, [e.ids for e in encs], None, None, True,
                          layout, offsets=[e.offsets for e in encs],
                          offsets_unit=tok.offsets_unit)
        t3 = time.perf_counter()
        print(f"{name:18s} {t1 - t0:8.3f}s {t2 - t1:8.3f}s {t3 - t2:8.3f}s")


if __name__ == "__main__":
    main()
