"""`judge-tui calibrate`: the lead's judge screen, with the same start-up as `adjudicate`.

Without --backend, --model or an option of a backend, the screen judges with the backend and model that made the
judge it shows, so that `j` pays for the judge whose figures are on screen.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shlex

from judge_tui.analysis.judges import the_judge
from judge_tui.cli.judge import make_backend
from judge_tui.cli.launch import prepare
from judge_tui.judge.backends import backend_kinds
from judge_tui.judge.calibration import open_trial
from judge_tui.model.errors import UserError
from judge_tui.model.judge_backends import DEFAULT_BACKEND, BackendOption
from judge_tui.model.settings import Settings
from judge_tui.store import Store
from judge_tui.tui.screens.calibrate_figures import TEST_NOTE, judge_in_view


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

    from judge_tui.tui.screens.calibrate import CalibrationApp, lead_may_calibrate

    with launch.store as store:
        refused = lead_may_calibrate(store, launch.rubric, lead, lead=True)
        if refused:
            raise UserError(refused)
        if getattr(args, "judge", None):
            the_judge(store, launch.rubric.id, args.judge)  # a judge it does not know is said before the app opens
        args = backend_args(args, store, launch.rubric.id, settings)
        backend = make_backend(args, settings)  # checked now: a wrong --cmd is said before the app opens
        made = [backend]

        def fresh_backend() -> object:  # one backend per re-judge: each run closes its own
            return made.pop() if made else make_backend(args, settings)

        CalibrationApp(store, launch.rubric, lead, settings=settings, make_backend=fresh_backend,
                       split=args.split, judge=getattr(args, "judge", None)).run()
    return 0


def backend_args(args: argparse.Namespace, store: Store, rubric_id: str, settings: Settings) -> argparse.Namespace:
    """The command line the screen's backend is made from: as given when it names a backend, a model or an
    option of a backend; else with the backend and model that made the judge the screen shows. A judge made
    elsewhere (imported ratings), or none yet: the default backend with the settings' model. UserError when
    that backend needs an option its judgments do not record and neither settings.json nor the environment
    gives, naming the flags to give."""
    kinds = backend_kinds()
    options = [option for kind in kinds.values() for option in kind.options]
    if getattr(args, "backend", None) or getattr(args, "model", None) or any(
            getattr(args, option.dest, None) for option in options):
        return args
    shown = judge_in_view(store, rubric_id, trial=open_trial(store, rubric_id) is not None,
                          named=getattr(args, "judge", None))
    if shown is None:
        return args
    name = store.judge_backend(shown.rater)
    rater = store.rater(shown.rater)
    model = rater["model"] if rater else None
    if name not in kinds or not model:
        return args
    # Where the judge is (its program, its file, its server) is not recorded with its judgments.
    missing = [option for option in kinds[name].options
               if not option.repeat and not _given_elsewhere(option, settings)]
    if missing:
        raise UserError(_refusal(shown.rater, name, model, missing))
    return argparse.Namespace(**{**vars(args), "backend": name, "model": model})


def _given_elsewhere(option: BackendOption, settings: Settings) -> bool:
    """Whether settings.json or the environment gives the option's value when it is not given."""
    return bool((option.setting and str(getattr(settings, option.setting)).strip())
                or (option.env and os.environ.get(option.env, "").strip()))


def _refusal(rater: str, name: str, model: str, missing: list[BackendOption]) -> str:
    """e.g. "the judge shown, judge:m:r@v, was made by --backend command, and judge-tui does not record its --cmd:
    give --backend command --cmd '...' --model m to judge with it, or --backend anthropic to judge with another"."""
    unrecorded = " and ".join(option.flag for option in missing)
    elsewhere = [*(f"settings.json's {option.setting}" for option in missing if option.setting),
                 *(f"${option.env}" for option in missing if option.env)]
    if len(elsewhere) > 1:
        unrecorded += f"; neither {' nor '.join(elsewhere)} names one"
    elif elsewhere:
        unrecorded += f"; {elsewhere[0]} names none"
    placeholder = "'...'"
    given = " ".join(f"{option.flag} {option.metavar or placeholder}" for option in missing)
    return (f"the judge shown, {rater}, was made by --backend {name}, and judge-tui does not record its"
            f" {unrecorded}: give --backend {name} {given} --model {shlex.quote(model)} to judge with it,"
            f" or --backend {DEFAULT_BACKEND} to judge with another")
