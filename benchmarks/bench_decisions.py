"""Every decision the report and the app make, simulated with a known truth: one command for the four parts.

* coverage    — bench_decisions_coverage.py: coverage of every interval the report decides on, cell by cell
                (TPR/TNR 0.7/0.9/0.97 × n 12/25/46/100/400 × FAIL share 0.1/0.3; graded CIS-like data).
* monitoring  — bench_decisions_monitoring.py: wrong decisions with a look after every rating, at the threshold
                and near it, fixed-n rule against the rule valid at any time (the stop notice's).
* planner     — bench_decisions_planner.py: the settle rate when the plan's 80% figure is added from the same
                truth, and `judge-tui plan` before a study.
* orders      — bench_decisions_orders.py: ratings to a decision per queue order for the judge, under the
                fixed-n rule and under the stop notice's rule valid at any time, and a judge on its target left
                undecided with every item of the pool rated.

Each part drives the functions the report and the app call, in-process. Each can also be run alone, with its
own options (see its docstring). The figures are in docs/benchmarks.md.

Run from the project root:  .venv/bin/python benchmarks/bench_decisions.py [--quick] [PART ...]   (default: every
part). ``--quick`` runs each part at the sizes in ``QUICK`` (about 20 minutes on a loaded 2-core machine; the
monitoring part keeps 2,000 runs a cell), otherwise each part's own defaults.
"""

from __future__ import annotations

import argparse
import runpy
import sys
from pathlib import Path

HERE = Path(__file__).parent
PARTS = ("coverage", "monitoring", "planner", "orders")
QUICK = {
    "coverage": ["--studies", "300"],
    "monitoring": ["--runs", "2000", "--kappa-runs", "300"],
    "planner": ["--trials", "400", "--study-runs", "500"],
    "orders": ["--runs", "60", "--pools", "200"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("parts", nargs="*", metavar="PART", help=f"one or more of {', '.join(PARTS)} (default: all)")
    parser.add_argument("--quick", action="store_true", help="each part at the smaller sizes of QUICK")
    args = parser.parse_args()
    chosen = args.parts or list(PARTS)
    unknown = [p for p in chosen if p not in PARTS]
    if unknown:
        parser.error(f"unknown part {', '.join(unknown)}; choose from {', '.join(PARTS)}")
    sys.path.insert(0, str(HERE))  # the parts import each other's helpers as top-level modules
    for part in chosen:
        print(f"\n## {part}\n", flush=True)
        sys.argv = [f"bench_decisions_{part}.py", *(QUICK[part] if args.quick else [])]
        runpy.run_path(str(HERE / f"bench_decisions_{part}.py"), run_name="__main__")


if __name__ == "__main__":
    main()
