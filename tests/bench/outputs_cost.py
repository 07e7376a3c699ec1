"""What a finished ``tokbench run`` costs after its measurements (prints; not a test).

Reads a run's ``results.json`` and times, stage by stage, the work ``tokbench run`` does
after ``run()`` returns: serializing results.json, results.csv, each PNG plot, report.md,
the token viewer (viewer.json: loads the run's tokenizers again) and report.html, then
``write_outputs`` as a whole (what the CLI calls). Each stage starts in a fresh process
so its imports (pandas, matplotlib) count where they are first paid, as in a run; a render
worker is given ``WARM_S`` seconds to warm up first (in a run it warms during the run).

    python tests/bench/outputs_cost.py reports/latest/results.json [--reps 3]

Compare two trees by running it with each on PYTHONPATH; the machine's load average is
printed beside the figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

STAGES = ("imports", "json", "csv", "plots", "markdown", "viewer", "html", "write_outputs")

#: seconds a run gives the render worker to import and warm up before its results come
WARM_S = 3.0

_CHILD = r"""
import resource, shutil, sys, tempfile, time
WARM_S = float(sys.argv[3])
stage, path = sys.argv[1], sys.argv[2]
from tokbench.results import Results
from tokbench.cli import output
try:
    from tokbench.results import as_saved
except ImportError:  # a tree before it moved there
    as_saved = output.as_saved
results = Results.load(path)
out = tempfile.mkdtemp(prefix="tokbench-outputs-")
t1, c1 = time.perf_counter(), time.process_time()
if stage == "imports":
    import matplotlib.figure, pandas  # noqa: F401
elif stage == "json":
    results.to_json()
elif stage == "csv":
    try:  # without pandas
        from tokbench.render.csvfile import results_csv
    except ImportError:  # a tree before it
        results_csv = output._csv
    results_csv(as_saved(results))
elif stage == "plots":
    from tokbench.render.plots import render_plots
    names = render_plots(as_saved(results), out)
elif stage == "markdown":
    from tokbench.render.markdown import render_markdown
    render_markdown(as_saved(results), [])
elif stage == "viewer":
    from tokbench.engine.viewer import viewer_from_results
    viewer_from_results(as_saved(results))
elif stage == "html":
    from tokbench.render.html import write_html
    write_html(as_saved(results), out, [], None)
elif stage == "write_outputs":
    import inspect
    # as `tokbench run` calls it: with a render worker started before the run (given the
    # run's WARM_S to warm up, outside the timing), or with a worker started afterwards (a
    # tree before the early worker), or none (a tree before any worker)
    options = inspect.signature(output.write_outputs).parameters
    if "worker" in options:
        from tokbench.cli.render_worker import RenderWorker
        with RenderWorker.start() as worker:
            time.sleep(WARM_S)
            t1, c1 = time.perf_counter(), time.process_time()
            output.write_outputs(results, out, worker=worker)
    else:
        kw = {"background": True} if "background" in options else {}
        output.write_outputs(results, out, **kw)
shutil.rmtree(out)
child = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{time.perf_counter() - t1:.3f} "
      f"{time.process_time() - c1 + child.ru_utime + child.ru_stime:.3f}")
"""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--stages", default=",".join(STAGES))
    args = ap.parse_args()
    stages = [s for s in args.stages.split(",") if s]
    times: dict[str, list[float]] = {s: [] for s in stages}
    cpus: dict[str, list[float]] = {s: [] for s in stages}
    for _ in range(args.reps):
        for stage in stages:
            proc = subprocess.run([sys.executable, "-c", _CHILD, stage, args.results,
                                   str(WARM_S)],
                                  capture_output=True, text=True, check=True)
            wall, cpu = proc.stdout.split()[-2:]
            times[stage].append(float(wall))
            cpus[stage].append(float(cpu))
    print(f"load average {os.getloadavg()[0]:.2f}; medians of {args.reps} (seconds; CPU "
          "counts worker processes too: on a busy machine it is the steadier figure)")
    print(f"  {'stage':<14} {'wall':>7} {'CPU':>7}   walls")
    for stage in stages:
        ts = times[stage]
        print(f"  {stage:<14} {statistics.median(ts):7.2f} {statistics.median(cpus[stage]):7.2f}   "
              + " ".join(f"{t:.2f}" for t in ts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
