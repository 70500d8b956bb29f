"""`judge-tui status`: where the study stands, for the lead.

Per rubric and per expert: items rated, skipped and flagged, the time spent (total, median per item, and per
task type) and the last activity; per judge: its queue (queued, running, done, failed) and the cost so far.
A rubric with an assignment plan (`judge-tui assign`) adds the team's progress on it (study/team_progress.py),
and one with a judge's certificate in force (`assign --escalate`) how many items it leaves to the judge.
Time is the active time the rating screen recorded for each submitted rating (the newest first run of each
item); ratings imported without a time are counted as "time unknown" and left out of totals and medians.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import median
from typing import TYPE_CHECKING, Any

from judge_tui.formats.numbers import cost_text, decimal_text, duration_text, plural, share_text, short_text
from judge_tui.model.records import CONSENSUS_RATER
from judge_tui.model.settings import AgreementSettings
from judge_tui.model.textsafe import clean
from judge_tui.store import Store

if TYPE_CHECKING:
    from judge_tui.study.team_progress import TeamProgress

NO_TASK_TYPE = "(none)"
ID_COLUMNS = ("expert", "judge")  # ids a lead copies into --rater, --experts or --judge: never broken inside


@dataclass(frozen=True)
class TimeSpent:
    """Active time over the rated items whose time is known."""

    items: int
    total_seconds: float
    median_seconds: float | None  # None: no item with a known time

    @classmethod
    def of(cls, seconds: list[float]) -> TimeSpent:
        return cls(len(seconds), round(sum(seconds), 3), round(median(seconds), 3) if seconds else None)

    def to_json(self) -> dict[str, Any]:
        return {"items": self.items, "total_seconds": self.total_seconds, "median_seconds": self.median_seconds}


@dataclass(frozen=True)
class ExpertStatus:
    expert: str
    name: str | None
    rated: int
    skipped: int
    flagged: int
    time: TimeSpent
    time_unknown: int  # ratings without a recorded time (imported), left out of `time`
    time_by_task_type: dict[str, TimeSpent]
    last_activity: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "expert": self.expert, "name": self.name, "rated": self.rated, "skipped": self.skipped,
            "flagged": self.flagged, "time": {**self.time.to_json(), "unknown": self.time_unknown},
            "time_by_task_type": {task: t.to_json() for task, t in self.time_by_task_type.items()},
            "last_activity": self.last_activity,
        }


@dataclass(frozen=True)
class JudgeQueueStatus:
    """One judge rater's jobs on a rubric, by state, and what its calls cost."""

    judge: str
    queued: int
    running: int
    done: int
    failed: int
    calls: int
    cost_usd: float

    def to_json(self) -> dict[str, Any]:
        return {"judge": self.judge, "queued": self.queued, "running": self.running, "done": self.done,
                "failed": self.failed, "calls": self.calls, "cost_usd": self.cost_usd}


@dataclass(frozen=True)
class CertificateStatus:
    """The judge's certificate in force on a rubric and the items it leaves to the judge."""

    judge: str  # the judge rater, or "jury"
    members: tuple[str, ...]  # the jury's judges; () for one judge
    alpha: float
    delta: float
    lambda_: float | None  # None: no threshold passed, the judge decides no item
    judge_decides: int

    def to_json(self) -> dict[str, Any]:
        return {"judge": self.judge, "members": list(self.members), "alpha": self.alpha, "delta": self.delta,
                "lambda": self.lambda_, "judge_decides": self.judge_decides}


@dataclass(frozen=True)
class RubricStatus:
    rubric: str
    items: int
    experts: tuple[ExpertStatus, ...]
    adjudicated: int  # items the lead adjudicated
    judges: tuple[JudgeQueueStatus, ...]
    team: TeamProgress | None = None  # with an assignment plan: the team's progress on it
    certificate: CertificateStatus | None = None  # the judge's certificate in force, when one is

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rubric": self.rubric, "items": self.items,
                               "experts": [e.to_json() for e in self.experts], "adjudicated": self.adjudicated,
                               "judges": [j.to_json() for j in self.judges],
                               "judge_decides": self.certificate.judge_decides if self.certificate else 0,
                               "certificate": self.certificate.to_json() if self.certificate else None}
        if self.team is not None:
            out["team"] = team_progress_json(self.team)
        return out


@dataclass(frozen=True)
class StudyStatus:
    rubrics: tuple[RubricStatus, ...]

    def to_json(self) -> dict[str, Any]:
        """What `judge-tui status --format json` prints."""
        return {"rubrics": [r.to_json() for r in self.rubrics]}


def expert_status(store: Store, rubric: str, rater: dict[str, Any]) -> ExpertStatus:
    rated = store.current_ratings(rubric, rater["id"])
    known = [seconds for _item, _task, seconds in rated if seconds is not None]
    by_task: dict[str, list[float]] = {}
    for _item, task_type, seconds in rated:
        if seconds is not None:
            by_task.setdefault(task_type or NO_TASK_TYPE, []).append(seconds)
    return ExpertStatus(
        rater["id"], rater["display_name"], len(rated), store.skipped_count(rubric, rater["id"]),
        store.count_flagged(rater["id"], rubric), TimeSpent.of(known), len(rated) - len(known),
        {task: TimeSpent.of(values) for task, values in sorted(by_task.items())},
        store.last_activity(rubric, rater["id"]))


def study_status(store: Store, rubric: str | None = None, *,
                 settings: AgreementSettings | None = None) -> StudyStatus:
    """Every rubric in use (or one): its items, each expert's work and each judge's queue; with an assignment
    plan, the team's progress on it (`team`), against the target and at the confidence of ``settings``."""
    settings = settings or AgreementSettings()
    rubrics = [(r, n) for r, n in store.rubrics_in_use() if rubric is None or r == rubric]
    with store.snapshot():
        parts = []
        for rubric_id, items in sorted(rubrics):
            team = None
            if store.current_plan(rubric_id) is not None:
                from judge_tui.store.rubric_choice import resolve_rubric
                from judge_tui.study.team_progress import team_progress

                team = team_progress(store, resolve_rubric(rubric_id, store), settings)
            experts = tuple(expert_status(store, rubric_id, r) for r in store.active_experts(rubric_id)
                            if r["id"] != CONSENSUS_RATER)  # the lead's adjudications, not an expert
            judges = tuple(JudgeQueueStatus(judge, **queue)
                           for judge, queue in sorted(store.judge_queue_by_rater(rubric_id).items()))
            parts.append(RubricStatus(rubric_id, items, experts,
                                      len(store.current_ratings(rubric_id, CONSENSUS_RATER)), judges, team,
                                      certificate_status(store, rubric_id)))
        return StudyStatus(tuple(parts))


def certificate_status(store: Store, rubric: str) -> CertificateStatus | None:
    terms = store.certificate_in_force(rubric)
    if terms is None:
        return None
    return CertificateStatus(terms.judge, terms.members, terms.alpha, terms.delta, terms.lambda_,
                             len(store.judge_decided(rubric)))


# --------------------------------------------------------------------------- rendering


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    return duration_text(round(seconds))


def status_tables(status: StudyStatus) -> list[Any]:
    from rich.table import Table
    from rich.text import Text

    tables: list[Any] = []
    for part in status.rubrics:
        experts = Table(title=f"{part.rubric}: {part.items} items", title_justify="left")
        for column in ("expert", "rated", "skipped", "flagged", "time", "median/item", "time unknown",
                       "last activity"):
            experts.add_column(column, justify="left" if column in ("expert", "last activity") else "right",
                               overflow="fold", no_wrap=column in ID_COLUMNS)
        for e in part.experts:
            experts.add_row(Text(clean(e.expert)), str(e.rated), str(e.skipped), str(e.flagged),
                            duration(e.time.total_seconds), duration(e.time.median_seconds),
                            str(e.time_unknown), (e.last_activity or "—")[:19].replace("T", " "))
        if not part.experts:
            experts.add_row("(no expert has rated yet)", *[""] * 7)
        if part.adjudicated:
            experts.caption = f"and {plural(part.adjudicated, 'item')} adjudicated by the lead (judge-tui adjudicate)"
            experts.caption_justify = "left"
        tables.append(experts)
        by_task = Table(title="time per task type", title_justify="left")
        for column in ("expert", "task type", "items", "time", "median/item"):
            by_task.add_column(column, justify="left" if column in ("expert", "task type") else "right",
                               overflow="fold", no_wrap=column in ID_COLUMNS)
        for e in part.experts:
            for task, t in e.time_by_task_type.items():
                by_task.add_row(Text(clean(e.expert)), Text(clean(task)), str(t.items),
                                duration(t.total_seconds), duration(t.median_seconds))
        if by_task.row_count:
            tables.append(by_task)
        if part.judges:
            judges = Table(title="judge queue", title_justify="left")
            for column in ("judge", "queued", "running", "done", "failed", "calls", "cost so far"):
                judges.add_column(column, justify="left" if column == "judge" else "right", overflow="fold",
                                  no_wrap=column in ID_COLUMNS)
            for j in part.judges:
                judges.add_row(Text(clean(j.judge)), str(j.queued), str(j.running), str(j.done),
                               str(j.failed), str(j.calls), cost_text(j.cost_usd, j.calls))  # as `judge-tui judge` shows cost
            tables.append(judges)
        if part.team:
            tables.extend(team_tables(part.team))
        if part.certificate:
            tables.append(certificate_table(part.certificate))
    return tables


def certificate_table(c: CertificateStatus) -> Any:
    from rich.table import Table
    from rich.text import Text

    table = Table(title="the judge's certificate in force (judge-tui assign --escalate)", title_justify="left")
    for column in ("judge", "α", "δ", "λ", "judge decides"):
        table.add_column(column, justify="left" if column == "judge" else "right", overflow="fold",
                         no_wrap=column in ID_COLUMNS)
    judge = "jury " + "+".join(c.members) if c.members else c.judge
    table.add_row(Text(clean(judge)), short_text(c.alpha), short_text(c.delta),
                  "none passed" if c.lambda_ is None else short_text(c.lambda_), f"{c.judge_decides} items")
    return table


def team_progress_json(team: TeamProgress) -> dict[str, Any]:
    """The team's progress as `status --format json` writes it under "team"."""
    agreement = team.agreement
    return {
        "plan": team.plan, "number": team.number, "created_at": team.created_at, "seed": team.seed,
        "overlap": team.overlap, "overlap_raters": team.overlap_raters, "per_expert": team.per_expert,
        "experts": [{"expert": e.expert, "assigned": e.assigned, "rated": e.rated, "remaining": e.remaining,
                     "skipped": e.skipped, "flagged": e.flagged, "overlap_assigned": e.overlap_assigned,
                     "overlap_rated": e.overlap_rated, "seconds": e.seconds, "time_unknown": e.time_unknown}
                    for e in team.experts],
        "overlap_items": {"planned": team.overlap_items.planned,
                          "rated_by_two_or_more": team.overlap_items.rated_by_two_or_more,
                          "rated_by_all_assigned": team.overlap_items.rated_by_all_assigned},
        "agreement": {
            "measure": agreement.measure, "confidence": agreement.settings.confidence,
            "target": agreement.settings.team_alpha_target,
            "experts": list(agreement.experts),
            "dimensions": [{"dimension": d.dimension, "items": d.items, "alpha": d.alpha, "low": d.low,
                            "high": d.high, "method": d.method, "decision": d.decision,
                            "more_items": d.more_items, "why": d.why} for d in agreement.dimensions],
            "enough": agreement.enough, "verdict": agreement.verdict},
    }


def team_tables(team: TeamProgress) -> list[Any]:
    from rich.table import Table
    from rich.text import Text

    from judge_tui.stats.decisions import MIN_ITEMS_TO_DECIDE

    agreement = team.agreement
    who = "every expert" if team.overlap_raters == len(team.experts) else f"{team.overlap_raters} experts"
    progress = Table(title=f"assignment plan {team.number} ({team.created_at[:10]}, seed {team.seed}, "
                           f"{share_text(team.overlap)} overlap rated by {who})", title_justify="left")
    for column in ("expert", "assigned", "rated", "remaining", "skipped", "flagged", "overlap rated", "time"):
        progress.add_column(column, justify="left" if column == "expert" else "right", overflow="fold",
                            no_wrap=column in ID_COLUMNS)
    for e in team.experts:
        progress.add_row(Text(clean(e.expert)), str(e.assigned), str(e.rated), str(e.remaining),
                         str(e.skipped), str(e.flagged), f"{e.overlap_rated}/{e.overlap_assigned}",
                         duration(e.seconds) + (f" (+{e.time_unknown} unknown)" if e.time_unknown else ""))
    o = team.overlap_items
    figures = Table(title=f"overlap: {o.rated_by_two_or_more} of {o.planned} items rated by two or more "
                          f"experts ({o.rated_by_all_assigned} by all assigned); team agreement so far: "
                          f"{agreement.measure}, {share_text(agreement.settings.confidence)} interval, target "
                          f"{decimal_text(agreement.settings.team_alpha_target, 2)}", title_justify="left")
    target = decimal_text(agreement.settings.team_alpha_target, 2)
    for column in ("dimension", "items", "alpha", "interval", f"vs {target}", "more items"):
        figures.add_column(column, justify="left" if column == "dimension" or column.startswith("vs") else "right",
                           overflow="fold")
    for d in agreement.dimensions:
        if d.alpha is None or d.low is None or d.high is None:
            figures.add_row(Text(clean(d.dimension)), str(d.items), "—", "—", "undecided", Text(d.why))
            continue
        more = Text("—" if d.more_items is None else
                    f"at least {d.more_items}" if d.items < MIN_ITEMS_TO_DECIDE else f"about {d.more_items}")
        if d.decision == "undecided" and d.more_items is None:
            more = Text(d.why)
        figures.add_row(Text(clean(d.dimension)), str(d.items), decimal_text(d.alpha, 2),
                        f"[{decimal_text(d.low, 2)}, {decimal_text(d.high, 2)}]", d.decision, more)
    figures.caption = f"enough overlap? {agreement.verdict}"
    figures.caption_justify = "left"
    return [progress, figures]
