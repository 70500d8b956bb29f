"""A pairwise item on the rating screen: both responses readable (side by side when wide, stacked when not), the
categories keyed 1 to 3 with their names shown, and the responses drawn literally whatever they hold."""

from __future__ import annotations

import pytest

from judge_tui.model.records import Item
from judge_tui.tui.screens.rating import RatingScreen
from judge_tui.tui.widgets.item_pane import ItemPane
from tests.tui.screen_text import screen_text

PAIRS = [
    {"prompt": "Explain in two sentences why the sky is blue.",
     "response_a": "Sunlight scatters off air molecules, and short blue wavelengths scatter far more than red "
                   "ones (Rayleigh scattering). So blue light reaches our eyes from every part of the sky.",
     "response_b": "Because it reflects the ocean. [bold]Water[/bold] is blue, so the sky is blue too.\x1b]0;pwned\x07"},
    {"prompt": "Name a prime number above 10.", "response_a": "11", "response_b": "13 [@click=app.quit]quit[/]"},
]


@pytest.fixture
def pairwise_app(make_app, filled_store, rubrics):
    filled_store.ensure_rubric_version(rubrics["pairwise"])
    filled_store.add_items([Item(id=f"W{n:03d}", rubric="pairwise", fields=fields)
                            for n, fields in enumerate(PAIRS, start=1)])
    return make_app("pairwise", auto_submit=False)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_pairwise_rating_screen(snap_compare, pairwise_app, size):
    assert snap_compare(pairwise_app, press=["2"], terminal_size=size)


async def test_keys_one_to_three_choose_a_b_and_tie(pairwise_app, filled_store):
    async with pairwise_app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.press("3")
        assert filled_store.draft("W001", "EXP001").scores == {"preference": 1.0}
        assert "tie" in screen_text(pairwise_app)
        await pilot.press("1", "enter")
        assert filled_store.rating("W001", "EXP001").verdict == "A"
        await pilot.press("0")  # not a category: said so, nothing set
        await pilot.pause()
        assert "3 categories" in screen_text(pairwise_app)
        assert "3→tie" in screen_text(pairwise_app)
        await pilot.press("4")
        assert filled_store.draft("W002", "EXP001") is None or not filled_store.draft("W002", "EXP001").scores


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_both_responses_are_shown_whole_and_literally(pairwise_app, size):
    async with pairwise_app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = pairwise_app.screen
        assert isinstance(screen, RatingScreen)
        pane = screen.query_one(ItemPane)
        shown = "\n".join(pane.line(y).text for y in range(pane.virtual_size.height))  # every row, scrolled or not
        flat = " ".join(shown.replace("│", " ").split())
        assert "Response A" in shown
        assert "Response B" in shown
        for word in ("Rayleigh", "scattering).", "[bold]Water[/bold]", "every part of the sky."):
            assert word in flat
        assert "pwned" not in shown
        assert "\x1b" not in shown
        side_by_side = any("Response A" in line and "Response B" in line for line in shown.splitlines())
        assert side_by_side == (size == (120, 40))


@pytest.mark.slow
async def test_the_summary_shows_where_you_and_the_judge_part_by_category(pairwise_app, filled_store, rubrics):
    """After rating both pairs, the summary screen (a) has the confusion table by category name and AC1; before,
    nothing of the judge's is reachable (the blind rule)."""
    import io

    from rich.console import Console
    from textual.widgets import Static

    from judge_tui.model.records import Rating
    from judge_tui.tui.screens.summary import SummaryScreen

    rubric = rubrics["pairwise"]
    version = filled_store.ensure_rubric_version(rubric)
    judge = "judge:test-model:pairwise@1"
    filled_store.ensure_rater(judge, "judge", model="test-model", prompt_version="1")
    for item, said in (("W001", 0.0), ("W002", 1.0)):  # the judge says A, then tie
        scores = {"preference": said}
        filled_store.save_rating(Rating(item_id=item, rater_id=judge, rubric_version_id=version, scores=scores,
                                        overall=rubric.overall_score(scores), verdict=rubric.verdict(scores)))
    async with pairwise_app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.press("a")
        await pairwise_app.workers.wait_for_complete()
        await pilot.pause()
        before = screen_text(pairwise_app)
        assert "human \\ judge" not in before
        assert "test-model" not in before
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("1", "enter", "2", "enter")  # the reviewer: A, then B
        await pilot.pause()
        if not isinstance(pairwise_app.screen, RatingScreen):  # all rated: the finish screen, closed to go on
            await pilot.press("escape")
            await pilot.pause()
        await pilot.press("a")
        await pairwise_app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(pairwise_app.screen, SummaryScreen)
        console = Console(width=120, record=True, file=io.StringIO())
        for widget in pairwise_app.screen.query(Static):
            console.print(widget.content)
        shown = console.export_text()
        assert "human \\ judge" in shown
        assert "AC1" in shown
        table = shown[shown.index("human \\ judge"):]
        rows = [line for line in table.splitlines() if line.strip("│ ").startswith(("A ", "B ", "tie "))]
        cells = [[cell.strip() for cell in row.strip("│").split("│")] for row in rows]
        assert cells == [["A", "1", "0", "0"], ["B", "0", "0", "1"], ["tie", "0", "0", "0"]]


async def test_a_real_mt_bench_pair_is_readable_whole_at_80_by_24(make_app, filled_store, rubrics):
    """The first pair of the MT-Bench subset (tests/data/mtbench): at 80x24 both responses are on the item pane
    whole, word for word, and PgDn pages through them."""
    import json
    from pathlib import Path

    first = json.loads((Path(__file__).parent.parent / "data" / "mtbench" / "items.jsonl").read_text()
                       .splitlines()[0])
    filled_store.ensure_rubric_version(rubrics["pairwise"])
    filled_store.add_items([Item(id=first["id"], rubric="pairwise",
                                 fields={k: first[k] for k in ("prompt", "response_a", "response_b")})])
    app = make_app("pairwise", auto_submit=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        pane = app.screen.query_one(ItemPane)
        shown = " ".join(pane.line(y).text for y in range(pane.virtual_size.height))
        flat = " ".join(shown.replace("│", " ").split())
        for key in ("response_a", "response_b"):
            assert " ".join(first[key].split()) in flat
        await pilot.press("pagedown", "pagedown", "pagedown", "pagedown", "pagedown", "pagedown")
        await pilot.pause()
        assert pane.scroll_y > 0
