"""``results.csv`` written with the standard library: one line per row, the columns of
``Row.to_dict`` in the order they first occur.

The file is the one ``Results.to_frame().to_csv(index=False)`` wrote, byte for byte (the
format users' scripts read), without importing pandas (a third of a second a run): a column
holding whole numbers and a missing value is a column of floats (``49.0``), a column of
booleans with a gap is one of objects, a missing value is an empty cell. A column of
anything else (integers beyond 64 bits, objects that are no JSON value) is left to pandas.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tokbench.atomic import write_atomic
from tokbench.render.visible import spreadsheet_text
from tokbench.results import Results

_INT64 = (-(2 ** 63), 2 ** 63 - 1)


def write_csv(results: Results, out: Path) -> Path:
    """``out/results.csv`` (see ``results_csv``)."""
    return write_atomic(out / "results.csv", results_csv(results))


def results_csv(results: Results) -> str:
    """``results.csv``: one line per row; names a spreadsheet would run as formulas quoted."""
    rows = [r.to_dict() for r in results.sorted_rows()]
    text = rows_csv(rows)
    return text if text is not None else _pandas_csv(rows)


def rows_csv(rows: list[dict[str, Any]]) -> str | None:
    """The CSV of ``rows`` as pandas writes their frame, or None when a column holds a
    value whose pandas form this does not reproduce."""
    columns = list(dict.fromkeys(key for row in rows for key in row))
    cells = []
    for column in columns:
        values = [row.get(column) for row in rows]
        kind = _kind(values, any(column not in row for row in rows))
        if kind is None:
            return None
        cells.append(_cells(values, kind))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(zip(*cells, strict=True) if cells else [() for _ in rows])
    return out.getvalue()


_TEXT = frozenset({str, list, dict})  # written as str() writes them
_KNOWN = _TEXT | {bool, int, float, type(None)}


def _kind(values: list[Any], gaps: bool) -> str | None:
    """The dtype pandas infers for a column: int, float, bool or object (None: other)."""
    types = set(map(type, values))
    if not types <= _KNOWN or (int in types and not all(
            _INT64[0] <= v <= _INT64[1] for v in values if type(v) is int)):
        return None
    null = gaps or type(None) in types or (float in types and any(
        v != v for v in values if type(v) is float))
    if types & _TEXT:
        return "object"
    if bool in types:
        return "bool" if types == {bool} and not null else "object"
    numbers = types - {type(None)}
    if not numbers:
        return "object"
    return "int" if numbers == {int} and not null else "float"  # whole numbers with a gap too


def _cells(values: list[Any], kind: str) -> list[str]:
    if kind == "float":
        return ["" if v is None or v != v else repr(float(v)) for v in values]
    if kind in ("int", "bool"):
        return [str(v) for v in values]
    return ["" if v is None or v != v else str(spreadsheet_text(v)) for v in values]


def _pandas_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    import pandas as pd

    frame = pd.DataFrame(rows)
    for column in frame.columns:
        if not pd.api.types.is_numeric_dtype(frame[column]):
            frame[column] = frame[column].map(spreadsheet_text).astype(object)
    return str(frame.to_csv(index=False))
