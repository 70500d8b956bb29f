"""Another judge-tui window: the real app, headless, in its own process, rating as one reviewer until killed.

    python -m tests.faults.rating_window DATABASE RUBRIC REVIEWER

Prints "rating" once the first item is on screen, "closed" when the app ends (on "q" from standard input).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from judge_tui.model.rubrics import load_rubrics
from judge_tui.model.settings import Settings
from judge_tui.store import Store
from judge_tui.tui import app as app_module
from judge_tui.tui.app import JudgeTuiApp


class Window(JudgeTuiApp):
    CSS_PATH = str(Path(app_module.__file__).with_name("app.tcss"))  # the app's own, not one beside this file

    def first_item_painted(self) -> None:
        super().first_item_painted()
        print("rating", flush=True)
        asyncio.get_running_loop().add_reader(sys.stdin.fileno(), self._read)

    def _read(self) -> None:
        if sys.stdin.readline().strip() == "q":
            self.exit()


def main() -> None:
    database, rubric_id, reviewer = sys.argv[1:4]
    rubric = load_rubrics()[rubric_id][0]
    with Store(Path(database)) as store:
        app = Window(store, rubric, reviewer=reviewer, settings=Settings(judge_in_background=False))
        app.run(headless=True, size=(80, 24))
        print(f"closed {app.return_code}", flush=True)


if __name__ == "__main__":
    main()
