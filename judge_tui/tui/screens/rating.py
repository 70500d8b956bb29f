"""The rating screen: the item, the rubric, a note and the status line, all driven from the keyboard."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Hashable, Mapping
from functools import partial
from typing import TYPE_CHECKING

from textual import events
from textual.app import ComposeResult
from textual.geometry import Region
from textual.screen import ModalScreen, Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import TextArea

from judge_tui.model.records import Item
from judge_tui.model.settings import AgreementSettings, Settings
from judge_tui.store import Store
from judge_tui.transfer.demo import DEMO_EXPERT, is_demo_database
from judge_tui.tui.kept_writes import WRITE_WAIT, waiting_text, write_when_free
from judge_tui.tui.keys import (
    CATEGORY_BINDINGS,
    EXPLAIN_BINDINGS,
    RATING_BINDINGS,
    SCORE_ACTIONS,
    DigitEntry,
    action_parts,
    binding,
    scale_has_key,
)
from judge_tui.tui.refused_keys import (
    key_shown,
    keys_by_point,
    keys_that_score,
    typed_score,
)
from judge_tui.tui.score_text import overall_label
from judge_tui.tui.session import RatingSession
from judge_tui.tui.widgets.columns import Columns, RubricColumn
from judge_tui.tui.widgets.item_pane import SCROLLS, ItemPane, prepare_item
from judge_tui.tui.widgets.kept_lines import KeptLines
from judge_tui.tui.widgets.key_bar import KeyBar
from judge_tui.tui.widgets.notes_editor import NotePreview, NotesEditor
from judge_tui.tui.widgets.recurring_static import RecurringStatic
from judge_tui.tui.widgets.rubric_panel import RubricPanel, RubricStrip, ScoreSummary, score_line
from judge_tui.tui.widgets.status_line import StatusLine

if TYPE_CHECKING:
    from textual.timer import Timer
    from textual.worker import Worker

    from judge_tui.analysis.stopping import Settledness
    from judge_tui.model.rubrics import Rubric
    from judge_tui.tui.screens.finish import Finished

SAVE_TIME_EVERY = 5.0  # seconds of counted time between writes of the draft's time
SAVED_SHOWN_FOR = 3.0  # seconds the status line says a submitted rating is saved
# Below this many rows (80×24 is the common default) the note box shrinks and the rubric goes compact.
SHORT_TERMINAL_ROWS = 30


class RatingScreen(Screen[None]):
    AUTO_FOCUS = ""  # keys belong to the rubric until the reviewer asks to edit the note
    BINDINGS = [*RATING_BINDINGS, *CATEGORY_BINDINGS, *EXPLAIN_BINDINGS]

    def __init__(self, session: RatingSession, *, keymap: Mapping[str, str] | None = None,
                 agreement: AgreementSettings | None = None, lead: bool = False,
                 auto_submit: bool = False, stop_notice: bool = False) -> None:
        super().__init__()
        self.stop_notice = stop_notice  # say once when every target of the study is decided
        self._study_worker: Worker[None] | None = None
        self._study_again = False  # a rating landed while the study was being looked at
        self.session = session
        self.agreement = agreement or AgreementSettings()
        self.lead = lead  # `judge-tui rate --lead`: adjudication and the team over every item (judge_tui.analysis.blind)
        self.rubric = session.rubric
        self.keymap = dict(keymap or {})
        self.judged = [d.id for d in self.rubric.judged_dimensions]
        # One key decides and moves on when there is only one dimension to score (settings.auto_submit).
        self.auto_submit = auto_submit and len(self.judged) == 1
        self._auto_submitted: tuple[str, str] | None = None  # (item submitted by a score key, item opened next)
        self.cursor: str | None = self.judged[0] if self.judged else None
        self.guidance_on = True
        self._note_before: str | None = None
        self._first_paint_reported = False
        self._save_scheduled = False
        self._progress_due = False  # the counts wait for the commit after this frame (_show_progress)
        self._keys_shown: dict[float, str] | None = None
        self._digits = DigitEntry()  # the first digit of a two-digit point, until its second
        self._submitted: tuple[str, str] | None = None  # (item id, overall shown) until its rating is on disk
        self._saved_mark_timer: Timer | None = None
        self._bindings_checked_for: tuple[object, ...] | None = None
        self._rubrics_used = 0  # rubrics put in force here (use_rubric): each has its own score keys
        # What check_action's answers depend on, while the screen has the key bar told of a change to it.
        self.keys_state: Hashable = None
        self._time_shown_for: str | None = None  # the item whose time the status line shows
        self._unsaved_finish: Finished | None = None  # a finish the database could not take yet
        self._rubric_collapsed = False  # toggle-rubric: the rubric folded into one line under the item
        self._background: tuple[object, list[Strip]] | None = None  # (size and look, lines): render_lines
        self._background_cut = KeptLines(4)  # its lines cut to the rectangles frames asked for lately

    # ------------------------------------------------------------------ building

    def render_lines(self, crop: Region) -> list[Strip]:
        """The screen's own lines: its background, under the widgets that cover it, drawn once for its size and
        look and cut to each frame's rectangle. A key's frame (_draw_together: Screen.refresh with regions)
        would otherwise draw the background of every line in that rectangle again, a quarter of the frame."""
        size = self.region.size  # what Textual draws the screen at (its size moves first, on a resize)
        look = (size, self.visual_style, self.app.theme)
        if self._background is None or self._background[0] != look:
            self._background = (look, super().render_lines(size.region))
            self._background_cut.clear()
        lines = self._background[1]
        # Cut once for each rectangle: a score key's frames ask for the same few (the status line's mark, the
        # rubric's column, the score under it).
        return list(self._background_cut.lines(crop, crop, lambda part: [
            line.crop(part.x, part.right) for line in lines[part.y:part.bottom]]))

    def compose(self) -> ComposeResult:
        demo = is_demo_database(self.session.store)
        yield StatusLine(self.session.reviewer, database="demo database" if demo else "",
                         assigned=self.session.plan is not None, id="status")
        with Columns(id="body"):
            yield ItemPane(self.rubric, id="item")
            with RubricColumn(id="side"):
                yield RubricPanel(self.rubric, id="rubric")
                yield ScoreSummary(self.rubric, id="rubric-summary")
                yield NotesEditor(id="notes")
                yield NotePreview(id="note-preview")
        yield RubricStrip(self.rubric, id="rubric-strip")
        yield KeyBar()

    def on_mount(self) -> None:
        self.session.save_soon = self._save_after_paint
        state = self.session.resume()
        self.ticker = self.set_interval(1.0, self.tick)
        if state is None:
            start_up_over = getattr(self.app, "start_up_over", None)
            if start_up_over:  # no first item to wait for
                start_up_over()
            self.notify(f"There are no {self.rubric.id} items to rate. Import some with `judge-tui import`.",
                        markup=False, severity="warning", timeout=30)
            return
        # Registered before the work show_item asks for after the frame (the next cards, the next item's
        # colours), so the first paint is reported, and the code coloured, before that work runs.
        self.call_after_refresh(self._first_paint)
        self.show_item()
        if state.submitted is not None and not state.changed_since_submit:
            self.notify(self._all_rated(), markup=False)

    def on_resize(self, event: events.Resize) -> None:
        # On a short terminal a one-line note box (taller while editing) and compact dimensions leave the
        # focused dimension's anchors room to show.
        short = event.size.height < SHORT_TERMINAL_ROWS
        if short != self.has_class("-short"):
            self.set_class(short, "-short")
            self._show_rubric(scroll_after_layout=True)

    def _first_paint(self) -> None:
        if not self._first_paint_reported:
            self._first_paint_reported = True
            first_item_painted = getattr(self.app, "first_item_painted", None)
            if first_item_painted:
                first_item_painted()
            self.query_one(ItemPane).colour()

    def use_rubric(self, rubric: Rubric) -> None:
        """Another version of the rubric is in force (the judge screen): the panels show it at once."""
        self.rubric = rubric
        self.judged = [d.id for d in rubric.judged_dimensions]
        if self.cursor not in self.judged:
            self.cursor = self.judged[0] if self.judged else None
        self._keys_shown = None
        self._rubrics_used += 1  # another scale: other score keys act
        self.query_one(ItemPane).rubric = rubric
        self.query_one(RubricPanel).use_rubric(rubric)
        self.query_one(ScoreSummary).rubric = rubric
        self.query_one(RubricStrip).rubric = rubric
        self._show_rubric()

    # ------------------------------------------------------------------ showing state

    def show_item(self) -> None:
        state = self.session.state
        if state is None:
            return
        missing = self.session.missing
        self.cursor = missing[0] if missing else (self.judged[0] if self.judged else None)
        # The first item's code is coloured just after the first paint (FieldRows.set_text).
        pane = self.query_one(ItemPane)
        pane.show(state.item, colour_later=not self._first_paint_reported)
        self._show_note(state.edit.notes)
        self._show_rubric()
        self._show_progress()
        self.tick(count=False)
        # A new item changes most of the screen, with no layout of it (the item pane and the rubric panel change
        # only their lines and how far they scroll): drawn in the next frame, rather than widget by widget over
        # the frames their own messages reach the screen in. The widgets that change are named rather than the
        # whole screen: repainting the screen redraws and resends every line of it.
        self._draw_together(pane, self.query_one(RubricPanel), self.query_one(ScoreSummary),
                            self.query_one(StatusLine), self.query_one(NotesEditor), self.query_one(NotePreview))
        self.call_after_refresh(self._prepare_next_item)

    def _prepare_next_item(self) -> None:
        """Highlight the next unrated item's code in a thread, then lay it out and draw its first screenful in
        the item pane (on the event loop), so that submitting only swaps its lines in."""
        upcoming = self.session.peek_next_unrated()
        if upcoming is not None:
            pane = self.query_one(ItemPane)

            async def prepare() -> None:
                await asyncio.to_thread(prepare_item, self.rubric, upcoming)
                pane.prepare(upcoming, other_width=self._item_width_toggled(pane))

            self.run_worker(prepare(), group="prepare", exclusive=True, exit_on_error=False)
            if self.judged:  # and its first dimension's card, focused and unscored
                self.query_one(RubricPanel).prepare_card(
                    self.judged[0], None, guidance_on=self.guidance_on, task_type=self._task_type(upcoming),
                    keys=self._score_keys(), compact=self.has_class("-short"))

    def _item_width_toggled(self, pane: ItemPane) -> int:
        """The item pane's content width once the rubric is folded (or unfolded, when folded now)."""
        side_width = self.query_one("#side").outer_size.width
        return pane.text_width + (-side_width if self._rubric_collapsed else side_width)

    def _score_keys(self) -> dict[float, str]:
        """Scale point -> the key that sets it, as the user's keymap has it (worked out once)."""
        if self._keys_shown is None:
            self._keys_shown = keys_by_point(self.rubric.scale, self.keymap, self.app.get_key_display)
        return self._keys_shown

    def _show_rubric(self, *, scroll_after_layout: bool = False) -> None:
        state = self.session.state
        if state is None:
            return
        code_scores = self.rubric.code_scores(state.item.fields)
        scores = {**state.edit.scores, **code_scores}
        overall = self.rubric.overall_score(scores)
        strip = self.query_one(RubricStrip)
        shown: list[Widget | Region] = [self.query_one(StatusLine), self.query_one(KeyBar)]
        if strip.display:
            marks = "".join(mark for mark, on in (("✓", state.submitted is not None and not state.changed_since_submit),
                                                  ("↷", state.skipped), ("⚑", state.edit.flagged)) if on)
            strip.show(scores, cursor=self.cursor, keys=self._score_keys(), marks=marks,
                       overall=f"{self.rubric.overall_name} {overall_label(self.rubric, overall)}")
            shown.append(strip)
        if self.query_one("#side").display:
            # The rubric's column only while it shows (folded, it is brought up to date as it unfolds): a
            # hidden widget told to redraw has Textual map the whole screen again, hidden widgets included.
            panel = self.query_one(RubricPanel)
            scrolled_from = panel.scroll_offset
            panel.show(state.edit.scores, code_scores, cursor=self.cursor, guidance_on=self.guidance_on,
                       task_type=self._task_type(state.item), keys=self._score_keys(),
                       compact=self.has_class("-short"), drawn_by_screen=True)
            self.query_one(ScoreSummary).show(
                overall=overall, verdict=self.rubric.verdict(scores),
                scored=len(self.judged) - len(self.session.missing), needed=len(self.judged),
                flagged=state.edit.flagged, flag_reason=state.edit.flag_reason, submitted=state.submitted is not None,
                changed=state.changed_since_submit, skipped=state.skipped,
                scores=score_line(self.rubric, scores, self.cursor),
            )
            panel.show_others(self.session.others())
            if self.cursor:
                panel.scroll_to_dimension(self.cursor, after_layout=scroll_after_layout)
            changed = panel.take_changed()
            if panel.scroll_offset != scrolled_from or scroll_after_layout:
                shown.append(panel)  # scrolled: every line of it moved
            elif changed is not None:
                shown.append(changed)  # the card or two the key changed, not the whole column
            shown.append(self.query_one(ScoreSummary))
            self.call_after_refresh(self._prepare_next_card)
        # A change to a submitted item starts its timer, an undo may stop it again; its seconds go on at the tick.
        self._show_time(seconds_too=False)
        self._refresh_bindings_if_changed()
        self._draw_together(*shown)

    def _task_type(self, item: Item) -> str | None:
        return self.rubric.task_type_of(item.fields) or item.task_type

    def _prepare_next_card(self) -> None:
        """Draw the card the next score key will focus while the reviewer reads, so the key finds it drawn."""
        state = self.session.state
        if state is None or self.cursor is None:
            return
        index = self.judged.index(self.cursor)
        following = self.judged[min(index + 1, len(self.judged) - 1)]
        values: list[float | None] = []
        if following == self.cursor:  # the last dimension: a score key leaves it focused, showing its score
            # The score given to the dimension before it first: a reviewer's scores often run alike.
            before = state.edit.scores.get(self.judged[index - 1]) if index else None
            values = sorted(self.rubric.scale.points, key=lambda point: point != before)
        self.query_one(RubricPanel).prepare_card(
            following, state.edit.scores.get(following), guidance_on=self.guidance_on,
            task_type=self._task_type(state.item), keys=self._score_keys(), compact=self.has_class("-short"),
            values=values)

    def _draw_together(self, *widgets: Widget | Region) -> None:
        """Have these widgets' changes drawn in one frame. Textual hands each widget's repaint to the screen
        from that widget's own message loop, so the screen's next frame (on its 60 fps timer) can come between
        two of them: a score and its "saving…" mark reached the terminal a frame apart, 16–30 ms. Their places
        on the screen marked for repaint now, the screen draws them all in its first frame (Screen.refresh with
        regions: each from the widget's lines as they are now). A region stands for a part of a widget whose
        other lines did not change (the rubric panel's card or two a score key changes): the rest of its place is
        not drawn again; so do the cells of a line of text that changed (a status line's "saving…"), and a line
        that did not change is left out. Hidden ones are left out: their place is another widget's, or nothing."""
        regions: list[Region] = []
        for widget in widgets:
            if isinstance(widget, Region):
                regions.append(widget)
            elif widget.display and all(ancestor.display for ancestor in widget.ancestors
                                        if isinstance(ancestor, Widget)):
                changed = widget.take_changed() if isinstance(widget, RecurringStatic) else widget.region
                if changed is not None:
                    regions.append(changed)
        if regions:
            self.refresh(*regions)

    def _show_progress(self) -> None:
        """The counts in the status line. With a change about to be committed (just after this frame), counted
        once it is: counting it before means a query for each change still pending, and the count moves with
        the "saved" mark rather than a frame before it."""
        if self._save_scheduled:
            self._progress_due = True
            return
        self._progress_due = False
        self.query_one(StatusLine).set_progress(self.session.progress())

    def _show_time(self, *, seconds_too: bool = True) -> None:
        """The item's time in the status line. Without seconds_too, only another item's or a change of the
        timer's state: a key then sends the line as drawn ahead of time, "saving…" and all, and its seconds
        catch up at the next tick, as they do between ticks."""
        timer = self.session.timer
        status = self.query_one(StatusLine)
        item = self.session.state.item.id if self.session.state is not None else None
        if seconds_too or timer.state != status.timer_state or item != self._time_shown_for:
            status.set_time(timer.elapsed(), timer.state)
            self._time_shown_for = item

    def tick(self, count: bool = True) -> None:
        self._show_time()
        if count:
            self.session.save_time(every=SAVE_TIME_EVERY)
            if self.session.pending and self.session.save_pending():
                self._show_progress()
        self._show_saving()

    def _save_after_paint(self) -> None:
        """A change joined the session's pending writes: show it as not yet saved, and commit it just after
        this frame is painted (a synchronous commit takes a few milliseconds the key need not wait for)."""
        self.query_one(StatusLine).set_saving(True)
        if not self._save_scheduled:
            self._save_scheduled = True
            self.call_after_refresh(self._save_kept_changes)

    def _save_kept_changes(self) -> None:
        self._save_scheduled = False
        self.session.save_pending()
        if self._progress_due:
            self._show_progress()
        self._show_saving()

    def _show_saving(self) -> None:
        """The status line's mark of changes not yet on disk: "saving…", or why they wait."""
        waiting = self.session.waiting_for
        status = self.query_one(StatusLine)
        status.set_saving(bool(self.session.pending) and not waiting)
        if self._submitted is not None and not self.session.rating_pending(self._submitted[0]):
            status.set_saved(*self._submitted)  # on disk now: said where "saving…" was, for a few seconds
            self._submitted = None
            self._watch_study()  # with the new rating on disk, so the count includes it
            if self._saved_mark_timer is not None:
                self._saved_mark_timer.stop()
            self._saved_mark_timer = self.set_timer(SAVED_SHOWN_FOR, partial(status.set_saved, ""))
        status.set_waiting(waiting_text(waiting))

    def set_judge_status(self, text: str) -> None:
        # Every status line there is: none while the app exits (Textual removes the widgets first).
        for status in self.query(StatusLine):
            status.set_judge(text)

    # ------------------------------------------------------------------ which keys can act now

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self._note_before is not None:
            return False  # the note has the keys (Enter is a new line) until Escape: only its keys show
        if action in ("adjudicate", "calibrate"):
            return True if self.lead else None  # a reviewer's key only says where the lead's screen opens
        if self.session.state is None:
            return action in ("help", "quit", "agreement", "explain")
        if action in SCORE_ACTIONS:
            return scale_has_key(self.rubric.scale, action, parameters)
        if action == "submit":
            return True if not self.session.missing else None
        if action == "undo":
            return True if self.session.can_undo else None
        return True

    def _refresh_bindings_if_changed(self) -> None:
        """Have the keys checked again (the key bar dims those that cannot act) when something check_action
        asks has changed: most keys change none of it, and checking every binding is a key bar's worth of work."""
        state = self.session.state
        asked = (self._rubrics_used, self._note_before is not None, state is None,
                 state is not None and not self.session.missing, self.session.can_undo)
        if asked != self._bindings_checked_for:
            self._bindings_checked_for = self.keys_state = asked
            self.refresh_bindings()  # the key bar, told at once, draws the keys once for each of these states
            self.keys_state = None

    def why_not(self, action: str, parameters: tuple[object, ...]) -> str:
        scale = self.rubric.scale
        if action == "adjudicate":
            return (f"Adjudication is the lead's: it opens with `judge-tui adjudicate`, or with "
                    f"{self._key_of('adjudicate')} after `judge-tui rate --lead`.")
        if action == "calibrate":
            from judge_tui.tui.screens.calibrate import lead_may_calibrate

            return lead_may_calibrate(self.session.store, self.rubric, self.session.reviewer, lead=False,
                                      key=self._key_of("calibrate")) or ""
        if self.session.state is None:
            return "There is no item to rate."
        if action in SCORE_ACTIONS:
            return keys_that_score(scale, self._score_keys())
        if action == "submit":
            names = [self.rubric.dimension(d).name.split(" (")[0] for d in self.session.missing]
            return "Not yet: score " + ", ".join(names) + " first."
        if action == "undo":
            just_submitted = self._auto_submitted
            if just_submitted and just_submitted[1] == self.session.state.item.id:
                return (f"Nothing to undo on this item. {just_submitted[0]} was submitted by its key: ← goes back "
                        "to it, and a key there changes it.")
            return "Nothing to undo on this item."
        return "That key cannot act right now."

    def action_explain(self, binding_id: str) -> None:
        """Say why a key that cannot act right now does nothing (see keys.EXPLAIN_BINDINGS)."""
        action, parameters = action_parts(binding(binding_id).action)
        if action == "submit" and self.session.state is not None and self.session.missing:
            self.cursor = self.session.missing[0]  # straight to what is left to score
            self._show_rubric()
        self.notify(self.why_not(action, parameters), markup=False, severity="warning", timeout=4)

    # ------------------------------------------------------------------ actions

    def action_score(self, number: int) -> None:
        if self.cursor is None or self.session.state is None:
            return
        scale = self.rubric.scale
        where = (self.session.state.item.id, self.cursor)
        point, notice, warning = typed_score(scale, self._digits, where, number, self._score_keys())
        if point is not None:
            self._set_score(point)
        else:
            self.notify(notice, markup=False, severity="warning" if warning else "information", timeout=4)

    def action_pass_fail(self, label: str) -> None:
        if self.cursor is None:
            return
        self._set_score(self.rubric.scale.parse(label))

    def _set_score(self, value: float) -> None:
        assert self.cursor is not None
        was_skipped = self.session.state is not None and self.session.state.skipped
        self.session.set_score(self.cursor, value)
        if self.auto_submit and self.session.state is not None:
            submitted = self.session.state.item.id
            self.action_submit()
            opened = self.session.state.item.id if self.session.state else ""
            self._auto_submitted = (submitted, opened) if opened != submitted else None
            return
        index = self.judged.index(self.cursor)
        self.cursor = self.judged[min(index + 1, len(self.judged) - 1)]
        self._show_rubric()
        if was_skipped:
            self._show_progress()

    def action_move(self, delta: int) -> None:
        if self.cursor is None:
            return
        index = (self.judged.index(self.cursor) + delta) % len(self.judged)
        self.cursor = self.judged[index]
        self._show_rubric()

    def action_submit(self) -> None:
        with self.query_one(StatusLine).changing():  # its saved mark, "saving…", counts and time: drawn once
            self._submit_and_open_next()

    def _submit_and_open_next(self) -> None:
        rating = self.session.submit()
        # Said in the status line once the rating is on disk (_show_saving): a line redrawn, no widget mounted.
        self._submitted = (rating.item_id, f"{self.rubric.overall_name} {overall_label(self.rubric, rating.overall)}")
        self.query_one(StatusLine).set_saved("")
        if self.session.open_next_unrated() is None:
            self.show_item()
            if not self._offer_finish():
                self.notify(self._all_rated(), markup=False, timeout=10)
            return
        self.show_item()

    # ------------------------------------------------------------------ finishing the study

    def _offer_finish(self) -> bool:
        """Asked once, when no unrated item is left: the finish screen (the key opens it at any time)."""
        store, key = self.session.store, f"finish_offered:{self.rubric.id}:{self.session.reviewer}"
        if store.get_meta(key) is not None or store.finish(self.session.reviewer, self.rubric.id) is not None:
            return False
        self.action_finish_study(all_rated=True)
        return True

    def action_finish_study(self, all_rated: bool = False) -> None:
        from judge_tui.formats.rating_form import total_minutes
        from judge_tui.store import Finish, now
        from judge_tui.transfer.exporting import rated_seconds
        from judge_tui.tui.screens.finish import FinishScreen, Totals

        session, rubric_id = self.session, self.rubric.id
        store, reviewer = session.store, session.reviewer
        session.save_pending()  # the rating just submitted counts
        session.leave()
        progress = session.progress()
        seconds = rated_seconds(store, reviewer, rubric_id)
        totals = Totals(progress["rated"], progress["total"], sum(s for s in seconds if s is not None),
                        total_minutes(seconds), progress["flagged"], progress["skipped"])
        store.set_meta(f"finish_offered:{rubric_id}:{reviewer}", now())
        earlier = store.finish(reviewer, rubric_id)
        rater = store.rater(reviewer) or {}
        session.timer.away()  # writing the summary is not time on the item

        def done(finished: Finished | None) -> None:
            session.timer.back()
            if finished is None:
                said = "Finish later with F."
            else:
                try:
                    with store.waiting_at_most(WRITE_WAIT):
                        store.save_finish(Finish(reviewer, rubric_id, finished.summary_notes, now()[:19] + "Z"),
                                          name=finished.name)
                except sqlite3.OperationalError as exc:  # busy (a merge), full disk: kept for another try
                    self._unsaved_finish = finished
                    self.notify(f"Your name and summary notes could not be saved yet ({exc}); press F and save "
                                "again.", markup=False, severity="error", timeout=15)
                    return
                self._unsaved_finish = None
                said = "Saved: your name and summary notes go into the rating form."
            self.notify(f"{said} {self._all_rated()}" if all_rated else said, markup=False, timeout=10)

        kept = self._unsaved_finish
        name = kept.name if kept else rater.get("display_name") or ""
        notes = kept.summary_notes if kept else earlier.summary_notes if earlier else ""
        self.app.push_screen(FinishScreen(rubric_id, totals, name=name, summary_notes=notes), done)

    # ------------------------------------------------------------------ the study's questions, settled or not

    @property
    def _shows_settling(self) -> bool:
        return self.session.order.kind == "balanced"

    def _watch_study(self) -> None:
        """After a submit: whether every target of the study is decided, computed away from the keys."""
        store, reviewer, rubric = self.session.store, self.session.reviewer, self.rubric.id
        notice_due = self.stop_notice and store.get_meta(f"stop_notice_shown:{rubric}:{reviewer}") is None
        if not (notice_due or self._shows_settling):
            return
        if self._study_worker is not None and self._study_worker.is_running:
            self._study_again = True  # one at a time: asked again when this one ends, with every rating
            return
        self._study_again = False
        self._study_worker = self.run_worker(self._study_settledness, thread=True, exit_on_error=False,
                                             group="study-settled")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is self._study_worker and event.worker.is_finished and self._study_again:
            self._watch_study()

    def _study_settledness(self) -> None:
        from judge_tui.analysis.stopping import study_settledness  # the report engine: off the start-up path

        with Store(self.session.store.path) as store:
            # The demo's bundled expert is an example, not a rater of anyone's study: it never settles one.
            leave_out = frozenset({DEMO_EXPERT}) if is_demo_database(store) else frozenset()
            found = study_settledness(store, self.rubric, self.agreement, leave_out=leave_out)
        if found is not None:
            self.app.call_from_thread(self.show_settledness, found)

    def show_settledness(self, found: Settledness) -> None:
        store, reviewer, rubric = self.session.store, self.session.reviewer, self.rubric.id
        if self._shows_settling:
            self.query_one(StatusLine).set_settling(found.decided, found.targets)
        if not (found.settled or found.as_far_as_the_pool_allows):
            return
        if found.settled:
            write_when_free(self.app, store, partial(store.record_settled, rubric, found.ratings))
        shown_key = f"stop_notice_shown:{rubric}:{reviewer}"
        if self.stop_notice and store.get_meta(shown_key) is None:
            write_when_free(self.app, store, partial(store.set_meta, shown_key, str(found.ratings)))
            self.stop_notice = False  # said once, even while that is not yet written
            self.notify(found.notice(), markup=False, timeout=15)

    def _all_rated(self) -> str:
        if self.session.plan is not None:
            return ("Every item of your assignment is rated: export your work (judge-tui export --bundle) for the "
                    "lead. ← and → page through your items; q quits.")
        return "Every item is rated. ← and → page through them; q quits."

    def action_next_item(self) -> None:
        if self.session.open_neighbour(+1) is None:
            self.notify("This is the last item.", markup=False, timeout=3)
            return
        self.show_item()

    def action_prev_item(self) -> None:
        if self.session.open_neighbour(-1) is None:
            self.notify("This is the first item.", markup=False, timeout=3)
            return
        self.show_item()

    def action_skip(self) -> None:
        skipped = self.session.state.item.id if self.session.state else ""
        if self.session.skip() is None or (self.session.state and self.session.state.item.id == skipped):
            self.notify("No other item is waiting; this one stays open.", markup=False, timeout=4)
        self.show_item()

    def action_flag(self) -> None:
        state = self.session.state
        assert state is not None
        if state.edit.flagged:
            self.session.set_flag(False)
            self.notify(f"Flag removed from {state.item.id} (u undoes).", markup=False, timeout=3)
            self._after_flag()
            return
        from judge_tui.tui.screens.flag import FlagScreen

        def flagged(reason: str | None) -> None:
            if reason is not None and self.session.state is state:
                self.session.set_flag(True, reason)
                self._after_flag()

        self.app.push_screen(FlagScreen(state.item.id), flagged)

    def _after_flag(self) -> None:
        self._show_rubric()
        self._show_progress()

    def action_undo(self) -> None:
        before = dict(self.session.state.edit.scores) if self.session.state else {}
        if self.session.undo():
            state = self.session.state
            assert state is not None
            changed = [d for d in self.judged if before.get(d) != state.edit.scores.get(d)]
            if changed:
                self.cursor = changed[0]  # back on the dimension the undo touched
            self._show_note(state.edit.notes)
            self._show_rubric()
            self._show_progress()

    def action_edit_note(self) -> None:
        self.add_class("-editing-note")  # a folded note box opens first (it cannot take focus while hidden)
        if self.rubric_collapsed:  # the note box is in the rubric's column: shown while the note is edited
            self._show_columns(note_open=True)
            self._show_rubric(scroll_after_layout=True)  # not kept up to date while folded
        self.call_after_refresh(self.query_one(NotesEditor).focus)

    def action_toggle_guidance(self) -> None:
        self.guidance_on = not self.guidance_on
        self._show_rubric()

    @property
    def rubric_collapsed(self) -> bool:
        return self._rubric_collapsed

    def action_toggle_rubric(self) -> None:
        """The rubric panel folded into one line under the item (the item gets the whole width), or back."""
        self._rubric_collapsed = not self._rubric_collapsed
        side, pane = self.query_one("#side"), self.query_one(ItemPane)
        if side.display == self._rubric_collapsed:  # the item pane gains or gives back the rubric's width
            gained = side.outer_size.width if self._rubric_collapsed else -side.outer_size.width
            pane.expect_width(pane.text_width + gained)
        self._show_columns()
        self._show_rubric(scroll_after_layout=True)

    def _show_columns(self, *, note_open: bool = False) -> None:
        """The rubric's column beside the item, or the strip under it (with the column while the note is edited).
        Set on the two widgets, not as a class of the screen: a class of the screen has Textual match every
        widget on it against the stylesheet again, a few times the work of the key itself."""
        self.query_one("#side").display = not self._rubric_collapsed or note_open
        self.query_one(RubricStrip).display = self._rubric_collapsed

    def action_toggle_wrap(self) -> None:
        pane = self.query_one(ItemPane)
        pane.set_unwrapped(not pane.unwrapped)

    def action_scroll_sideways(self, direction: int) -> None:
        pane = self.query_one(ItemPane)
        if not pane.unwrapped:
            wrap = self._key_of("toggle-wrap")
            self.notify(f"Code wraps at the pane's edge: {wrap} unwraps it, then this key scrolls sideways.",
                        markup=False, timeout=4)
            return
        pane.scroll_sideways(direction)

    def _key_of(self, binding_id: str) -> str:
        """The first key of a binding as the user's keymap has it, as Textual writes keys."""
        return key_shown(binding_id, self.keymap, self.app.get_key_display) or binding_id

    def action_scroll_item(self, how: str) -> None:
        if how in SCROLLS:
            getattr(self.query_one(ItemPane), how)(animate=False)

    def action_scroll_rubric(self, direction: int) -> None:
        panel = self.query_one(RubricPanel)
        panel.scroll_relative(y=direction * max(1, panel.scrollable_content_region.height - 2), animate=False)

    def action_help(self) -> None:
        from judge_tui.tui.screens.help import HelpScreen

        self.app.push_screen(HelpScreen(self.keymap, self.rubric.scale))

    def action_agreement(self) -> None:
        from judge_tui.tui.screens.summary import SummaryScreen  # numpy: only once figures are asked for

        self.app.push_screen(SummaryScreen(self.session.store, self.rubric, self.session.reviewer,
                                           agreement=self.agreement, lead=self.lead, keymap=self.keymap))

    def action_adjudicate(self) -> None:
        """The lead's key (check_action): the items where experts disagree, or why there are none."""
        from judge_tui.model.errors import UserError
        from judge_tui.tui.screens.adjudication import (
            AdjudicationScreen,
            disagreements_to_settle,
            nothing_to_settle,
        )

        try:
            view, items = disagreements_to_settle(self.session.store, self.rubric, self.session.reviewer,
                                                  split=self.session.split, settings=self.agreement)
        except UserError as exc:
            self.notify(str(exc), markup=False, severity="warning", timeout=8)
            return
        if not items:
            self.notify(nothing_to_settle(self.rubric, self.agreement), markup=False, timeout=8)
            return
        self.app.push_screen(AdjudicationScreen(self.session.store, self.rubric, self.session.reviewer,
                                                split=self.session.split, agreement=self.agreement, view=view,
                                                items=items, keymap=self.keymap))

    def action_calibrate(self) -> None:
        """The lead's key (check_action): the judge screen, if the blind rule lets this lead see the judge."""
        from judge_tui.tui.screens.calibrate import CalibrationScreen, lead_may_calibrate

        store, reviewer = self.session.store, self.session.reviewer
        refused = lead_may_calibrate(store, self.rubric, reviewer, lead=self.lead, key=self._key_of("calibrate"))
        if refused:
            self.notify(refused, markup=False, severity="warning", timeout=10)
            return
        settings = getattr(self.app, "settings", None) or Settings()

        def app_judge() -> object:  # the app's judge: the backend and model settings.json names
            from judge_tui.judge.app_backend import app_backend

            return app_backend(settings)

        self.app.push_screen(CalibrationScreen(store, self.rubric, reviewer, settings=settings,
                                               make_backend=app_judge))

    # ------------------------------------------------------------------ the note

    def _show_note(self, note: str) -> None:
        editor = self.query_one(NotesEditor)
        if editor.note != note:
            editor.load_note(note)
        self.query_one(NotePreview).show_note(note)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        if isinstance(event.widget, NotesEditor) and self.session.state is not None:
            self._note_before = self.session.state.edit.notes
            self._refresh_bindings_if_changed()  # recorded as checked, so that leaving the note checks again

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        if isinstance(event.widget, NotesEditor) and self._note_before is not None:
            self.session.set_notes(event.widget.note, undoable=False)
            self.session.record_note_edit(self._note_before)
            self._note_before = None
            notes = self.session.state.edit.notes if self.session.state else ""
            self._show_note(notes)  # as saved: without trailing blank lines
            self.remove_class("-editing-note")
            self._show_columns()
            self._show_rubric()

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        # Saved as typed, so a crash loses nothing; the undo step is taken when editing ends.
        if self._note_before is not None and self.session.state is not None:
            self.session.set_notes(self.query_one(NotesEditor).note, undoable=False)

    # ------------------------------------------------------------------ time

    def on_screen_suspend(self) -> None:
        if not isinstance(self.app.screen, ModalScreen):
            self.session.timer.away()  # reading help or the summary is not time on the item

    def on_screen_resume(self) -> None:
        if self.app.app_focus:
            self.session.timer.back()

    def save_now(self) -> None:
        """Save the draft with its time (on quit)."""
        if self.query_one(NotesEditor).has_focus and self.session.state is not None:
            self.session.set_notes(self.query_one(NotesEditor).note, undoable=False)
        self.session.leave()
