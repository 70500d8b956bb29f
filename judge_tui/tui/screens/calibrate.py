"""The judge screen, the study lead's calibration loop: where the judge stands on the dev split, a change to
its rubric, template or examples, the dev split re-judged in the background, and the change kept or reverted;
and the judge's certificate (trust or escalate) at the α and δ the lead sets with a, beside the one in force.

It shows judge figures over every dev item, so it opens only for a lead who has rated no item of the rubric
(the blind rule, analysis/blind.py): from `judge-tui calibrate`, or with J after `judge-tui rate --lead`.
The test split never enters the loop.
"""

from __future__ import annotations

import os
import shlex
import sqlite3
import subprocess
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult, SuspendNotSupported
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import ContentSwitcher, DataTable, Static
from textual.worker import Worker, WorkerState

from judge_tui.analysis.blind import visible_items
from judge_tui.formats.numbers import decimal_text, share_text, short_text
from judge_tui.model.errors import UserError
from judge_tui.model.number_parsing import parse_number
from judge_tui.model.records import DEFAULT_LEVEL
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import Settings
from judge_tui.model.textsafe import clean
from judge_tui.store import Store
from judge_tui.tui.kept_writes import WRITE_WAIT, waiting_reason, waiting_text
from judge_tui.tui.plain_app import PlainNoticeApp
from judge_tui.tui.refused_keys import key_shown
from judge_tui.tui.score_text import score_label
from judge_tui.tui.screen_keys import CALIBRATION_BINDINGS
from judge_tui.tui.screens.disagreements import reasoning_text
from judge_tui.tui.widgets.dialogs import AskScreen, ChooseScreen, TextEditorScreen
from judge_tui.tui.widgets.key_bar import KeyBar

if TYPE_CHECKING:
    from judge_tui.judge.backends import Backend

BackendFactory = Callable[[], Any]
REFRESH_SECONDS = 1.0  # at most one recomputation of the figures per second while judgments arrive


def lead_may_calibrate(store: Store, rubric: Rubric, viewer: str, *, lead: bool, key: str = "J") -> str | None:
    """Why this viewer may not open the judge screen, or None. It is the lead's, and follows the adjudication
    screen's rule (blind.visible_items): a lead who has rated items of the rubric is an expert too, and sees the
    judge, the other experts and every figure over those items only. ``key``: the rating screen's key for it, as
    the keymap binds it."""
    if not lead:
        return (f"The judge screen is the lead's: it opens with `judge-tui calibrate`, or with {key} after "
                "`judge-tui rate --lead`.")
    return None


def comparison_table(rows: list[tuple[str, str, str, str, str, str, str]]) -> Any:
    """The version comparison's rows (`compare_rows`) for a narrow pane: each dimension's name on a line of its
    own above its figures, so that a long name never squeezes the figures, intervals or verdicts (in one table
    with a column of names, 80 columns cut them short). The columns line up from one dimension to the next."""
    from rich.console import Group

    columns = [("", False), ("before", True), ("after", True), ("change", True), ("verdict", False)]
    widths = [max(len(header), *(len(row[at]) for row in rows))
              for (header, _right), at in zip(columns, (1, 3, 4, 5, 6), strict=True)]
    widths[-1] = max(len(word) for row in rows for word in row[6].split())  # verdicts wrap between words

    def table(header: bool) -> Table:
        grid = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold", show_header=header)
        for (name, right), width in zip(columns, widths, strict=True):
            grid.add_column(name, justify="right" if right else "left", min_width=width, no_wrap=name != "verdict")
        return grid

    parts: list[Any] = [table(header=True)]
    for dimension, figure, _n, before, after, change, verdict in rows:
        if dimension:
            parts.append(Text(clean(dimension), style="bold"))
            parts.append(table(header=False))
        parts[-1].add_row(*(Text(clean(cell)) for cell in (figure, before, after, change, verdict)))
    return Group(*parts)


# --------------------------------------------------------------------------- the screen


class CalibrationScreen(Screen[None]):
    DEFAULT_CSS = """
    CalibrationScreen #cal-title { height: auto; max-height: 3; padding: 0 1; background: $panel; }
    CalibrationScreen #cal-status { height: auto; max-height: 4; padding: 0 1; background: $boost; }
    CalibrationScreen ContentSwitcher { height: 1fr; }
    CalibrationScreen #cal-overview { padding: 0 1; height: 1fr; }
    CalibrationScreen #cal-overview > Static { margin-bottom: 1; }
    CalibrationScreen #cal-items { height: 1fr; }
    CalibrationScreen #cal-validity { padding: 0 1; height: 1fr; }
    CalibrationScreen #cal-list { width: 30; max-width: 40%; }
    CalibrationScreen #cal-detail { width: 1fr; padding: 0 1; }
    """

    BINDINGS = [*CALIBRATION_BINDINGS]  # screen_keys.py: their ids, for settings.keymap

    class Computed(Message):
        def __init__(self, standing: Any, unjudged: tuple[int, int, int], certificate: list[str] | None = None) -> None:
            super().__init__()
            self.standing = standing
            self.certificate = certificate or []  # the certificate at the lead's α and δ, and the one in force
            # Split items the prompt in force has not judged yet (with this backend); how many of them failed
            # before (j tries them again); jobs already queued for this judge outside the split (the rating
            # screen's background judge queues every item), which a run judges too.
            self.unjudged = unjudged

    class Failed(Message):
        def __init__(self, reason: str) -> None:
            super().__init__()
            self.reason = reason

    class JudgeStatusChanged(Message):
        def __init__(self, line: str, done: int) -> None:
            super().__init__()
            self.line = line
            self.done = done

    def __init__(self, store: Store, rubric: Rubric, lead: str, *, settings: Settings | None = None,
                 make_backend: BackendFactory | None = None, split: str = "dev", judge: str | None = None) -> None:
        super().__init__()
        self.store, self.rubric, self.lead = store, rubric, lead
        self.settings = settings or Settings()
        self.make_backend = make_backend
        self.split = split
        self.named_judge = judge  # `calibrate --judge`: the judge shown instead of the newest kept version
        self.standing: Any = None
        self.judge: Any = None  # the background (re-)judge of the split
        self.judge_line = ""
        self.unjudged = 0
        self.failed = 0
        self.queued_elsewhere = 0
        self._spare_backend: Backend | None = None  # made to name the backend before a run; the next run takes it
        self._dirty = True
        self.computing = False
        self._drafts: dict[str, str] = {}  # a refused edit, kept so the next edit starts from it
        self._waiting_write = ""  # a write tried again each second while another program holds the database
        self._warned_waiting = False  # closing with it waiting was said once
        self.levels = (DEFAULT_LEVEL, DEFAULT_LEVEL)  # the certificate's α and δ (a changes them)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys that would do nothing now are left out of the key bar: K and R without a change under trial,
        j with nothing to judge, the edits while a change is under trial."""
        if action in ("keep", "revert"):
            return self._trial() is not None
        if action in ("edit", "promote"):
            return self._trial() is None
        if action == "judge_split":
            return self.judge is None and self.unjudged > 0
        return True

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Static(self._title(), id="cal-title")
        yield Static(Text("Loading…", style="dim"), id="cal-status")
        with ContentSwitcher(initial="cal-overview"):
            with VerticalScroll(id="cal-overview"):
                yield Static(id="cal-versions")
                yield Static(id="cal-figures")
                yield Static(id="cal-certificate")
                yield Static(id="cal-compare")
                yield Static(id="cal-biases")
                yield Static(id="cal-jury")
                yield Static(id="cal-test-note")
            with VerticalScroll(id="cal-validity"):
                yield Static(Text("(computing…)", style="dim"), id="cal-validity-page")
            with Horizontal(id="cal-items"):
                yield DataTable(id="cal-list", cursor_type="row", zebra_stripes=True)
                with VerticalScroll(id="cal-detail"):
                    yield Static(id="cal-item")
        yield KeyBar()

    def _title(self, judge: str = "") -> Text:
        """The screen's name, then which judge it shows (once the figures are computed)."""
        title = Text(f"Judge · {clean(self.rubric.id)} · {self.split} split · lead {clean(self.lead)}", style="bold")
        if judge:
            title.append("\n" + clean(judge))
        return title

    def on_mount(self) -> None:
        from judge_tui.tui.screens.calibrate_figures import TEST_NOTE

        self.query_one("#cal-test-note", Static).update(Text(TEST_NOTE, style="italic"))
        self.query_one("#cal-list", DataTable).add_columns("Item", "Gap", "Dims")
        self.query_one("#cal-overview").focus()
        self.set_interval(REFRESH_SECONDS, self._refresh_if_dirty)
        in_force = self.store.certificate_in_force(self.rubric.id)
        if in_force is not None:  # start from the levels of the certificate in force
            self.levels = (in_force.alpha, in_force.delta)
        trial = self._trial()
        if trial is not None and self.make_backend is not None:
            self._start_rejudge()  # a change under trial from an earlier session: go on judging it
        self._refresh_if_dirty()

    def _trial(self) -> Any:
        from judge_tui.judge.calibration import open_trial

        return open_trial(self.store, self.rubric.id)

    # ------------------------------------------------------------------ the figures (a thread, its own connection)

    def _refresh_if_dirty(self) -> None:
        if self._dirty and not self.computing:
            self._dirty = False
            self.computing = True
            from judge_tui.judge.calibration import current_prompt_version

            trial = self._trial()
            try:
                current = current_prompt_version(self.store, self.rubric)
            except Exception as exc:  # a template that cannot be read: say so rather than fail
                self.computing = False
                self._status(Text(clean(str(exc)), style="red"))
                return
            backend = self.judge.backend if self.judge is not None else self._backend()
            self.compute(current, trial is not None,
                         getattr(backend, "model", None))

    @work(thread=True, exclusive=True, exit_on_error=False, group="calibration-figures")
    def compute(self, current: str, trial: bool, model: str | None) -> None:
        from judge_tui.tui.screens.calibrate_figures import shown_judges, standing

        try:
            # One snapshot: the figures and the count of unjudged items describe the same moment, so a judgment
            # landing between the two reads never shows "nothing left to judge" beside figures that lack it.
            with Store(self.store.path) as store, store.snapshot():
                # The judge every report and screen compares, beside the kept version before it; a change under
                # trial beside the judge.
                shown = shown_judges(store, self.rubric.id, in_force=current, trial=current if trial else None,
                                     model=model, named=self.named_judge)
                found = standing(store, self.rubric, prompt_version=shown.prompt_version, previous=shown.previous,
                                 model=model, split=self.split, settings=self.settings.agreement,
                                 visible=visible_items(store, self.rubric.id, self.lead, lead=True), shown=shown)
                unjudged = self._count_unjudged(store, current, model) if model else (0, 0, 0)
                certificate = self._certificate(store, found.judge)
        except UserError as exc:
            self.post_message(self.Failed(str(exc)))
            return
        self.post_message(self.Computed(found, unjudged, certificate))

    def _certificate(self, store: Store, judge: str | None) -> list[str]:
        """The judge in force certified at the lead's α and δ on this split (or why not), and the certificate in
        force, as the overview's lines."""
        from judge_tui.analysis.certify import certify_judge
        from judge_tui.analysis.report_render.certificate import screen_lines

        alpha, delta = self.levels
        found, problem = None, None
        if judge is None:
            problem = "the prompt in force has not judged yet"
        else:
            try:
                found = certify_judge(store, self.rubric, self.settings.agreement, alpha=alpha, delta=delta,
                                      judge=judge, split=self.split)
            except UserError as exc:
                problem = str(exc)
        return screen_lines(found, problem, store.certificate_in_force(self.rubric.id),
                            len(store.judge_decided(self.rubric.id)), alpha, delta, self.rubric.id, self.split,
                            judge)

    def _count_unjudged(self, store: Store, prompt_version: str, model: str) -> tuple[int, int, int]:
        """What j would judge: the split's items the judge of this model has not judged under the prompt in
        force (queued, never queued, or failed), how many of them failed, and its queued jobs elsewhere."""
        from judge_tui.judge.runner import judge_rater_id

        return store.count_unjudged(judge_rater_id(model, self.rubric.id, prompt_version), self.rubric.id,
                                    self.split)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "calibration-figures" and event.state == WorkerState.ERROR:
            self.computing = False
            self._status(Text(f"Could not compute the figures: {clean(str(event.worker.error))}", style="red"))
        elif event.worker.group == "calibration-judge" and event.state == WorkerState.ERROR:
            self._status(Text(f"The re-judge stopped: {clean(str(event.worker.error))}", style="red"))

    def on_calibration_screen_failed(self, message: Failed) -> None:
        self.computing = False
        self._status(Text(clean(message.reason), style="red"))

    def on_calibration_screen_computed(self, message: Computed) -> None:
        self.computing = False
        self.standing = s = message.standing
        self.unjudged, self.failed, self.queued_elsewhere = message.unjudged
        self.query_one("#cal-title", Static).update(self._title(s.heading))
        self.refresh_bindings()
        self._show_status()
        versions = Text()
        for note in filter(None, (s.rubric_version, s.prompt_version)):
            versions.append(f"{note.label}", style="bold")
            versions.append(f"  {note.created_at[:16].replace('T', ' ')}\n" if note.created_at else "\n")
            versions.append(f"  reason: {clean(note.reason) or '(first version, or none recorded)'}\n")
            if note.items:
                versions.append(f"  items: {clean(', '.join(note.items))}\n")
        self.query_one("#cal-versions", Static).update(versions)
        self.query_one("#cal-figures", Static).update(self._figures(s))
        self.query_one("#cal-compare", Static).update(self._comparison(s))
        biases = Text("Biases\n", style="bold")
        if s.biases is not None:
            from judge_tui.analysis.report_render.biases import biases_lines

            biases.append("\n".join(clean(line) for line in biases_lines(s.biases)))
        else:
            biases.append("(none measured yet)")
        self.query_one("#cal-biases", Static).update(biases)
        jury = Text("\n".join(clean(line) for line in s.jury)) if s.jury else Text()
        self.query_one("#cal-jury", Static).update(jury)
        self.query_one("#cal-certificate", Static).update(self._certificate_view(message.certificate))
        self.query_one("#cal-validity-page", Static).update(self._validity(s))
        self._fill_items()

    @staticmethod
    def _validity(s: Any) -> Text:
        """The judge-validity page of the judge in force, on this split (the report's first page)."""
        from judge_tui.analysis.report_render import validity as validity_format

        if s.validity is None:
            return Text("No page yet: the judge in force has no figures against the experts on this split.",
                        style="dim")
        # The pane's padding and scroll bar leave 76 of an 80-column terminal's columns.
        return Text(clean(validity_format.render_text(s.validity, validity_format.WIDTH - 4).rstrip("\n")))

    @staticmethod
    def _certificate_view(lines: list[str]) -> Any:
        """The certificate's title, then each line indented, the rest of a wrapped line two columns further in."""
        from rich.console import Group

        from judge_tui.formats.terminal import WrappedLines

        if not lines:
            return Text()
        title, *rest = lines
        return Group(Text(clean(title), style="bold"), WrappedLines(clean(line) for line in rest))

    def _figures(self, s: Any) -> Any:
        """The judge against the experts: what was compared, a row per dimension, what could not be computed,
        and what j would judge."""
        from rich.console import Group

        parts: list[Any] = [Text("Against the experts' consensus", style="bold")]
        if s.figures:
            parts.append(Text(clean(s.figures[0])))
        if s.figure_rows:
            table = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold")
            table.add_column("")
            for header in ("alignment", "kappa", "r"):
                table.add_column(header, justify="right", no_wrap=True)
            for name, *figures in s.figure_rows:
                table.add_row(Text(clean(name.split(" (")[0])), *figures)
            parts.append(table)
        parts += [Text(clean(note)) for note in s.notes]
        if len(parts) == 1:
            parts.append(Text("(no figures yet)", style="dim"))
        offer = self._judge_offer()
        if offer:
            parts.append(Text(offer, style="bold"))
        return Group(*parts)

    @staticmethod
    def _comparison(s: Any) -> Any:
        """The previous version beside the current one: the headline, then each figure before and after with the
        paired change and its verdict, in columns narrow enough for 80 (the report's table is wider)."""
        from rich.console import Group

        from judge_tui.analysis.report_render.comparison import compare_rows, split_text
        from judge_tui.tui.screens.calibrate_figures import change_headline

        title = Text("Previous version beside it", style="bold")
        c = s.comparison
        if c is None:
            return Group(title, Text("\n".join(clean(line) for line in s.comparison_lines)))
        table = comparison_table(compare_rows(c))

        def named(version: Any) -> str:  # a prompt version, or a judge rater where several models judged one
            return clean(version.name) if version.name == version.rater_id else f"prompt {clean(version.name)}"

        versions = (f"before: {named(c.v1)} · after: {named(c.v2)} "
                    f"· {c.items} {clean(split_text(c))} items judged by both · changes with their "
                    f"{share_text(c.settings.confidence)} paired bootstrap interval")
        return Group(title, Text(clean(change_headline(s.comparison)), style="bold"), Text(versions, style="dim"),
                     table)

    def _fill_items(self) -> None:
        table = self.query_one("#cal-list", DataTable)
        current = table.cursor_row
        table.clear()
        for row in self.standing.misaligned:
            table.add_row(Text(clean(row.item_id)), decimal_text(row.gap, 2), str(row.differing), key=row.item_id)
        if self.standing.misaligned:
            table.move_cursor(row=min(current, len(self.standing.misaligned) - 1))
            self._show_item(self.standing.misaligned[table.cursor_row].item_id)
        else:
            self.query_one("#cal-item", Static).update(Text("No misaligned dev item.", style="dim"))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key is not None and event.row_key.value is not None:
            self._show_item(event.row_key.value)

    def _show_item(self, item_id: str) -> None:
        row = next((m for m in self.standing.misaligned if m.item_id == item_id), None)
        if row is None:
            return
        scale = self.rubric.scale
        table = Table(title=Text(clean(item_id)), title_justify="left", expand=True)
        for column in ("Dimension", "Experts", "Judge"):
            table.add_column(column)
        for d in self.rubric.judged_dimensions:
            table.add_row(Text(clean(d.name)), score_label(scale, row.consensus.get(d.id)),
                          score_label(scale, row.judge.get(d.id)))
        notes = Text("Experts' notes\n", style="bold")
        for expert, note in row.notes.items():
            notes.append(f"{clean(expert)}: ", style="bold")
            notes.append(clean(note) + "\n")
        if not row.notes:
            notes.append("(none)\n", style="dim")
        reasoning = Text("Judge's reasoning\n", style="bold")
        judge = self.store.rating(item_id, self.standing.judge) if self.standing.judge else None
        reasoning.append_text(reasoning_text(judge))
        from rich.console import Group

        self.query_one("#cal-item", Static).update(Group(table, notes, reasoning))

    # ------------------------------------------------------------------ status: trial, re-judge, cost

    def _status(self, text: Text) -> None:
        self.query_one("#cal-status", Static).update(text)

    def _show_status(self) -> None:
        trial = self._trial()
        key = self._key_of
        edits = f"{key('cal-edit-rubric')} rubric · {key('cal-edit-template')} prompt · {key('cal-promote')} example"
        text = Text()
        if trial is not None:
            text.append(f"Under trial: prompt {trial.after} over {trial.before}", style="bold")
            text.append(f" · {clean(trial.reason)} · {key('cal-keep')} keeps, {key('cal-revert')} reverts\n")
        elif self.unjudged and self.judge is None:
            model = f" with {clean(self._spare_backend.model)}" if self._spare_backend is not None else ""
            text.append(f"{key('cal-judge')} judges the {self.unjudged} {self.split} items not judged yet{model}"
                        f" · {edits}\n", style="bold")
        else:
            text.append(f"No change under trial · {edits}\n", style="dim")
        if self.judge_line:
            text.append(clean(self.judge_line) + " · ")
        cost = self.standing.cost if self.standing is not None else None
        text.append(f"cost so far: {cost.line()}" if cost is not None else "no judge calls yet")
        self._status(text)

    def _key_of(self, binding_id: str) -> str:
        """The first key of one of this screen's bindings, as the user's keymap has it."""
        return key_shown(binding_id, self.settings.keymap, self.app.get_key_display) or binding_id

    def _judge_changed(self, status: Any) -> None:
        self.post_message(self.JudgeStatusChanged(status.line(), status.done))

    def on_calibration_screen_judge_status_changed(self, message: JudgeStatusChanged) -> None:
        self.judge_line = f"judging {self.split}: " + message.line.removeprefix("judge: ")
        if " failed" in message.line:
            self.judge_line += " (judge-tui failures shows why)"
        self._dirty = True  # new judgments: the comparison is recomputed at the next tick
        if self.standing is not None:
            self._show_status()

    def _start_rejudge(self, waited: bool = False) -> None:
        """Judge the dev split under the version in force, in the background (at most judge_concurrency calls at
        once, openai_concurrency for an OpenAI-compatible server, on the event loop: never blocking a key)."""
        from judge_tui.judge.app_backend import concurrency_for
        from judge_tui.judge.prompts import PromptError
        from judge_tui.judge.runner import RunOptions
        from judge_tui.judge.worker import BackgroundJudge

        self._stop_rejudge()
        if self.make_backend is None:
            return
        backend = self._backend()
        try:
            with self.store.waiting_at_most(WRITE_WAIT):  # its first writes wait a moment at most
                judge = BackgroundJudge(self.store, self.rubric, settings=self.settings, backend=backend,
                                        on_status=self._judge_changed, write_wait=WRITE_WAIT,
                                        options=RunOptions(concurrency=concurrency_for(backend, self.settings)))
                judge.judge.queue.requeue_failed()  # before the run starts, which counts the queue
                added = judge.enqueue_all(split=self.split)
        except (UserError, PromptError) as exc:
            self.notify(f"The re-judge did not start: {exc}", severity="error", timeout=12)
            return
        except sqlite3.OperationalError as exc:  # the backend is kept for the next try
            self._wait_for_database(exc, "The re-judge", waited, partial(self._start_rejudge, True))
            return
        self._waiting_write = ""
        self._spare_backend = None
        self.judge = judge
        self.refresh_bindings()
        self.run_worker(judge.run(), group="calibration-judge", exit_on_error=False)
        self.judge_line = f"judging {self.split}: {added} queued"

    def _backend(self) -> Backend | None:
        """The backend the next run uses (made now, so the screen can say what it is), or None."""
        if self._spare_backend is None and self.make_backend is not None:
            try:
                self._spare_backend = self.make_backend()
            except UserError as exc:
                self.notify(f"No judge backend: {exc}", markup=False, severity="error", timeout=12)
        return self._spare_backend

    def _judge_offer(self) -> str:
        """What j does and costs, while there is something for it to judge."""
        from judge_tui.judge.app_backend import described

        backend = self._spare_backend
        if not self.unjudged or self.judge is not None or backend is None:
            return ""
        current = self.standing.prompt_version.label if self.standing is not None else "the prompt in force"
        failed = (f" {self.failed} of them failed before (judge-tui failures shows why) and are tried again."
                  if self.failed else "")
        calls = self.unjudged + self.queued_elsewhere
        elsewhere = (f" ({self.queued_elsewhere} of them for items of other splits, already in this judge's queue)"
                     if self.queued_elsewhere else "")
        return (f"Press {self._key_of('cal-judge')} to judge the {self.unjudged} {self.split} items {current} has "
                f"not judged yet with {clean(backend.model)}, in the background: {calls} calls to "
                f"{described(backend)}{elsewhere}.{failed}{self._judged_through_another(backend)}")

    def _judged_through_another(self, backend: Backend) -> str:
        """Where the judge shown is another model or backend than j's: j would make a new judge beside it."""
        from judge_tui.judge.runner import judge_rater_id

        shown = self.standing.judge if self.standing is not None else None
        if shown is None or judge_rater_id(backend.model, self.rubric.id, shown.rpartition("@")[2]) == shown:
            return ""
        return (f" The judge shown, {clean(shown)}, is another model or backend: {self._key_of('cal-judge')} makes"
                " another judge beside it; to judge with it, open this screen with its --backend and --model.")

    def action_judge_split(self) -> None:
        if self.make_backend is None:
            self.notify("No judge backend here: open the judge screen with `judge-tui calibrate --backend ...`.",
                        markup=False, severity="warning", timeout=10)
            return
        self._start_rejudge()
        self._show_status()

    def _stop_rejudge(self) -> None:
        if self.judge is not None:
            self.judge.stop()
            self.judge = None
            self.judge_line = ""
            self.refresh_bindings()

    # ------------------------------------------------------------------ changing the judge

    def _files(self) -> Any:
        from judge_tui.judge.calibration import judge_texts

        if self._trial() is not None:
            raise UserError(f"A change is under trial: keep it ({self._key_of('cal-keep')}) or revert it "
                            f"({self._key_of('cal-revert')}) before the next one.")
        return judge_texts(self.store, self.rubric)

    def action_edit(self, what: str) -> None:
        try:
            files = self._files()
        except UserError as exc:
            self.notify(str(exc), severity="warning", timeout=10)
            return
        rubric_text, template_text = files.texts()
        path = files.rubric if what == "rubric" else files.template
        text = self._drafts.get(what, rubric_text if what == "rubric" else template_text)
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")

        def edited(new: str | None) -> None:
            if new is None or new == (rubric_text if what == "rubric" else template_text):
                self._drafts.pop(what, None)
                self.notify("Nothing changed.", timeout=4)
                return
            pair = (new, template_text) if what == "rubric" else (rubric_text, new)
            self._check_and_ask(files, *pair, draft=what)

        if editor:
            edited(self._run_editor(editor, path.name, text))
        else:
            self.app.push_screen(TextEditorScreen(f"Editing {path} (kept in this study's database)", text,
                                                  "toml" if what == "rubric" else "markdown"), edited)

    def _run_editor(self, editor: str, name: str, text: str) -> str | None:
        """The text after $VISUAL/$EDITOR edited a copy of it (the app suspended meanwhile), or None."""
        with tempfile.TemporaryDirectory(prefix="judge-tui-edit-") as folder:
            copy = Path(folder) / name
            copy.write_bytes(text.encode("utf-8"))
            argv = [*shlex.split(editor), str(copy)]
            try:
                try:
                    with self.app.suspend():
                        done = subprocess.run(argv, check=False)
                except SuspendNotSupported:  # no terminal to hand over (a headless run): the editor runs as is
                    done = subprocess.run(argv, check=False, stdin=subprocess.DEVNULL, capture_output=True)
            except OSError as exc:
                self.notify(f"Could not start the editor {editor!r}: {exc.strerror}", severity="error", timeout=10)
                return None
            if done.returncode != 0:
                self.notify(f"The editor exited with status {done.returncode}: nothing changed.",
                            severity="warning", timeout=8)
                return None
            return copy.read_bytes().decode("utf-8", errors="replace")

    def _check_and_ask(self, files: Any, rubric_text: str, template_text: str, *, draft: str | None = None,
                       motivating: list[str] | None = None) -> None:
        from judge_tui.judge.calibration import check_change

        try:
            change = check_change(self.store, self.rubric, files, rubric_text, template_text)
        except UserError as exc:
            if draft:
                self._drafts[draft] = rubric_text if draft == "rubric" else template_text
            self.notify(f"Not saved, nothing recorded: {exc}", severity="error", timeout=15)
            return
        if draft:
            self._drafts.pop(draft, None)
        visible = visible_items(self.store, self.rubric.id, self.lead, lead=True)
        marks = [m for m in self.store.revision_marks(self.rubric.id) if visible is None or m in visible]
        items = ", ".join(dict.fromkeys([*(motivating or []), *marks]))

        def answered(answer: tuple[str, str] | None) -> None:
            if answer is None:
                self.notify("Not saved: nothing changed.", timeout=4)
                return
            self._apply(files, change, answer[0], answer[1])

        worst = [m.item_id for m in self.standing.misaligned[:3]] if self.standing is not None else []
        self.app.push_screen(AskScreen(
            "The change passed the checks. Why this change? (recorded with the new version; history shows it)",
            ("Reason: what changed and why", "", "e.g. anchors of clarity tightened: the judge over-rated"),
            ("Motivating items (your revision marks, else type them)", items,
             f"ID, ID (most misaligned now: {', '.join(worst)})" if worst else "ID, ID"),
        ), answered)

    def _apply(self, files: Any, change: Any, reason: str, items_text: str, *, waited: bool = False) -> None:
        from judge_tui.judge.calibration import apply_change
        from judge_tui.judge.history import parse_items

        try:
            with self.store.waiting_at_most(WRITE_WAIT):
                trial = apply_change(self.store, self.rubric, files, change, reason, parse_items(items_text))
        except UserError as exc:
            self.notify(f"Not saved, nothing recorded: {exc}", severity="error", timeout=15)
            return
        except sqlite3.OperationalError as exc:  # nothing recorded: tried again each second
            self._wait_for_database(exc, "The change", waited,
                                    partial(self._apply, files, change, reason, items_text, waited=True))
            return
        self._waiting_write = ""
        self._now_in_force(change.rubric)
        self.notify(f"Recorded prompt version {trial.after} with its reason; re-judging the dev split.", timeout=6)
        self._start_rejudge()
        self._dirty = True
        self._refresh_if_dirty()

    def _now_in_force(self, rubric: Rubric) -> None:
        """This screen and the rest of the running app (the rating screen, its background judge) use `rubric`
        and the judge template now in force in this database."""
        from judge_tui.tui.messages import JudgeDefinitionChanged

        self.rubric = rubric
        self.refresh_bindings()
        self.app.post_message(JudgeDefinitionChanged(rubric))

    def action_promote(self) -> None:
        try:
            files = self._files()
        except UserError as exc:
            self.notify(str(exc), severity="warning", timeout=10)
            return

        def answered(answer: tuple[str, str] | None) -> None:
            if answer is not None:
                self._choose_rater(files, answer[0].strip(), " ".join(answer[1].split()))

        first_train = next(iter(self.store.iter_items(self.rubric.id, "train")), None)
        self.app.push_screen(AskScreen(
            "A few-shot example (train split only)",
            ("Item id (a train item an expert rated)", "",
             f"e.g. {clean(first_train.id)}" if first_train else "no item is in the train split yet"),
            ("Why the expert's rating is right, in one line", "",
             "e.g. what the answer does that earns this score, in the rubric's words"),
        ), answered)

    def _choose_rater(self, files: Any, item_id: str, explanation: str) -> None:
        """Whose rating the example carries: asked when more than one expert (or a consensus) rated the item."""
        from judge_tui.judge.calibration import example_block, example_raters

        visible = visible_items(self.store, self.rubric.id, self.lead, lead=True)
        if visible is not None and item_id not in visible:  # the example carries another expert's rating
            self.notify(f"Not made an example: you have not rated {item_id}, and the blind rule keeps the other "
                        "experts' ratings from you (you have rated items of this rubric, so you are an expert "
                        "too).", markup=False, severity="error", timeout=15)
            return
        try:
            raters = example_raters(self.store, self.rubric, item_id)
            if not explanation:
                raise UserError("say in one line why the expert's rating of this item is right")
        except UserError as exc:
            self.notify(f"Not made an example: {exc}", markup=False, severity="error", timeout=15)
            return
        if len(raters) == 1:
            self._promote(files, item_id, explanation, raters[0])
            return
        choices = [(rater, self._rating_line(item_id, rater), example_block(item_id, rater, explanation))
                   for rater in raters]

        def chosen(rater: str | None) -> None:
            if rater is not None:
                self._promote(files, item_id, explanation, rater)

        self.app.push_screen(ChooseScreen(f"{item_id}: whose rating does the example show?", choices,
                                            "Added to the rubric (in this study's database):"), chosen)

    def _rating_line(self, item_id: str, rater: str) -> Text:
        """A rater's rating of an item, one line: who, and the score of each judged dimension."""
        rating = self.store.rating(item_id, rater)
        line = Text(clean(rater) + (" (the experts' consensus)" if rater == "consensus" else ""), style="bold")
        if rating is not None:
            scores = ", ".join(f"{clean(d.name.split(' (')[0])} {score_label(self.rubric.scale, rating.scores.get(d.id))}"
                               for d in self.rubric.judged_dimensions)
            line.append(f": {scores}", style="")
        return line

    def _promote(self, files: Any, item_id: str, explanation: str, rater: str) -> None:
        from judge_tui.judge.calibration import promote_example

        rubric_text, template_text = files.texts()
        try:
            new = promote_example(self.store, self.rubric, rubric_text, item_id, explanation, rater)
        except UserError as exc:
            self.notify(f"Not made an example: {exc}", markup=False, severity="error", timeout=15)
            return
        self._check_and_ask(files, new, template_text, motivating=[item_id])

    # ------------------------------------------------------------------ keep or revert

    def _wait_for_database(self, exc: sqlite3.OperationalError, what: str, waited: bool,
                           again: Callable[[], None]) -> None:
        """Another program holds the database: the write changed nothing; say so once and try again each second
        (while this screen is open)."""
        if not waited:
            self.notify(f"{what} waits: {waiting_text(waiting_reason(exc))}", markup=False, severity="warning",
                        timeout=8)
        self._waiting_write, self._warned_waiting = what, False
        self.set_timer(1.0, again)

    def action_keep(self, waited: bool = False) -> None:
        from judge_tui.judge.calibration import keep

        trial = self._trial()
        if trial is None:
            self._waiting_write = ""
            if not waited:
                self.notify("No change is under trial.", timeout=4)
            return
        try:
            with self.store.waiting_at_most(WRITE_WAIT):
                keep(self.store, trial)
        except sqlite3.OperationalError as exc:
            self._wait_for_database(exc, "Keeping the change", waited, partial(self.action_keep, True))
            return
        self._waiting_write = ""
        self._stop_rejudge()
        self.refresh_bindings()
        self.notify(f"Kept prompt version {trial.after}: it is in force for every command.", timeout=6)
        self._dirty = True
        self._refresh_if_dirty()

    def action_revert(self) -> None:
        from judge_tui.judge.calibration import revert
        from judge_tui.store.rubric_choice import resolve_rubric

        trial = self._trial()
        if trial is None:
            self.notify("No change is under trial.", timeout=4)
            return

        def answered(answer: tuple[str, str] | None, waited: bool = False) -> None:
            if answer is None:
                return
            try:
                with self.store.waiting_at_most(WRITE_WAIT):
                    revert(self.store, trial, answer[0])
            except UserError as exc:
                self.notify(str(exc), severity="error", timeout=10)
                return
            except sqlite3.OperationalError as exc:
                self._wait_for_database(exc, "The revert", waited, partial(answered, answer, True))
                return
            self._waiting_write = ""
            self._stop_rejudge()
            self._now_in_force(resolve_rubric(self.rubric.id, self.store))
            self.notify(f"Reverted to prompt version {trial.before}; both versions' judgments stay.", timeout=6)
            self._dirty = True
            self._refresh_if_dirty()

        self.app.push_screen(AskScreen("Revert the change: why did it not help?",
                                       ("Reason (recorded with the revert)", "", "e.g. no better on dev"), None),
                             answered)

    # ------------------------------------------------------------------ moving about

    def action_certificate_levels(self) -> None:
        """α and δ in a dialog; the certificate is computed again at the new levels (nothing is recorded: the
        levels go in force with `judge-tui assign --escalate`)."""
        alpha, delta = self.levels

        def answered(answer: tuple[str, str] | None) -> None:
            if answer is None:
                return
            try:
                levels = (_level(answer[0], "α"), _level(answer[1], "δ"))
            except UserError as exc:
                self.notify(str(exc), severity="warning", timeout=10, markup=False)
                return
            if levels != self.levels:
                self.levels = levels
                self._dirty = True
                self._refresh_if_dirty()

        self.app.push_screen(AskScreen(
            "The judge's certificate: on which items it may decide alone",
            ("α: the most disagreement with the experts you accept on the items the judge keeps", short_text(alpha),
             "e.g. 0.1"),
            ("δ: the chance you accept that the certificate is wrong", short_text(delta), "e.g. 0.1"),
        ), answered)

    def action_switch(self, pane: str) -> None:
        switcher = self.query_one(ContentSwitcher)
        if pane == switcher.current != "cal-overview":  # i or v again: back to the overview
            pane = "cal-overview"
        switcher.current = pane
        self.query_one("#cal-list" if pane == "cal-items" else f"#{pane}").focus()

    def action_close(self) -> None:
        if self._waiting_write and not self._warned_waiting:
            self._warned_waiting = True
            self.notify(f"{self._waiting_write} still waits for the database: closing now leaves it undone (nothing "
                        "is half-written). Close again to leave anyway.", markup=False, severity="warning",
                        timeout=8)
            return
        self._stop_rejudge()
        self.dismiss()


def _level(text: str, name: str) -> float:
    """α or δ as the lead typed it: a share strictly between 0 and 1."""
    try:
        value = parse_number(text.strip())
    except ValueError:
        value = -1.0  # said below, as a level out of range is
    if not 0.0 < value < 1.0:
        raise UserError(f"{name} {clean(text.strip()) or '(empty)'}: give a share strictly between 0 and 1, e.g. "
                        "0.1; the levels stay as they were")
    return value


class CalibrationApp(PlainNoticeApp[None]):
    """`judge-tui calibrate`: the judge screen on its own."""

    CSS_PATH = "../app.tcss"
    TITLE = "judge-tui calibrate"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, store: Store, rubric: Rubric, lead: str, *, settings: Settings | None = None,
                 make_backend: BackendFactory | None = None, split: str = "dev", judge: str | None = None) -> None:
        super().__init__()
        self.store, self.rubric, self.lead, self.split = store, rubric, lead, split
        self.settings = settings or Settings()
        self.make_backend = make_backend
        self.named_judge = judge

    def on_mount(self) -> None:
        self.set_keymap(self.settings.keymap)
        self.push_screen(CalibrationScreen(self.store, self.rubric, self.lead, settings=self.settings,
                                           make_backend=self.make_backend, split=self.split, judge=self.named_judge),
                         lambda _result: self.exit())
