"""The tokenizer catalog, spec parsing, file detection and the list/fetch/info commands.

No network: PyPI downloads are either not needed or refused (offline mode).
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests._needs import shared_dir
from tokbench import cli
from tokbench.errors import InputError, UnknownNameError
from tokbench.loading.catalog import (
    TOKENIZERS,
    CatalogEntry,
    all_pypi_files,
    entries,
    get_adapter,
    get_entry,
)
from tokbench.loading.loader import detect_file, load_tokenizer, parse_tokenizer_spec, recipes_for
from tokbench.loading.sources import BuiltinSource, HubSource, LocalSource, PypiFile, TiktokenSource

PYPI_FIRST = ["gpt2", "p50k_base", "cl100k_base", "o200k_base", "llama-2", "llama-3",
              "xlm-roberta", "mistral-v1", "mistral-tekken", "qwen3", "bert-base-uncased"]
#: the "More sources" rows: entry -> the table's name cell (first word)
MORE = {"mbert": "mbert", "japanese-bert": "cl-tohoku", "xlm-roberta-spm": "xlm-roberta,",
        "t5": "t5", "gemma-3": "gemma-3", "deepseek-v3": "deepseek-v3", "glm-4": "glm-4",
        "whisper-multilingual": "whisper-multilingual"}
HUB_ONLY = {"mt5": "google/mt5-base"}


def _sources_table(more: bool = False) -> dict[str, dict[str, Any]]:
    """The verified rows of shared/tokenizer-sources.md: name -> dist, version, member, sha.

    The first table, or with ``more`` the "More sources" table.
    """
    rows: dict[str, dict[str, Any]] = {}
    last: tuple[str, str] | None = None
    text = (shared_dir() / "tokenizer-sources.md").read_text(encoding="utf-8")
    first, _, rest = text.partition("## More sources")
    for line in (rest if more else first).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") \
            else []
        if len(cells) < 5 or cells[0] in ("name", "---"):
            continue
        dist = re.match(r"([\w.-]+)==([\w.]+)", cells[1])
        if dist:
            last = (dist.group(1), dist.group(2))
        sha = re.search(r"\b[0-9a-f]{64}\b", cells[3])
        if sha is None or last is None or cells[0].startswith("("):
            continue
        rows[cells[0].split()[0]] = {"dist": last[0], "version": last[1],
                                     "member": cells[2].split()[0], "sha256": sha.group(0),
                                     "gunzip": "(gunzip)" in cells[2]}
    return rows


# -- the catalog ---------------------------------------------------------------------------


def test_catalog_has_exactly_the_named_tokenizers() -> None:
    assert TOKENIZERS.names() == [*PYPI_FIRST, "mbert", "japanese-bert", "xlm-roberta-spm", "t5",
                                  "gemma-3", "deepseek-v3", "glm-4", "whisper-multilingual",
                                  *HUB_ONLY, "bytes", "chars"]


@pytest.mark.needs("shared")
@pytest.mark.real  # reads shared/tokenizer-sources.md
def test_pypi_pins_match_the_verified_source_list() -> None:
    table = _sources_table()
    assert set(table) == {*PYPI_FIRST, "qwen2"} - {"qwen3"}  # the table's "qwen2" is Qwen3's
    for name, row in table.items():
        first = get_entry(name).recipes[0].source
        assert isinstance(first, PypiFile), name
        assert (first.dist, first.version, first.member, first.sha256, first.gunzip) == (
            row["dist"], row["version"], row["member"], row["sha256"], row["gunzip"]), name


@pytest.mark.needs("shared")
@pytest.mark.real  # reads shared/tokenizer-sources.md
def test_more_sources_pin_the_listed_hashes() -> None:
    """Each "More sources" row's sha256 is what the entry's source must yield: the file
    itself, the rebuilt file of a derived source, or the main file of a folder."""
    from tokbench.loading.derived import DerivedFile
    from tokbench.loading.sources import FolderSource

    table = _sources_table(more=True)
    assert set(table) == {*MORE.values(), "qwen3"}
    for name, row in MORE.items():
        source = next(r.source for r in get_entry(name).recipes
                      if isinstance(r.source, (PypiFile, DerivedFile, FolderSource)))
        assert source.sha256 == table[row]["sha256"], name
        first = source.inputs[0] if isinstance(source, DerivedFile) else source
        if isinstance(first, PypiFile):
            listed = table[row]["dist"].replace("part1..4", "part1")  # "part1..4": four wheels
            assert (first.dist, first.version) == (listed, table[row]["version"])
    assert get_entry("qwen3").recipes[0].source.sha256 == table["qwen3"]["sha256"]


def test_archive_kinds() -> None:
    sdists = {f.dist for f in all_pypi_files() if f.archive == "sdist"}
    assert sdists == {"openai-whisper", "llama-cpp-python", "stable-diffusion-cpp-python"}


def test_large_entries_stay_out_of_bulk_fetches() -> None:
    assert [e.name for e in entries() if e.large] == ["gemma-3"]
    assert not any(f.dist.startswith("gemma3") for f in all_pypi_files())
    parts = [f for f in all_pypi_files(large=True) if f.dist.startswith("gemma3")]
    assert len(parts) == 4 and len({f.archive_key for f in parts}) == 4


@pytest.mark.parametrize("name,adapter,options", [
    ("gpt2", "tiktoken", {"preset": "r50k_base"}),
    ("p50k_base", "tiktoken", {"preset": "p50k_base"}),
    ("cl100k_base", "tiktoken", {"preset": "cl100k_base"}),
    ("o200k_base", "tiktoken", {"preset": "o200k_base"}),
    ("llama-3", "tiktoken", {"preset": "llama-3"}),
    ("llama-2", "gguf", {}),
    ("bert-base-uncased", "gguf", {}),
    ("xlm-roberta", "tokenizers", {}),
    ("qwen3", "tokenizers", {}),
    ("mistral-v1", "sentencepiece", {}),
    ("mistral-tekken", "tekken", {}),
])
def test_pypi_entries_declare_their_adapter(name: str, adapter: str,
                                            options: dict[str, str]) -> None:
    entry = get_entry(name)
    assert entry.adapter == adapter
    assert dict(entry.recipes[0].options) == options
    assert len(entry.recipes) == 2
    fallback = entry.recipes[1].source
    assert isinstance(fallback, TiktokenSource if adapter == "tiktoken" and name != "llama-3"
                      else HubSource)


def test_tiktoken_fallbacks_pin_the_same_file() -> None:
    for name in ("gpt2", "p50k_base", "cl100k_base", "o200k_base"):
        pypi, tik = (r.source for r in get_entry(name).recipes)
        assert isinstance(pypi, PypiFile) and isinstance(tik, TiktokenSource)
        assert tik.sha256 == pypi.sha256
    assert get_entry("gpt2").recipes[1].source == TiktokenSource(
        "r50k_base", "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930")
    llama3_pypi, llama3_hub = (r.source for r in get_entry("llama-3").recipes)
    assert isinstance(llama3_pypi, PypiFile)
    assert llama3_hub == HubSource("meta-llama/Meta-Llama-3-8B", "original/tokenizer.model",
                                   sha256=llama3_pypi.sha256)


def test_hub_only_entries() -> None:
    for name, repo in HUB_ONLY.items():
        (recipe,) = get_entry(name).recipes
        assert recipe.source == HubSource(repo) and recipe.adapter == "transformers"
    hub, folder = get_entry("japanese-bert").recipes
    assert hub.source == HubSource("cl-tohoku/bert-base-japanese-v3")
    assert folder.source.describe() == (
        "folder $TOKBENCH_TOKENIZER_DIR/cl-tohoku-bert-base-japanese-v3")


@pytest.mark.parametrize("name,recipe,adapter,options,fallback", [
    ("mbert", "blingfire-vocab", "wordpiece", {}, "google-bert/bert-base-multilingual-cased"),
    ("t5", "c-byte-array", "tokenizers", {}, "google/flan-t5-base"),
    ("gemma-3", "concat", "gguf", {}, "google/gemma-3-270m"),
    ("deepseek-v3", "unzip", "tokenizers", {}, "deepseek-ai/DeepSeek-V3"),
    ("glm-4", "unzip", "tokenizers", {}, None),
])
def test_derived_entries(name: str, recipe: str, adapter: str, options: dict[str, Any],
                         fallback: str | None) -> None:
    from tokbench.loading.derived import DerivedFile

    entry = get_entry(name)
    first = entry.recipes[0]
    assert isinstance(first.source, DerivedFile) and first.source.recipe == recipe
    assert (first.adapter, dict(first.options)) == (adapter, options)
    assert first.source.size == entry.size
    hubs = [r.source.repo_id for r in entry.recipes[1:] if isinstance(r.source, HubSource)]
    assert hubs == ([fallback] if fallback else [])


def test_baselines_are_entries() -> None:
    assert get_entry("bytes").recipes[0].source == BuiltinSource("bytes")
    assert get_entry("chars").vocab_size == 0x110000


def test_every_adapter_kind_resolves() -> None:
    for entry in entries():
        for recipe in entry.recipes:
            assert callable(get_adapter(recipe.adapter)), (entry.name, recipe.adapter)


def test_one_llama_cpp_download_serves_every_file_from_it() -> None:
    llama_cpp = [f for f in all_pypi_files() if f.dist == "llama-cpp-python"]
    members = {f.member.rsplit("/", 1)[1] for f in llama_cpp}
    assert {"ggml-vocab-llama-spm.gguf", "ggml-vocab-bert-bge.gguf",
            "ggml-vocab-llama-spm.gguf.out", "ggml-vocab-bert-bge.gguf.inp"} <= members
    assert len({f.archive_key for f in llama_cpp}) == 1


@pytest.mark.parametrize("alias,name", [
    ("r50k_base", "gpt2"), ("llama2", "llama-2"), ("llama3", "llama-3"), ("t5-base", "t5"),
    ("google-t5/t5-base", "t5"), ("google/mt5-base", "mt5"), ("cl100k", "cl100k_base"),
    ("bert-base-multilingual-cased", "mbert"), ("cl-tohoku/bert-base-japanese-v3", "japanese-bert"),
    ("xlm-roberta-base", "xlm-roberta"), ("tekken", "mistral-tekken"), ("gpt-4o", "o200k_base"),
    ("qwen2", "qwen3"), ("qwen2.5", "qwen3"), ("xlmr-spm", "xlm-roberta-spm"),
    ("gemma3", "gemma-3"), ("whisper", "whisper-multilingual"), ("flan-t5", "t5"),
])
def test_aliases(alias: str, name: str) -> None:
    assert get_entry(alias).name == name
    assert parse_tokenizer_spec(alias).value == name


# -- specs ---------------------------------------------------------------------------------


def test_parse_spec_kinds(tmp_path: Path) -> None:
    assert parse_tokenizer_spec("gpt2").kind == "catalog"
    spec = parse_tokenizer_spec("tiktoken:cl100k_base")
    assert (spec.kind, spec.value, spec.display_name) == ("tiktoken", "cl100k_base",
                                                          "tiktoken:cl100k_base")
    spec = parse_tokenizer_spec("hf:FacebookAI/xlm-roberta-base@e73636d")
    assert (spec.kind, spec.value, spec.revision) == ("hf", "FacebookAI/xlm-roberta-base",
                                                      "e73636d")
    assert parse_tokenizer_spec("hf:gpt2").revision is None
    assert parse_tokenizer_spec("file:/no/such/tokenizer.json").kind == "file"
    f = tmp_path / "tok.model"
    f.write_bytes(b"\x0a")
    parsed = parse_tokenizer_spec(str(f))
    assert parsed == parsed.__class__("file", str(f), None, str(f))


@pytest.mark.parametrize("bad", ["", "hf:", "hf:a/b/c", "hf:org/name@", "tiktoken:", "file:"])
def test_malformed_specs(bad: str) -> None:
    with pytest.raises(InputError):
        parse_tokenizer_spec(bad)


@pytest.mark.parametrize("typo,suggestion", [
    ("gtp2", "gpt2"), ("cl100k-base", "cl100k_base"), ("lama-3", "llama-3"),
    ("xlmroberta", "xlm-roberta"), ("o200k_bas", "o200k_base"),
    ("mistral-tekkan", "mistral-tekken"), ("gpt4o", "gpt-4o"),
])
def test_unknown_names_suggest(typo: str, suggestion: str) -> None:
    with pytest.raises(UnknownNameError) as e:
        parse_tokenizer_spec(typo)
    assert suggestion in e.value.suggestions
    assert f"did you mean {suggestion!r}" in str(e.value) or repr(suggestion) in str(e.value)
    assert "tiktoken:NAME, hf:ORG/NAME[@REV] or file:PATH" in str(e.value)


def test_hub_looking_name_without_prefix_hints_hf() -> None:
    with pytest.raises(InputError, match=r"write hf:someone/some-model$"):
        parse_tokenizer_spec("someone/some-model")


def test_tiktoken_spec_uses_the_pinned_catalog_recipe() -> None:
    name, (recipe,) = recipes_for(parse_tokenizer_spec("tiktoken:cl100k_base"))
    assert name == "tiktoken:cl100k_base"
    pinned = get_entry("cl100k_base").recipes[0].source
    assert isinstance(pinned, PypiFile)
    assert recipe.source == TiktokenSource("cl100k_base", pinned.sha256)
    assert recipe.options == {"preset": "cl100k_base"}
    _, (other,) = recipes_for(parse_tokenizer_spec("tiktoken:o200k_harmony"))
    assert other.source == TiktokenSource("o200k_harmony") and other.options == {}


def test_hf_spec_loads_the_repo_with_transformers() -> None:
    name, (recipe,) = recipes_for(parse_tokenizer_spec("hf:google/mt5-small@main"))
    assert name == "hf:google/mt5-small@main"
    assert recipe.source == HubSource("google/mt5-small", None, "main")
    assert recipe.adapter == "transformers"


WORDLEVEL_JSON: dict[str, Any] = {
    "version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
    "normalizer": None, "pre_tokenizer": {"type": "Whitespace"}, "post_processor": None,
    "decoder": None,
    "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "hello": 1, "world": 2},
              "unk_token": "[UNK]"}}


# -- what a file is ---------------------------------------------------------------------------


def test_detect_files_by_content(tmp_path: Path) -> None:
    def put(name: str, data: bytes) -> Path:
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        return p

    ranks = b"IQ== 0\nIg== 1\nIw== 2\n"
    assert detect_file(put("tokenizer.json", b'{"version": "1.0", "model": {}}'))[1] == "tokenizers"
    assert detect_file(put("tekken.json", b'{"config": {"default_num_special_tokens": 1000}}'))[1] \
        == "tekken"
    assert detect_file(put("llama3/tokenizer.model", ranks))[1] == "tiktoken"  # by content
    assert detect_file(put("sp.model", b"\x0a\x09\x0a\x05<unk>"))[1] == "sentencepiece"
    assert detect_file(put("x.tiktoken", ranks))[1] == "tiktoken"
    assert detect_file(put("x.tiktoken.gz", gzip.compress(ranks)))[1] == "tiktoken"
    assert detect_file(put("vocab.gguf", b"GGUF\x03\x00\x00\x00"))[1] == "gguf"
    # folders
    assert detect_file(tmp_path / "llama3") == (tmp_path / "llama3" / "tokenizer.model", "tiktoken")
    put("hfdir/tokenizer.json", b"{}")
    assert detect_file(tmp_path / "hfdir") == (tmp_path / "hfdir" / "tokenizer.json", "tokenizers")
    put("hfdir/tokenizer_config.json", b"{}")
    assert detect_file(tmp_path / "hfdir") == (tmp_path / "hfdir", "transformers")
    with pytest.raises(InputError, match="empty file"):
        detect_file(put("empty.model", b""))
    with pytest.raises(InputError, match="not a tokenizer file"):
        detect_file(put("notes.txt", b"just some words\n"))
    with pytest.raises(InputError, match="gunzip it first"):
        detect_file(put("other.gz", gzip.compress(b"just words")))
    with pytest.raises(InputError, match="folder holds no tokenizer file"):
        detect_file(put("emptydir/readme.md", b"x").parent)


def test_load_a_tokenizer_json_file(tmp_path: Path) -> None:
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(WORDLEVEL_JSON), encoding="utf-8")
    tok = load_tokenizer(f"file:{path}")
    assert tok.name == f"file:{path}"
    assert tok.encode("hello world") == [1, 2]
    assert tok.source.kind == "file" and tok.source.path == str(path)
    from tokbench.hashing import sha256_file

    assert tok.source.sha256 == sha256_file(path)
    assert load_tokenizer(f"file:{path}") is tok  # memoized


def test_load_a_transformers_folder(tmp_path: Path) -> None:
    (tmp_path / "tokenizer.json").write_text(json.dumps(WORDLEVEL_JSON), encoding="utf-8")
    (tmp_path / "tokenizer_config.json").write_text(
        json.dumps({"tokenizer_class": "PreTrainedTokenizerFast", "unk_token": "[UNK]"}),
        encoding="utf-8")
    tok = load_tokenizer(str(tmp_path))
    assert tok.backend == "transformers"
    assert tok.encode("world hello") == [2, 1]
    assert tok.source.kind == "file" and tok.source.path == str(tmp_path)


def test_baselines_load_without_fetching(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: pytest.fail("pip called"))
    tok = load_tokenizer("bytes")
    assert tok.encode("añ") == [97, 0xC3, 0xB1]
    assert tok.source.kind == "builtin" and tok.source.location == "builtin:bytes"
    assert load_tokenizer("byte") is tok
    assert load_tokenizer("chars").encode("añ") == [97, 0xF1]


def test_local_source_recipe(tmp_path: Path) -> None:
    p = tmp_path / "m.gguf"
    p.write_bytes(b"GGUF")
    _, (recipe,) = recipes_for(parse_tokenizer_spec(f"file:{p}"))
    assert recipe.source == LocalSource(str(p)) and recipe.adapter == "gguf"


# -- the CLI ---------------------------------------------------------------------------------


@pytest.fixture
def empty_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TOKBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("TOKBENCH_OFFLINE", "1")
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: pytest.fail("pip called offline"))
    return tmp_path / "cache"


def test_list_tokenizers(empty_cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["list", "tokenizers"]) == 0
    out = capsys.readouterr().out
    for entry in entries():
        assert entry.name in out and f"{entry.vocab_size:,}" in out
    assert "pypi openai-whisper==20250625 (0.8 MB)" in out and "hub google/mt5-base" in out
    assert str(empty_cache) in out
    rows = {ln.split()[1]: ln for ln in out.splitlines() if ln.startswith("│ ") and
            len(ln.split()) > 1 and ln.split()[1] in TOKENIZERS.names()}
    assert "253.1 MB" in rows["gemma-3"] and "PyPI" in rows["gemma-3"]
    assert "pypi blingfire==0.1.8 (42 MB), blingfire-vocab" in rows["mbert"]
    assert "hub only" in rows["mt5"] and "hub only" in rows["japanese-bert"]
    assert "built in" in rows["bytes"] and "PyPI" in rows["gpt2"]


def test_list_shows_cached_files(empty_cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gpt2: CatalogEntry = get_entry("gpt2")
    first = gpt2.recipes[0].source
    assert isinstance(first, PypiFile)
    path = first.cache_path(empty_cache)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"x")
    assert cli.main(["list"]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if " gpt2 " in ln)
    assert "cached (pypi)" in line


def test_list_metrics_and_unknown_kind(empty_cache: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["list", "metrics"]) == 0
    assert "bytes_per_token" in capsys.readouterr().out
    assert cli.main(["list", "tokenizer"]) == 0
    capsys.readouterr()
    assert cli.main(["list", "tokenisers"]) == 2
    err = capsys.readouterr().err
    assert "unknown kind 'tokenisers'; did you mean 'tokenizers'" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_list_suites(empty_cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tokbench.suites import SUITES

    assert cli.main(["list", "suites"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in SUITES.names())


def test_fetch_reports_each_failure_and_exits_1(empty_cache: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["fetch", "bytes", "gpt2", "mt5"]) == 1
    out = capsys.readouterr().out
    assert "✓ bytes  built in, nothing to fetch" in out
    gpt2 = next(ln for ln in out.splitlines() if "gpt2" in ln)
    assert gpt2.startswith("✗ gpt2  failed: could not get tokenizer 'gpt2': tried 2 sources: ")
    assert "[1] PyPI openai-whisper==20250625 (sdist) whisper/assets/gpt2.tiktoken" in gpt2
    assert "[2] tiktoken r50k_base: tiktoken:r50k_base: not cached (offline mode)" in gpt2
    assert "✗ mt5  failed: hub google/mt5-base" in out
    assert "2 of 3 failed" in out


def test_fetch_checks_names_first(empty_cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["fetch", "bytes", "gtp2"]) == 2
    captured = capsys.readouterr()
    assert "bytes" not in captured.out  # nothing fetched before the bad name was reported
    assert "unknown tokenizer 'gtp2'; did you mean 'gpt2'" in captured.err
    assert cli.main(["fetch"]) == 2
    assert "--all" in capsys.readouterr().err


def test_fetch_all_leaves_large_entries(empty_cache: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    from tokbench.cli import fetching

    asked: list[list[str]] = []
    monkeypatch.setattr(fetching, "fetch_with_progress", lambda names: asked.append(names) or [])
    assert cli.main(["fetch", "--all"]) == 0
    assert "gemma-3" not in asked[0] and "glm-4" in asked[0]
    assert "skipped gemma-3 (253 MB) with --all: fetch it by name" in capsys.readouterr().out
    assert cli.main(["fetch", "--all", "gemma-3"]) == 0
    assert "gemma-3" in asked[1]


def test_info_of_a_baseline(empty_cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["info", "bytes"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"vocab size\s+256\b", out)
    assert re.search(r"unknown token\s+none", out)
    assert re.search(r"source\s+builtin: builtin:bytes", out)
    # the 128 bytes 0x80-0xFF are single bytes, not fragments; every byte is reachable
    assert re.search(r"UTF-8 fragments\s+0\b", out)
    assert re.search(r"single bytes\s+128\b", out)
    assert re.search(r"unreachable\s+0\b", out)


def test_user_errors_keep_their_brackets(empty_cache: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["info", "gtp2"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == ("tokbench: error: unknown tokenizer 'gtp2'; did you mean 'gpt2' or "
                           "'gpt-2'? (or give tiktoken:NAME, hf:ORG/NAME[@REV] or file:PATH)")


def test_prefetch_for_run_is_silent_offline(empty_cache: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    from tokbench.cli.fetching import fetch_with_progress

    assert fetch_with_progress(["gpt2", "mt5"], quiet_cached=True) == []
    assert capsys.readouterr().out == ""
    with pytest.raises(UnknownNameError):
        fetch_with_progress(["gtp2"], quiet_cached=True)


def test_unknown_name_without_close_match_lists_names_not_aliases() -> None:
    with pytest.raises(UnknownNameError) as e:
        parse_tokenizer_spec("zzz")
    assert "known tokenizers: bert-base-uncased, bytes, chars, cl100k_base, deepseek-v3," \
        in str(e.value)
    assert "xlmr" not in str(e.value)


def test_no_fetch_does_not_leak_offline_mode_out_of_the_command(monkeypatch):
    from tokbench.cli import main
    from tokbench.loading.sources import OFFLINE_ENV

    monkeypatch.delenv(OFFLINE_ENV, raising=False)
    main(["show", "ab", "-t", "bytes", "--json", "--no-fetch"])
    assert OFFLINE_ENV not in os.environ
