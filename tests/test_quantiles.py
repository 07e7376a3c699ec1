"""Student t quantiles remembered on disk (``tokbench.metrics.quantiles``): scipy's own
values, read back without importing scipy, asked again when an entry is damaged."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tokbench.metrics import quantiles


def test_values_are_scipys_and_kept(cache: Path) -> None:
    from scipy.special import stdtrit

    assert quantiles.stdtrit(2008, 0.975) == float(stdtrit(2008, 0.975))
    assert quantiles.stdtrit(9, 0.975) == 2.262157162798205  # the t table's 2.262
    table = quantiles._table()
    assert table is not None and table.parent == cache / "quantiles"
    assert json.loads(table.read_text()) == {"2008:0.975": float(stdtrit(2008, 0.975)),
                                             "9:0.975": 2.262157162798205}


def test_a_kept_value_is_read_without_scipy(cache: Path) -> None:
    quantiles.stdtrit(9, 0.975)
    code = ("import sys; from tokbench.metrics.quantiles import stdtrit; "
            "print(stdtrit(9, 0.975), 'scipy.special' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={**os.environ,
                                          "TOKBENCH_CACHE": str(cache)})
    assert out.stdout.split() == ["2.262157162798205", "False"]


def test_a_damaged_entry_is_asked_again(cache: Path) -> None:
    quantiles.stdtrit(9, 0.975)
    table = quantiles._table()
    assert table is not None
    table.write_text(json.dumps({"9:0.975": "2.26"}))
    assert quantiles.stdtrit(9, 0.975) == 2.262157162798205
    table.write_text("{not json")
    assert quantiles.stdtrit(9, 0.975) == 2.262157162798205
    assert json.loads(table.read_text()) == {"9:0.975": 2.262157162798205}
