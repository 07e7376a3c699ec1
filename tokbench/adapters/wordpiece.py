"""``wordpiece`` adapter: a BERT ``vocab.txt`` as the ``tokenizers`` library runs BERT.

Builds the ``tokenizer.json`` that ``transformers`` writes for a ``BertTokenizerFast``
(BERT normalizer with Chinese-character splitting, BERT pre-tokenizer, WordPiece with
``##`` continuations and ``[UNK]``, at most 100 characters a word) and loads it with the
``tokenizers`` adapter. ``lowercase`` (default False: a cased vocabulary) also strips
accents, as BERT's uncased models do.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tokbench.adapters.base import check_options
from tokbench.adapters.hf_tokenizers import HFTokenizersTokenizer
from tokbench.adapters.hf_tokenizers import load as load_json
from tokbench.errors import CorruptFileError, InputError
from tokbench.hashing import sha256_file
from tokbench.record import TokenizerSource

SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


def read_vocab(path: Path) -> dict[str, int]:
    """``vocab.txt``: one piece a line, the line number its id."""
    try:
        lines = path.read_text(encoding="utf-8").split("\n")
    except UnicodeDecodeError as e:
        raise CorruptFileError(f"{path}: vocab.txt is not UTF-8 ({e})") from e
    if lines and lines[-1] == "":
        lines.pop()
    vocab: dict[str, int] = {}
    for i, piece in enumerate(lines):
        vocab.setdefault(piece, i)
    if "[UNK]" not in vocab:
        raise CorruptFileError(f"{path}: no [UNK] line; not a BERT vocab.txt")
    return vocab


def tokenizer_json(vocab: dict[str, int], lowercase: bool) -> dict[str, Any]:
    """The ``tokenizer.json`` of a BERT WordPiece vocabulary (no post-processor: no specials)."""
    added = [{"id": vocab[t], "content": t, "single_word": False, "lstrip": False,
              "rstrip": False, "normalized": False, "special": True}
             for t in SPECIALS if t in vocab]
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
        "normalizer": {"type": "BertNormalizer", "clean_text": True,
                       "handle_chinese_chars": True, "strip_accents": None,
                       "lowercase": lowercase},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": None,
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": False},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": vocab},
    }


def load(path: str | Path, *, name: str, source: TokenizerSource | None = None,
         **options: Any) -> HFTokenizersTokenizer:
    """Load a BERT ``vocab.txt`` (or a folder holding one)."""
    check_options("wordpiece", options, ("lowercase",))
    p = Path(str(path))
    if p.is_dir():
        p = p / "vocab.txt"
    if not p.is_file():
        raise InputError(f"{p}: no such vocab.txt; give a BERT vocab.txt or its folder")
    source = source or TokenizerSource("file", str(p), sha256_file(p), str(p))
    from tokbench.adapters.hf_tokenizers import _import_tokenizers

    tk = _import_tokenizers()
    spec = tokenizer_json(read_vocab(p), bool(options.get("lowercase", False)))
    return load_json(tk.Tokenizer.from_str(json.dumps(spec)), name=name, source=source)
