"""The package's shape, read from its imports: layers import downwards only, commands
import the core and never each other, renderers never touch a tokenizer, no cycles."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "tokbench"

#: each top-level part of the package and its layer; a module imports only from its own
#: layer or below (the package root's lazy public API may import anything)
LAYERS = {
    "version": 0, "constants": 0, "errors": 0, "paths": 0, "environment": 0, "atomic": 0,
    "registry": 0, "record": 0, "results": 0, "jsontext": 0, "timing": 0, "events": 0, "hashing": 0,
    "adapters": 1, "suites": 1,
    "metrics": 2, "loading": 2,
    "engine": 3, "families": 3, "speed": 3, "training": 3, "parity": 3,
    "ci": 4,
    "render": 5,
    "cli": 6,
    "commands": 7,
    "__main__": 8,
}
#: what renderers may never import: anything that loads or runs a tokenizer
NOT_FOR_RENDERERS = ("adapters", "loading", "engine", "speed")


def _modules() -> dict[str, set[str]]:
    """module -> the tokbench modules it imports (at any depth of the code)."""
    out: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        name = ".".join(("tokbench", *parts)).removesuffix(".__init__")
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                if node.module.split(".")[0] == "tokbench":
                    found.add(node.module)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name.split(".")[0] == "tokbench")
        out[name] = found
    return out


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


MODULES = _modules()


def test_every_part_of_the_package_has_a_layer() -> None:
    parts = {_part(m) for m in MODULES} - {""}
    assert parts <= set(LAYERS), sorted(parts - set(LAYERS))


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _part(m)))
def test_imports_go_downwards(module: str) -> None:
    layer = LAYERS[_part(module)]
    upward = [m for m in MODULES[module] if m == "tokbench" or LAYERS[_part(m)] > layer]
    assert not upward, f"{module} imports {upward} from a higher layer"


def test_commands_never_import_each_other() -> None:
    bad = [(m, i) for m, imports in MODULES.items() if _part(m) == "commands"
           for i in imports if _part(i) == "commands" and i != "tokbench.commands"]
    assert not bad


def test_renderers_never_touch_a_tokenizer() -> None:
    bad = [(m, i) for m, imports in MODULES.items() if _part(m) == "render"
           for i in imports if _part(i) in NOT_FOR_RENDERERS]
    assert not bad


def test_no_import_cycles() -> None:
    graph = {m: {i for i in imports if i in MODULES} for m, imports in MODULES.items()}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                raise AssertionError("import cycle: " + " -> ".join(
                    [*stack[stack.index(n):], n]))
            if n not in state:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)


def test_tests_import_helpers_one_way() -> None:
    """``from tests._toy import X``, never ``from _toy import X`` (see tests/conftest.py)."""
    tests = Path(__file__).resolve().parent
    helpers = {p.stem for p in tests.glob("_*.py")}
    bad = []
    for path in tests.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            bad += [f"{path.name}:{node.lineno}" for n in names if n.split(".")[0] in helpers]
            if isinstance(node, ast.ImportFrom) and node.module == "tests":
                bad += [f"{path.name}:{node.lineno}"]  # from tests import _toy
    assert helpers and not bad, bad


#: metric names that may still appear as string literals outside ``tokbench/metrics``, and
#: why. Formats, summaries and setting scopes are read from ``MetricInfo``; what is left
#: is a field, setting or family that shares a metric's name, or a view drawn for one
#: named metric. The list only shrinks: a new literal is a fact kept in a second place.
METRIC_LITERALS_ALLOWED: dict[str, set[str]] = {
    # tokenizer facts (TokenizerInfo fields, catalog and file keys) named like metrics
    "adapters/base.py": {"special_tokens", "byte_fallback", "vocab_size"},
    "adapters/gguf_adapter.py": {"byte_fallback"},
    "adapters/hf_tokenizers.py": {"byte_fallback"},
    "adapters/sentencepiece_adapter.py": {"byte_fallback"},
    "adapters/tiktoken_adapter.py": {"special_tokens"},
    "loading/catalog.py": {"vocab_size"},
    "loading/tiktoken_source.py": {"special_tokens"},
    "record.py": {"byte_fallback", "vocab_size"},
    "training/train.py": {"special_tokens", "vocab_size"},
    "parity/drift.py": {"vocab_size", "byte_fallback", "special_tokens"},
    # plot file names of a folder written by tokbench before output markers (frozen)
    "cli/outdir.py": {"premium", "bytes_per_token"},
    # the fertility setting, the premium family
    "cli/config.py": {"fertility"},
    "commands/run.py": {"fertility"},
    "engine/presets.py": {"roundtrip", "premium", "fertility"},
    "commands/recommend.py": {"roundtrip"},
    # the rows of the families that add their own (the premium family is named as its metric)
    "families/__init__.py": {"premium"},
    "families/premium.py": {"premium"},
    "families/throughput.py": {"throughput_mb_s", "throughput_tokens_s"},
    # documents that newly fail to round-trip are named on the round-trip rows
    "ci/compare.py": {"roundtrip"},
    "cli/pytest_plugin.py": {"roundtrip"},
    # views drawn for named metrics (a premium chart, a speed profile, sweep series)
    "render/plots.py": {"bytes_per_token", "premium", "fertility", "throughput_mb_s"},
    "render/speed.py": {"first_call_ms", "encode_mb_s", "rss_mb", "batch_mb_s", "encode_p50_us",
                        "threads_used", "scaling_exponent", "load_s", "import_s"},
    "render/sweep.py": {"bytes_per_token", "fertility"},
    "commands/bench.py": {"encode_mb_s", "rss_mb", "batch_mb_s", "encode_p99_us",
                          "encode_p50_us", "scaling_exponent", "load_s"},
    "commands/info.py": {"utf8_fragment_tokens", "unreachable_tokens", "single_byte_tokens"},
    # rows the speed family and the sweep emit and read by name
    "speed/rows.py": {"first_call_ms", "encode_mb_s", "rss_mb", "batch_mb_s", "threads_used",
                      "scaling_exponent", "load_s", "import_s"},
    "speed/threads.py": {"threads_used"},
    # the parity family's rows and its view (issue 19), read by name
    "parity/run.py": {"load_s", "encode_mb_s", "roundtrip"},
    "parity/shard.py": {"tokens", "roundtrip"},
    "render/parity.py": {"load_s", "encode_p99_us", "encode_mb_s", "tokens"},
    "training/law.py": {"tokens", "chars_per_token"},
    "training/sweep.py": {"vocab_size", "bytes_per_token", "premium", "fertility", "tokens",
                       "roundtrip"},
}


def test_metric_facts_are_read_from_the_metric_not_listed_by_name() -> None:
    """No metric name as a string literal outside ``tokbench/metrics`` beyond the
    allow-list: percent formats, summary lists and setting scopes come from MetricInfo."""
    from tokbench.metrics import METRICS

    names = set(METRICS.names())
    found: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith("metrics/"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        hits = {n.value for n in ast.walk(tree)
                if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in names}
        extra = hits - METRIC_LITERALS_ALLOWED.get(rel, set())
        if extra:
            found[rel] = extra
    assert not found, f"metric names listed outside tokbench/metrics: {found}"


#: facts written once in the package: each literal may appear in one module only
ONE_PLACE = {
    "TOKBENCH_OFFLINE": "loading/source_model.py",  # OFFLINE_ENV; the CLI sets it for --no-fetch
    ".tokbench-state.json": "engine/state.py",  # STATE_FILE
    "thread_cpu": "constants.py",  # THREAD_CPU
}


def test_shared_constants_are_written_in_one_module() -> None:
    where: dict[str, set[str]] = {k: set() for k in ONE_PLACE}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in where:
                where[node.value].add(rel)
    assert where == {k: {v} for k, v in ONE_PLACE.items()}


def test_default_tokenizer_and_suite_lists_are_defined_once() -> None:
    """Each default list has one name and one definition (commands import it)."""
    defined: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            literal = isinstance(getattr(node, "value", None), (ast.Tuple, ast.List, ast.Constant))
            targets = ([t.id for t in node.targets if isinstance(t, ast.Name)]
                       if isinstance(node, ast.Assign) and literal else
                       [node.target.id] if isinstance(node, ast.AnnAssign) and literal
                       and isinstance(node.target, ast.Name) else [])
            for name in targets:
                if name.endswith(("_TOKENIZERS", "_SUITES")) or name in ("STATE_FILE",):
                    defined.setdefault(name, []).append(path.relative_to(PACKAGE).as_posix())
    assert {k: v for k, v in defined.items() if len(v) > 1} == {}
    assert defined["DEFAULT_TOKENIZERS"] == ["engine/presets.py"]
    assert defined["BUILTIN_SUITES"] == ["suites/builtin.py"]
    assert "DEFAULT_SUITES" not in defined  # an alias of BUILTIN_SUITES, not a second list


def test_suites_in_memory_and_streamed_share_one_protocol() -> None:
    """The runner asks every suite the same questions (``RunnableSuite``); it never tells
    a streamed suite from an in-memory one by a flag."""
    from tokbench.suites.model import RunnableSuite, Suite
    from tokbench.suites.stream import StreamingSuite

    wanted = [n for n in vars(RunnableSuite) if not n.startswith("_")]
    assert {"plan_shards", "sample_documents", "after_reading"} <= set(wanted)
    for cls in (Suite, StreamingSuite):
        assert [n for n in wanted if not hasattr(cls, n) and n not in cls.__annotations__
                and n not in getattr(cls, "__dataclass_fields__", {})] == [], cls
    runner = (PACKAGE / "engine" / "runner.py").read_text(encoding="utf-8")
    assert '"streaming"' not in runner


#: engine modules that may name a family, and why (no module that runs one is listed)
FAMILY_LITERALS_ALLOWED: dict[str, set[str]] = {
    # the metrics of a --preset: a list of families is its data
    "engine/presets.py": {"compression", "fertility", "morph", "morph_sudachi", "robustness",
                          "premium", "unknown", "roundtrip", "throughput"},
    # a token of kind "unknown"; the morpheme view shown when the morph family ran
    "engine/viewer.py": {"unknown", "morph"},
    # the default morpheme scheme, named like its family
    "engine/segview.py": {"morph"},
}


def _family_literals(tree: ast.AST, families: set[str]) -> set[str]:
    """String constants in ``tree`` that name a family, other than dict keys (``"tokenizer"``
    keys a progress event's payload)."""
    keys = {id(k) for node in ast.walk(tree) if isinstance(node, ast.Dict)
            for k in node.keys if k is not None}
    return {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
            and isinstance(n.value, str) and n.value in families and id(n) not in keys}


def test_the_runner_never_tells_families_apart_by_name() -> None:
    """The runner calls every family's hooks (``tokbench.families.Family``); a family's own
    work lives in ``tokbench/families``, so no engine module names a family."""
    from tokbench.metrics import FAMILIES

    families = set(FAMILIES)
    assert {"numbers", "tokenizer", "premium", "throughput", "speed", "morph"} <= families
    found: dict[str, set[str]] = {}
    for path in sorted((PACKAGE / "engine").rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        hits = _family_literals(ast.parse(path.read_text(encoding="utf-8")), families)
        extra = hits - FAMILY_LITERALS_ALLOWED.get(rel, set())
        if extra:
            found[rel] = extra
    assert not found, f"families named in the engine: {found}"
    # the check sees a test by name, and not a payload key
    code = 'if "numbers" in fams: notify("unit", {"tokenizer": n})'
    assert _family_literals(ast.parse(code), families) == {"numbers"}
    runner = (PACKAGE / "engine" / "runner.py").read_text(encoding="utf-8")
    assert "hasattr(" not in runner  # a suite's kind is asked through RunnableSuite
