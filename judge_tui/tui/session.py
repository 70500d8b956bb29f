"""The rating session: what the rating screen does, without the screen.

One reviewer rates one rubric's items (optionally one split). Every change is written to the store as a
draft the moment it is made; submitting writes the rating. Only the current item is held in memory: the
others are read from SQLite when they are opened.

When another process holds the database (a merge, a big import) or the disk is full, a write waits a moment
at most, then joins `pending`: the change stays on screen and in memory, and `save_pending` (called each
second by the screen) writes the pending changes in order once the database takes them again.

The rating screen sets `save_soon`: a change then joins `pending` and the screen writes it just after it has
painted the change (paint first, then commit), marking it as not yet saved until the commit is done.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from judge_tui.analysis.blind import BlindReader
from judge_tui.analysis.drift import DriftScheduler, DriftSettings
from judge_tui.analysis.queue_orders import prepare_queue
from judge_tui.model import queue_orders as qo
from judge_tui.model.records import Draft, Item, Rating
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import AgreementSettings
from judge_tui.store import Store
from judge_tui.tui.kept_writes import WRITE_WAIT, waiting_reason
from judge_tui.tui.timer import ItemTimer


@dataclass(frozen=True)
class Edit:
    """The parts of an item's state that undo restores."""

    scores: dict[str, float] = field(default_factory=dict)
    notes: str = ""
    flagged: bool = False
    flag_reason: str = ""


@dataclass(frozen=True)
class PendingWrite:
    """A change the database could not take yet: a draft, or a rating (with clear_draft when submitted)."""

    draft: Draft | None = None
    rating: Rating | None = None
    clear_draft: bool = False

    @property
    def item_id(self) -> str:
        if self.draft is not None:
            return self.draft.item_id
        assert self.rating is not None  # a pending write holds a draft, a rating or both
        return self.rating.item_id


@dataclass
class ItemState:
    item: Item
    edit: Edit
    skipped: bool = False
    submitted: Rating | None = None  # this reviewer's own rating of the item, once submitted
    code_ids: frozenset[str] = frozenset()  # dimensions computed by code, absent from edit.scores
    recheck: bool = False  # a drift re-check: shown blind, saved as repeat 1, never as a draft

    @property
    def changed_since_submit(self) -> bool:
        if self.submitted is None:
            return False
        judged = {k: v for k, v in self.submitted.scores.items() if k not in self.code_ids}
        return self.edit.scores != judged or self.edit.notes != self.submitted.notes


class RatingSession:
    def __init__(
        self,
        store: Store,
        rubric: Rubric,
        reviewer: str,
        *,
        split: str | None = None,
        idle_seconds: float = 180.0,
        reading_seconds: float = 90.0,
        reveal_after_submit: bool = False,
        clock: Callable[[], float] = time.monotonic,
        drift: DriftSettings | None = None,
        order: str = qo.IMPORT,
        order_seed: int | None = None,
        targets: AgreementSettings | None = None,
    ) -> None:
        self.store = store
        self.rubric = rubric
        self.reviewer = reviewer
        self.split = split
        self.reveal_after_submit = reveal_after_submit
        self.blind = BlindReader(store, rubric.id, reviewer)  # every read of a rating goes through the blind rule
        self.timer = ItemTimer(idle_seconds, clock, reading_seconds)
        self.version_id = store.ensure_rubric_version(rubric)
        store.ensure_rater(reviewer, "human")
        # With an assignment (judge-tui assign) the reviewer rates its queue, in its order; else every item.
        self.plan = store.assignment_of(reviewer, rubric.id)
        # The queue order (rate --order, queue_order): fixed per reviewer and rubric; an assignment's queue wins.
        self.targets = targets
        self.order = prepare_queue(store, rubric, reviewer, order, assigned=self.plan is not None, seed=order_seed,
                                   settings=targets)
        self.ordered = self.order.kind in (qo.RANDOM, qo.BALANCED)
        self._allocation_due = False  # a checkpoint's allocation waits for the ratings behind it to be written
        # The app imports nothing, so this holds.
        self.total = (store.count_items(rubric.id, split) if self.plan is None
                      else store.count_assigned(self.plan, reviewer, split))
        self.state: ItemState | None = None
        self._undo: list[Edit] = []
        self._code_ids = frozenset(d.id for d in rubric.code_dimensions)
        self._judged_ids = tuple(d.id for d in rubric.judged_dimensions)
        self.drift = (DriftScheduler(store, reviewer, rubric, self.version_id, share=drift.share, seed=drift.seed)
                      if drift else None)
        self._position_before_recheck = 0
        self.pending: list[PendingWrite] = []
        self._seconds_saved = 0.0  # the current item's time as last written
        # Why pending writes wait: "busy" (another process writes), "full" (disk) or "error: <SQLite's message>".
        self.waiting_for = ""
        # Called when a change joins `pending` to be written right after the screen shows it (the rating
        # screen sets it); without it a change is written at once.
        self.save_soon: Callable[[], None] | None = None

    def use_rubric(self, rubric: Rubric) -> None:
        """Another version of the rubric put in force while rating (the judge screen): ratings from now on are
        of that version."""
        self.rubric = rubric
        self.version_id = self.store.ensure_rubric_version(rubric)
        self._code_ids = frozenset(d.id for d in rubric.code_dimensions)
        self._judged_ids = tuple(d.id for d in rubric.judged_dimensions)
        if self.drift is not None:
            self.drift.rubric, self.drift.version = rubric, self.version_id

    # ------------------------------------------------------------------ opening items

    def resume(self) -> ItemState | None:
        """Where a new session starts: the draft touched last, else the first unrated item, else the first."""
        draft = self.store.latest_draft(self.reviewer, self.rubric.id)
        if draft is not None:
            item = self.store.item(draft.item_id)
            if item is not None and (self.split is None or item.split == self.split) and self._place(item):
                return self.open(item)
        item = self._next_unrated(0) or self.store.item_at(self.rubric.id, 0, +1, self.split, self._queue,
                                                            self._ordered_for)
        return self.open(item) if item else None

    @property
    def _queue(self) -> tuple[str, str] | None:
        return None if self.plan is None else (self.plan, self.reviewer)

    @property
    def _ordered_for(self) -> str | None:
        return self.reviewer if self.ordered else None

    def _place(self, item: Item) -> int:
        """Where an item stands in the order this reviewer rates: import order, their stored queue order, or
        their assignment's queue (0: not in it)."""
        if self.ordered:
            return self.store.order_position(self.reviewer, self.rubric.id, item.id) or 0
        if self.plan is None:
            return item.position
        return self.store.queue_position(self.plan, self.reviewer, item.id) or 0

    def open(self, item: Item) -> ItemState:
        """Show an item: its draft if there is one, else this reviewer's submitted rating, else nothing."""
        if self.state is not None:
            self.leave()
        draft, rating = self._saved(item.id)
        live_draft = draft is not None and (draft.scores or draft.notes or (rating is None and draft.seconds))
        if live_draft:
            assert draft is not None
            edit = Edit({k: v for k, v in draft.scores.items() if k in self._judged_ids}, draft.notes)
            seconds = draft.seconds
        elif rating is not None:
            edit = Edit({k: v for k, v in rating.scores.items() if k in self._judged_ids}, rating.notes)
            seconds = rating.seconds or 0.0  # an imported rating's time may be unknown (None)
        else:
            edit = Edit()
            seconds = 0.0
        flag_from = draft if draft is not None and (live_draft or rating is None) else rating
        if flag_from is not None:
            edit = replace(edit, flagged=flag_from.flagged, flag_reason=flag_from.flag_reason)
        self.state = ItemState(item, edit, skipped=bool(draft and draft.skipped), submitted=rating,
                               code_ids=self._code_ids)
        self._undo.clear()
        self.timer.start(seconds)
        self._seconds_saved = seconds
        self._follow_submitted()
        return self.state

    def _follow_submitted(self) -> None:
        """Time counts while an item is being rated; a submitted rating only looked at holds its seconds."""
        state = self.state
        if state is not None and state.submitted is not None and not state.changed_since_submit:
            self.timer.hold(state.submitted.seconds or 0.0)  # an imported rating's time may be unknown
        else:
            self.timer.resume()

    def leave(self) -> None:
        """Keep the time spent on the current item before another one opens (or the app closes)."""
        self.save_draft(only_if_timed=True)

    def _next_unrated(self, after_position: int) -> Item | None:
        for include_skipped in (False, True):
            position = after_position
            # Items submitted while the database was busy are rated, though not yet in the database.
            for _ in range(len(self.pending) + 1):
                item = self.store.next_unrated_item(self.reviewer, self.rubric.id, self.split,
                                                    after_position=position, include_skipped=include_skipped,
                                                    plan=self.plan, ordered=self.ordered)
                if item is None or self._pending_rating(item.id) is None:
                    break
                position = self._place(item)
            else:
                item = None
            if item is not None:
                return item
        return None

    def peek_next_unrated(self) -> Item | None:
        """The item submitting this one would open next (for preparing it ahead of time)."""
        if self.state is None:
            return None
        return self.store.next_unrated_item(
            self.reviewer, self.rubric.id, self.split, after_position=self._place(self.state.item), plan=self.plan,
            ordered=self.ordered)

    def open_next_unrated(self) -> ItemState | None:
        """The next item this reviewer has not submitted (skipped ones last); None when all are rated.

        With drift checks on, a due re-check of an already-rated item comes first.
        """
        position = self._place(self.state.item) if self.state else 0
        if self.state is not None and self.state.recheck:
            position = self._position_before_recheck
        recheck = self.drift.next_recheck() if self.drift else None
        if recheck is not None:
            return self.open_recheck(recheck, position)
        item = self._next_unrated(position)
        return self.open(item) if item else None

    def open_recheck(self, item: Item, return_position: int) -> ItemState:
        """Show an already-rated item again as if new: no earlier score, note or draft (criteria drift)."""
        if self.state is not None:
            self.leave()
        self._position_before_recheck = return_position
        self.state = ItemState(item, Edit(), code_ids=self._code_ids, recheck=True)
        self._undo.clear()
        self.timer.start(0.0)
        self._seconds_saved = 0.0
        return self.state

    def open_neighbour(self, direction: int) -> ItemState | None:
        """The previous (-1) or next (+1) item in the reviewer's order; None at either end."""
        if self.state is None:
            return None
        item = self.store.item_at(self.rubric.id, self._place(self.state.item), direction, self.split, self._queue,
                                  self._ordered_for)
        return self.open(item) if item else None

    # ------------------------------------------------------------------ changes (each saved at once)

    def _change(self, edit: Edit) -> None:
        assert self.state is not None
        if edit == self.state.edit:
            return
        self._undo.append(self.state.edit)
        self.state.edit = edit
        self._follow_submitted()
        self.save_draft()

    def set_score(self, dimension_id: str, value: float) -> None:
        assert self.state is not None
        point = self.rubric.scale.stored_point(value)
        if dimension_id not in self._judged_ids:
            raise KeyError(f"{dimension_id!r} is not a judged dimension of {self.rubric.id}")
        self.state.skipped = False
        self._change(replace(self.state.edit, scores={**self.state.edit.scores, dimension_id: point}))

    def set_notes(self, notes: str, *, undoable: bool = True) -> None:
        """A note edit. While typing, save without an undo step; one undo step covers a whole edit.

        Trailing blank lines and spaces are not kept (Enter in the note is a new line, easily typed last).
        """
        assert self.state is not None
        notes = notes.rstrip()
        if undoable:
            self._change(replace(self.state.edit, notes=notes))
        elif notes != self.state.edit.notes:
            self.state.edit = replace(self.state.edit, notes=notes)
            self._follow_submitted()
            self.save_draft()

    def record_note_edit(self, before: str) -> None:
        """Close a note edit begun with `before` as one undo step (the text itself is already saved)."""
        assert self.state is not None
        if before != self.state.edit.notes:
            self._undo.append(replace(self.state.edit, notes=before))

    def set_flag(self, flagged: bool, reason: str = "") -> None:
        assert self.state is not None
        self._change(replace(self.state.edit, flagged=flagged, flag_reason=reason if flagged else ""))

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    def undo(self) -> bool:
        """Revert the last change to this item (score, note or flag); the reverted state is saved too."""
        if self.state is None or not self._undo:
            return False
        self.state.edit = self._undo.pop()
        self._follow_submitted()
        self.save_draft()
        return True

    def skip(self) -> ItemState | None:
        """Set the item aside (it comes back after every other item) and open the next unrated one.

        A submitted item is not set aside (it is done, and would count as both rated and skipped).
        """
        assert self.state is not None
        if self.state.submitted is None:
            self.state.skipped = True
            self.save_draft()
        return self.open_next_unrated()

    # ------------------------------------------------------------------ saving

    def draft(self) -> Draft:
        assert self.state is not None
        state, edit = self.state, self.state.edit
        return Draft(state.item.id, self.reviewer, scores=dict(edit.scores), notes=edit.notes,
                     seconds=round(self.timer.elapsed(), 3), skipped=state.skipped, flagged=edit.flagged,
                     flag_reason=edit.flag_reason)

    def save_draft(self, *, only_if_timed: bool = False) -> None:
        """Write the current item's state. With only_if_timed, skip items whose time is not being recorded."""
        if self.state is None or self.state.recheck:
            return
        state = self.state
        if state.submitted is not None and not state.changed_since_submit:
            if not only_if_timed:  # looking again at a submitted item records nothing
                # The submitted rating is the source of truth; a flag raised or lowered on it is the rating's.
                state.submitted = replace(state.submitted, flagged=state.edit.flagged,
                                          flag_reason=state.edit.flag_reason)
                self._write(PendingWrite(rating=state.submitted, clear_draft=True))
            return
        draft = self.draft()
        blank = not (draft.scores or draft.notes or draft.seconds or draft.flagged or draft.skipped)
        if blank and self._saved(state.item.id)[0] is None:
            return
        self._seconds_saved = draft.seconds
        self._write(PendingWrite(draft=draft))

    def save_time(self, every: float) -> None:
        """Write the draft once its timer has counted `every` seconds more than last written.

        An idle, away or held timer counts nothing, and the count never goes down, so a reviewer who walks
        away causes no writes.
        """
        if self.state is None:
            return
        if self.timer.elapsed() - self._seconds_saved >= every:
            self.save_draft(only_if_timed=True)

    # ------------------------------------------------------------------ writes that wait for the database

    def _write(self, write: PendingWrite) -> None:
        """Write now (or, with save_soon, just after the screen shows the change), or keep the write for
        save_pending when the database is busy or the disk full.

        While writes wait, a new one only joins them (the screen's timer retries), so keys stay instant.
        """
        if self.pending and write.draft is not None and self.pending[-1].draft is not None \
                and self.pending[-1].item_id == write.item_id:
            self.pending[-1] = write  # a newer draft of the same item replaces the one waiting
        else:
            self.pending.append(write)
        if self.waiting_for:
            return
        if self.save_soon is not None:
            self.save_soon()
        else:
            self.save_pending()

    def save_pending(self) -> bool:
        """Write the kept changes, oldest first; True when none is left waiting."""
        while self.pending:
            write = self.pending[0]
            try:
                with self.store.waiting_at_most(WRITE_WAIT):
                    if write.draft is not None:
                        self.store.save_draft(write.draft)
                    else:
                        assert write.rating is not None
                        self.store.save_rating(write.rating, clear_draft=write.clear_draft)
            except sqlite3.OperationalError as exc:
                # Anything else the machine does (the disk went read-only, an I/O error) is kept the same way.
                self.waiting_for = waiting_reason(exc)
                return False
            self.pending.pop(0)
        self.waiting_for = ""
        self._allocate_if_due()
        return True

    def _saved(self, item_id: str) -> tuple[Draft | None, Rating | None]:
        """This reviewer's draft and rating of an item, counting the writes still pending."""
        draft = self.store.draft(item_id, self.reviewer)
        rating = self.blind.rating(item_id, self.reviewer)
        for write in self.pending:
            if write.item_id != item_id:
                continue
            if write.draft is not None:
                draft = write.draft
            elif write.rating is not None and write.rating.repeat == 0:
                rating = write.rating
                if write.clear_draft:  # as save_rating does
                    draft = None
        return draft, rating

    def rating_pending(self, item_id: str) -> bool:
        """Whether a rating of this item waits to be written (the screen says "saved" once it is not)."""
        return any(write.rating is not None and write.item_id == item_id for write in self.pending)

    def _pending_rating(self, item_id: str) -> Rating | None:
        for write in reversed(self.pending):
            if write.rating is not None and write.rating.repeat == 0 and write.item_id == item_id:
                return write.rating
        return None

    @property
    def missing(self) -> list[str]:
        """Judged dimensions still without a score."""
        assert self.state is not None
        return self.rubric.missing_judged(self.state.edit.scores)

    def all_scores(self) -> dict[str, float]:
        """The reviewer's scores plus the dimensions computed by code."""
        assert self.state is not None
        return {**self.state.edit.scores, **self.rubric.code_scores(self.state.item.fields)}

    def submit(self) -> Rating:
        """Save the rating (with code-computed dimensions, overall, verdict, note and time); clears the draft."""
        assert self.state is not None
        if self.missing:
            raise ValueError(f"not every dimension is scored: {', '.join(self.missing)}")
        if self.state.recheck and self.drift is not None:
            rating = self.drift.rating(self.state.item, dict(self.state.edit.scores), self.state.edit.notes,
                                       round(self.timer.elapsed(), 3))
            self._write(PendingWrite(rating=rating))
            self.drift.record_recheck(self.state.item.id)
            self.state.submitted = rating
            self._follow_submitted()
            return rating
        first_rating = self.state.submitted is None
        scores = self.all_scores()
        rating = Rating(
            item_id=self.state.item.id, rater_id=self.reviewer, rubric_version_id=self.version_id,
            scores=scores, overall=self.rubric.overall_score(scores), verdict=self.rubric.verdict(scores),
            notes=self.state.edit.notes, seconds=round(self.timer.elapsed(), 3), source="app",
            flagged=self.state.edit.flagged, flag_reason=self.state.edit.flag_reason,
        )
        self._write(PendingWrite(rating=rating, clear_draft=True))
        self.state.submitted = rating
        self.state.skipped = False
        self._follow_submitted()
        if first_rating and self.drift is not None:
            self.drift.record_new_rating()
        if first_rating and self.order.kind == qo.BALANCED and self._rated_count() % qo.ALLOCATE_EVERY == 0:
            self._allocation_due = True
        self._allocate_if_due()
        return rating

    def _rated_count(self) -> int:
        """Items this reviewer has rated, counting the ratings still waiting to be written."""
        rated = set(self.store.rated_item_ids(self.reviewer, self.rubric.id))
        return len(rated | {w.item_id for w in self.pending if w.rating is not None and w.rating.repeat == 0})

    def _allocate_if_due(self) -> None:
        """At a checkpoint of a balanced order the items not yet touched are laid out again with the allocation
        (a few ms on a 500-item pool), once the ratings behind it are written: at once when the rating was
        written at once (so the next item opened is the first served), else when the pending writes are (the
        rating screen commits just after painting; another process may hold the database for a while)."""
        if not self._allocation_due or self.pending:
            return
        try:
            with self.store.waiting_at_most(WRITE_WAIT):
                self.order = prepare_queue(self.store, self.rubric, self.reviewer, qo.BALANCED,
                                           seed=self.order.seed, settings=self.targets)
        except sqlite3.OperationalError:
            return  # the database is held again: laid out after the next write
        self._allocation_due = False

    # ------------------------------------------------------------------ what the screen shows

    def progress(self) -> dict[str, int]:
        """Rated, skipped, flagged and total, counting the changes kept for later as they will be once written.

        With an assignment, of the assigned items (total is their number).
        """
        counts = self.store.progress(self.reviewer, self.rubric.id, self.split, total=self.total, plan=self.plan)
        for item_id in {write.item_id for write in self.pending}:
            draft, rating = self._saved(item_id)
            stored_draft = self.store.draft(item_id, self.reviewer)
            counts["rated"] += (rating is not None) - (self.blind.rating(item_id, self.reviewer) is not None)
            for what in ("skipped", "flagged"):
                counts[what] += bool(getattr(draft, what, False)) - bool(getattr(stored_draft, what, False))
        return counts

    def others(self) -> list[Rating]:
        """Other raters' ratings of the current item: empty unless revealing is on and this one is submitted.

        The blind rule: nothing of a judge's or another reviewer's opinion before your own is submitted.
        """
        if not self.reveal_after_submit or self.state is None:
            return []
        return self.blind.others(self.state.item.id, submitted=self.state.submitted is not None)
