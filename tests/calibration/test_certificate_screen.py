"""The judge screen shows the judge's certificate and how many items it escalates, and the lead changes α and δ
there with the keyboard; a level out of range is refused, the levels kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_tui.model.records import Item
from judge_tui.model.settings import Settings
from judge_tui.store import CertificateTerms, Store
from judge_tui.store.rubric_choice import resolve_rubric
from judge_tui.tui.screens.calibrate import CalibrationApp, CalibrationScreen
from tests.calibration.fixtures import build_study, has_honey, judge_dev
from tests.team_fixtures import rate
from tests.tui.screen_text import screen_text, widget_text
from tests.waiting import app_until


def study(path: Path, rubric) -> None:
    """The calibration study, its judge run three times on dev: the runs agree where its first is right and split
    where it is wrong (6 of 12 kept at λ 1, none disagreeing). Six train items no expert rated, judged three times:
    four runs agree, two split."""
    build_study(path, rubric)
    judge_dev(path)
    with Store(path) as store:
        rubric = resolve_rubric("binary", store)
        [judge] = [r["id"] for r in store.rubric_raters("binary") if r["kind"] == "judge"]
        fresh = [Item(id=f"Q{n:02d}", rubric="binary", split="train",
                      fields={"query": f"q{n}", "criterion": "the breakfast is vegan", "response": f"r{n}"})
                 for n in range(6)]
        store.add_items(fresh)
        first = {r.item_id: r.scores["label"] for r in store.iter_ratings(current=True) if r.rater_id == judge}
        rate(store, rubric, judge, "judge", {f.id: {"label": 1.0} for f in fresh})
        for repeat in (1, 2):
            said = {i: {"label": v if repeat == 1 or v == (0.0 if has_honey(int(i[1:])) else 1.0) else 1.0 - v}
                    for i, v in first.items()}
            said |= {f.id: {"label": 1.0 if repeat == 1 or n < 4 else 0.0} for n, f in enumerate(fresh)}
            rate(store, rubric, judge, "judge", said, repeat=repeat)


@pytest.mark.slow  # the first judge is the judge command with a local program
async def test_the_lead_sets_alpha_and_delta_on_the_judge_screen(tmp_path: Path, rubrics) -> None:
    path = tmp_path / "study.db"
    study(path, rubrics["binary"])
    with Store(path) as store:
        rubric = resolve_rubric("binary", store)
        app = CalibrationApp(store, rubric, "lead", settings=Settings(), make_backend=None)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = app.screen
            assert isinstance(screen, CalibrationScreen)
            await app_until(pilot, lambda: "Trust or escalate" in widget_text(app), "the certificate")
            shown = " ".join(widget_text(app).split())
            assert "Trust or escalate · α 0.1, δ 0.1" in shown
            assert "no threshold is certified at these levels: the judge may decide no item; its 12 dev items the " \
                   "experts rated are too few for any bound to reach α (it takes 22 kept items" in shown
            assert "the judge decides 0, escalate 6 to the experts" in shown
            assert "In force: no certificate" in shown
            assert "a α δ" in screen_text(app)  # the key bar names the key at 80 columns
            await pilot.press("a", *"0.3", "enter", *"0.3", "enter")
            await app_until(pilot, lambda: "α 0.3, δ 0.3" in widget_text(app), "the certificate at the new levels")
            await app_until(pilot, lambda: "λ 1" in widget_text(app), "a threshold certified")
            shown = " ".join(widget_text(app).split())
            assert "λ 1: the judge keeps 50% of the 12 dev items the experts rated (6; 0 disagreeing, bound " \
                   "0.182 ≤ α)" in shown
            assert "6 items no expert has rated (outside dev and test): the judge decides 4, escalate 2 to the " \
                   "experts" in shown
            assert "--escalate --alpha 0.3 --delta 0.3`" in shown
            await pilot.press("a", *"1.5", "enter", "enter")
            await app_until(pilot, lambda: any("α 1.5: give a share strictly between 0 and 1" in n
                                               for n in app.notices), "the refusal")
            assert screen.levels == (0.3, 0.3)
            await pilot.press("q")
    with Store(path) as store:
        assert store.certificate_in_force("binary") is None  # the screen records nothing
        old = CertificateTerms(rubric="binary", judge="judge:old-model:binary@p0", members=(), jury_rule="",
                               confidence="repeats", split="dev", alpha=0.2, delta=0.25, lambda_=1.0, tolerance=0.15,
                               n=12, kept=6, disagreements=0, bound=0.2, unrated=6, created_at="2026-01-02T03:04:05Z")
        store.record_certificate("binary", old, ["Q00", "Q01"])
        app = CalibrationApp(store, resolve_rubric("binary", store), "lead", settings=Settings(), make_backend=None)
        async with app.run_test(size=(120, 40)) as pilot:
            await app_until(pilot, lambda: "In force: λ 1" in widget_text(app), "the certificate in force")
            shown = " ".join(widget_text(app).split())
            assert "Trust or escalate · α 0.2, δ 0.25" in shown  # the levels in force to begin with
            assert "In force: λ 1 at α 0.2, δ 0.25, since 2026-01-02 03:04 UTC: the judge decides 2 items" in shown
            assert "It certifies judge:old-model:binary@p0, not the judge in force: a new judge needs a new " \
                   "certificate" in shown
            assert "--escalate --alpha 0.2 --delta 0.25`" in shown
            await pilot.press("q")


@pytest.mark.slow  # the first judge is the judge command with a local program
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_wrapped_certificate_line_is_indented_under_its_text(tmp_path: Path, rubrics, size) -> None:
    """Each certificate line starts two columns in; a line too long for the pane goes on two columns further in,
    so it reads as one (as `judge-tui certify` prints it on a terminal), never back at the pane's edge."""
    from textual.geometry import Region
    from textual.widgets import Static

    path = tmp_path / "study.db"
    study(path, rubrics["binary"])
    with Store(path) as store:
        app = CalibrationApp(store, resolve_rubric("binary", store), "lead", settings=Settings(), make_backend=None)
        async with app.run_test(size=size) as pilot:
            await app_until(pilot, lambda: "Trust or escalate" in widget_text(app), "the certificate")
            pane = app.screen.query_one("#cal-certificate", Static)
            # Read once the pane has settled (its text shown and laid out at its width: three equal looks in a
            # row, since on a loaded machine the text can show before the pane has its final size).
            looks: list[tuple[int, list[str]]] = []
            for _ in range(40):
                await pilot.pause()
                looks.append((pane.size.width,
                               [strip.text.rstrip() for strip in pane.render_lines(Region(0, 0, *pane.size))]))
                if len(looks) >= 3 and looks[-1] == looks[-2] == looks[-3]:
                    break
            width, drawn = looks[-1]
            await pilot.press("q")
    title, *rest = [line for line in drawn if line]
    assert title == "Trust or escalate · α 0.1, δ 0.1"
    assert max(len(line) for line in drawn) <= width
    lines: list[str] = []
    for line in rest:
        if line.startswith("    "):  # the rest of the line above
            lines[-1] += " " + line.strip()
        else:
            assert line.startswith("  "), line
            assert not line.startswith("   "), line
            lines.append(line.strip())
    assert len(lines) < len(rest)  # something wrapped, at either size
    assert lines == [
        "no threshold is certified at these levels: the judge may decide no item; its 12 dev items the experts "
        "rated are too few for any bound to reach α (it takes 22 kept items without a disagreement)",
        "6 items no expert has rated (outside dev and test): the judge decides 0, escalate 6 to the experts",
        "In force: no certificate; every item is the experts' to rate",
        "To put these levels in force: `judge-tui assign --rubric binary --experts … --escalate --alpha 0.1 "
        "--delta 0.1`"]
