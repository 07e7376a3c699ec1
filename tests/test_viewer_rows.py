"""The token viewer's rows: every kind of token placed by hand-computed offsets, and the
viewer's JSON (``build_viewer``) the same as ``segments_json(tokenize(...))`` token by
token."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from tests._toy import ToyTokenizer
from tokbench.adapters.base import Encoding, Tokenizer
from tokbench.engine.viewer import build_viewer, segments_json, tokenize
from tokbench.loading.loader import load_tokenizer
from tokbench.record import TokenizerSource
from tokbench.suites.model import Document, Suite


class Scripted(Tokenizer):
    """Gives the ids and spans it is told, whatever the text."""

    backend = "scripted"

    def __init__(self, ids: list[int], spans: list[tuple[int, int]],
                 tokens: dict[int, tuple[bytes, str]]) -> None:
        super().__init__("scripted", TokenizerSource("builtin", "tests"))
        self.ids, self.spans, self.tokens = ids, spans, tokens

    @property
    def vocab_size(self) -> int:
        return len(self.tokens)

    def encode(self, text: str) -> list[int]:
        return list(self.ids)

    def encode_with_spans(self, text: str) -> Encoding:
        return Encoding(list(self.ids), list(self.spans))

    def decode(self, ids: Sequence[int]) -> str:
        return b"".join(self.tokens[i][0] for i in ids).decode("utf-8", "replace")

    def token_bytes(self, token_id: int) -> bytes:
        return self.tokens[token_id][0]

    def token_str(self, token_id: int) -> str:
        return self.tokens[token_id][1]

    def backend_version(self) -> str:
        return "0"


def viewer_rows(tok: Tokenizer, texts: list[str]) -> list[object]:
    """Each text's segments as ``build_viewer`` writes them (one suite of these texts), or
    the error it notes for a text the tokenizer raises on."""
    docs = [Document(f"d{k}", "eng_Latn", "s", t) for k, t in enumerate(texts)]
    data = build_viewer({"t": tok}, [Suite("s", "1", docs)], per_subset=len(texts),
                        max_samples=len(texts), max_chars=10_000)
    rows = [s["rows"]["t"] for s in data["suites"][0]["samples"]]
    return [row.get("segs", row.get("error")) for row in rows]


def segments_or_error(tok: Tokenizer, text: str) -> object:
    try:
        return segments_json(tokenize(tok, text))
    except UnicodeEncodeError as e:  # the byte baseline on a lone surrogate
        return f"{type(e).__name__}: {e}"


def test_every_kind_of_token_gets_its_row() -> None:
    # "aé b!": a=0, é=1..3, " "=3, b=4, !=5 (bytes); characters 0..4
    tok = Scripted([5, 1, 2, 3, 0], [(0, 0), (0, 1), (1, 2), (2, 4), (4, 5)],
                   {5: (b"", "<s>"), 1: (b"a", "a"), 2: (b"\xc3", "Ã"), 3: (b"\xa9 ", "©Ġ"),
                    0: (b"", "<unk>")})
    tz = tokenize(tok, "aé b!")
    assert [t.kind for t in tz.tokens] == ["empty", "text", "partial", "partial", "unknown"]
    assert [(t.start, t.end) for t in tz.tokens] == [(0, 0), (0, 1), (1, 2), (1, 3), (3, 4)]
    expected = [[5, 0, 0, 2, "", "", "<s>"],
                [1, 0, 1, 0, "a"],
                {"g": "é ", "s": "é", "t": [[2, 1, 2, 1, [[1, "c3"]], "c3", "Ã"],
                                            [3, 1, 3, 1, [[1, "a9"], [0, " "]], "a9 20",
                                             "©Ġ"]]},
                [0, 3, 4, 3, "b", "", "<unk>"],
                "!"]
    assert segments_json(tz) == expected
    assert viewer_rows(tok, ["aé b!"]) == [expected]


def test_a_tokens_hex_and_piece_are_written_only_when_they_differ_from_its_text() -> None:
    tok = Scripted([6, 7, 8, 9], [(0, 1), (1, 2), (2, 3), (3, 4)],
                   {6: (b"x", "x"), 7: (b"y", "Y_"), 8: (b"Z", "z"), 9: (b"W", "w!")})
    expected = [[6, 0, 1, 0, "x"], [7, 1, 2, 0, "y", None, "Y_"], [8, 2, 3, 0, "z", "5a"],
                [9, 3, 4, 0, "w", "57", "w!"]]
    assert segments_json(tokenize(tok, "xyzw")) == expected
    assert viewer_rows(tok, ["xyzw"]) == [expected]


TEXTS = st.lists(st.text(st.sampled_from(list("ab é\u0301日本🙂\n\ud800xyz")), max_size=24),
                 min_size=1, max_size=4)


@settings(max_examples=60, deadline=None)
@given(TEXTS)
def test_the_viewer_writes_each_token_as_segments_json_does(texts: list[str]) -> None:
    for tok in (load_tokenizer("bytes"), load_tokenizer("chars"),
                ToyTokenizer(["ab", "a", "b", " ", "日本", "xyz"])):
        assert viewer_rows(tok, texts) == [segments_or_error(tok, t) for t in texts]
