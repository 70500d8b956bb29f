"""`judge-tui` / `judge-tui rate` and `judge-tui adjudicate`: one start-up (check the settings, open the database,
pick the rubric and the reviewer), then the app."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path

from judge_tui.cli import commands
from judge_tui.model.errors import UserError
from judge_tui.model.records import reviewer_problem
from judge_tui.model.rubrics import Rubric, Scale
from judge_tui.model.settings import Settings, load_settings
from judge_tui.store import Store, StoreError
from judge_tui.store.core import is_busy
from judge_tui.store.rubric_choice import changed_file_notice, resolve_rubric
from judge_tui.transfer import demo_loading

FIRST_PAINT_ENV = "JUDGE_TUI_EXIT_AFTER_FIRST_PAINT"
PREFERRED_RUBRIC = "cis"
START_WAIT = 0.5  # seconds a start-up write waits for another program's write to end
_BUSY = ("{db} is busy: another program (a merge, an import, a judge?) is writing to it, so the app cannot start "
         "on it now. Start it again once the other has finished")


def choose_rubric(store: Store, requested: str | None) -> Rubric:
    """--rubric if given; otherwise the rubric with the most items (the CIS rubric on the demo)."""
    if requested:
        rubric = resolve_rubric(requested, store)
    else:
        ids = store.rubric_ids()  # counted only when there is a choice: counting 100,000 items takes ~3 ms
        if not ids:
            raise UserError(f"{store.path} has no items yet. Import some with `judge-tui import FILE --rubric NAME "
                            f"--db {store.path}`, or try the bundled demo, in its own database: `judge-tui demo`.")
        candidates = ids
        if len(ids) > 1:
            in_use = store.rubrics_in_use()
            most = in_use[0][1]
            candidates = [name for name, count in in_use if count == most]
        preferred = PREFERRED_RUBRIC if PREFERRED_RUBRIC in candidates else candidates[0]
        rubric = resolve_rubric(preferred, store)
    if not store.has_items(rubric.id):
        available = ", ".join(f"{name} ({count})" for name, count in store.rubrics_in_use()) or "none"
        raise UserError(
            f"the database has no items for rubric {rubric.id!r} (items by rubric: {available}). "
            f"Import some with `judge-tui import FILE --rubric {rubric.id}`, or choose another --rubric."
        )
    return rubric


def open_database(args: argparse.Namespace) -> tuple[Store, str]:
    """The database to rate in, and what to tell the user about it.

    `judge-tui demo`, and a first start (no --db, and no study database with items yet), open the demo's own
    database; the study database is left as it is, so the user's own study starts without the demo.
    """
    study = commands.db_path(args)
    if args.command != "demo" and getattr(args, "db", None) and not study.exists():
        raise UserError(f"{study}: no such database. Check the path, import items into it first (judge-tui import "
                        f"FILE --rubric ID --db {study}), or try the bundled demo: judge-tui demo")
    if args.command != "demo" and (getattr(args, "db", None) or _study_started(study)):
        return commands.open_store(args, create=False, opening_wait=START_WAIT), ""
    try:
        store, added = demo_loading.open_demo()
    except StoreError as exc:
        raise UserError(str(exc)) from None
    loaded = (f"The bundled demo was loaded into its own database, {store.path}: "
              f"{demo_contents(store)}. " if added else "")
    if args.command == "demo":
        return store, loaded.strip()
    return store, (f"{loaded}This is the demo database: your own study goes in {study} (judge-tui import FILE "
                   f"--rubric ID), apart from the demo; `judge-tui demo` opens the demo again.")


def demo_contents(store: Store) -> str:
    """The demo's items by rubric, the one the app opens first, as the README counts them."""
    counts = dict(store.rubrics_in_use())
    first = counts.pop(PREFERRED_RUBRIC, 0)
    others = ", ".join(f"{rubric} {count}" for rubric, count in counts.items())
    return f"{first} items of rubric {PREFERRED_RUBRIC}, and smaller sets for --rubric ({others})"


def _study_started(path: Path) -> bool:
    """Whether the study database has items (or is a file open_store must judge: damaged, foreign, newer)."""
    if not path.is_file():
        return False
    try:
        with Store(path) as store:
            return bool(store.rubric_ids())
    except StoreError:
        return True


def choose_reviewer(store: Store, given: str | None, *, remember: bool = True) -> str | None:
    """--reviewer (remembered from now on unless remember is False), else the remembered one; None means ask
    in the app."""
    from judge_tui.tui.app import REVIEWER_META_KEY

    if given:
        problem = reviewer_problem(given)
        if problem:
            raise UserError(f"--reviewer {given!r}: {problem}")
        rater = store.rater(given)
        if rater is not None and rater["kind"] != "human":
            raise UserError(f"--reviewer {given!r} is already the id of a {rater['kind']} rater; choose another")
        if remember and store.get_meta(REVIEWER_META_KEY) != given:  # a start that writes nothing is quicker
            store.set_meta(REVIEWER_META_KEY, given)
        return given
    return store.get_meta(REVIEWER_META_KEY)


@dataclass
class Launch:
    """What both apps start from: checked settings, the open database, the rubric, who is at the keyboard."""

    settings: Settings
    store: Store
    rubric: Rubric
    reviewer: str | None  # None: the rating app asks
    split: str | None
    notice: str = ""


def prepare(args: argparse.Namespace, *, lead: bool = False) -> Launch:
    """The one start-up of `judge-tui rate` and `judge-tui adjudicate`: the same checks, in the same order.

    A lead (adjudicate) works on the study database, must say who they are, and their id is not remembered
    as the reviewer's; the rating app opens the demo's own database on a first start and asks for a reviewer it
    does not know.
    """
    settings = load_settings()
    if getattr(args, "order", None):  # rate --order wins over queue_order in settings.json
        settings = dataclasses.replace(settings, queue_order=args.order)
    from judge_tui.judge.app_backend import app_kind
    from judge_tui.model.locations import settings_path
    from judge_tui.tui.keys import BINDING_IDS, keymap_problems

    def check_keymap(scale: Scale | None = None) -> None:
        problems = keymap_problems(settings.keymap, scale)
        if problems:
            raise UserError(f"{settings_path()}: keymap: {'; '.join(problems)}. Binding ids: "
                            f"{', '.join(BINDING_IDS)} (`?` in the app lists the rating screen's with their keys).")

    check_keymap()
    app_kind(settings)  # a judge_backend the app cannot judge with is said now, as an invalid setting
    _size_from_the_terminal()
    # The lead adjudicates the study itself; the rating app opens the demo on a first start.
    try:
        store, notice = ((commands.open_store(args, create=False, opening_wait=START_WAIT), "") if lead
                         else open_database(args))
    except sqlite3.OperationalError as exc:
        if is_busy(exc):
            raise UserError(_BUSY.format(db=commands.db_path(args))) from None
        raise
    try:
        if notice:
            print(f"judge-tui: {notice}", file=sys.stderr)
        # What start-up writes (the reviewer remembered, a rubric version) waits a moment at most: under another
        # program's long write the app would sit on a blank screen for the whole busy timeout, then stop, while
        # the keys typed meanwhile went to the shell. Said at once instead, before the app takes the terminal.
        with store.waiting_at_most(START_WAIT):
            rubric = choose_rubric(store, getattr(args, "rubric", None))
            notice = "\n".join(filter(None, [notice, changed_file_notice(store, rubric.id)]))  # on screen too
            check_keymap(rubric.scale)  # keys 5 to 9 clash with others only on a scale with that many categories
            split = getattr(args, "split", None)
            if split and not store.has_items(rubric.id, split):
                raise UserError(f"no {rubric.id} items are in split {split!r}; `judge-tui split` assigns splits")
            reviewer = choose_reviewer(store, getattr(args, "reviewer", None), remember=not lead)
            if lead and not reviewer:
                raise UserError("who is adjudicating? Pass --reviewer ID (it is recorded with every consensus)")
    except sqlite3.OperationalError as exc:
        store.close()
        if is_busy(exc):
            raise UserError(_BUSY.format(db=store.path)) from None
        raise
    except BaseException:
        store.close()
        raise
    commands.show_rubric_warnings()  # before the app takes the terminal
    return Launch(settings, store, rubric, reviewer, split, notice)


def _size_from_the_terminal() -> None:
    """The app takes the size of the terminal it runs in. Textual asks shutil, which reads COLUMNS and LINES first:
    exported once (a shell profile, a script), they would fix the app's size whatever the window is, and it
    would show "too small" in a large window or draw past a small one. Only where the terminal answers."""
    stdout = sys.__stdout__
    if stdout is None:
        return
    try:
        os.get_terminal_size(stdout.fileno())  # what shutil asks when the variables are not set
    except (ValueError, OSError):
        return  # no terminal to ask: the variables are all there is
    os.environ.pop("COLUMNS", None)
    os.environ.pop("LINES", None)


def run(args: argparse.Namespace) -> int:
    launch = prepare(args)
    first_paint = os.environ.get(FIRST_PAINT_ENV)

    from judge_tui.tui.app import JudgeTuiApp

    app = JudgeTuiApp(launch.store, launch.rubric, reviewer=launch.reviewer, settings=launch.settings,
                      split=launch.split, notice=launch.notice, lead=getattr(args, "lead", False),
                      first_paint_file=Path(first_paint) if first_paint else None)
    try:
        app.run()
    finally:
        launch.store.close()
    return app.return_code or 0


def run_adjudicate(args: argparse.Namespace) -> int:
    """`judge-tui adjudicate`: the same start-up as `rate`, as the lead, then the disagreements to settle."""
    from judge_tui.tui.screens.adjudication import AdjudicationApp, disagreements_to_settle, nothing_to_settle

    launch = prepare(args, lead=True)
    lead = launch.reviewer
    assert lead is not None  # prepare(lead=True) refuses to start without one
    with launch.store as store:
        view, items = disagreements_to_settle(store, launch.rubric, lead, split=launch.split,
                                              settings=launch.settings.agreement)
        if not items:
            print(nothing_to_settle(launch.rubric, launch.settings.agreement))
            return 0
        AdjudicationApp(store, launch.rubric, lead, split=launch.split, settings=launch.settings,
                        view=view, items=items).run()
    return 0
