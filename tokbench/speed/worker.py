"""Measurements that need a fresh process: footprint and thread scaling.

The parent (``measure_in_subprocesses``) writes a job file and runs
``python -m tokbench.speed.worker JOB OUT`` with the environment the job needs
(``RAYON_NUM_THREADS`` for HF tokenizers, whose thread pool size is read once per
process; offline, so nothing is fetched); the child loads the tokenizer, measures and
writes JSON to OUT. The first job also measures the footprint, since its process is fresh.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tokbench.speed.footprint import Footprint
from tokbench.speed.threads import ThreadPoint

#: backends whose thread count is fixed per process (by this environment variable)
PER_PROCESS_THREADS = {"tokenizers": "RAYON_NUM_THREADS", "transformers": "RAYON_NUM_THREADS"}
TIMEOUT_S = 300


@dataclass
class SubprocessResults:
    points: list[ThreadPoint] = field(default_factory=list)
    footprint: Footprint | None = None
    errors: list[str] = field(default_factory=list)


def _jobs(backend: str, counts: Sequence[int]) -> list[tuple[dict[str, str], dict[str, Any]]]:
    """(environment additions, job) pairs: one process, or one per count where the backend
    fixes its thread count per process."""
    var = PER_PROCESS_THREADS.get(backend)
    if var is None:
        return [({}, {"footprint": True, "native": list(counts), "process": list(counts)})]
    jobs = [({var: "1"}, {"footprint": True, "native": [1], "process": list(counts)})]
    jobs += [({var: str(n)}, {"footprint": False, "native": [n], "process": []})
             for n in counts if n > 1]
    return jobs


def measure_in_subprocesses(spec: str, backend: str, texts: Sequence[str], first_text: str,
                            counts: Sequence[int], repeats: int = 5, budget_s: float = 1.0
                            ) -> SubprocessResults:
    """Run the worker jobs for one tokenizer (see the module doc)."""
    from tokbench.loading.sources import OFFLINE_ENV

    out = SubprocessResults()
    with tempfile.TemporaryDirectory(prefix="tokbench-speed-") as tmp:
        texts_file = Path(tmp) / "texts.json"
        texts_file.write_text(json.dumps(list(texts), ensure_ascii=False), encoding="utf-8")
        for k, (env_add, job) in enumerate(_jobs(backend, counts)):
            job_file, out_file = Path(tmp) / f"job{k}.json", Path(tmp) / f"out{k}.json"
            job.update(spec=spec, backend=backend, texts=str(texts_file), first_text=first_text,
                       repeats=repeats, budget_s=budget_s)
            job_file.write_text(json.dumps(job, ensure_ascii=False), encoding="utf-8")
            env = {**os.environ, OFFLINE_ENV: "1", **env_add}
            env.pop("TOKENIZERS_PARALLELISM", None)
            try:
                proc = subprocess.run([sys.executable, "-m", "tokbench.speed.worker",
                                       str(job_file), str(out_file)], env=env,
                                      capture_output=True, text=True, timeout=TIMEOUT_S)
            except subprocess.TimeoutExpired:
                out.errors.append(f"worker {env_add or ''} timed out after {TIMEOUT_S} s")
                continue
            if proc.returncode != 0 or not out_file.exists():
                tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
                out.errors.append(f"worker {env_add or ''} failed: {tail}")
                continue
            data = json.loads(out_file.read_text(encoding="utf-8"))
            out.points += [ThreadPoint.from_dict(p) for p in data.get("points", [])]
            out.errors += data.get("errors", [])
            if data.get("footprint"):
                out.footprint = Footprint(**data["footprint"])
    out.points.sort(key=lambda p: (p.via, p.asked))
    return out


def run_job(job: dict[str, Any]) -> dict[str, Any]:
    """In the child: footprint (first), process pool, then native batches."""
    from tokbench.speed.footprint import measure_footprint
    from tokbench.speed.threads import native_point, process_point

    result: dict[str, Any] = {"points": [], "errors": []}
    if job["footprint"]:
        fp, tok = measure_footprint(job["spec"], job["backend"], job["first_text"])
        result["footprint"] = fp.to_dict()
    else:
        from tokbench.loading.loader import load_tokenizer

        tok = load_tokenizer(job["spec"])
    texts = json.loads(Path(job["texts"]).read_text(encoding="utf-8"))
    repeats, budget = int(job["repeats"]), float(job["budget_s"])
    for n in job["process"]:  # before any native batch: fork before the backend's threads
        p = process_point(tok, texts, n, repeats, budget)
        if p is None:
            result["errors"].append("process pool: fork is not available on this platform")
            break
        result["points"].append(p.to_dict())
    for n in job["native"]:
        result["points"].append(native_point(tok, texts, n, repeats, budget).to_dict())
    return result


def main(argv: Sequence[str]) -> int:
    job_file, out_file = argv
    job = json.loads(Path(job_file).read_text(encoding="utf-8"))
    result = run_job(job)
    Path(out_file).write_text(json.dumps(result), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
