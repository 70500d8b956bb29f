"""`judge-tui calibrate`: the lead's judge screen, with the same start-up as `adjudicate`."""

from __future__ import annotations

import argparse
import dataclasses

from judge_tui.analysis.judges import the_judge
from judge_tui.cli.judge import make_backend
from judge_tui.cli.launch import prepare
from judge_tui.model.errors import UserError
from judge_tui.tui.screens.calibrate_figures import TEST_NOTE


def run(args: argparse.Namespace) -> int:
    if args.split == "test":
        raise UserError(TEST_NOTE)
    if args.concurrency is not None and not 1 <= args.concurrency <= 64:
        raise UserError(f"--concurrency {args.concurrency}: give a number from 1 to 64")
    launch = prepare(args, lead=True)
    lead = launch.reviewer
    assert lead is not None  # prepare(lead=True) refuses to start without one
    settings = launch.settings
    if args.concurrency is not None:
        settings = dataclasses.replace(settings, judge_concurrency=args.concurrency,
                                       openai_concurrency=args.concurrency)
    backend = make_backend(args, settings)  # checked now: a wrong --cmd is said before the app opens

    from judge_tui.tui.screens.calibrate import CalibrationApp, lead_may_calibrate

    with launch.store as store:
        refused = lead_may_calibrate(store, launch.rubric, lead, lead=True)
        if refused:
            raise UserError(refused)
        if getattr(args, "judge", None):
            the_judge(store, launch.rubric.id, args.judge)  # a judge it does not know is said before the app opens
        made = [backend]

        def fresh_backend() -> object:  # one backend per re-judge: each run closes its own
            return made.pop() if made else make_backend(args, settings)

        CalibrationApp(store, launch.rubric, lead, settings=settings, make_backend=fresh_backend,
                       split=args.split, judge=getattr(args, "judge", None)).run()
    return 0
