"""Fetching tokenizer files with a progress bar and one line per tokenizer (the terminal
side of ``tokbench.loading``; used by ``tokbench fetch`` and ``tokbench run``)."""

from __future__ import annotations

import time
from collections.abc import Sequence

from tokbench.errors import TokbenchError


def fetch_with_progress(specs: Sequence[str], *, quiet_cached: bool = False,
                        ) -> list[tuple[str, str]]:
    """Fetch each spec's files with a progress bar and one line per tokenizer.

    Every spec is parsed before anything is downloaded (a bad name raises). Returns
    (name, reason) for each tokenizer that could not be fetched. ``quiet_cached`` prints
    nothing for tokenizers already cached (``tokbench run`` fetches this way); in offline
    mode (``$TOKBENCH_OFFLINE``) that caller has nothing to fetch, so nothing is done.
    """
    from tokbench.cli.console import console, escape, progress
    from tokbench.loading.catalog import new_session, try_recipes
    from tokbench.loading.loader import parse_spec, recipes_for
    from tokbench.loading.sources import LocalSource, offline_from_env

    plans = [recipes_for(parse_spec(s)) for s in specs]
    if quiet_cached:
        if offline_from_env():
            return []
        plans = [(n, rs) for n, rs in plans if not all(isinstance(r.source, LocalSource)
                                                       for r in rs)]
    out = console()
    failures: list[tuple[str, str]] = []
    with progress(transient=True) as bar:
        task = bar.add_task("fetching", total=len(plans))
        with new_session(on_status=lambda msg: bar.update(task, description=escape(msg))
                         ) as session:
            for name, recipes in plans:
                bar.update(task, description=f"fetching {escape(name)}")
                t0 = time.perf_counter()
                try:
                    recipe, fetched = try_recipes(f"tokenizer {name!r}", recipes,
                                                  lambda r: r.source.fetch(session))
                except TokbenchError as e:
                    failures.append((name, str(e)))
                    out.print(f"[red]✗[/] [bold]{escape(name)}[/]  failed: {escape(str(e))}",
                              highlight=False, soft_wrap=True)
                else:
                    took = time.perf_counter() - t0
                    where = escape(recipe.source.describe())
                    if fetched.info.kind == "builtin":
                        state = "built in, nothing to fetch"
                    elif fetched.fresh:
                        state = f"fetched from {where} ({took:.1f} s)"
                    else:
                        state = f"already cached ({where})"
                    if fetched.fresh or not quiet_cached:
                        out.print(f"[green]✓[/] [bold]{escape(name)}[/]  {state}",
                                  highlight=False, soft_wrap=True)
                bar.advance(task)
    return failures
