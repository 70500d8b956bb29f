"""`judge-tui failures`: failed judgments with their reason and raw answer."""

from __future__ import annotations

import argparse

from judge_tui.cli.commands import open_store
from judge_tui.formats.numbers import plural
from judge_tui.judge.failures import grouped_lines, indented
from judge_tui.model.errors import UserError
from judge_tui.model.textsafe import clean


def run(args: argparse.Namespace) -> int:
    """`judge-tui failures`: failed judgments with their reason and raw answer."""
    limit = getattr(args, "limit", 20)
    if limit is not None and limit < 0:
        raise UserError(f"--limit must be 0 (all) or more, not {limit}")
    with open_store(args, create=False) as store:
        jobs = store.failed_judge_jobs(rubric=args.rubric, rater_id=args.rater)
    scope = "".join([f" of rubric {clean(args.rubric)}" if args.rubric else "",
                     f" by {clean(args.rater)}" if args.rater else ""])
    if not jobs:
        print(f"No failed judgments{scope}.")
        return 0
    print(f"{plural(len(jobs), 'failed judgment')}{scope}, by cause:")
    print("\n".join(grouped_lines(jobs, max_causes=len(jobs))))
    shown = jobs if not limit else jobs[:limit]
    for job in shown:
        print()
        print(f"{clean(str(job['item_id']))} · {clean(job['rubric'])} · {clean(job['rater_id'])}"
              f" · repeat {job['repeat']} · {plural(job['attempts'], 'attempt')}"
              f" · {job['updated_at'][:16].replace('T', ' ')}")
        print("  reason:")
        print(indented(job["last_error"]))
        print("  raw answer:")
        print(indented(job["raw_output"]) if job["raw_output"] else "    (none: no answer came back)")
    if len(shown) < len(jobs):
        print(f"\n{len(jobs) - len(shown)} more not shown: --limit 0 shows all.")
    print("\nTo judge them again, run the same judge-tui judge command with --retry-failed.")
    return 0
