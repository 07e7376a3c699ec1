"""tokbench against the peer tools on PyPI: the same job, timed as whole processes, and the
same numbers side by side (issue #25; "check numbers against something no one here wrote").

Peers: glotscope, tokscope, toksight, toklens, mothertoken, tokendrift, tokenization-scorer.
Each is installed on first use into its own venv, ``/tmp/peers-venv/NAME`` (``python -m
venv`` + pip, with the extras its backends need); nothing goes into the shared venv or the
repository. A peer that cannot be installed or cannot run offline is reported in one line.

Jobs:

* ``flores4``  FLORES-200 devtest, eng_Latn/jpn_Jpan/zho_Hans/hin_Deva, cl100k_base +
  xlm-roberta: each peer computes what it computes; tokbench runs the matching ``-m``
  families (and the peer's word convention through ``--fertility``, its premium through
  ``--premium-join`` where the peer joins sentences).
* ``flores42`` FLORES dev+devtest, 42 languages, cl100k_base, compression only: the peers
  that can do it.

Both sides read the same files: the FLORES lines are copied to ``/tmp/peers-data/JOB/``
(laid out as glotscope's corpus root wants), and the peers load the very tokenizer files
tokbench cached (cl100k_base through ``TIKTOKEN_CACHE_DIR``, whose hash tiktoken checks;
xlm-roberta's tokenizer.json in a folder with a tokenizer_config.json naming its class and
special tokens, for ``AutoTokenizer``). ``HF_HUB_OFFLINE=1``: no hub.

Each repetition runs, in turn, every peer's process, tokbench with the default ``--jobs``
and with ``--jobs 1`` (``--no-plots --no-html``: no peer draws), and the bare process
(load + encode + decode every document); medians are printed with the 1-minute load
average. The second table sets each number both tools compute side by side.
Usage: python tests/bench/peers.py [--reps 3] [--peers tokscope,toksight] [--jobs-to-run flores4]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

VENVS = Path("/tmp/peers-venv")
DATA = Path("/tmp/peers-data")
CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
TOKENIZERS = ("cl100k_base", "xlm-roberta")
LANGS4 = ("eng_Latn", "jpn_Jpan", "zho_Hans", "hin_Deva")
XLMR_CONFIG = {"tokenizer_class": "XLMRobertaTokenizer", "bos_token": "<s>", "eos_token": "</s>",
               "unk_token": "<unk>", "sep_token": "</s>", "cls_token": "<s>",
               "pad_token": "<pad>", "mask_token": "<mask>", "model_max_length": 512}

#: shared by every driver: the job and its corpus lines, read as tokbench reads them
#: (split on "\n", a trailing empty line dropped, a final "\r" removed)
PRELUDE = r"""
import json, sys, os, io, contextlib, tempfile
job = json.loads(sys.argv[1])
def path(lang):
    return os.path.join(job["corpus"], lang + ".txt")
def lines(lang):
    with open(path(lang), encoding="utf-8") as f:
        out = f.read().split("\n")
    if out and out[-1] == "":
        out.pop()
    return [s[:-1] if s.endswith("\r") else s for s in out]
result = {}
def put(metric, tok, lang, value):
    result.setdefault(metric, {}).setdefault(tok, {})[lang] = value
skipped = {}
"""
EMIT = 'print(json.dumps({"metrics": result, "skipped": skipped}))\n'

DRIVERS: dict[str, str] = {
    # its CLI, one call per language (the whole file is one text; --reference: English)
    "tokscope": r"""
from tokscope.cli import main
specs = {"cl100k_base": "tiktoken:cl100k_base", "xlm-roberta": job["hf_dir"]}
names = {"tiktoken:cl100k_base": "cl100k_base", job["hf_dir"]: "xlm-roberta"}
ref = ["--reference", path("eng_Latn")] if "eng_Latn" in job["langs"] else []
out = tempfile.mktemp(suffix=".json")
for lang in job["langs"]:
    args = [path(lang), "--json", out, "--max-chars", "100000000", *ref]
    for t in job["tokenizers"]:
        args += ["-t", specs[t]]
    with contextlib.redirect_stdout(io.StringIO()):
        main(args)
    for row in json.load(open(out, encoding="utf-8")):
        tok = names[row["tokenizer"]]
        put("tokens", tok, lang, row["token_count"])
        for m in ("fertility", "chars_per_token", "bytes_per_token", "unk_rate",
                  "byte_token_rate", "premium"):
            if m in row:
                put(m, tok, lang, row[m])
""",
    # its Python API: compression_by_language (documented in its README)
    "toksight": r"""
from toksight import load_tiktoken
from toksight.loader import load_huggingface
from toksight.compression import compression_by_language
texts = {lang: lines(lang) for lang in job["langs"]}
for t in job["tokenizers"]:
    tok = load_tiktoken("cl100k_base") if t == "cl100k_base" else load_huggingface(job["hf_dir"])
    for lang, s in compression_by_language(tok, texts).items():
        put("tokens", t, lang, s.total_tokens)
        put("bytes_per_token", t, lang, s.bytes_per_token)
        put("chars_per_token", t, lang, s.chars_per_token)
        put("fertility", t, lang, s.fertility)
""",
    # Analyzer.evaluate() reads Wikipedia through `datasets`; its FLORES form is
    # evaluate_text on the sentences joined by one space, as evaluate() joins them
    "toklens": r"""
from types import SimpleNamespace
from tokenizers import Tokenizer
from toklens import Analyzer
class TiktokenShim:  # toklens takes anything with encode(text[, add_special_tokens]).ids
    def __init__(self):
        import tiktoken
        self.enc = tiktoken.get_encoding("cl100k_base")
    def encode(self, text, add_special_tokens=False):
        return SimpleNamespace(ids=self.enc.encode(text, disallowed_special=()))
ref = " ".join(lines("eng_Latn")) if "eng_Latn" in job["langs"] else None
for t in job["tokenizers"]:
    hf = job["hf_dir"] + "/tokenizer.json"
    tok = TiktokenShim() if t == "cl100k_base" else Tokenizer.from_file(hf)
    an = Analyzer(tok, name=t)
    for lang in job["langs"]:
        r = an.evaluate_text(" ".join(lines(lang)), ref_text=ref)
        put("fertility", t, lang, r["fertility"])
        put("strr", t, lang, r["strr"])
        put("chars_per_token", t, lang, r["cpt"])
        put("bytes_per_token", t, lang, r["compression_ratio"])
        if "parity" in r:
            put("premium", t, lang, r["parity"])
""",
    # its benchmark runner, with the FLORES+ loader (gated hub dataset) reading the file
    "mothertoken": r"""
import logging
logging.disable(logging.WARNING)
import mothertoken.benchmark.runner as runner
runner.load_flores_sentences = lambda config, split=None: lines(config)
ids = {"cl100k_base": "gpt-4", "xlm-roberta": job["hf_dir"]}
back = {v: k for k, v in ids.items()}
results, errors = runner.run_benchmark(list(job["langs"]), [ids[t] for t in job["tokenizers"]])
for lang, per in results.items():
    for mid, m in per.items():
        if "error" in m:
            skipped[back[mid]] = m["error"]
            continue
        t = back[mid]
        put("tokens", t, lang, m["total_tokens"])
        put("chars_per_token", t, lang, m["total_chars"] / m["total_tokens"])
        put("fertility", t, lang, m["total_tokens"] / m["total_words"])
        put("rtc", t, lang, m["rtc"])
for mid, err in errors.items():
    skipped[back[mid]] = err
""",
    # its CLI: `tokendrift diff A B --corpus FILE --json`, one process per language
    "tokendrift": r"""
import subprocess
exe = os.path.join(os.path.dirname(sys.executable), "tokendrift")
specs = {"cl100k_base": "cl100k_base", "xlm-roberta": job["hf_dir"] + "/tokenizer.json"}
a, b = (list(job["tokenizers"]) * 2)[:2]
for lang in job["langs"]:
    out = subprocess.run([exe, "diff", specs[a], specs[b], "--corpus", path(lang), "--json",
                          "--no-vocab"], capture_output=True, text=True, check=True).stdout
    diffs = json.loads(out[out.index("{"):])["diffs"]
    put("tokens", a, lang, sum(d["token_count_a"] for d in diffs))
    if b != a:
        put("tokens", b, lang, sum(d["token_count_b"] for d in diffs))
""",
    # its CLI `analyze` (tokenizer.json only: from_tiktoken raises NotImplementedError)
    "glotscope": r"""
from glotscope.cli import main
from glotscope.tokenizer import Tokenizer
if "cl100k_base" in job["tokenizers"]:
    try:
        Tokenizer.from_tiktoken("cl100k_base")
    except NotImplementedError as e:
        skipped["cl100k_base"] = "from_tiktoken: NotImplementedError: " + str(e)[:60] + "..."
if "xlm-roberta" in job["tokenizers"]:
    out = tempfile.mktemp(suffix=".json")
    args = ["analyze", job["hf_dir"] + "/tokenizer.json", "--corpus", "flores_plus",
            "--corpus-root", job["root"], "--languages", ",".join(job["langs"]),
            "--normalization", "none", "--gini", "--renyi-alpha", "2.5"]
    if job["words"]:
        args += ["--segmenter", "whitespace", "--leading-space"]
    if "eng_Latn" in job["langs"]:
        args += ["--parity-reference", "eng_Latn"]
    with contextlib.redirect_stderr(io.StringIO()):
        main([*args, "--out", out])
    t1 = json.load(open(out, encoding="utf-8"))["tier1"]
    for lang, m in t1["per_language"].items():
        put("tokens", "xlm-roberta", lang, m["ctc"])
        put("bytes_per_token", "xlm-roberta", lang, m["bpt"])
        put("chars_per_token", "xlm-roberta", lang, m["cpt"])
        put("roundtrip", "xlm-roberta", lang, m["roundtrip_rate"])
        if "fertility" in m:
            put("fertility", "xlm-roberta", lang, m["fertility"])
            put("continued_words", "xlm-roberta", lang, m["p_continued"])
    c = t1["corpus_level"]
    if "parity" in c:
        for lang, v in c["parity"]["per_language"].items():
            put("premium", "xlm-roberta", lang, v)
        put("premium_macro", "xlm-roberta", "all", c["parity"]["macro_parity"])
        put("premium_worst", "xlm-roberta", "all", c["parity"]["worst_case_parity"])
        put("premium_gini", "xlm-roberta", "all", c["gini"])
    put("renyi_efficiency_seen", "xlm-roberta", "all", c["renyi_efficiency"])
""",
    # it scores a tokenized text; the tokens come from the tokenizer libraries directly
    "tokenization-scorer": r"""
from tokenization_scorer import score
with contextlib.redirect_stderr(io.StringIO()):
    for t in job["tokenizers"]:
        if t == "cl100k_base":
            import tiktoken
            enc = tiktoken.get_encoding("cl100k_base")
            encode, size = (lambda s: enc.encode(s, disallowed_special=())), enc.n_vocab
        else:
            from tokenizers import Tokenizer
            tk = Tokenizer.from_file(job["hf_dir"] + "/tokenizer.json")
            encode = lambda s: tk.encode(s, add_special_tokens=False).ids
            size = tk.get_vocab_size()
        every = []
        for lang in job["langs"]:
            toks = [[str(i) for i in encode(s)] for s in lines(lang)]
            every += toks
            put("renyi_efficiency_seen", t, lang, score(toks, metric="renyi", power=2.5))
            put("renyi_efficiency_vocab", t, lang,
                score(toks, metric="renyi", power=2.5, vocab=size))
        put("renyi_efficiency_seen", t, "all", score(every, metric="renyi", power=2.5))
""",
}

#: what each peer installs (pip arguments) and the tokbench run that matches it
PEERS: dict[str, dict[str, Any]] = {
    "glotscope": {"pip": ["glotscope"],
                  "families": "compression,fertility,premium,roundtrip,vocab_use",
                  "fertility": "alone_space/whitespace", "jobs": ("flores4",),
                  "note": "words: str.split, each encoded alone after a space (--leading-space)"},
    "tokscope": {"pip": ["tokscope[hf,tiktoken]"],
                 "families": "compression,fertility,premium,unknown",
                 "fertility": "context/whitespace", "jobs": ("flores4", "flores42"),
                 "note": "the whole file is one text (newlines encoded too); ratios rounded "
                         "to 4 places"},
    "toksight": {"pip": ["toksight[tiktoken,transformers]"], "families": "compression,fertility",
                 "fertility": "context/whitespace", "jobs": ("flores4", "flores42"),
                 "note": "per sentence, ratio of sums; words: str.split"},
    "toklens": {"pip": ["toklens", "tiktoken"], "families": "compression,fertility,premium",
                "fertility": "alone/whitespace", "premium_join": True, "jobs": ("flores4",),
                "note": "sentences joined by one space; words encoded alone (no space)"},
    "mothertoken": {"pip": ["mothertoken"], "families": "compression,fertility,premium",
                    "fertility": "context/whitespace", "jobs": ("flores4", "flores42"),
                    "note": "rtc = cpt(eng)/cpt(lang); per sentence, ratio of sums"},
    "tokendrift": {"pip": ["tokendrift"], "families": "compression", "jobs": ("flores4",),
                   "note": "token counts only; HF encode adds <s> </s> "
                           "(add_special_tokens default)"},
    "tokenization-scorer": {"pip": ["tokenization-scorer", "tiktoken", "tokenizers"],
                            "families": "vocab_use", "jobs": ("flores4",),
                            "note": "Rényi α=2.5 of the token ids the libraries produce"},
}

JOBS: dict[str, dict[str, Any]] = {
    "flores4": {"langs": LANGS4, "splits": ("devtest",), "tokenizers": TOKENIZERS,
                "suite": "flores200?split=devtest&languages=" + ",".join(LANGS4)},
    "flores42": {"langs": None, "splits": ("dev", "devtest"), "tokenizers": ("cl100k_base",),
                 "suite": "flores200", "families": "compression"},
}

#: the bare process: load each tokenizer, then encode and decode every document
BARE = r"""
import json, sys
from tokbench.loading.loader import load_tokenizer
from tokbench.suites import load_suite
job = json.loads(sys.argv[1])
texts = [d.text for d in load_suite(job["suite"]).documents]
for spec in job["tokenizers"]:
    tok = load_tokenizer(spec)
    encode, decode = tok.encode, tok.decode
    for t in texts:
        decode(encode(t))
"""


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def venv_python(peer: str) -> Path | str:
    """The peer's venv interpreter, creating the venv on first use; a string says why not."""
    root = VENVS / peer
    py = root / "bin" / "python"
    stamp = root / ".peers-installed"
    if stamp.is_file():
        return py
    log(f"installing {peer} into {root} ...")
    if not py.is_file():
        subprocess.run([sys.executable, "-m", "venv", str(root)], check=True)
    done = subprocess.run([str(py), "-m", "pip", "install", "-q", *PEERS[peer]["pip"]],
                          capture_output=True, text=True, check=False)
    if done.returncode:
        return f"pip install {' '.join(PEERS[peer]['pip'])} failed: " + \
            (done.stderr.strip().splitlines() or ["?"])[-1][:200]
    stamp.write_text(" ".join(PEERS[peer]["pip"]))
    return py


def tokenizer_files() -> dict[str, Path]:
    """The files tokbench cached for cl100k_base and xlm-roberta."""
    from tokbench.loading.loader import load_tokenizer

    return {name: Path(str(load_tokenizer(name).source.path)) for name in TOKENIZERS}


def prepare(job: str, flores: Path, files: dict[str, Path]) -> dict[str, Any]:
    """Copy the job's FLORES lines and the tokenizer files where the peers read them."""
    spec = JOBS[job]
    langs = spec["langs"] or sorted(p.stem for p in (flores / "devtest").glob("*.devtest"))
    root = DATA / job
    corpus = root / "flores_plus" / "2024.08" / "devtest"  # glotscope's layout
    corpus.mkdir(parents=True, exist_ok=True)
    for lang in langs:
        data = b"".join((flores / s / f"{lang}.{s}").read_bytes() for s in spec["splits"])
        (corpus / f"{lang}.txt").write_bytes(data)
    cache = DATA / "tiktoken"
    cache.mkdir(parents=True, exist_ok=True)
    import hashlib

    shutil.copyfile(files["cl100k_base"], cache / hashlib.sha1(CL100K_URL.encode()).hexdigest())
    hf = DATA / "xlm-roberta"
    hf.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(files["xlm-roberta"], hf / "tokenizer.json")
    (hf / "tokenizer_config.json").write_text(json.dumps(XLMR_CONFIG))
    return {"root": str(root), "corpus": str(corpus), "langs": list(langs),
            "tokenizers": list(spec["tokenizers"]), "hf_dir": str(hf), "suite": spec["suite"]}


def peer_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(TIKTOKEN_CACHE_DIR=str(DATA / "tiktoken"), HF_HUB_OFFLINE="1",
               HF_DATASETS_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TQDM_DISABLE="1")
    return env


def timed(cmd: list[str], env: dict[str, str], cwd: str) -> tuple[float, str, str, int]:
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    return time.perf_counter() - t0, done.stdout, done.stderr, done.returncode


def tokbench_cmd(job: str, peer: str, out: Path, jobs1: bool) -> list[str]:
    p, spec = PEERS[peer], JOBS[job]
    cmd = [sys.executable, "-m", "tokbench", "run", "-t", ",".join(spec["tokenizers"]),
           "-s", spec["suite"], "-m", spec.get("families", p["families"]), "--no-fetch",
           "--no-history", "--no-plots", "--no-html", "-o", str(out)]
    if "fertility" in p and "fertility" in spec.get("families", p["families"]):
        cmd += ["--fertility", p["fertility"]]
    if p.get("premium_join"):
        cmd.append("--premium-join")
    return [*cmd, "--jobs", "1"] if jobs1 else cmd


def tokbench_numbers(results: Path) -> dict[tuple[str, str, str], float]:
    rows = json.loads(results.read_text(encoding="utf-8"))["rows"]
    return {(r["metric"], r["tokenizer"], r["subset"]): r["value"] for r in rows}


#: why a metric can differ between the tools although both are right
WHY: dict[tuple[str, str], str] = {
    ("tokscope", "*"): "whole file as one text vs one document per line",
    ("toklens", "bytes_per_token"): "sentences joined by spaces vs per sentence",
    ("toklens", "chars_per_token"): "sentences joined by spaces vs per sentence",
    ("tokendrift", "tokens"): "+2 specials per sentence on HF (<s>, </s>)",
    ("mothertoken", "rtc"): "vs tokbench chars_per_token(eng)/chars_per_token(lang)",
    ("tokenization-scorer", "renyi_efficiency_vocab"): "|V| = the library's vocab size",
}


#: reported values rounded by the peer (decimal places)
ROUNDED: dict[tuple[str, str], int] = {("tokscope", "*"): 4, ("mothertoken", "rtc"): 3}
#: peers that load xlm-roberta through transformers' AutoTokenizer (XLMRobertaTokenizer)
VIA_TRANSFORMERS = ("tokscope", "toksight", "mothertoken")
XLMR_WHY = ("transformers' XLMRobertaTokenizer splits on whitespace first: no '▁' token for "
            "a trailing space, which tokenizer.json (tokenizers) emits")


def compare(peer: str, got: dict[str, Any], tb: dict[tuple[str, str, str], float]) -> None:
    print(f"\n  {peer}: {PEERS[peer]['note']}")
    print(f"  {'metric':<24}{'tokenizer':<13}{'lang':<10}{'peer':>14}{'tokbench':>14}"
          f"{'rel diff':>11}  why")
    for metric, per_tok in sorted(got.items()):
        for tok, per_lang in sorted(per_tok.items()):
            for lang, value in per_lang.items():
                if metric == "rtc":
                    a = tb.get(("chars_per_token", tok, "eng_Latn"))
                    b = tb.get(("chars_per_token", tok, lang))
                    ours = a / b if a and b else None
                else:
                    ours = tb.get((metric, tok, lang))
                if ours is None:
                    continue
                rel = (value - ours) / ours if ours else float(value != ours)
                why = ""
                places = ROUNDED.get((peer, metric), ROUNDED.get((peer, "*")))
                tolerance = 0.5 * 10 ** -places + 5e-6 * abs(ours) if places is not None else 0
                if places is not None and abs(value - ours) <= tolerance:
                    why = f"peer rounds to {places} places" if abs(rel) > 1e-5 else ""
                elif abs(rel) > 1e-5:
                    why = WHY.get((peer, metric)) or WHY.get((peer, "*"), "")
                    if tok == "xlm-roberta" and peer in VIA_TRANSFORMERS:
                        why = (why + "; " if why else "") + XLMR_WHY
                print(f"  {metric:<24}{tok:<13}{lang:<10}{value:>14.6g}{ours:>14.6g}"
                      f"{rel:>+11.2e}  {why}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--peers", default=",".join(PEERS))
    ap.add_argument("--jobs-to-run", default=",".join(JOBS))
    ap.add_argument("--no-warm", action="store_true",
                    help="skip the untimed first round (caches already warm)")
    args = ap.parse_args()
    from tokbench.paths import flores_dir

    flores = flores_dir()
    if flores is None:
        sys.exit("set TOKBENCH_FLORES to the FLORES-200 folder")
    tree = str(Path(__file__).resolve().parents[2])
    # byte-compiled, as the peers' installs are (see everyday.py)
    subprocess.run([sys.executable, "-m", "compileall", "-q", f"{tree}/tokbench"], check=True)
    tb_env = dict(os.environ, PYTHONPATH=tree, MPLBACKEND="Agg")
    files = tokenizer_files()
    pythons: dict[str, Path] = {}
    for peer in args.peers.split(","):
        got = venv_python(peer)
        if isinstance(got, str):
            print(f"{peer}: not run: {got}")
        else:
            pythons[peer] = got
    out = Path(tempfile.mkdtemp(prefix="tokbench-peers-"))
    for job in args.jobs_to_run.split(","):
        spec = prepare(job, flores, files)
        peers = [p for p in pythons if job in PEERS[p]["jobs"]]
        cmds: dict[str, tuple[list[str], dict[str, str]]] = {}
        for peer in peers:
            driver = PRELUDE + DRIVERS[peer] + EMIT
            pspec = dict(spec, words="fertility" in PEERS[peer]["families"])
            cmds[f"{peer}|peer"] = ([str(pythons[peer]), "-c", driver, json.dumps(pspec)],
                                    peer_env())
            cmds[f"{peer}|tb"] = (tokbench_cmd(job, peer, out / f"{job}-{peer}", False), tb_env)
            cmds[f"{peer}|tb1"] = (tokbench_cmd(job, peer, out / f"{job}-{peer}-1", True), tb_env)
        cmds["bare"] = ([sys.executable, "-c", BARE, json.dumps(spec)], tb_env)
        walls: dict[str, list[float]] = {k: [] for k in cmds}
        outputs: dict[str, str] = {}
        failed: dict[str, str] = {}
        loads: list[float] = []
        for rep in range(int(args.no_warm), args.reps + 1):  # round 0 warms caches, not counted
            loads.append(os.getloadavg()[0])
            for name, (cmd, env) in cmds.items():
                if name.split("|")[0] in failed:
                    continue
                cwd = tree if "|tb" in name or name == "bare" else "/tmp"
                wall, stdout, stderr, rc = timed(cmd, env, cwd)
                if rc not in (0, 2):
                    failed[name.split("|")[0]] = f"{name} exit {rc}: " + \
                        (stderr.strip().splitlines() or ["?"])[-1][:300]
                    continue
                if rep:
                    walls[name].append(wall)
                if name.endswith("|peer"):
                    outputs[name.split("|")[0]] = stdout
            log(f"{job}: rep {rep} done (load {os.getloadavg()[0]:.1f})")
        bare = statistics.median(walls["bare"])
        print(f"\n== {job}: {', '.join(spec['tokenizers'])}; {len(spec['langs'])} languages "
              f"({'+'.join(JOBS[job]['splits'])}); {args.reps} alternated reps, median wall s; "
              f"1-min load average {min(loads):.1f}..{max(loads):.1f} on {os.cpu_count()} CPUs")
        print(f"  {'peer':<20}{'metrics (tokbench -m)':<42}{'peer':>8}{'tb -j1':>8}"
              f"{'tb':>8}{'bare':>8}{'peer/tb':>9}")
        for peer in peers:
            if peer in failed:
                print(f"  {peer:<20}not run: {failed[peer]}")
                continue
            p, t1, t = (statistics.median(walls[f"{peer}|{k}"]) for k in ("peer", "tb1", "tb"))
            fams = JOBS[job].get("families", PEERS[peer]["families"])
            print(f"  {peer:<20}{fams:<42}{p:>8.2f}{t1:>8.2f}{t:>8.2f}{bare:>8.2f}{p / t:>9.2f}")
        print(f"\n== {job}: the numbers (peer vs tokbench, relative difference)")
        for peer in peers:
            if peer in failed or peer not in outputs:
                continue
            got = json.loads(outputs[peer].strip().splitlines()[-1])
            for tok, why in got["skipped"].items():
                print(f"\n  {peer}: {tok} not computed: {why}")
            compare(peer, got["metrics"], tokbench_numbers(out / f"{job}-{peer}" / "results.json"))


if __name__ == "__main__":
    main()
