"""The judge-tui application: asks who is rating (once), then opens the rating screen."""

from __future__ import annotations

import gc
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events
from textual.worker import Worker, WorkerState

from judge_tui.analysis.drift import DriftSettings
from judge_tui.model.errors import UserError
from judge_tui.model.redaction import redact
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import Settings
from judge_tui.store import Store
from judge_tui.store.reviewer_lock import ReviewerBusy, ReviewerLock
from judge_tui.tui.kept_writes import WRITE_WAIT, short_reason, waiting_reason, writes_waiting
from judge_tui.tui.messages import JudgeDefinitionChanged, JudgeProgress, JudgeStatusLine
from judge_tui.tui.plain_app import PlainNoticeApp
from judge_tui.tui.refused_keys import key_shown
from judge_tui.tui.screens.rating import RatingScreen
from judge_tui.tui.screens.too_small import RATING_MINIMUM, fit_to_terminal
from judge_tui.tui.session import RatingSession

if TYPE_CHECKING:
    from judge_tui.judge.worker import BackgroundJudge  # the judge loads only when it starts
    from judge_tui.judge.worker import JudgeStatus as QueueStatus

REVIEWER_META_KEY = "reviewer_id"
JUDGE_START_RETRY = 2.0  # seconds between tries to start the judge while another program holds the database
_ACTIVITY = (events.Key, events.MouseDown, events.MouseScrollDown, events.MouseScrollUp)


class JudgeTuiApp(PlainNoticeApp[None]):
    CSS_PATH = "app.tcss"
    TITLE = "judge-tui"
    ENABLE_COMMAND_PALETTE = False  # every action has its own key; see the help screen

    def __init__(
        self,
        store: Store,
        rubric: Rubric,
        *,
        reviewer: str | None,
        settings: Settings | None = None,
        split: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        notice: str = "",
        first_paint_file: Path | None = None,
        lead: bool = False,
    ) -> None:
        super().__init__()
        self.store = store
        self.rubric = rubric
        self.reviewer = reviewer
        self.settings = settings or Settings()
        self.split = split
        self.clock = clock
        self.notice = notice
        self.lead = lead  # `judge-tui rate --lead`: the lead's keys on the rating screen (judge_tui.analysis.blind)
        self.first_paint_file = first_paint_file
        self.session: RatingSession | None = None
        self.judge_status = ""
        self.background_judge: BackgroundJudge | None = None  # once started
        self._judge_error_shown = ""
        self._leaving: object | None = None  # the timer that quits once kept changes are saved
        self._mounted = False
        self._reviewer_lock: ReviewerLock | None = None  # held while this window rates

    def on_mount(self) -> None:
        self.set_keymap(self.settings.keymap)
        if self.reviewer:
            self._start_rating(self.reviewer)
        else:
            from judge_tui.tui.screens.reviewer import ReviewerScreen

            self.start_up_over()  # a person types their id before the first item: start-up is over for the collector
            self.push_screen(ReviewerScreen(), self._reviewer_chosen)
        self._mounted = True
        fit_to_terminal(self, RATING_MINIMUM)

    def on_resize(self, event: events.Resize) -> None:
        if self._mounted:  # the first size is looked at once the first screen is open (on_mount)
            fit_to_terminal(self, RATING_MINIMUM, event.size)  # the app's own size changes after this handler

    def _reviewer_chosen(self, reviewer: str | None) -> None:
        if not reviewer:
            self.exit()
            return
        self._start_rating(reviewer, remember=True)

    def _start_rating(self, reviewer: str, *, remember: bool = False) -> None:
        """Open the rating screen; its first writes (a new reviewer, a new rubric version) may meet a database
        another program holds for longer than the usual wait."""
        if not self._lock_reviewer(reviewer):
            return
        try:
            if remember:
                self.store.set_meta(REVIEWER_META_KEY, reviewer)
            self.reviewer = reviewer
            self.open_rating()
            self._show_notices()
        except sqlite3.OperationalError as exc:  # a busy, full or read-only database: say so, as the CLI does
            from rich.text import Text

            from judge_tui.store.faults import describe_sqlite

            self.exit(return_code=1, message=Text(f"judge-tui: {describe_sqlite(exc, self.store.path)}"))

    def _lock_reviewer(self, reviewer: str) -> bool:
        """One window per reviewer and database (store/reviewer_lock.py): a second one says where the first is and
        closes, before it shows an item whose rating the other window could replace or lose."""
        if str(self.store.path) == ":memory:" or self.store.read_only:
            return True
        lock = ReviewerLock(self.store.path, reviewer)
        try:
            lock.acquire()
        except ReviewerBusy:
            from rich.text import Text

            self.exit(return_code=1, message=Text(
                f"judge-tui: {reviewer} is already rating in {self.store.path} in another judge-tui window. Go on "
                "there, or quit that one (q) and start again; a window that crashed or was closed does not count. "
                "Someone else rates with --reviewer ID."))
            return False
        self._reviewer_lock = lock
        return True

    def _show_notices(self) -> None:
        # Once the rating screen is open: over the welcome dialog a long notice would hide its input at 80×24.
        if self.notice:
            self.notify(self.notice, markup=False, timeout=8)
        if self.lead:
            settle, agreement = (key_shown(i, self.settings.keymap, self.get_key_display) for i in
                                 ("adjudicate", "agreement"))
            self.notify(f"Lead: {settle} settles the items where experts disagree; {agreement} shows the team over "
                        "every item (or over the items you rate, once you rate).", markup=False, timeout=8)

    def open_rating(self) -> None:
        assert self.reviewer
        self.session = RatingSession(
            self.store, self.rubric, self.reviewer, split=self.split, idle_seconds=self.settings.idle_seconds,
            reading_seconds=self.settings.reading_seconds,
            reveal_after_submit=self.settings.reveal_after_submit, clock=self.clock,
            drift=DriftSettings.for_new_session(self.settings.drift_share) if self.settings.drift_check else None,
            order=self.settings.queue_order, targets=self.settings.agreement,
        )
        if self.session.plan is not None and self.settings.queue_order != "import":
            self.notify(f"You rate your assigned items in your assignment's order ({self.settings.queue_order} "
                        "order applies to unassigned reviewers).", markup=False, timeout=8)
        screen = RatingScreen(self.session, keymap=self.settings.keymap, agreement=self.settings.agreement,
                              lead=self.lead, auto_submit=self.settings.auto_submit,
                              stop_notice=self.settings.stop_notice)
        self.push_screen(screen)
        if self.judge_status:
            screen.call_after_refresh(screen.set_judge_status, self.judge_status)

    # ------------------------------------------------------------------ the judge in the background

    def start_background_judge(self) -> None:
        """Judge this rubric's items while the expert rates (settings.judge_in_background).

        Results are ordinary judge ratings, kept out of sight by the blind rule. Without a key or a network
        the queue waits and the status line says so; it resumes by itself.
        """
        if not self.settings.judge_in_background or self.background_judge is not None:
            return
        from judge_tui.judge.history import require_recorded
        from judge_tui.judge.prompts import PromptError
        from judge_tui.judge.worker import LEFT_TO_THE_LEAD, BackgroundJudge, judges_in_background

        if not judges_in_background(self.settings, self.store, self.rubric.id, self.reviewer):
            self.post_message(JudgeStatusLine(LEFT_TO_THE_LEAD))
            return

        try:
            # Its first writes (its rater, its queue) wait a moment at most, as the rating screen's do.
            with self.store.waiting_at_most(WRITE_WAIT):
                judge = BackgroundJudge(self.store, self.rubric, settings=self.settings,
                                        on_status=self._judge_changed, write_wait=WRITE_WAIT, skip_judged=True)
                prompt = judge.judge.prompt
                require_recorded(self.store, self.rubric, prompt_version=prompt.version,
                                 template=prompt.template.digest, definition=prompt.definition())
                judge.enqueue_all(split=self.split)
        except (UserError, PromptError) as exc:
            self.post_message(JudgeStatusLine("judge: stopped"))
            self.notify(f"The background judge did not start: {exc}", markup=False, severity="warning", timeout=12)
            return
        except sqlite3.OperationalError as exc:  # another program holds the database: start once it lets go
            self.post_message(JudgeStatusLine(f"judge: waiting ({short_reason(waiting_reason(exc))})"))
            self.set_timer(JUDGE_START_RETRY, self.start_background_judge)
            return
        self.background_judge = judge
        self.run_worker(judge.run(), name="background-judge", group="judge", exit_on_error=False)

    def on_judge_definition_changed(self, message: JudgeDefinitionChanged) -> None:
        """A change saved, kept or reverted on the judge screen: the rating screen shows the rubric now in force
        and the background judge starts again with it (its queue is per prompt version)."""
        self.rubric = message.rubric
        if self.session is not None:
            self.session.use_rubric(message.rubric)
        for screen in self.screen_stack:
            if isinstance(screen, RatingScreen):
                screen.use_rubric(message.rubric)
        judge = self.background_judge
        if judge is not None and judge.judge.prompt.version != self._prompt_version(message.rubric):
            judge.stop()
            self.background_judge = None
            self.start_background_judge()

    def _prompt_version(self, rubric: Rubric) -> str | None:
        from judge_tui.judge.prompts import JudgePrompt, PromptError

        try:
            return JudgePrompt.for_rubric(rubric, self.store).version
        except PromptError:
            return None

    def _judge_changed(self, status: QueueStatus) -> None:
        self.post_message(JudgeProgress.from_status(status))

    def on_judge_progress(self, message: JudgeProgress) -> None:
        self.post_message(JudgeStatusLine(message.line()))
        error = message.status.error
        if error and error != self._judge_error_shown:
            self._judge_error_shown = error
            self.notify(f"The judge stopped: {error}", markup=False, severity="error", timeout=15)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.name == "background-judge" and event.state == WorkerState.ERROR:
            self.post_message(JudgeStatusLine("judge: stopped"))
            self.notify(f"The background judge failed: {redact(str(event.worker.error))}", markup=False, severity="error",
                        timeout=15)

    def first_item_painted(self) -> None:
        """The first item is on screen: only now may background work begin, so it never delays it.

        With JUDGE_TUI_EXIT_AFTER_FIRST_PAINT (start-up benchmarks): note the time and the process's CPU time so
        far, and leave instead.
        """
        if self.first_paint_file is not None:
            self.first_paint_file.write_text(f"{time.time():.6f} {time.process_time():.6f}\n")
            self.exit()
            return
        self.start_up_over()
        self.set_timer(0.5, self.start_background_judge)

    def start_up_over(self) -> None:
        """The first item is on screen, or the app waits for the reviewer: the collector runs again (`judge-tui`
        starts with it off, judge_tui.cli.parser.main). What start-up made (modules, Textual's widgets and styles,
        the rubric) lives as long as the app: kept out of the collector's full passes, which otherwise walk all
        of it and held a key up to 20-45 ms."""
        gc.freeze()
        gc.enable()

    def on_unmount(self) -> None:
        if self._reviewer_lock is not None:
            self._reviewer_lock.release()
        gc.unfreeze()  # the app is done: what it kept out of the collector's passes may be collected again

    # ------------------------------------------------------------------ time and status from outside

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, _ACTIVITY) and not event.is_forwarded and self.session is not None:
            self.session.timer.activity()
        await super().on_event(event)

    def on_app_blur(self) -> None:
        if self.session is not None:
            self.session.timer.away()

    def on_app_focus(self) -> None:
        if self.session is not None and isinstance(self.screen, RatingScreen):
            self.session.timer.back()

    def on_judge_status_line(self, message: JudgeStatusLine) -> None:
        self.judge_status = message.text
        for screen in self.screen_stack:
            if isinstance(screen, RatingScreen):
                screen.set_judge_status(message.text)

    async def action_quit(self) -> None:
        for screen in self.screen_stack:
            if isinstance(screen, RatingScreen):
                screen.save_now()
        if (self.session is not None and not self.session.save_pending()) or writes_waiting(self):
            # Another process holds the database (or the disk is full): leave once the changes are written.
            if self._leaving is None:
                self._leaving = self.set_interval(0.5, self.action_quit)
                self.notify("Your changes are not saved yet: judge-tui closes as soon as they are.",
                            severity="warning", timeout=10)
            return
        if self.background_judge is not None:
            # Calls in flight are abandoned; their jobs go back to the queue at the next start.
            self.background_judge.stop()
        self.exit()
