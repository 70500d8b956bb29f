"""Reading a real submission at 80×24: the rubric folded into a line (toggle-rubric), code unwrapped and read
sideways (toggle-wrap), every dimension's score in view, and a status line that keeps the reviewer and the judge."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from judge_tui.model.records import Item
from judge_tui.model.rubrics import Rubric
from judge_tui.model.settings import Settings
from judge_tui.store import Store
from judge_tui.tui.app import JudgeTuiApp
from judge_tui.tui.keys import RATING_BINDING_IDS, keymap_problems
from judge_tui.tui.messages import JudgeStatusLine
from judge_tui.tui.screens.rating import RatingScreen
from judge_tui.tui.widgets.item_pane import ItemPane
from tests.tui.conftest import FakeClock
from tests.tui.screen_text import screen_text

SMALL, LARGE = (80, 24), (120, 40)
JUDGE = "judge: 18 queued · 2 running · 30 done · offline"


def code_lines(count: int, shortest: int, longest: int, seed: int = 27) -> list[str]:
    """Lines of Python-looking code of known lengths, each ending in a mark of its own number (so a line shown
    whole can be told from one cut short)."""
    draw = random.Random(seed)
    lines = []
    for n in range(1, count + 1):
        length = draw.randint(shortest, longest)
        head = f"    total_{n:03d} = weigh(scores[{n}], factor) + adjust(limit, offset) "
        tail = f"#L{n:03d}$"
        lines.append((head + "x" * length)[: length - len(tail)] + tail)
    return lines


def code_item(item_id: str, lines: list[str]) -> Item:
    fields = {"task_type": "LRU Cache", "task": "Build a fixed-size cache.", "rationale": "A dict and a list.",
              "source_code": "\n".join(lines), "test_code": "def test_hit():\n    assert True\n",
              "test_results": "1 passed"}
    return Item(id=item_id, rubric="cis", fields=fields, task_type="LRU Cache")


@pytest.fixture
def code_app(tmp_path: Path, rubrics: dict[str, Rubric]):
    stores: list[Store] = []

    def factory(lines: list[str]) -> JudgeTuiApp:
        store = Store(tmp_path / f"code{len(stores)}.db")
        stores.append(store)
        store.ensure_rubric_version(rubrics["cis"])
        store.add_items([code_item("LONG", lines)])
        return JudgeTuiApp(store, rubrics["cis"], reviewer="EXP001",
                           settings=Settings(judge_in_background=False), clock=FakeClock())

    yield factory
    for store in stores:
        store.close()


def top_line(app: JudgeTuiApp) -> str:
    return screen_text(app).splitlines()[0]


def test_the_new_keys_clash_with_no_other_key():
    assert keymap_problems({}) == []


async def test_the_rubric_folds_into_a_line_and_the_score_keys_go_on_working(make_app):
    app = make_app("cis")
    async with app.run_test(size=SMALL) as pilot:
        screen = app.screen
        assert isinstance(screen, RatingScreen)
        pane, side, strip = screen.query_one(ItemPane), screen.query_one("#side"), screen.query_one("#rubric-strip")
        narrow = pane.size.width
        assert pane.region.width < SMALL[0] - 30
        await pilot.press("z")
        await pilot.pause()
        assert not side.display
        assert strip.display
        assert strip.size.height == 1
        assert pane.region.width == SMALL[0]
        assert pane.size.width > narrow + 30  # the whole width
        shown = screen_text(app)
        assert "▸R – · A – · T – · L –" in shown
        assert "0→0 1→.25 2→.5 3→.75 4→1" in shown
        await pilot.press("3", "4", "0")
        assert screen.session.state is not None
        assert screen.session.state.edit.scores == {"r": 0.75, "a": 1.0, "t": 0.0}
        await pilot.pause()
        assert "R .75 · A 1 · T 0 · ▸L –" in screen_text(app)
        await pilot.press("2", "enter")  # submitted and on to the next item, still folded
        await pilot.pause()
        assert screen.session.state.item.id == "B002"
        assert not side.display
        assert "▸R – · A – · T – · L –" in screen_text(app)
        await pilot.press("z")
        await pilot.pause()
        assert side.display
        assert not strip.display
        assert pane.size.width == narrow


async def test_the_note_opens_beside_the_folded_item_and_folds_away_again(make_app):
    app = make_app("cis")
    async with app.run_test(size=SMALL) as pilot:
        side = app.screen.query_one("#side")
        await pilot.press("z", "n")
        await pilot.pause()
        assert side.display
        await pilot.press("o", "k", "escape")
        await pilot.pause()
        assert not side.display
        assert app.screen.session.state.edit.notes == "ok"


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
async def test_every_dimension_s_score_is_on_screen_without_pressing_anything(make_app, size):
    app = make_app("cis")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        assert "▸R – · A – · T – · L –" in screen_text(app)
        await pilot.press("3", "4", "2")  # scores, not keys to show them
        await pilot.pause()
        assert "R .75 · A 1 · T .5 · ▸L –" in screen_text(app)


async def test_a_60_line_submission_reads_end_to_end_in_four_page_downs_at_80x24(code_app):
    lines = code_lines(60, 70, 70)
    app = code_app(lines)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("z")
        await pilot.pause()
        seen = screen_text(app)
        for _ in range(4):
            await pilot.press("pagedown")
            await pilot.pause()
            seen += "\n" + screen_text(app)
        for n, line in enumerate(lines, start=1):  # whole, on one row, with its number
            assert re.search(rf"^\s*{n} │ {re.escape(line)}(\s|$)", seen, re.MULTILINE), (n, line)


async def test_unwrapped_code_keeps_its_line_numbers_and_scrolls_sideways(code_app):
    lines = code_lines(150, 70, 90)
    app = code_app(lines)
    async with app.run_test(size=SMALL, notifications=True) as pilot:
        pane = app.screen.query_one(ItemPane)
        await pilot.press("h")  # wrapped: nothing to scroll, and it says which key unwraps
        await pilot.pause()
        assert pane.sideways == 0
        assert "unwraps" in screen_text(app)
        await pilot.press("z", "w")
        await pilot.pause()
        rows = pane.field_rows("source_code")
        assert pane.unwrapped
        assert rows.row_count(pane.size.width, app.console) == 150  # a line a row
        first = next(row for row in screen_text(app).splitlines() if row.lstrip().startswith("1 │"))
        assert first.rstrip().endswith("›") or first.rstrip().endswith("#L001$")
        for _ in range(3):
            await pilot.press("l")
        await pilot.pause()
        assert pane.sideways > 0
        await pilot.press("end")
        await pilot.pause()
        shown = screen_text(app)
        for n in range(140, 151):  # the last lines, in view: each one's end, its number kept, its start marked
            row = next(r for r in shown.splitlines() if re.match(rf"^\s*{n} │ ", r))
            assert f"#L{n:03d}$" in row, row
            assert re.match(rf"^\s*{n} │ ‹", row), row
        await pilot.press("h", "h", "h")
        await pilot.pause()
        assert pane.sideways == 0
        await pilot.press("w")
        await pilot.pause()
        assert not pane.unwrapped
        assert rows.row_count(pane.size.width, app.console) > 150


async def test_at_80_columns_the_status_line_keeps_the_reviewer_and_the_judge_state(make_app):
    app = make_app("cis")
    async with app.run_test(size=SMALL) as pilot:
        app.post_message(JudgeStatusLine(JUDGE))
        await pilot.press("s", "!")  # a skip and a flag: their counts join the line
        await pilot.pause()
        await pilot.press("enter")  # the flag's reason, none
        await pilot.pause()
        top = top_line(app)
        assert "↷1" in top or "1 skipped" in top
        assert "⚑1" in top or "1 flagged" in top
        assert "EXP001" in top, top
        assert "judge: 18 queued" in top, top
        assert "offline" in top, top


async def test_the_help_screen_fits_in_two_pages_at_80x24_and_names_every_binding(make_app):
    app = make_app("cis")
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        scroll = app.screen.query_one("#help")
        assert scroll.virtual_size.height <= 2 * scroll.scrollable_content_region.height, scroll.virtual_size
        shown = ""
        for _ in range(2):
            shown += screen_text(app)
            await pilot.press("pagedown")
            await pilot.pause()
        for binding_id in RATING_BINDING_IDS:
            assert binding_id in shown or binding_id.startswith("score-"), binding_id
        assert "score-0 …" in shown
        assert "toggle-rubric" in shown


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
async def test_the_welcome_notice_leaves_the_item_in_view(filled_store, rubrics, size):
    notice = ("The bundled demo was loaded into its own database, /home/someone/.local/share/judge-tui/demo.db: "
              "25 items of rubric cis, and smaller sets for --rubric (binary 20, exercise-quality 12, "
              "reasoning-trace 12). This is the demo database: your own study goes in /home/someone/study.db (judge-tui import "
              "FILE --rubric ID), apart from the demo; `judge-tui demo` opens the demo again.")
    app = JudgeTuiApp(filled_store, rubrics["cis"], reviewer="EXP001", notice=notice,
                      settings=Settings(judge_in_background=False), clock=FakeClock())
    async with app.run_test(size=size, notifications=True) as pilot:
        await pilot.pause()
        toasts = list(app.screen.query("Toast"))
        assert toasts
        assert "demo" in screen_text(app)
        pane = app.screen.query_one(ItemPane).region
        assert all(not toast.region.overlaps(pane) for toast in toasts), [t.region for t in toasts]


async def test_code_scrolled_sideways_comes_back_when_the_pane_widens(code_app):
    app = code_app(code_lines(20, 70, 90))
    async with app.run_test(size=LARGE) as pilot:
        pane = app.screen.query_one(ItemPane)
        await pilot.press("w", "l", "l")
        await pilot.pause()
        assert pane.sideways > 0  # beside the rubric the lines are cut
        await pilot.press("z")  # the whole width: every line fits
        await pilot.pause()
        assert pane.sideways == 0
        assert "‹" not in screen_text(app)
        assert "#L001$" in screen_text(app)


async def test_preparing_the_next_item_leaves_the_code_scrolled_where_it_is(code_app):
    app = code_app(code_lines(30, 70, 90))
    async with app.run_test(size=SMALL) as pilot:
        pane = app.screen.query_one(ItemPane)
        await pilot.press("w", "l")
        await pilot.pause()
        scrolled = pane.sideways
        pane.prepare(code_item("NEXT", code_lines(5, 10, 20)))  # as the screen does while the reviewer reads
        assert pane.sideways == scrolled > 0
