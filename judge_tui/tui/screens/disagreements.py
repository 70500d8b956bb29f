"""The disagreement browser: items where this reviewer and the judge differ most, side by side.

The list holds only items the reviewer has submitted (the blind rule). For the highlighted item it shows
both scores per dimension, the reviewer's note and the judge's reasoning; Enter opens the item itself, `m`
marks the item as a reason to revise the rubric (with an optional note), `u` removes the mark.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import partial
from typing import Any

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Input, Label, Static
from textual.worker import Worker, WorkerState

from judge_tui.analysis.blind import BlindReader, visible_items
from judge_tui.analysis.certify import LOGPROB, STATED
from judge_tui.analysis.judges import default_judge
from judge_tui.analysis.report import JudgeDisagreement, judge_disagreements
from judge_tui.analysis.scores import agreeing
from judge_tui.model.errors import UserError
from judge_tui.model.records import Rating
from judge_tui.model.rubrics import Rubric, RubricError
from judge_tui.model.settings import AgreementSettings
from judge_tui.model.textsafe import clean
from judge_tui.store import Store
from judge_tui.tui.kept_writes import write_when_free
from judge_tui.tui.refused_keys import key_shown
from judge_tui.tui.score_text import exact, overall_label, score_label
from judge_tui.tui.screen_keys import DISAGREEMENT_BINDINGS, REVISION_NOTE_BINDINGS
from judge_tui.tui.screens.unavailable import (
    judge_missing,
    lead_not_rated,
    not_yet_submitted,
    unjudged_submissions,
)
from judge_tui.tui.widgets.key_bar import KeyBar

MAX_ROWS = 1000


# What judge-tui's own judge records beside the answer (judge/runner.py): the call's bookkeeping, not reasoning.
_CALL_RECORD = frozenset({"model", "prompt_version", "few_shot_ids", "sampling", "backend", "tokens", "cost_usd",
                          "raw_text", "batch_id", "extras"})
# How the judge's own confidences are named, by the key judge/runner.py stores them under.
_OWN_CONFIDENCE = {STATED: "stated", LOGPROB: "from its scores' tokens"}


def own_confidence(details: dict[str, Any]) -> dict[str, float] | None:
    """The confidences a judgment made here stored (`confidence`: {"stated": ..., "logprob": ...}, judge/runner.py),
    or None where `confidence` is anything else: an imported judge's own field, shown as the judge wrote it."""
    confidence = details.get("confidence")
    if not isinstance(confidence, dict):
        return None
    if not all(key in _OWN_CONFIDENCE and isinstance(value, int | float) and not isinstance(value, bool)
               for key, value in confidence.items()):
        return None
    return {key: float(value) for key, value in confidence.items()}


def reasoning_fields(details: dict[str, Any]) -> dict[str, Any]:
    """The fields of a judge's answer beyond its scores and notes (critique, issues, ...): the answer's extras
    for a judgment made here, every detail but the call's bookkeeping for an imported one. The confidences a
    judgment made here stored, and its notes on a missing one, are left out (reasoning_text names them)."""
    extras = details.get("extras")
    recorded = _CALL_RECORD | ({"confidence", "confidence_notes"} if own_confidence(details) is not None else set())
    return {**{k: v for k, v in details.items() if k not in recorded},
            **(extras if isinstance(extras, dict) else {})}


def reasoning_text(rating: Rating | None) -> Text:
    """The judge's reasoning: its notes, then every extra field it returned (critique, issues, ...)."""
    text = Text()
    if rating is None:
        return Text("(no rating)", style="dim")
    if rating.notes:
        text.append(clean(rating.notes) + "\n")
    confidence = own_confidence(rating.details)
    if confidence:
        text.append("confidence: ", style="bold")
        text.append(" · ".join(f"{exact(value)} {_OWN_CONFIDENCE[key]}" for key, value in confidence.items()) + "\n")
    for key, value in reasoning_fields(rating.details).items():
        text.append(f"{clean(str(key))}: ", style="bold")
        if isinstance(value, list):
            text.append("\n")
            for entry in value:
                text.append(f"  • {clean(entry if isinstance(entry, str) else json.dumps(entry))}\n")
        elif isinstance(value, str):
            text.append(clean(value) + "\n")
        else:
            text.append(clean(json.dumps(value, ensure_ascii=False)) + "\n")
    return text if text.plain else Text("(no reasoning given)", style="dim")


class RevisionNoteScreen(ModalScreen[str | None]):
    """Ask why an item calls for a rubric change; Enter saves (the note may be empty), Escape cancels."""

    DEFAULT_CSS = """
    RevisionNoteScreen { align: center middle; }
    RevisionNoteScreen > Vertical { width: 70; height: auto; padding: 1 2; border: thick $accent; background: $surface; }
    """

    BINDINGS = [*REVISION_NOTE_BINDINGS]

    def __init__(self, item_id: str, note: str, keymap: Mapping[str, str] | None = None) -> None:
        super().__init__()
        self.keymap = dict(keymap or {})
        self.item_id = item_id
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text(f"Mark {clean(self.item_id)} as a reason to revise the rubric"))
            yield Input(value=self.note, placeholder="what the rubric should say differently (optional)",
                        id="revision-note")
            cancel = key_shown("cancel-revision-note", self.keymap, self.app.get_key_display)
            yield Label(Text(f"Enter: save · {cancel}: cancel", style="dim"))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)


class DisagreementList(DataTable[Any]):
    """The list of disagreements. A click on a row opens it; its own Enter does nothing, so that the screen's
    open-item key (Enter unless the keymap moves it) is the one key that opens an item."""

    def action_select_cursor(self) -> None:
        pass


class DisagreementScreen(Screen[None]):
    """Items sorted by how far this reviewer and the judge disagree, with both sides' reasons."""

    DEFAULT_CSS = """
    DisagreementScreen #dis-title { height: 1; padding: 0 1; background: $panel; text-style: bold; }
    DisagreementScreen #dis-list { width: 44; max-width: 50%; }
    DisagreementScreen #dis-detail { width: 1fr; padding: 0 1; }
    DisagreementScreen #dis-detail > Static { margin-bottom: 1; }
    DisagreementScreen #dis-sides { height: auto; }
    DisagreementScreen #dis-sides > Static { width: 1fr; padding-right: 1; }
    """

    BINDINGS = [*DISAGREEMENT_BINDINGS]  # screen_keys.py: their ids, for settings.keymap

    class Ready(Message):
        def __init__(self, judge_id: str, rows: list[JudgeDisagreement], marks: dict[str, str]) -> None:
            super().__init__()
            self.judge_id = judge_id
            self.rows = rows
            self.marks = marks

    class Unavailable(Message):
        def __init__(self, reason: str) -> None:
            super().__init__()
            self.reason = reason

    def __init__(self, store: Store, rubric: Rubric, reviewer_id: str, *, agreement: AgreementSettings,
                 keymap: Mapping[str, str] | None = None, lead: bool = False) -> None:
        """`keymap`: the user's, as the app applied it, so the keys are named as they are pressed. `lead`: opened
        by the lead, whose view of the experts' disagreements is the judge screen."""
        super().__init__()
        self.keymap = dict(keymap or {})
        self.lead = lead
        self.store = store
        self.rubric = rubric
        self.reviewer_id = reviewer_id
        self.blind = BlindReader(store, rubric.id, reviewer_id)
        self.judge_id: str | None = None
        self.agreement = agreement  # its tolerance: scores further apart than this are marked
        self.marks: dict[str, str] = {}
        self.current: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text(f"Disagreements · {clean(self.rubric.id)} · {clean(self.reviewer_id)} against the judge"),
                     id="dis-title")
        with Horizontal():
            yield DisagreementList(id="dis-list", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="dis-detail"):
                yield Static(Text("Loading…", style="dim"), id="dis-scores")
                with Horizontal(id="dis-sides"):
                    yield Static(id="dis-human-note")
                    yield Static(id="dis-judge-reasoning")
                yield Static(id="dis-mark")
        yield KeyBar()

    def on_mount(self) -> None:
        table = self.query_one("#dis-list", DataTable)
        table.add_columns("Item", "Gap", "You", "Judge", "Dims", "Mark")
        table.focus()
        self.load()

    @work(thread=True, exclusive=True, exit_on_error=False, group="disagreements")
    def load(self) -> None:
        rubric = self.rubric
        try:
            with Store(self.store.path) as store, store.snapshot():  # the list and what may be seen: one moment
                visible = visible_items(store, rubric.id, self.reviewer_id)
                if not visible:
                    self.post_message(self.Unavailable(self._nothing_submitted()))
                    return
                judge = default_judge(store, rubric.id)
                if judge is None:
                    self.post_message(self.Unavailable(judge_missing(
                        rubric, team_share=store.assignment_of(self.reviewer_id, rubric.id) is not None)))
                    return
                rows = [row for row in judge_disagreements(store, rubric, self.reviewer_id, judge, self.agreement)
                        if row.item_id in visible]
                marks = store.revision_marks(rubric.id)
        except (UserError, RubricError) as exc:
            self.post_message(self.Unavailable(str(exc)))
            return
        self.post_message(self.Ready(judge, rows, marks))

    def _nothing_submitted(self) -> str:
        if not self.lead:
            return not_yet_submitted(self.rubric)
        display = self.app.get_key_display
        return lead_not_rated(self.rubric, key_shown("calibrate", self.keymap, display),
                              key_shown("cal-items", self.keymap, display))

    def on_disagreement_screen_ready(self, message: Ready) -> None:
        self.judge_id, self.marks = message.judge_id, message.marks
        rows = message.rows
        if not rows:
            self._unavailable(unjudged_submissions(self.rubric))
            return
        table = self.query_one("#dis-list", DataTable)
        for row in rows[:MAX_ROWS]:
            table.add_row(
                Text(clean(row.item_id)), exact(row.gap), overall_label(self.rubric, row.human_overall),
                overall_label(self.rubric, row.judge_overall), str(row.differing),
                "✎" if row.item_id in self.marks else "", key=row.item_id,
            )
        if len(rows) > MAX_ROWS:
            self.notify(f"Showing the {MAX_ROWS} largest disagreements of {len(rows)}.", markup=False)
        self._show_item(rows[0].item_id)

    def on_disagreement_screen_unavailable(self, message: Unavailable) -> None:
        self._unavailable(message.reason)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "disagreements" and event.state == WorkerState.ERROR:
            self._unavailable(f"Could not list the disagreements: {event.worker.error}")

    def _unavailable(self, reason: str) -> None:
        self.query_one("#dis-scores", Static).update(Text(clean(reason)))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        # A click on a row (the list's own Enter does nothing: DisagreementList).
        if event.row_key is not None and event.row_key.value is not None:
            self.current = event.row_key.value
        self.action_open_item()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key is not None and event.row_key.value is not None:  # None: a key on an empty list
            self._show_item(event.row_key.value)

    def _show_item(self, item_id: str) -> None:
        """Both sides of one item, read on the UI thread's connection (a few small queries)."""
        if self.judge_id is None:
            return
        self.current = item_id
        rubric = self.rubric
        human = self.blind.rating(item_id, self.reviewer_id)
        judge = self.blind.rating(item_id, self.judge_id)
        item = self.store.item(item_id)
        table = Table(title=Text(f"{clean(item_id)}" + (f" · {clean(item.task_type)}" if item and item.task_type
                                                          else "")), title_justify="left", expand=True)
        table.add_column("Dimension")
        table.add_column("You", justify="right")
        table.add_column("Judge", justify="right")
        for dimension in rubric.dimensions:
            mine = human.scores.get(dimension.id) if human else None
            theirs = judge.scores.get(dimension.id) if judge else None
            differ = mine is not None and theirs is not None and \
                not agreeing(rubric.scale, [mine], [theirs], self.agreement.tolerance).all()
            table.add_row(Text(clean(dimension.name) + (" (code)" if dimension.method == "code" else ""),
                               style="bold yellow" if differ else ""),
                          score_label(rubric.scale, mine), score_label(rubric.scale, theirs))
        table.add_row(Text(clean(rubric.overall_name), style="bold"), overall_label(rubric, human.overall if human else None),
                      overall_label(rubric, judge.overall if judge else None))
        self.query_one("#dis-scores", Static).update(table)
        note = Text("Your note\n", style="bold")
        note.append(clean(human.notes) if human and human.notes else "(none)")
        reasoning = Text("Judge's reasoning\n", style="bold")
        reasoning.append_text(reasoning_text(judge))
        self.query_one("#dis-human-note", Static).update(note)
        self.query_one("#dis-judge-reasoning", Static).update(reasoning)
        self._show_mark()

    def _show_mark(self) -> None:
        mark = Text()
        if self.current in self.marks:
            mark.append("Marked as a reason to revise the rubric", style="bold magenta")
            if self.marks[self.current]:
                mark.append(": " + clean(self.marks[self.current]))
            mark.append(f"  ({self._key_of('unmark-revision')}: remove)", style="dim")
        else:
            mark.append(f"{self._key_of('open-item')}: open the item · {self._key_of('mark-revision')}: mark it as a "
                        "reason to revise the rubric", style="dim")
        self.query_one("#dis-mark", Static).update(mark)

    def _key_of(self, binding_id: str) -> str:
        """The first key of one of this screen's bindings, as the user's keymap has it."""
        return key_shown(binding_id, self.keymap, self.app.get_key_display) or binding_id

    def _set_mark_cell(self, item_id: str) -> None:
        table = self.query_one("#dis-list", DataTable)
        table.update_cell(item_id, table.ordered_columns[-1].key, "✎" if item_id in self.marks else "")

    def action_mark(self) -> None:
        item_id = self.current
        if item_id is None:
            return

        def save(note: str | None) -> None:
            if note is None:
                return
            write_when_free(self.app, self.store, partial(self.store.mark_for_revision, item_id, self.rubric.id, note),
                            f"{item_id}: revision mark saved")
            self.marks[item_id] = note
            self._set_mark_cell(item_id)
            if self.current == item_id:
                self._show_mark()

        self.app.push_screen(RevisionNoteScreen(item_id, self.marks.get(item_id, ""), self.keymap), save)

    def action_unmark(self) -> None:
        item_id = self.current
        if item_id is None or item_id not in self.marks:
            return
        write_when_free(self.app, self.store, partial(self.store.unmark_for_revision, item_id, self.rubric.id),
                        f"{item_id}: revision mark removed")
        del self.marks[item_id]
        self._set_mark_cell(item_id)
        self._show_mark()

    def action_open_item(self) -> None:
        item = self.store.item(self.current) if self.current is not None else None
        if item is None:
            self.notify("No item to open: the list is empty.", markup=False, severity="warning", timeout=4)
            return
        from judge_tui.tui.screens.item import ItemScreen

        self.app.push_screen(ItemScreen(self.rubric, item))

    def action_close(self) -> None:
        self.dismiss()

