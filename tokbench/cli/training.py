"""Training options shared by ``tokbench train`` and ``tokbench sweep``: the flags, the
``TrainConfig`` they make, and the thread count the backends use."""

from __future__ import annotations

import argparse
from typing import Any


def add_training_options(p: argparse.ArgumentParser, *, algos: tuple[str, ...]) -> None:
    """Options shared by ``train`` and ``sweep``."""
    from tokbench.training.train import BACKENDS, NORMALIZATIONS, PRETOKENIZERS

    p.add_argument("--corpus", action="append", required=True, metavar="SPEC",
                   help="training text: a suite name or spec (text:PATH, flores200?split=dev, "
                        "code:DIR...); repeat to combine several")
    p.add_argument("--algo", choices=algos, default="bpe", help="algorithm (default: bpe)")
    p.add_argument("--backend", choices=BACKENDS, default="tokenizers",
                   help="library that trains and encodes (default: tokenizers)")
    p.add_argument("--byte-level", action=argparse.BooleanOptionalAction, default=None,
                   help="byte-level BPE (GPT-2 style; default for tokenizers BPE) or BPE over "
                        "characters (--no-byte-level)")
    p.add_argument("--byte-fallback", action="store_true",
                   help="encode characters outside the vocabulary as <0xNN> byte pieces "
                        "(sentencepiece; tokenizers --no-byte-level BPE)")
    p.add_argument("--split-digits", action="store_true", help="every digit its own token")
    p.add_argument("--pretokenizer", choices=sorted(PRETOKENIZERS),
                   help="how text is split before training: the gpt2 (r50k) or cl100k regex "
                        "of tiktoken, whitespace, or none (default: cl100k for tokenizers, "
                        "whitespace for wordpiece and sentencepiece)")
    p.add_argument("--normalization", choices=NORMALIZATIONS, default="none",
                   help="Unicode normalization applied before training and encoding "
                        "(default: none)")
    p.add_argument("--special-tokens", metavar="LIST",
                   help='comma-separated special tokens, e.g. "<s>,</s>" (first ids)')
    p.add_argument("--min-frequency", type=int,
                   help="merges need a pair seen this often (tokenizers BPE/WordPiece; "
                        "default 2)")
    p.add_argument("--seed", type=int, default=0, help="random seed (sentencepiece sampling)")
    p.add_argument("--threads", type=int, default=2, help="trainer threads (default 2)")
    p.add_argument("--max-sentences", type=int, default=2_000_000,
                   help="sentencepiece samples at most this many lines (default 2,000,000)")


def config_from_args(args: argparse.Namespace, vocab_size: int) -> Any:
    from tokbench.training.train import TrainConfig, parse_special_tokens

    return TrainConfig(
        algo=args.algo, backend=args.backend, vocab_size=vocab_size,
        byte_level=args.byte_level, byte_fallback=args.byte_fallback,
        split_digits=args.split_digits, pretokenizer=args.pretokenizer,
        normalization=args.normalization,
        special_tokens=parse_special_tokens(args.special_tokens),
        min_frequency=args.min_frequency, seed=args.seed, threads=args.threads,
        max_sentences=args.max_sentences).resolved()


def use_threads(threads: int) -> None:
    """Give ``--threads`` to tokenizers too: its thread pool reads RAYON_NUM_THREADS when
    first used (an explicit environment setting wins)."""
    import os

    os.environ.setdefault("RAYON_NUM_THREADS", str(threads))


