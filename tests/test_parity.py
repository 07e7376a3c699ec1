"""tokbench parity: the delta-debugging minimizer, the classes, and whole runs with fake
implementations that differ, raise or hang on chosen documents (exact counts)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests._needs import need_module
from tokbench.adapters.base import Tokenizer
from tokbench.loading.loader import load_tokenizer
from tokbench.parity.diff import classify, common_ends, matched_tokens
from tokbench.parity.minimize import minimize
from tokbench.parity.run import parity, reproducer

# -- the minimizer ------------------------------------------------------------------------


def test_minimize_finds_the_trigger() -> None:
    assert minimize("xxxx\u0bbf yyyy", lambda s: "\u0bbf " in s) == "\u0bbf "
    assert minimize("abc", lambda s: False) is None


def test_minimize_shortest_not_just_one_minimal() -> None:
    # "ab" anywhere, or "zzz...": the one-end cuts could stop at a longer 1-minimal string
    text = "q" * 30 + "zzzz" + "q" * 5 + "ab" + "q" * 20
    assert minimize(text, lambda s: "ab" in s or "zzzz" in s) == "ab"


def test_minimize_keeps_the_anchor() -> None:
    text = "ab....cd"
    assert minimize(text, lambda s: "ab" in s or "cd" in s, anchor=7) == "cd"


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=40), st.text(min_size=1, max_size=4), st.text(max_size=40))
def test_minimize_property(left: str, trigger: str, right: str) -> None:
    text = left + trigger + right
    found = minimize(text, lambda s: trigger in s)
    assert found is not None and trigger in found and found in text
    assert len(found) == len(trigger)


# -- classes ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cl100k() -> Tokenizer:
    """The real cl100k_base (tests using it are marked ``real``)."""
    return load_tokenizer("cl100k_base")


@pytest.mark.real
def test_classes(cl100k: Tokenizer) -> None:
    enc = cl100k.encode
    hello, world = enc("Hello"), enc(" world")
    assert (hello, world) == ([9906], [1917])
    assert classify(hello + world, [100257, *hello, *world], cl100k) == "special tokens added"
    assert classify(enc("a "), enc("a"), cl100k) == "whitespace"
    assert classify(enc("é"), enc("e\u0301"), cl100k) == "normalization"
    # same bytes: a boundary between a space and a letter, or inside a run of letters
    assert classify(hello + world, hello + enc(" ") + enc("world"), cl100k) \
        == "pre-tokenizer split"
    ello = enc("ello")
    assert len(ello) == 1
    assert classify(hello, enc("H") + ello, cl100k) == "merge order"


def test_aligned_tokens() -> None:
    assert common_ends([1, 2, 3, 4], [1, 9, 4]) == (1, 1)
    assert matched_tokens([1, 2, 3, 4, 5], [1, 2, 7, 4, 5]) == 4
    assert matched_tokens([1, 2], [1, 2]) == 2
    assert matched_tokens([1, 2, 3], []) == 0


# -- whole runs with fake implementations ---------------------------------------------------------


class Fake(Tokenizer):
    """cl100k_base, except: a document holding ``trigger`` gets a changed encoding, one
    holding ``boom`` raises, one holding ``hang`` sleeps."""

    backend = "fake"

    def __init__(self, ref: Tokenizer, name: str, trigger: str = "\u0bbf ",
                 boom: str = "\x00boom", hang: str = "\x00hang", sleep: float = 3.0) -> None:
        super().__init__(name, ref.source)
        self.ref, self.trigger, self.boom, self.hang, self.sleep = ref, trigger, boom, hang, sleep

    @property
    def vocab_size(self) -> int:
        return self.ref.vocab_size

    def encode(self, text: str) -> list[int]:
        if self.boom in text:
            raise ValueError("kaput")
        if self.hang in text:
            time.sleep(self.sleep)
        if self.trigger in text:  # a special token where the trigger starts
            k = text.index(self.trigger)
            return [*self.ref.encode(text[:k]), 100257, *self.ref.encode(text[k:])]
        return self.ref.encode(text)

    def decode(self, ids: Sequence[int]) -> str:
        return self.ref.decode([i for i in ids if i != 100257])

    def token_bytes(self, token_id: int) -> bytes:
        return self.ref.token_bytes(token_id)

    def backend_version(self) -> str:
        return "0"


def _corpus(tmp: Path, lines: list[str]) -> str:
    path = tmp / "docs.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return f"text:{path}"


@pytest.mark.real
def test_parity_counts_and_reproducer(cl100k: Tokenizer, tmp_path: Path) -> None:
    suite = _corpus(tmp_path, ["plain text one", "அவர்கள் கிடைக்கின்றன வி\u0bbf மற்றும்",
                               "plain text two", "more words here"])
    fake = Fake(cl100k, "cl100k_base@fake")
    results = parity(cl100k, [fake], [suite], speed=None, time_limit=0)
    value = {(r.metric): r.value for r in results.rows if r.subset == "all"}
    assert value["differing_docs"] == 1
    assert value["identical_docs"] == 3 / 4
    assert value["decode_parity"] == 1.0
    ref_tokens = sum(len(cl100k.encode(t)) for t in
                     ["plain text one", "அவர்கள் கிடைக்கின்றன வி\u0bbf மற்றும்", "plain text two",
                      "more words here"])
    # the fake splits the text at the trigger: count the reference tokens it kept
    doc = "அவர்கள் கிடைக்கின்றன வி\u0bbf மற்றும்"
    kept = matched_tokens(cl100k.encode(doc), fake.encode(doc))
    assert value["identical_tokens"] == (ref_tokens - len(cl100k.encode(doc)) + kept) / ref_tokens
    (diff,) = [f for f in results.failures if f.reference]
    assert diff.kind == "special tokens added"
    assert diff.reproducer == "\u0bbf "
    assert diff.reproducer_ids == [100257, *cl100k.encode("\u0bbf ")]
    assert diff.reproducer_reference_ids == cl100k.encode("\u0bbf ")
    assert diff.around is not None and [100257, "<|endoftext|>"] in [
        list(x) for x in diff.around["implementation"]]
    from tokbench.render.parity import render_parity_html, render_parity_markdown

    md = render_parity_markdown(results)
    assert "| cl100k_base@fake | no | 1/4 | 0 | " in md
    assert '`"\\u0bbf "`' in md  # the combining vowel sign shown escaped
    assert "special tokens added: 1" in md
    assert "&lt;|endoftext|&gt;" in render_parity_html(results)  # user text escaped


@pytest.mark.real
def test_a_raising_and_a_hanging_implementation_do_not_stop_the_run(
        cl100k: Tokenizer, tmp_path: Path) -> None:
    suite = _corpus(tmp_path, ["fine", "a \x00boom here", "b \x00hang here", "fine again"])
    fake = Fake(cl100k, "cl100k_base@fake", sleep=5.0)
    t0 = time.perf_counter()
    results = parity(cl100k, [fake], [suite], speed=None, time_limit=0.5)
    assert time.perf_counter() - t0 < 4.5  # the hanging call was abandoned after 0.5 s
    kinds = sorted((f.kind, str(f.doc_id)) for f in results.failures)
    assert [k for k, _ in kinds] == ["error", "timeout"]
    value = {r.metric: r.value for r in results.rows if r.subset == "all"}
    assert (value["failed_docs"], value["differing_docs"], value["identical_docs"]) == (2, 0, 1.0)


@pytest.mark.real
def test_reproducer_of_a_real_difference(cl100k: Tokenizer) -> None:
    """kitoken splits the text around special-token text: the shortest text showing it is
    a space and the whole special token."""
    need_module("kitoken", "pip install 'tokbench[fast]'")
    kit = load_tokenizer("cl100k_base@kitoken")
    text = "Some prose, then Hello <|endoftext|> world, and more prose after it."
    rep = reproducer(cl100k, kit, text, text.index("<|"))
    assert rep == " <|endoftext|>"
    assert kit.encode(rep) == [220, 27, 91, 8862, 728, 428, 91, 29]
    assert cl100k.encode(rep) == [83739, 8862, 728, 428, 91, 29]


class _StopsAfterOne:
    """The serial executor, interrupted (as by Ctrl-C) after its first shard."""

    workers = 1

    def __init__(self) -> None:
        from tokbench.engine.executors import SerialExecutor

        self.inner = SerialExecutor()
        self.shards = 0

    def start(self, *args: object) -> None:
        self.inner.start(*args)  # type: ignore[arg-type]

    def map(self, tasks):  # type: ignore[no-untyped-def]
        for r in self.inner.map(tasks):
            self.shards += 1
            yield r
            raise KeyboardInterrupt

    def close(self) -> None:
        pass


@pytest.mark.real
def test_an_interrupted_run_resumes_from_its_checkpoint(cl100k: Tokenizer,
                                                         tmp_path: Path) -> None:
    # a text suite streams in shards of 2 MB: this corpus has two
    lines = [f"line {i} with some words and a number {i * 7}" for i in range(60000)]
    lines[20] += " \u0bbf here"
    suite = _corpus(tmp_path, lines)
    fake = Fake(cl100k, "cl100k_base@fake")
    state = tmp_path / "state.json"
    first = _StopsAfterOne()
    with pytest.raises(KeyboardInterrupt):
        parity(cl100k, [fake], [suite], speed=None, time_limit=0, state=state, executor=first)
    assert state.is_file() and first.shards == 1
    from tokbench.engine.executors import SerialExecutor

    counted: list[int] = []

    class Counting(SerialExecutor):
        def map(self, tasks):  # type: ignore[no-untyped-def]
            for r in super().map(tasks):
                counted.append(r.index)
                yield r

    results = parity(cl100k, [fake], [suite], speed=None, time_limit=0, state=state,
                     executor=Counting())
    assert counted == [1]  # the finished shard was not run again
    value = {r.metric: r.value for r in results.rows if r.subset == "all"}
    assert (value["differing_docs"], value["identical_docs"]) == (1, 59999 / 60000)
    assert not state.exists()  # removed once the run is complete


@pytest.mark.real
def test_drift_between_two_tokenizers_versions(tmp_path: Path) -> None:
    """Each version in its own environment (built with pip once, then cached)."""
    from tokbench.parity.drift import drift, env_tokenizer

    old = env_tokenizer("xlm-roberta", "tokenizers", "0.19.1")
    assert old.backend_version() == "0.19.1"
    assert old.encode("Hello world") == [35378, 8999]
    old.close()
    suite = _corpus(tmp_path, ["Hello world", "தொடர்பு ", "naïve café"])
    results = drift("xlm-roberta", "tokenizers==0.19.1,tokenizers==0.23.3", [suite], speed=None,
                    jobs=1)
    assert results.meta.parity is not None
    assert results.meta.parity["reference"] == "xlm-roberta@tokenizers==0.19.1"
    value = {r.metric: r.value for r in results.rows if r.subset == "all"}
    assert (value["differing_docs"], value["identical_docs"]) == (0, 1.0)
