"""The judge inside the app: judges queued items in the background while the expert rates.

The Textual app runs `BackgroundJudge.run()` in an async worker:

    judge = BackgroundJudge(store, rubric, on_status=lambda s: app.post_message(JudgeProgress.from_status(s)))
    app.run_worker(judge.run(), exit_on_error=False, group="judge")
    judge.enqueue([item.id])          # e.g. when the expert opens an item; or judge.enqueue_all()

All network traffic is async on the app's event loop, and the few database writes per judgment are quick,
so a key press is never kept waiting. Results are ordinary ratings of a judge rater; the rating screen
keeps them out of sight until the expert has rated the item (the blind rule).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from judge_tui.judge.app_backend import app_backend, app_concurrency, missing_key
from judge_tui.judge.backends import Backend
from judge_tui.judge.prompts import JudgePrompt
from judge_tui.judge.runner import Judge, JudgeRunner, RunOptions, RunState
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import Settings
from judge_tui.store import Store

LEFT_TO_THE_LEAD = "judge: left to the lead"  # the status line where "auto" keeps the judge off


def judges_in_background(settings: Settings, store: Store, rubric_id: str, reviewer: str | None) -> bool:
    """Does the app judge here? settings.judge_in_background, where "auto" means yes except on an expert's own
    copy of the team's plan (their share and no one else's, as their bundle brings it): every expert judging
    every item would pay once per laptop for the same judgments, so the lead's database, which holds the whole
    plan and which all the ratings are merged into, judges them once."""
    choice = settings.judge_in_background
    if choice != "auto":
        return bool(choice)
    plan = store.assignment_of(reviewer, rubric_id) if reviewer else None
    if plan is None:
        return True
    return any(rater != reviewer for rater, _item, _position, _overlap in store.assigned_items(plan))


@dataclass(frozen=True)
class JudgeStatus:
    queued: int
    running: int
    done: int
    failed: int
    offline: str = ""  # what the judge is waiting for, e.g. "no ANTHROPIC_API_KEY in the environment"
    error: str = ""  # why the judge stopped
    database_busy: bool = False  # its results wait: another process holds the database
    judged: int = 0  # items judged under the prompt in force by another model or backend, besides this queue
    imported: int = 0  # items whose judge ratings were imported (no recorded judge version): judged, never queued
    no_key: bool = False  # the backend needs an API key that is not in the environment

    def line(self) -> str:
        """The status line text, e.g. 'judge: 18 queued · offline' (the network), or with items judged under the
        prompt in force through another backend, 'judge: 101 judged' (offline only while something waits); with
        imported judge ratings, 'judge: 25 imported'. Without the API key the backend needs, 'no API key' says why
        the judge does not run, whether or not items wait ('judge: 3 queued · no API key'): "offline" would send
        the user to their network."""
        if self.judged or self.imported:
            return self._judged_line()
        parts = [f"{self.queued} queued"]
        if self.running:
            parts.append(f"{self.running} running")
        if self.done:
            parts.append(f"{self.done} done")
        if self.failed:
            parts.append(f"{self.failed} failed")
        if self.error:
            parts.append("stopped")
        elif self.database_busy:
            parts.append("database busy")
        elif self.no_key:
            parts.append("no API key")
        elif self.offline:
            parts.append("offline")
        return "judge: " + " · ".join(parts)

    def _judged_line(self) -> str:
        parts = [f"{self.imported} imported"] if self.imported else []
        if self.judged + self.done or not self.imported:
            parts.append(f"{self.judged + self.done} judged")
        parts += [f"{n} {what}" for n, what in ((self.queued, "queued"), (self.running, "running"),
                                                 (self.failed, "failed")) if n]
        if self.error:
            parts.append("stopped")
        elif self.database_busy:
            parts.append("database busy")
        elif self.no_key:
            parts.append("no API key")
        elif self.offline and (self.queued or self.running):
            parts.append("offline")
        return "judge: " + " · ".join(parts)


def status_of(state: RunState) -> JudgeStatus:
    return JudgeStatus(queued=max(0, state.queued), running=max(0, state.running), done=state.done,
                       failed=state.failed, offline=state.offline, error=state.error,
                       database_busy=state.database_busy)


class BackgroundJudge:
    def __init__(self, store: Store, rubric: Rubric, *, on_status: Callable[[JudgeStatus], object],
                 settings: Settings | None = None, backend: Backend | None = None, options: RunOptions | None = None,
                 write_wait: float | None = None, skip_judged: bool = False) -> None:
        """write_wait: seconds a write may wait for another process before the judge keeps its results and
        tries again (the app's screen shares this thread, so it passes a moment). skip_judged: leave out the
        items judged already (`judged_already`: the rating app; the judge screen judges with the backend it was
        given)."""
        settings = settings or Settings()
        self.store = store
        self.on_status = on_status
        self.backend = backend or app_backend(settings)
        self.judge = Judge(store, rubric, JudgePrompt.for_rubric(rubric, store), self.backend,
                           both_orders=settings.judge_both_orders)
        self.repeats = 2 if self.judge.both_orders else 1  # asked as shown (repeat 0) and swapped (repeat 1)
        options = options or RunOptions(concurrency=app_concurrency(settings))
        options.keep_alive = True  # an empty queue is not the end: the expert may open more items
        options.write_wait = write_wait
        self.runner = JudgeRunner(self.judge, options, self._progress)
        self._last: JudgeStatus | None = None
        self.skip_judged = skip_judged
        self._no_key = missing_key(self.backend) is not None
        self._judged_already: set[str] = set()  # items judged elsewhere or imported: never queued here
        self._judged_shown = 0  # how many judged elsewhere the status line counts (those of the split judged here)
        self._imported_shown = 0  # and how many imported

    @property
    def rater_id(self) -> str:
        return self.judge.rater_id

    def _progress(self, state: RunState) -> None:
        status = replace(status_of(state), judged=self._judged_shown, imported=self._imported_shown,
                         no_key=self._no_key)
        if status != self._last:  # only real changes reach the screen
            self._last = status
            self.on_status(status)

    def judged_already(self) -> tuple[set[str], set[str]]:
        """The rubric's items judged already, which the app does not judge again: those another judge rater (of
        another model or backend) judged under the prompt in force, and those imported: rated by a judge rater
        with no recorded judge version (`import-ratings --kind judge`, the demo's judge among them). Judging
        imported items again would be paid for unasked; `judge-tui judge` does it when the lead asks."""
        store, rubric_id, version = self.store, self.judge.rubric.id, self.judge.prompt.version
        recorded = {p["prompt_version"] for p in store.prompt_versions(rubric_id)}
        elsewhere: set[str] = set()
        imported: set[str] = set()
        for rater in store.judge_raters_with_prompt(rubric_id):
            if rater["id"] == self.rater_id:
                continue
            rater_version = rater["prompt_version"] or rater["id"].rpartition("@")[2]
            if rater_version == version:
                elsewhere |= store.rated_item_ids(rater["id"], rubric_id)
            elif rater_version not in recorded:
                imported |= store.rated_item_ids(rater["id"], rubric_id)
        mine = store.rated_item_ids(self.rater_id, rubric_id)
        return elsewhere - mine, imported - elsewhere - mine

    def enqueue(self, item_ids: Iterable[str]) -> int:
        """Queue these items for judging (already queued ones, and those judged under the prompt in force
        through another backend or imported, are left alone); returns how many were new."""
        item_ids = [i for i in item_ids if i not in self._judged_already]
        added = self.judge.queue.enqueue_items(item_ids, repeats=self.repeats)
        if added:
            self.runner.state.queued += added
            self._progress(self.runner.state)
            self.runner.poke()
        return added

    def enqueue_all(self, split: str | None = None) -> int:
        """Queue every item of the rubric (or of a split) not judged yet under the prompt in force, nor by
        imported judge ratings."""
        elsewhere, imported = self.judged_already() if self.skip_judged else (set(), set())
        self._judged_already = elsewhere | imported
        if self._judged_already:
            # Queued here before they counted as judged (a database of an earlier release): never to be sent.
            self.store.withdraw_queued_judge_jobs(self.rater_id, self._judged_already)
            ids = self.store.item_ids_in_order(self.judge.rubric.id, split)
            self._judged_shown = sum(i in elsewhere for i in ids)
            self._imported_shown = sum(i in imported for i in ids)
            added = self.judge.queue.enqueue_items([i for i in ids if i not in self._judged_already],
                                                   repeats=self.repeats)
        else:
            added = self.judge.queue.enqueue(split=split, repeats=self.repeats)
        if added:
            self.runner.state.queued += added
            self.runner.poke()
        if added or self._judged_shown or self._imported_shown:
            self._progress(self.runner.state)
        return added

    def stop(self) -> None:
        """Finish the calls in flight and return from run()."""
        self.runner.stop()
        self.runner.poke()

    async def run(self) -> JudgeStatus:
        try:
            state = await self.runner.run()
        finally:
            await self.backend.close()
        return status_of(state)
