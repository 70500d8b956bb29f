"""The blind rule, swept through the real keys: a reviewer presses every key of the rating screen and of every
screen it leads to, and no frame ever shows another rater's opinion of an item the reviewer has not submitted.

Another expert, a third expert, the judge, an adjudicated consensus and a revision mark each leave a distinctive
note on every item; the reviewer's frames (what is drawn, what every widget holds, every notification) are
searched for them after each key.
"""

from __future__ import annotations

import pytest

from judge_tui.model.records import Rating
from judge_tui.model.settings import Settings
from judge_tui.store import Store
from judge_tui.tui.app import JudgeTuiApp
from judge_tui.tui.screens.rating import RatingScreen
from tests.tui.conftest import FakeClock, make_items
from tests.tui.screen_text import screen_text, widget_text

RUBRIC = "cis"
REVIEWER = "EXP002"
OTHERS = {"EXP001": "human", "EXP003": "human", "judge:secret-model": "judge", "consensus": "human"}
MAX_DEPTH = 3  # rating -> summary -> disagreements -> item / revision note


def secret(rater: str, item_id: str) -> str:
    return f"SECRET-{rater.split(':')[0].upper()}-{item_id}"


def plant(store: Store, rubric) -> list[str]:
    """Every other rater rates every item with a note naming rater and item; returns the item ids."""
    items = make_items(rubric)
    version = store.ensure_rubric_version(rubric)
    for n, (rater, kind) in enumerate(OTHERS.items()):
        store.ensure_rater(rater, kind)
        for item in items:
            scores = {d.id: rubric.scale.points[(n + len(item.id)) % len(rubric.scale.points)]
                      for d in rubric.dimensions}
            details = {"critique": f"{secret(rater, item.id)}-CRITIQUE"} if kind == "judge" else {}
            store.save_rating(Rating(item_id=item.id, rater_id=rater, rubric_version_id=version, scores=scores,
                                     overall=rubric.overall_score(scores), verdict=rubric.verdict(scores),
                                     notes=secret(rater, item.id), details=details))
    for item in items:
        store.mark_for_revision(item.id, RUBRIC, secret("mark", item.id))
    return [item.id for item in items]


class Sweep:
    """Presses every key of every screen reachable from the rating screen and checks each frame."""

    def __init__(self, app: JudgeTuiApp, pilot, store: Store, item_ids: list[str]) -> None:
        self.app, self.pilot, self.store, self.item_ids = app, pilot, store, item_ids
        self.frames = 0
        self.screens: set[str] = set()

    async def settle(self) -> None:
        await self.app.workers.wait_for_complete()
        await self.pilot.pause()

    def keys_of_screen(self) -> list[str]:
        """The keys the current screen and its focused widget answer to (not the app's own: ctrl+q quits)."""
        keys: list[str] = []
        for key, active in self.app.screen.active_bindings.items():
            if active.node is self.app:
                continue
            if active.binding.action not in ("app.quit", "quit") and key not in keys:
                keys.append(key)
        return keys

    def check(self, where: list[str]) -> None:
        submitted = self.store.rated_item_ids(REVIEWER, RUBRIC)
        notices = "\n".join(self.app.notices)
        frame = "\n".join([screen_text(self.app), widget_text(self.app), notices])
        self.frames += 1
        self.screens.add(type(self.app.screen).__name__)
        for item_id in self.item_ids:
            if item_id in submitted:
                continue
            for rater in [*OTHERS, "mark"]:
                assert secret(rater, item_id) not in frame, f"keys {where} showed {secret(rater, item_id)}:\n{frame}"
        if not submitted:  # no aggregate either: not one other rater is even named
            for rater in OTHERS:
                assert rater not in frame, f"keys {where} named {rater} before anything was submitted:\n{frame}"
            assert "Team" not in frame, f"keys {where} showed team figures:\n{frame}"
        else:  # figures over exactly the submitted items
            if "Team: agreement among experts" in frame:
                assert f"on {len(submitted)} items" in frame, f"keys {where}: team over other items:\n{frame}"
            if "items you submitted that the judge also rated" in frame:
                assert f"on the {len(submitted)} items you submitted" in frame, f"keys {where}:\n{frame}"

    async def press(self, key: str, where: list[str]) -> None:
        await self.pilot.press(key)
        await self.settle()
        if self.app.screen.focused is not None and type(self.app.screen.focused).__name__ == "NotesEditor":
            await self.pilot.press("escape")  # n: back from the note, so the next key is a command again
            await self.settle()
        self.check(where)

    async def back_to_rating(self) -> None:
        while not isinstance(self.app.screen, RatingScreen):
            self.app.pop_screen()
            await self.settle()

    async def visit(self, path: list[str]) -> None:
        """Every key of the screen that `path` (keys pressed on the rating screen onwards) opened."""
        keys = self.keys_of_screen()
        if isinstance(self.app.screen, RatingScreen):
            keys.sort(key=lambda k: k != "enter")  # Enter first: it must not submit the scores typed later
        for key in keys:
            if len(self.app.screen_stack) != len(path) + 2:  # the last key left this screen: open it again
                await self.back_to_rating()
                for step, pressed in enumerate(path):
                    await self.press(pressed, path[: step + 1])
            depth = len(self.app.screen_stack)
            await self.press(key, [*path, key])
            if len(self.app.screen_stack) > depth and len(path) < MAX_DEPTH:
                await self.visit([*path, key])
        await self.back_to_rating()


async def sweep(store: Store, rubric, item_ids: list[str]) -> Sweep:
    """Every key of the rating screen and of every screen it leads to, from a fresh app."""
    settings = Settings(judge_in_background=False, reveal_after_submit=True)
    app = JudgeTuiApp(store, rubric, reviewer=REVIEWER, settings=settings, clock=FakeClock())
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        swept = Sweep(app, pilot, store, item_ids)
        swept.check([])
        await swept.visit([])
        return swept


@pytest.mark.slow  # about 80 key presses, each frame searched
async def test_a_new_reviewer_sees_nothing_of_the_others_from_any_key(filled_store, rubrics):
    """Nothing submitted: every frame is free of the others, their figures and even their names."""
    rubric = rubrics[RUBRIC]
    item_ids = plant(filled_store, rubric)
    swept = await sweep(filled_store, rubric, item_ids)
    assert filled_store.rated_item_ids(REVIEWER, RUBRIC) == set()
    assert {"RatingScreen", "HelpScreen", "FlagScreen", "SummaryScreen", "DisagreementScreen"} <= swept.screens
    assert swept.frames > 60, swept.frames
    assert "CalibrationScreen" not in swept.screens  # J, the lead's judge screen, only says where it opens


@pytest.mark.slow  # about 250 key presses, each frame searched
async def test_a_reviewer_who_submitted_one_item_sees_the_others_on_that_item_alone_from_any_key(filled_store,
                                                                                                 rubrics):
    """One item submitted with the real keys: its figures (and only its) appear."""
    rubric = rubrics[RUBRIC]
    item_ids = plant(filled_store, rubric)
    settings = Settings(judge_in_background=False, reveal_after_submit=True)
    app = JudgeTuiApp(filled_store, rubric, reviewer=REVIEWER, settings=settings, clock=FakeClock())
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press(*"1234", "enter")
        await pilot.pause()
    submitted = filled_store.rated_item_ids(REVIEWER, RUBRIC)
    assert len(submitted) == 1
    swept = await sweep(filled_store, rubric, item_ids)
    assert filled_store.rated_item_ids(REVIEWER, RUBRIC) == submitted
    assert {"SummaryScreen", "DisagreementScreen", "ItemScreen", "RevisionNoteScreen"} <= swept.screens
    assert "CalibrationScreen" not in swept.screens
