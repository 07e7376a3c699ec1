"""GGUF ``bert`` vocabularies rebuilt as a ``tokenizers`` WordPiece: llama.cpp's
phantom-space pieces (``▁word`` starts a word) turned back into ``word`` / ``##piece``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tokbench.adapters.gguf_reader import CONTROL, GGUFVocab
from tokbench.adapters.gguf_tokenizers import add_tokens, added_tokens, import_tokenizers
from tokbench.errors import CorruptFileError

if TYPE_CHECKING:
    import tokenizers

PHANTOM = "\u2581"  # "▁", llama.cpp's word-start mark in WordPiece vocabularies


def wordpiece_vocab(vocab: GGUFVocab) -> dict[str, int]:
    """BERT's own pieces back from llama.cpp's phantom-space spelling.

    ``▁word`` -> ``word``, control tokens and bracketed ``[unused0]`` (older converters
    left those alone) as they are, any other piece ``x`` -> ``##x``. A file without
    any ``▁`` piece was written before the phantom spelling and is used as it is.
    """
    phantom = any(t.startswith(PHANTOM) for t in vocab.tokens)
    out: dict[str, int] = {}
    for i, (tok, ttype) in enumerate(zip(vocab.tokens, vocab.token_types, strict=True)):
        if not phantom:
            piece = tok
        elif tok.startswith(PHANTOM):
            piece = tok[1:]
        elif ttype == CONTROL or (tok.startswith("[") and tok.endswith("]")):
            piece = tok
        else:
            piece = "##" + tok
        out.setdefault(piece, i)
    return out


def build_wordpiece(vocab: GGUFVocab) -> tokenizers.Tokenizer:
    """A ``tokenizers`` WordPiece tokenizer equivalent to a ``bert`` GGUF vocabulary.

    Lower-casing and accent stripping follow ``tokenizer.ggml.normalizer.*`` with
    llama.cpp's defaults (lower-case on, strip accents as lower-case), as BERT's
    ``strip_accents=None`` does; Chinese characters are split; ``[UNK]`` for words with
    no pieces; words over 100 characters are unknown, as in BERT.
    """
    tk = import_tokenizers()
    pieces = wordpiece_vocab(vocab)
    unk_id = vocab.special_ids.get("unk", 100 if len(vocab.tokens) > 100 else None)
    if unk_id is None:
        raise CorruptFileError(f"{vocab.path}: WordPiece vocabulary without an unknown token "
                               "(no tokenizer.ggml.unknown_token_id)")
    by_id = {i: p for p, i in pieces.items()}
    lowercase = vocab.flags.get("lowercase", True)
    strip_accents = vocab.flags.get("strip_accents", lowercase)
    model = tk.models.WordPiece(pieces, unk_token=by_id.get(unk_id, "[UNK]"),
                                max_input_chars_per_word=100)
    backend: tokenizers.Tokenizer = tk.Tokenizer(model)
    backend.normalizer = tk.normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=strip_accents,
        lowercase=lowercase)
    backend.pre_tokenizer = tk.pre_tokenizers.BertPreTokenizer()
    backend.decoder = tk.decoders.WordPiece(prefix="##", cleanup=False)
    by_id_all = [by_id.get(i, "") for i in range(len(vocab.tokens))]
    add_tokens(backend, added_tokens(tk, by_id_all, vocab.token_types))
    return backend
