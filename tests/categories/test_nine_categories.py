"""A rubric of nine categories on the rating screen: every key 1 to 9 chooses its category, help and the key
bar list all nine (help in two pages at 80×24), and keys 5 to 9 are remapped in settings.json like any other."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from judge_tui.cli import main
from judge_tui.model.plain_data import from_data
from judge_tui.model.records import Item
from judge_tui.model.rubrics import Rubric, Scale
from judge_tui.model.settings import Settings
from judge_tui.store import Store
from judge_tui.tui.app import JudgeTuiApp
from judge_tui.tui.keys import keymap_problems
from judge_tui.tui.widgets.key_bar import KeyBar
from tests.tui.conftest import FakeClock
from tests.tui.screen_text import screen_text

TOPICS = ["maths", "physics", "chemistry", "biology", "history", "geography", "music", "art", "sport"]
SMALL, LARGE = (80, 24), (120, 40)


def topic_rubric() -> Rubric:
    return from_data(Rubric, {
        "id": "topic", "name": "Topic", "version": "1", "description": "Which topic a question is about.",
        "overall": "label", "scale": {"kind": "categories", "order": "nominal", "categories": TOPICS},
        "fields": [{"name": "question", "label": "Question"}],
        "dimensions": [{"id": "topic", "name": "Topic", "measures": "The question's topic."}],
    })


@pytest.fixture
def topic_store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "topic.db") as store:
        store.ensure_rubric_version(topic_rubric())
        store.add_items([Item(id=f"q{n}", rubric="topic", fields={"question": f"Question {n}?"}) for n in range(1, 12)])
        yield store


def app(store: Store, **settings: object) -> JudgeTuiApp:
    return JudgeTuiApp(store, topic_rubric(), reviewer="ann", clock=FakeClock(),
                       settings=Settings(**{"judge_in_background": False, **settings}))  # type: ignore[arg-type]


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
async def test_keys_one_to_nine_choose_the_nine_categories_and_the_key_bar_shows_them(topic_store, size):
    rating = app(topic_store)
    async with rating.run_test(size=size) as pilot:
        await pilot.pause()
        assert "123456789 score" in str(rating.screen.query_one(KeyBar).render())
        for n in range(1, 10):
            await pilot.press(str(n))  # one dimension: the key decides and opens the next item
        await pilot.pause()
    chosen = {f"q{n}": topic_store.rating(f"q{n}", "ann").verdict for n in range(1, 10)}
    assert chosen == {f"q{n}": TOPICS[n - 1] for n in range(1, 10)}


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
async def test_help_lists_the_nine_category_keys_and_fits_in_two_pages_at_80x24(topic_store, size):
    rating = app(topic_store)
    async with rating.run_test(size=size) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        scroll = rating.screen.query_one("#help")
        assert scroll.virtual_size.height <= 2 * scroll.scrollable_content_region.height, scroll.virtual_size
        shown = ""
        for _ in range(2):
            shown += screen_text(rating)
            await pilot.press("pagedown")
            await pilot.pause()
    assert "1 2 3 4 5 6 7 8 9" in shown
    assert "score-1 … score-9" in shown
    assert "score-0" not in shown  # 0 names no category
    flat = " ".join(shown.split())
    assert "1 maths · 2 physics" in flat
    assert "9 sport" in flat


async def test_keys_five_to_nine_are_remapped_in_the_keymap_and_help_follows(topic_store):
    keymap = {"score-7": "7,m", "score-9": "x"}
    assert keymap_problems(keymap, topic_rubric().scale) == []
    rating = app(topic_store, keymap=keymap)
    async with rating.run_test(size=SMALL) as pilot:
        await pilot.press("m", "9", "x")  # 9 is no longer category 9's key: it does nothing
        await pilot.pause()
        assert topic_store.rating("q1", "ann").verdict == "music"
        assert topic_store.rating("q2", "ann").verdict == "sport"
        await pilot.press("question_mark")
        await pilot.pause()
        assert "1 2 3 4 5 6 7, m 8 x" in screen_text(rating)


def test_the_keymap_names_unknown_ids_and_clashes_with_category_keys_only_where_they_act():
    assert keymap_problems({"score-10": "x"}) == ["unknown binding id 'score-10'"]
    nine, three = topic_rubric().scale, Scale(kind="categories", order="nominal", categories=["A", "B", "tie"])
    assert keymap_problems({"flag": "7"}, nine) == ["key '7' is given to both 'flag' and 'score-7'"]
    assert keymap_problems({"flag": "7"}, three) == []  # no seventh category: 7 is free
    assert keymap_problems({"flag": "7"}, Scale(kind="quarter")) == []
    assert keymap_problems({"score-6": "ctrl+i"}) == [
        "'score-6': 'ctrl+i' reaches the app as 'tab' in a terminal: bind 'tab' instead"]


def test_a_keymap_clash_with_a_category_key_is_reported_when_that_rubric_opens(hermetic_home, tmp_path, capsys):
    (hermetic_home / "settings.json").write_text(json.dumps({"keymap": {"flag": "8", "score-5": "y"}}))
    rubrics = hermetic_home / "rubrics"
    rubrics.mkdir()
    (rubrics / "topic.rubric.toml").write_text(
        'id = "topic"\nname = "Topic"\nversion = "1"\ndescription = "Topics."\noverall = "label"\n'
        f'[scale]\nkind = "categories"\norder = "nominal"\ncategories = {json.dumps(TOPICS)}\n'
        '[[fields]]\nname = "question"\nlabel = "Question"\n'
        '[[dimensions]]\nid = "topic"\nname = "Topic"\nmeasures = "The topic."\n', encoding="utf-8")
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps({"id": "q1", "question": "Why?"}) + "\n")
    db = str(tmp_path / "x.db")
    assert main(["import", str(items), "--rubric", "topic", "--db", db]) == 0
    assert main(["rate", "--db", db, "--rubric", "topic", "--reviewer", "ann"]) == 1
    err = capsys.readouterr().err
    assert "keymap: key '8' is given to both 'flag' and 'score-8'" in err
    assert "Traceback" not in err
    assert "score-9" in err  # the ids a keymap may name
