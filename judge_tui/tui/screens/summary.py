"""The agreement summary: how far the judge agrees with this reviewer, on the items they already submitted.

The blind rule (judge_tui.analysis.blind): every section, the team's and the judge's included, is computed over the
items the reviewer has submitted, so nothing here shows an opinion of an item they have still to rate. Only
the lead (lead=True) sees the team over every item. The figures are computed in a thread worker with its own
database connection; the worker only posts messages, and the handlers build the widgets.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from rich.console import Group as RichGroup
from rich.console import RenderableType
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import LoadingIndicator, Static
from textual.worker import Worker, WorkerState

from judge_tui.analysis.blind import visible_items
from judge_tui.analysis.judges import the_judge
from judge_tui.analysis.report import Group, Report, build_report
from judge_tui.analysis.report_render import as_text
from judge_tui.analysis.report_render import validity as validity_format
from judge_tui.analysis.scores import RubricRatings, load
from judge_tui.analysis.validity import ValidityPage, ratings_coming_in, validity_by_version
from judge_tui.formats.numbers import decimal_text
from judge_tui.formats.terminal import FittedTable
from judge_tui.model.errors import UserError
from judge_tui.model.rubrics import Rubric, RubricError
from judge_tui.model.settings import AgreementSettings
from judge_tui.model.textsafe import clean
from judge_tui.store import Store
from judge_tui.tui.refused_keys import key_shown
from judge_tui.tui.screen_keys import SUMMARY_BINDINGS
from judge_tui.tui.screens.unavailable import judge_missing, not_yet_submitted, unjudged_submissions
from judge_tui.tui.widgets.key_bar import KeyBar

BREAKDOWNS = ("task_type", "cefr_level", "split")
PLOT_BINS = 11  # 0.0, 0.1, ... 1.0
PLOT_CELL = 4


def scatter_plot(human: np.ndarray, judge: np.ndarray, bins: int = PLOT_BINS) -> Text:
    """Human (across) against judge (up) overall scores as a grid of counts; the diagonal is agreement."""
    text = Text()
    text.append(f"Overall scores, you (across) against the judge (up): {human.size} items\n", style="bold")
    if human.size == 0:
        return text
    column = np.clip(np.rint(human * (bins - 1)), 0, bins - 1).astype(int)
    row = np.clip(np.rint(judge * (bins - 1)), 0, bins - 1).astype(int)
    grid = np.zeros((bins, bins), dtype=int)
    np.add.at(grid, (row, column), 1)
    for r in range(bins - 1, -1, -1):
        label = decimal_text(r / (bins - 1), 1) if r % 2 == 0 else ""
        text.append(f"{label:>4} │", style="dim")
        for c in range(bins):
            count = int(grid[r, c])
            shown = "·" if count == 0 else (str(count) if count < 1000 else "1k+")
            style = "bold green" if r == c and count else ("yellow" if abs(r - c) == 1 and count else "")
            text.append(f"{shown:>{PLOT_CELL}}", style=style or ("dim" if count == 0 else ""))
        text.append("\n")
    text.append("     └" + "─" * (bins * PLOT_CELL) + "\n", style="dim")
    text.append("      ")
    for c in range(bins):
        label = decimal_text(c / (bins - 1), 1) if c % 2 == 0 else ""
        text.append(f"{label:>{PLOT_CELL}}", style="dim")
    text.append("\n")
    return text


def team_lines(store: Store, rubric: Rubric, reviewer: str, judge: str, settings: AgreementSettings, *,
               lead: bool = False, ratings: RubricRatings | None = None) -> list[str]:
    """The team section and this reviewer's self-agreement, as text lines (empty when there is neither), with
    the same alignment tolerance as the rest of the summary, over the items the blind rule lets them see.
    ``ratings``: the rubric's ratings (scores.load), read once for the whole summary.
    """
    from judge_tui.analysis.drift import drift_figures
    from judge_tui.analysis.report_render.blocks import lines_of
    from judge_tui.analysis.report_render.team import drift_blocks, team_blocks
    from judge_tui.analysis.team import team_figures

    visible = visible_items(store, rubric.id, reviewer, lead=lead)
    team = (team_figures(store, rubric, judge=judge, only_items=visible, settings=settings, ratings=ratings)
            if visible is None or visible else None)
    drift = drift_figures(store, rubric, rater=reviewer, settings=settings, ratings=ratings)
    lines: list[str] = []
    if team is not None:
        lines += lines_of(team_blocks(team), "text")
    if drift:
        lines += lines_of(drift_blocks(drift, rubric.scale, settings), "text")
    return lines


class SummaryScreen(Screen[None]):
    """Per-dimension agreement, the verdict, breakdowns, self-agreement and a plot: this reviewer vs the judge."""

    DEFAULT_CSS = """
    SummaryScreen #summary-title { height: auto; max-height: 3; padding: 0 1; background: $panel; }
    SummaryScreen #summary-body { padding: 0 1; }
    SummaryScreen #summary-body > Static { margin-bottom: 1; }
    SummaryScreen LoadingIndicator { height: 3; }
    """

    BINDINGS = [*SUMMARY_BINDINGS]  # screen_keys.py: their ids, for settings.keymap

    class Ready(Message):
        def __init__(self, report: Report, team: list[str] | None = None, validity: ValidityPage | None = None) -> None:
            super().__init__()
            self.report = report
            self.team = team or []  # lines of the team and self-agreement sections
            self.validity = validity  # the lead's view only: what the judge may be used for, every expert

    class JudgeNamed(Message):
        """Which judge the figures compare with (judges.the_judge), for the heading."""

        def __init__(self, line: str) -> None:
            super().__init__()
            self.line = line

    class Unavailable(Message):
        def __init__(self, reason: str, team: list[str] | None = None, validity: ValidityPage | None = None) -> None:
            super().__init__()
            self.reason = reason
            self.team = team or []
            self.validity = validity

    def __init__(self, store: Store, rubric: Rubric, reviewer_id: str, *, agreement: AgreementSettings,
                 lead: bool = False, keymap: Mapping[str, str] | None = None) -> None:
        """`keymap`: the user's, as the app applied it, so the keys are named as they are pressed."""
        super().__init__()
        self.keymap = dict(keymap or {})
        self.store = store
        self.rubric = rubric
        self.reviewer_id = reviewer_id
        self.agreement = agreement  # the app's settings, read once at start like every other screen's
        self.lead = lead  # the lead's view: the team over every item (judge_tui.analysis.blind)
        self.report: Report | None = None

    def compose(self) -> ComposeResult:
        yield Static(self._title(), id="summary-title")
        with VerticalScroll(id="summary-body"):
            yield LoadingIndicator()
        yield KeyBar()

    def _title(self, judge: str = "") -> Text:
        role = "lead " if self.lead else ""
        title = Text(f"Agreement · {clean(self.rubric.id)} · {role}{clean(self.reviewer_id)} against the judge",
                     style="bold")
        if judge:
            title.append("\n" + clean(judge))
        return title

    def on_summary_screen_judge_named(self, message: JudgeNamed) -> None:
        self.query_one("#summary-title", Static).update(self._title(message.line))

    def on_mount(self) -> None:
        self.query_one("#summary-body").focus()
        self.compute()

    @work(thread=True, exclusive=True, exit_on_error=False, group="summary")
    def compute(self) -> None:
        team: list[str] = []
        validity: ValidityPage | None = None
        rubric, settings = self.rubric, self.agreement
        try:
            # One snapshot: every figure describes the same moment, so ratings or items another program writes
            # meanwhile never show in some figures and not in others.
            with Store(self.store.path) as store, store.snapshot():
                submitted = store.rated_item_ids(self.reviewer_id, rubric.id)
                if not submitted and not self.lead:
                    self.post_message(self.Unavailable(not_yet_submitted(rubric)))
                    return
                chosen = the_judge(store, rubric.id)
                if chosen is None:
                    self.post_message(self.Unavailable(judge_missing(
                        rubric, team_share=store.assignment_of(self.reviewer_id, rubric.id) is not None)))
                    return
                judge = chosen.rater
                self.post_message(self.JudgeNamed(chosen.line()))
                ratings = load(store, rubric)  # one read of the ratings for every section below
                validity = self._validity(store, judge, ratings) if self.lead else None
                team = team_lines(store, rubric, self.reviewer_id, judge, settings, lead=self.lead,
                                  ratings=ratings)
                if not submitted:
                    self.post_message(self.Unavailable(
                        f"You have rated no {rubric.id} item, so there is no comparison of yours with the judge.",
                        team, validity))
                    return
                report = build_report(
                    store, rubric, human=Group("human", (self.reviewer_id,)), judge=Group("judge", (judge,)),
                    by=BREAKDOWNS, settings=settings, skip_missing_fields=True, judge_only=False, ratings=ratings,
                )
        except (UserError, RubricError) as exc:
            message = str(exc)
            if "was rated by both" in message:
                message = unjudged_submissions(rubric)
            self.post_message(self.Unavailable(message, team, validity))
            return
        self.post_message(self.Ready(report, team, validity))

    def _validity(self, store: Store, judge: str, ratings: RubricRatings) -> ValidityPage | None:
        """Every expert against the judge, a block per rubric version, without the pool estimate (it uses items no
        expert rated); decided at any time while items are left to compare."""
        try:
            every = build_report(store, self.rubric, judge=Group("judge", (judge,)), settings=self.agreement,
                                 judge_only=False, ratings=ratings)
        except UserError:
            return None
        return validity_by_version(store, every, ratings, self.agreement, judge_only=False,
                                   live=ratings_coming_in(store, every))

    def on_summary_screen_ready(self, message: Ready) -> None:
        self.report = message.report
        sections = self._sections(message.report)
        if message.validity is not None:
            sections.insert(0, self._page(message.validity))
        if message.team:
            sections.insert(-1, Text(clean("\n".join(message.team))))
        self._show(sections)

    def on_summary_screen_unavailable(self, message: Unavailable) -> None:
        self.report = None
        page = [] if message.validity is None else [self._page(message.validity)]
        self._show([*page, Text(clean(message.reason)),
                    *([Text(clean("\n".join(message.team)))] if message.team else [])])

    @staticmethod
    def _page(validity: ValidityPage) -> Text:
        # The body's padding and scroll bar leave 76 of an 80-column terminal's columns.
        return Text(clean(validity_format.render_text(validity, validity_format.WIDTH - 4).rstrip("\n")))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "summary" and event.state == WorkerState.ERROR:
            self._show([Text(f"Could not compute the agreement: {clean(str(event.worker.error))}", style="red")])

    def _show(self, renderables: list[RenderableType]) -> None:
        body = self.query_one("#summary-body", VerticalScroll)
        body.remove_children()
        body.mount_all(Static(r) for r in renderables)

    def _sections(self, report: Report) -> list[RenderableType]:
        c = report.counts
        intro = Text()
        intro.append(f"{clean(report.rubric.name)}: ", style="bold")
        intro.append(f"you ({clean(self.reviewer_id)}) against {clean(report.judge.rater_ids[0])} on the "
                     f"{c['compared']} items you submitted that the judge also rated (you rated "
                     f"{c['rated_by_human']} of {c['items']}).")
        sections: list[RenderableType] = [intro, as_text.verdict(report)]
        plan = as_text.plan_text(report)
        if plan is not None:
            sections.append(plan)
        sections.append(RichGroup(as_text.summary_table(report),
                                  as_text.dimension_table(report, compact=True)))
        sections += as_text.interval_bars(report)
        if report.rubric.scale.categories:  # named categories: where the two of you part, and AC1
            chance = as_text.chance_table(report)
            sections += [*([chance] if chance is not None else []), *as_text.confusion_tables(report)]
        notes = as_text.undefined_notes(report)
        if notes is not None:
            sections.append(notes)
        sections += [FittedTable(table) for table in as_text.breakdown_tables(report)]
        sections += as_text.self_agreement_tables(report)
        sections.append(scatter_plot(report.human_overall, report.judge_overall))
        key = key_shown("open-disagreements", self.keymap, self.app.get_key_display)
        sections.append(Text(f"{key}: the items where you and the judge disagree most", style="dim"))
        return sections

    def action_refresh(self) -> None:
        self._show([])
        self.query_one("#summary-body").mount(LoadingIndicator())
        self.compute()

    def action_disagreements(self) -> None:
        from judge_tui.tui.screens.disagreements import DisagreementScreen

        self.app.push_screen(DisagreementScreen(self.store, self.rubric, self.reviewer_id, agreement=self.agreement,
                                                keymap=self.keymap, lead=self.lead))

    def action_close(self) -> None:
        self.dismiss()
