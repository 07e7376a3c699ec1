"""Round-trip properties of every adapter (hypothesis).

Lossless adapters (bytes, code points, byte-level BPE, byte fallback) give back any
text and their token bytes spell it. Lossy ones satisfy the exact weaker property
their design allows:

* WordPiece (lower-casing BERT): decoding gives the pre-tokens joined by single
  spaces, a pre-token that cannot be spelled from the vocabulary being ``[UNK]``;
* Unigram without byte fallback: text from the alphabet comes back unchanged, and
  every run of characters outside it comes back as the unknown token's surface.
"""

from __future__ import annotations

import functools
import re
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests._trained import (
    ALL,
    LOSSLESS,
    adapter,
    bert_pretokens,
    hf_unigram_metaspace,
    hf_wordpiece,
)

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
# text of any kind (anything UTF-8 can hold: no lone surrogates): every plane, controls,
# combining marks, spaces of every sort
ANY_TEXT = st.text(st.characters(codec="utf-8"), max_size=40)
# SentencePiece escapes spaces as "▁", so a literal "▁" in the text comes back as a space
NO_METASPACE = st.text(st.characters(codec="utf-8", exclude_characters="▁"), max_size=40)
UNKNOWN = "Ω☃€ß"  # in no training sentence, and unchanged by NFKC


@pytest.mark.parametrize("kind", LOSSLESS)
@SETTINGS
@given(data=st.data())
def test_lossless_round_trip(kind: str, data: st.DataObject) -> None:
    tok = adapter(kind)
    text = data.draw(NO_METASPACE if kind == "sp-bpe" else ANY_TEXT)
    ids = tok.encode(text)
    assert tok.decode(ids) == text
    spelled = b"".join(tok.token_bytes(i) for i in ids)
    if kind == "sp-bpe":  # the dummy prefix "▁" stands for no byte of the text
        assert spelled == (b" " + text.encode() if text else b"")
    else:
        assert spelled == text.encode()


@pytest.mark.parametrize("kind", LOSSLESS)
@SETTINGS
@given(data=st.data())
def test_lossless_spans_are_the_token_bytes(kind: str, data: st.DataObject) -> None:
    tok = adapter(kind)
    text = data.draw(NO_METASPACE if kind == "sp-bpe" else ANY_TEXT)
    data_bytes = text.encode()
    enc = tok.encode_with_spans(text)
    pieces = [tok.token_bytes(i) for i in enc.ids]
    if kind == "sp-bpe" and pieces:
        pieces[0] = pieces[0][1:]  # the dummy prefix
    pos = 0
    for piece, (start, end) in zip(pieces, enc.spans, strict=True):
        assert (start, end) == (pos, pos + len(piece))
        assert data_bytes[start:end] == piece
        pos = end
    assert pos == len(data_bytes)


@pytest.mark.parametrize("kind", ALL)
@SETTINGS
@given(text=ANY_TEXT)
def test_spans_are_well_formed(kind: str, text: str) -> None:
    """Every adapter: one span per id, inside the text, in text order."""
    tok = adapter(kind)
    enc = tok.encode_with_spans(text)
    assert enc.ids == tok.encode(text)
    assert len(enc.spans) == len(enc.ids)
    size = len(text.encode())
    assert all(0 <= s <= e <= size for s, e in enc.spans)
    starts = [s for s, _ in enc.spans]
    assert starts == sorted(starts)


# -- WordPiece ---------------------------------------------------------------------------------
@functools.cache
def _wordpiece_vocab() -> dict[str, int]:
    from tokenizers import Tokenizer

    return dict(Tokenizer.from_file(str(hf_wordpiece())).get_vocab())


def _spellable(word: str, vocab: dict[str, int]) -> bool:
    pos = 0
    while pos < len(word):
        end = len(word)
        while end > pos and (("##" if pos else "") + word[pos:end]) not in vocab:
            end -= 1
        if end == pos:
            return False
        pos = end
    return True


WP_LETTERS = "abcdefghijklmnopqrstuvwxyz"
WP_TEXT = st.text(st.sampled_from(WP_LETTERS + "ÉéABC,.!?  \t\n" + UNKNOWN), max_size=40)


@pytest.mark.parametrize("kind", ["hf-wordpiece", "tf-wordpiece"])
@SETTINGS
@given(text=WP_TEXT)
def test_wordpiece_decodes_to_spaced_pretokens(kind: str, text: str) -> None:
    tok, vocab = adapter(kind), _wordpiece_vocab()
    # BERT normalization: lower-case, strip accents; split on spaces and punctuation
    norm = "".join(c for c in unicodedata.normalize("NFD", text.lower())
                   if unicodedata.category(c) != "Mn")
    words = [w for w, _ in bert_pretokens(norm)]
    expected = " ".join(w if _spellable(w, vocab) else "[UNK]" for w in words)
    assert tok.decode(tok.encode(text)) == expected


@SETTINGS
@given(words=st.lists(st.text(st.sampled_from(WP_LETTERS), min_size=1, max_size=8),
                      max_size=6))
def test_wordpiece_round_trips_lowercase_words(words: list[str]) -> None:
    tok, vocab = adapter("hf-wordpiece"), _wordpiece_vocab()
    text = " ".join(words)
    if all(_spellable(w, vocab) for w in words):
        assert tok.decode(tok.encode(text)) == text
    else:
        assert tok.unk_id in tok.encode(text)


# -- Unigram without byte fallback --------------------------------------------------------------
@functools.cache
def _unigram_alphabet(kind: str) -> str:
    if kind == "sp-unigram":
        import sentencepiece

        from tests._trained import sp_unigram

        sp = sentencepiece.SentencePieceProcessor(model_file=str(sp_unigram()))
        pieces = [sp.id_to_piece(i) for i in range(sp.get_piece_size())
                  if not (sp.is_control(i) or sp.is_unknown(i))]
    else:
        import json

        spec = json.loads(hf_unigram_metaspace().read_text(encoding="utf-8"))
        specials = {t["content"] for t in spec["added_tokens"]}
        pieces = [p for p, _ in spec["model"]["vocab"] if p not in specials]
    return "".join(sorted({p for p in pieces if len(p) == 1 and p != "▁"}))


UNK_SURFACE = {"sp-unigram": " ⁇ ", "hf-unigram": "<unk>"}


@pytest.mark.parametrize("kind", ["sp-unigram", "hf-unigram"])
@SETTINGS
@given(data=st.data())
def test_unigram_alphabet_round_trips_and_unknown_runs(kind: str, data: st.DataObject) -> None:
    tok = adapter(kind)
    alphabet = _unigram_alphabet(kind)
    letters = st.sampled_from(alphabet + UNKNOWN)
    words = data.draw(st.lists(st.text(letters, min_size=1, max_size=8), max_size=6))
    text = " ".join(words)  # single spaces, none leading or trailing: nothing to normalize
    ids = tok.encode(text)
    unknown_run = re.compile(f"[{re.escape(UNKNOWN)}]+")
    assert (tok.unk_id in ids) == bool(unknown_run.search(text))
    assert tok.decode(ids) == unknown_run.sub(UNK_SURFACE[kind], text)
    if not unknown_run.search(text):
        assert tok.encode(tok.decode(ids)) == ids
