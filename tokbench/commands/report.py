"""``tokbench report RUN_DIR``: write the self-contained report.html of a finished run."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from tokbench.errors import InputError

HELP = "write report.html (tables, plots, token viewer) for a run directory or results.json"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_dir", metavar="RUN_DIR",
                   help="a run's output directory (holding results.json) or a results.json")
    p.add_argument("--out", "-o", help="where to write report.html (default: RUN_DIR)")
    p.add_argument("--no-plots", action="store_true", help="do not draw or embed plots")
    p.add_argument("--no-viewer", action="store_true",
                   help="leave out the token viewer (loads no tokenizer)")
    p.add_argument("--rebuild-viewer", action="store_true",
                   help="reload the tokenizers and suites even if viewer.json is up to date")
    p.add_argument("--samples", type=int, metavar="N",
                   help="viewer: sample texts per subset (default 2; at most 40 per suite)")
    p.add_argument("--no-fetch", action="store_true",
                   help="use only cached tokenizer files; never call pip")


def main(args: argparse.Namespace) -> int:
    from tokbench.cli.console import console
    from tokbench.results import Results

    source = Path(args.run_dir)
    results = Results.load(source)
    run_dir = source if source.is_dir() else source.parent
    out = Path(args.out) if args.out else run_dir
    if out.exists() and not out.is_dir():
        raise InputError(f"{out}: not a directory; give --out a directory for report.html")
    if args.samples is not None and args.samples < 1:
        raise InputError("--samples must be at least 1")
    if args.no_fetch:
        import os

        os.environ["TOKBENCH_OFFLINE"] = "1"
    out.mkdir(parents=True, exist_ok=True)
    # drawn beside OUT first: OUT gets them only if no file of the user's would be overwritten
    import tempfile

    from tokbench.cli.outdir import add_files

    with tempfile.TemporaryDirectory(dir=out.resolve().parent,
                                     prefix=f".{out.resolve().name}.report-") as tmp:
        path = _render(args, results, run_dir, out, Path(tmp))
        add_files(Path(tmp), out, "--out")
    console().print(f"wrote {out / path.name}", highlight=False, markup=False)
    return 0


def _render(args: argparse.Namespace, results: Any, run_dir: Path, out: Path, staged: Path
            ) -> Path:
    """Plots, viewer.json and report.html into ``staged`` (reusing OUT's viewer.json)."""
    from tokbench.cli.console import console, err_console, escape

    pngs: list[str] = []
    if not args.no_plots:
        from tokbench.render.plots import render_plots

        pngs = [p.name for p in render_plots(results, staged)]

    viewer = None
    if not args.no_viewer:
        from tokbench.engine.viewer import (
            PER_SUBSET,
            load_viewer,
            save_viewer,
            viewer_from_results,
        )

        if not args.rebuild_viewer and args.samples is None:
            viewer = load_viewer(out, results) or load_viewer(run_dir, results)
        if viewer is None:
            with console().status("loading tokenizers and suites for the token viewer"):
                viewer = viewer_from_results(results, per_subset=args.samples or PER_SUBSET)
        save_viewer(viewer, staged)
        for note in viewer.get("notes", []):
            err_console().print(f"[yellow]viewer:[/] {escape(str(note))}", highlight=False,
                                soft_wrap=True)
    from tokbench.render.html import write_html

    return write_html(results, staged, pngs, viewer)
