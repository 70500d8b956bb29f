"""The blind rule and the judge's certificate: an expert rating an item the certificate leaves to the judge sees
nothing of the certificate, of the judge's decision or of its verdict, on any screen the rating screen opens."""

from __future__ import annotations

import pytest

from judge_tui.model.settings import Settings
from judge_tui.store import CertificateTerms, Store
from judge_tui.tui.app import JudgeTuiApp
from tests.tui.conftest import FakeClock
from tests.tui.screen_text import screen_text, widget_text
from tests.tui.test_blind_rule import REVIEWER, RUBRIC, plant, secret

TELLTALES = ("certificate", "λ", "0.777", "decided by the judge", "judge decides", "escalat", "left to the judge",
             "judge:secret-model")


def frame(app: JudgeTuiApp) -> str:
    return "\n".join([screen_text(app), widget_text(app), *app.notices])


@pytest.mark.slow  # a Pilot session through four screens
async def test_an_expert_sees_nothing_of_the_judges_decision_on_an_item_left_to_it(filled_store: Store, rubrics):
    rubric = rubrics[RUBRIC]
    item_ids = plant(filled_store, rubric)
    terms = CertificateTerms(rubric=RUBRIC, judge="judge:secret-model", members=(), jury_rule="",
                             confidence="repeats", split="dev", alpha=0.1, delta=0.1, lambda_=0.777, tolerance=0.15,
                             n=60, kept=40, disagreements=1, bound=0.094, unrated=len(item_ids))
    filled_store.record_certificate(RUBRIC, terms, item_ids)  # every item left to the judge
    app = JudgeTuiApp(filled_store, rubric, reviewer=REVIEWER, clock=FakeClock(),
                      settings=Settings(judge_in_background=False, reveal_after_submit=True))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        shown = [frame(app)]
        for keys in (("?",), ("escape",), ("a",), ("escape",), ("J",), ("c",), ("enter",), ("right",)):
            await pilot.press(*keys)
            await app.workers.wait_for_complete()
            await pilot.pause()
            shown.append(frame(app))
    seen = "\n".join(shown)
    assert "Keys of the rating screen" in shown[1]  # the help screen was drawn
    assert "Agreement · cis · " in shown[3]  # and the agreement summary
    for telltale in TELLTALES:
        assert telltale not in seen, f"the expert's screens showed {telltale!r}:\n{seen}"
    for item_id in item_ids:
        assert secret("judge:secret-model", item_id) not in seen
