"""Which judge is "the judge" of a rubric: the one rule the report, the jury, the validity page, the judge screen,
the app's summary and its status line follow (light: the rating session uses it too).

The judge is the newest kept judge version that has judged items of the rubric. A judge version is a prompt
version (`judge-tui history` lists them), newest by when it was recorded or last kept; a version reverted on the
judge screen, or under trial there now, is not kept, so it is never the judge nor "the previous version". Several
judge raters may have judged under one version (one per model or backend): of those, the one that rated most
items, then the one that rated most recently. Judge raters with no recorded prompt version (ratings imported with
`--kind judge`) are the judge only where no kept version has judged: the one that rated most items. The lead
names another with `--judge` (a judge rater id, a prompt version or its first four characters or more).
"""

from __future__ import annotations

from dataclasses import dataclass

from judge_tui.model.errors import UserError
from judge_tui.store import Store

NEWEST_KEPT = "the newest kept judge version"
MOST_ITEMS = "it rated most items; no judge version is recorded"
NAMED = "named with --judge"


@dataclass(frozen=True)
class JudgeRater:
    rater: str
    prompt_version: str | None  # None: the rater has no recorded judge version
    rated: int  # items of the rubric it rated
    last_id: int  # its newest rating's row id: how recently it rated


@dataclass(frozen=True)
class ChosenJudge:
    """The judge a report or screen compares, why it is the one, and the rubric's other judges."""

    rater: str
    prompt_version: str | None
    rated: int
    why: str  # NEWEST_KEPT, MOST_ITEMS or NAMED
    # The rubric's other judge raters: each with the items it rated and its version "kept", "reverted" or
    # "under trial" ("": no recorded version).
    others: tuple[tuple[str, int, str], ...] = ()

    def line(self) -> str:
        """What the report's first line and the screens' headings say, e.g. "The judge: judge:m:r@1a2b3c4d5e6f
        (the newest kept judge version)"."""
        return f"The judge: {self.rater} ({self.why})"

    def to_dict(self) -> dict[str, object]:
        return {"rater": self.rater, "prompt_version": self.prompt_version, "items": self.rated, "chosen": self.why,
                "other_judges": [{"rater": r, "items": n, "version": state or None} for r, n, state in self.others]}


def judge_raters(store: Store, rubric_id: str) -> list[JudgeRater]:
    """The rubric's judge raters, each with its recorded judge version (None if it has none) and coverage."""
    recorded = {p["prompt_version"] for p in store.prompt_versions(rubric_id)}
    found = []
    for r in store.rubric_raters(rubric_id):
        if r["kind"] != "judge":
            continue
        version = r["prompt_version"] or (r["id"].rpartition("@")[2] if "@" in r["id"] else None)
        rated = int(store.progress(r["id"], rubric_id, total=0)["rated"])
        found.append(JudgeRater(r["id"], version if version in recorded else None, rated, int(r["last_id"] or 0)))
    return found


def _by_coverage(judges: list[JudgeRater]) -> list[JudgeRater]:
    return sorted(judges, key=lambda j: (j.rated, j.last_id), reverse=True)


def kept_versions(store: Store, rubric_id: str) -> list[str]:
    """The rubric's kept judge versions, oldest first: recorded, neither reverted nor under trial, ordered by
    when each was recorded or last kept (a version kept again is as new as that keep)."""
    return _versions(store, rubric_id)[0]


def _versions(store: Store, rubric_id: str) -> tuple[list[str], set[str], str | None]:
    """The kept versions (kept_versions), the reverted ones and the one under trial."""
    when = {p["prompt_version"]: p["created_at"] for p in store.prompt_versions(rubric_id)}
    reverted: set[str] = set()
    for change in store.calibration_changes(rubric_id):  # oldest first: the last outcome of a version stands
        if change["outcome"] == "reverted":
            reverted.add(change["before_version"])  # a revert goes from the tried version back to the earlier
        elif change["outcome"] == "kept":
            reverted.discard(change["after_version"])
            if change["after_version"] in when:
                when[change["after_version"]] = max(when[change["after_version"]], change["created_at"])
    trial = store.prompt_version_under_trial(rubric_id)
    order = list(when)  # recorded order breaks ties of time
    kept = [v for v in order if v not in reverted and v != trial]
    return sorted(kept, key=lambda v: (when[v], order.index(v))), reverted, trial


def the_judge(store: Store, rubric_id: str, named: str | None = None) -> ChosenJudge | None:
    """The judge of the rubric (see the module's docstring); None when no judge has rated an item of it."""
    judges = [j for j in judge_raters(store, rubric_id) if j.rated]
    kept, reverted, trial = _versions(store, rubric_id)
    if named is not None:
        chosen, why = _named(judges, rubric_id, named), NAMED
    else:
        versioned = [j for j in judges if j.prompt_version in kept]
        if versioned:
            newest = max(kept.index(str(j.prompt_version)) for j in versioned)
            chosen = _by_coverage([j for j in versioned if j.prompt_version == kept[newest]])[0]
            why = NEWEST_KEPT
        elif judges:
            unversioned = [j for j in judges if j.prompt_version is None] or judges
            chosen, why = _by_coverage(unversioned)[0], MOST_ITEMS
        else:
            return None
    states = {**{v: "reverted" for v in reverted}, **({trial: "under trial"} if trial else {})}
    others = tuple((j.rater, j.rated, states.get(str(j.prompt_version), "kept" if j.prompt_version else ""))
                   for j in _by_coverage(judges)
                   if j.rater != chosen.rater)
    return ChosenJudge(chosen.rater, chosen.prompt_version, chosen.rated, why, others)


def default_judge(store: Store, rubric_id: str) -> str | None:
    """The judge rater of the rubric (the_judge), or None when no judge has rated an item of it."""
    chosen = the_judge(store, rubric_id)
    return chosen.rater if chosen is not None else None


def previous_judge(store: Store, rubric_id: str, prompt_version: str | None) -> str | None:
    """The judge rater of the kept judge version before ``prompt_version`` that has judged items (of the model
    that judged most under it); None when there is none. A version under trial is compared with the judge."""
    kept = kept_versions(store, rubric_id)
    if prompt_version in kept:
        earlier = kept[:kept.index(prompt_version)]
    elif prompt_version is not None and prompt_version == store.prompt_version_under_trial(rubric_id):
        earlier = kept
    else:
        return None
    judges = [j for j in judge_raters(store, rubric_id) if j.rated and j.prompt_version in earlier]
    if not judges:
        return None
    newest = max(earlier.index(str(j.prompt_version)) for j in judges)
    return _by_coverage([j for j in judges if j.prompt_version == earlier[newest]])[0].rater


def judge_of_each_model(store: Store, rubric_id: str) -> dict[str, str]:
    """Model -> its judge rater by the same rule (the model's newest kept version it judged under), for a jury
    of one rater per model."""
    judges = [j for j in judge_raters(store, rubric_id) if j.rated]
    kept = kept_versions(store, rubric_id)
    chosen: dict[str, JudgeRater] = {}
    for judge in judges:
        model = judge_model(judge.rater)
        best = chosen.get(model)
        if best is None or _rank(judge, kept) > _rank(best, kept):
            chosen[model] = judge
    return {model: judge.rater for model, judge in chosen.items()}


def _rank(judge: JudgeRater, kept: list[str]) -> tuple[int, int, int]:
    """Kept versions, newest first; then the rest (reverted, under trial, unrecorded); then coverage."""
    version = kept.index(judge.prompt_version) if judge.prompt_version in kept else -1
    return version, judge.rated, judge.last_id


def judge_model(rater_id: str) -> str:
    """A judge rater's model and rubric ("judge:m:rubric" of "judge:m:rubric@v1"): raters of one judge differ
    only by their prompt version."""
    return rater_id.rpartition("@")[0] or rater_id


def _named(judges: list[JudgeRater], rubric_id: str, name: str) -> JudgeRater:
    """The judge a --judge names: a judge rater id, a prompt version, or the start of one (four characters or
    more); of several raters under that version, the one that rated most items."""
    name = name.strip()
    for judge in judges:
        if judge.rater == name:
            return judge
    exact = [j for j in judges if j.prompt_version == name]
    matches = exact or ([j for j in judges if j.prompt_version and j.prompt_version.startswith(name)]
                        if len(name) >= 4 else [])
    if len({j.prompt_version for j in matches}) > 1:
        versions = ", ".join(sorted({str(j.prompt_version) for j in matches}))
        raise UserError(f"--judge {name!r} is the start of several judge versions ({versions}); write more of it")
    if matches:
        return _by_coverage(matches)[0]
    listing = ", ".join(j.rater for j in _by_coverage(judges)) or "none yet"
    raise UserError(f"--judge {name!r} is not a judge of rubric {rubric_id!r} (a judge rater id or judge version); "
                    f"its judges: {listing} (`judge-tui history --rubric {rubric_id}` lists the versions)")
