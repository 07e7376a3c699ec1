"""``tokbench show``: the terminal token view and its JSON."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from tokbench.adapters.baselines import load_bytes
from tokbench.cli import main
from tokbench.commands.show import STYLES, UNKNOWN, render_tokenization
from tokbench.engine.viewer import tokenize


def run_show(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["show", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_bytes_and_chars(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_show(["aé", "-t", "bytes,chars", "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert data["text"] == "aé"
    assert list(data["tokenizers"]) == ["bytes", "chars"]
    assert data["tokenizers"]["bytes"] == [
        {"id": 0x61, "piece": "a", "bytes": "61", "start": 0, "end": 1,
         "byte_start": 0, "byte_end": 1},
        {"id": 0xC3, "piece": "\\xc3", "bytes": "c3", "start": 1, "end": 2,
         "byte_start": 1, "byte_end": 2},
        {"id": 0xA9, "piece": "\\xa9", "bytes": "a9", "start": 1, "end": 2,
         "byte_start": 2, "byte_end": 3}]
    assert data["tokenizers"]["chars"] == [
        {"id": 0x61, "piece": "a", "bytes": "61", "start": 0, "end": 1,
         "byte_start": 0, "byte_end": 1},
        {"id": 0xE9, "piece": "é", "bytes": "c3 a9", "start": 1, "end": 2,
         "byte_start": 1, "byte_end": 3}]
    # one token per line, so the output diffs and greps well
    assert sum(line.startswith('   {"id": ') for line in out.splitlines()) == 5


def test_reads_standard_input_exactly(capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"hi\n")))
    code, out, _ = run_show(["-", "-t", "chars", "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert data["text"] == "hi\n"
    assert [t["id"] for t in data["tokenizers"]["chars"]] == [104, 105, 10]


def test_bad_input_is_one_line(capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"ok \xff")))
    code, _, err = run_show(["-", "-t", "bytes"], capsys)
    assert code == 2 and "not valid UTF-8 (byte 3)" in err and len(err.strip().splitlines()) == 1
    code, _, err = run_show(["", "-t", "bytes"], capsys)
    assert code == 2 and "empty text" in err
    code, _, err = run_show(["x", "-t", "byts"], capsys)
    assert code == 2 and "unknown tokenizer 'byts'; did you mean 'bytes'" in err


def test_plain_terminal_view(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_show(["a é\tb\nc", "-t", "bytes,chars"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "bytes · 8 tokens · 0.88 chars/token"  # 7 characters
    # not a terminal: a bar between tokens; a split character's bytes, then the character
    assert lines[1] == "a│·│‹c3›│‹a9›=é│→│b│⏎"
    assert lines[2] == "c"
    assert lines[4] == "chars · 7 tokens · 1.00 chars/token"
    assert lines[5:7] == ["a│·│é│→│b│⏎", "c"]


def test_ids_as_subscripts_and_a_plain_list(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_show(["aé\nb", "-t", "bytes", "--ids"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[1] == "a₉₇│‹c3›₁₉₅│‹a9›₁₆₉=é│⏎₁₀"  # the break comes after the newline's id
    assert lines[2] == "b₉₈"
    assert lines[3] == "ids: 97 195 169 10 98"


def test_tokens_alternate_backgrounds() -> None:
    text = render_tokenization(tokenize(load_bytes(), "abc"))
    assert text.plain == "abc"
    assert [(s.start, s.end, str(s.style)) for s in text.spans] == [
        (0, 1, STYLES[0]), (1, 2, STYLES[1]), (2, 3, STYLES[0])]


def test_unknown_tokens_stand_out() -> None:
    from tokbench.adapters.base import Encoding

    class WithUnknown(type(load_bytes())):  # type: ignore[misc]
        def encode_with_spans(self, text: str) -> Encoding:
            return Encoding([0x61, 0], [(0, 1), (1, 3)])

        def token_bytes(self, token_id: int) -> bytes:
            return b"" if token_id == 0 else super().token_bytes(token_id)

    tz = tokenize(WithUnknown("unk", load_bytes().source), "aé")
    assert [t.kind for t in tz.tokens] == ["text", "unknown"]
    text = render_tokenization(tz)
    assert text.plain == "aé" and str(text.spans[-1].style) == UNKNOWN


def test_lines_break_between_tokens_only() -> None:
    words = "one two three four five six seven eight nine ten"
    text = render_tokenization(tokenize(load_bytes(), words), width=12, separator="|")
    lines = text.plain.split("\n")
    assert max(len(x) for x in lines) <= 12
    # every line is whole tokens: no token is cut by the wrap
    assert all(not x.startswith("|") and not x.endswith("|") for x in lines)
    assert "".join(x.replace("|", "") for x in lines) == words.replace(" ", "·")


def test_file_spec_tokenizer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A tokenizer.json trained here, through ``file:``: its ids agree with the library's."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(vocab_size=280, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(["the cat sat on the mat", "the hat"] * 20, trainer)
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    code, out, _ = run_show(["the cat", "-t", f"file:{path}", "--json"], capsys)
    assert code == 0
    (tokens,) = json.loads(out)["tokenizers"].values()
    assert [t["id"] for t in tokens] == tok.encode("the cat").ids
    assert "".join(bytes.fromhex(t["bytes"]).decode() for t in tokens) == "the cat"
    assert [(t["start"], t["end"]) for t in tokens] == [
        tuple(o) for o in tok.encode("the cat").offsets]
