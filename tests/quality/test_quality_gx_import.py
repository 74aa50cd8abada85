"""The close imports Great Expectations without loading the modules the suites never use
(:mod:`pipeline.quality.gx_import`), and validates a day all the same."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.quality.conftest import GAMING_DATE

_VALIDATE_IN_A_FRESH_PROCESS = textwrap.dedent(
    """
    import json, sys
    from datetime import date
    from pathlib import Path
    from pipeline.quality.run import run_quality

    report = run_quality(Path(sys.argv[1]), date.fromisoformat(sys.argv[2]), Path(sys.argv[3]))
    loaded = {name: name in sys.modules for name in sys.argv[4:]}
    import altair, scipy.stats  # first use: they load now
    print(json.dumps({
        "verdict": report.verdict,
        "evaluated": report.evaluated,
        "loaded_while_validating": loaded,
        "usable_after": [scipy.stats.norm.cdf(0.0), altair.Chart.__name__],
    }))
    """
)


def test_the_gate_validates_a_day_without_loading_altair_or_scipy_stats(
    faulty_ledger: Path, tmp_path: Path
) -> None:
    """GX imports both, and a submodule of each is imported when the module itself is
    executed: the modules in ``sys.modules`` without their submodules after a whole
    validation were imported lazily and never executed. Both still work when used."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _VALIDATE_IN_A_FRESH_PROCESS,
            str(faulty_ledger),
            GAMING_DATE.isoformat(),
            str(tmp_path / "reports"),
            "altair",
            "scipy.stats",
            "altair.vegalite",
            "scipy.stats._stats_py",
            "great_expectations",
        ],
        check=True,
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])

    assert result["verdict"] == "BLOCKED"  # the faulty day's findings, as in the other tests
    assert result["evaluated"] > 80
    assert result["loaded_while_validating"] == {
        "altair": True,  # imported by GX, as a module not yet executed
        "scipy.stats": True,
        "altair.vegalite": False,
        "scipy.stats._stats_py": False,
        "great_expectations": True,
    }
    assert result["usable_after"] == [0.5, "Chart"]
    assert (tmp_path / "reports" / f"quality-{GAMING_DATE.isoformat()}.html").stat().st_size > 0
