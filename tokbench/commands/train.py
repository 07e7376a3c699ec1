"""``tokbench train``: train a BPE, Unigram or WordPiece tokenizer on a corpus or suite."""

from __future__ import annotations

import argparse
from typing import Any

HELP = "train a tokenizer (bpe, unigram, wordpiece) on any corpus or suite spec"


def add_arguments(p: argparse.ArgumentParser) -> None:
    from tokbench.cli.training import add_training_options
    from tokbench.training.train import ALGOS

    p.add_argument("--vocab-size", required=True, metavar="N",
                   help="vocabulary size including special tokens, e.g. 32000 or 32k (k = 1024)")
    p.add_argument("--out", "-o", required=True, metavar="PATH",
                   help="a folder (gets tokenizer.json or tokenizer.model) or the file itself")
    add_training_options(p, algos=ALGOS)


def main(args: argparse.Namespace) -> int:
    from tokbench.cli.console import console, err_console, escape
    from tokbench.cli.training import config_from_args, use_threads
    from tokbench.training.sweep import parse_size
    from tokbench.training.train import load_corpus, load_trained, train

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
              + escape(" | ".join(readable(tok, ids))), highlight=False)
    con.print("(each token as the text it stands for; · a space, <e6 9d> bytes of a character "
              "split across tokens)", highlight=False)
    return 0


def readable(tok: Any, ids: list[int]) -> list[str]:
    """Each token as the text it stands for (not its vocabulary glyphs such as GPT-2's "Ġ"
    or "Ã©"): spaces as "·", newlines and tabs as "⏎" and "→", bytes that are only part of
    a character as hex; a token standing for no text (special, unknown) by its own name."""
    out = []
    for i in ids:
        data = tok.token_bytes(i)
        if not data:
            out.append(tok.token_str(i))
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            out.append("<" + " ".join(f"{b:02x}" for b in data) + ">")
            continue
        out.append(text.replace(" ", "·").replace("\n", "⏎").replace("\t", "→"))
    return out
