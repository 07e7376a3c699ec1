"""``tokbench train``: train a BPE, Unigram or WordPiece tokenizer on a corpus or suite."""

from __future__ import annotations

import argparse
from typing import Any

HELP = "train a tokenizer (bpe, unigram, wordpiece) on any corpus or suite spec"


def add_training_options(p: argparse.ArgumentParser, *, algos: tuple[str, ...]) -> None:
    """Options shared by ``train`` and ``sweep``."""
    from tokbench.train import BACKENDS, NORMALIZATIONS, PRETOKENIZERS

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
    from tokbench.train import TrainConfig, parse_special_tokens

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


def add_arguments(p: argparse.ArgumentParser) -> None:
    from tokbench.train import ALGOS

    p.add_argument("--vocab-size", required=True, metavar="N",
                   help="vocabulary size including special tokens, e.g. 32000 or 32k (k = 1024)")
    p.add_argument("--out", "-o", required=True, metavar="PATH",
                   help="a folder (gets tokenizer.json or tokenizer.model) or the file itself")
    add_training_options(p, algos=ALGOS)


def main(args: argparse.Namespace) -> int:
    from rich.markup import escape

    from tokbench.console import console, err_console
    from tokbench.sweep import parse_size
    from tokbench.train import load_corpus, load_trained, train

    config = config_from_args(args, parse_size(args.vocab_size))
    use_threads(config.threads)
    status = err_console()
    with status.status("loading the corpus…"):
        corpus = load_corpus(args.corpus)
    desc = corpus.describe()
    with status.status(f"training {config.algo} ({config.backend}, {config.vocab_size:,}) on "
                       f"{desc['documents']:,} documents, {desc['bytes'] / 1e6:,.1f} MB…"):
        trained = train(corpus, config, args.out)
    tok = load_trained(trained.path)
    sample = "Tokenizers split text into tokens: 12345 ¡olé! 東京"
    ids = tok.encode(sample)
    con = console()
    con.print(f"trained {escape(tok.name)}: {config.algo}, {config.backend}, vocabulary "
              f"{tok.vocab_size:,} in {trained.info['trainer']['seconds']:.1f} s", highlight=False)
    con.print(f"wrote {escape(str(trained.path))} and {escape(str(trained.sidecar))}",
              highlight=False)
    con.print(f"sample: {len(sample.encode())} bytes -> {len(ids)} tokens: "
              + escape(" | ".join(tok.token_str(i) for i in ids)), highlight=False)
    return 0
