"""The report sections about several experts: team agreement, self-agreement (drift) and version comparison.

Each section is first a plain dict (what `report --format json` prints), then rendered as text or markdown
from that dict, so the three formats always show the same figures.
"""

from __future__ import annotations

import json
from typing import Any

from judge_tui.analysis.compare import compare_versions
from judge_tui.analysis.drift import self_agreement
from judge_tui.analysis.team import CONSENSUS_RATER, TOLERANCE, is_expert, load_team, team_agreement
from judge_tui.model.rubrics import Rubric
from judge_tui.model.textsafe import clean
from judge_tui.stats import agreement as ag
from judge_tui.store import Store


def figure(value: ag.Figure) -> float | dict[str, str]:
    if isinstance(value, ag.Undefined):
        return {"undefined": value.reason}
    return round(float(value), 4)


def _pair(p: ag.PairAgreement) -> dict[str, Any]:
    return {"n": p.n, "alignment": figure(p.alignment_rate), "kappa": figure(p.cohen_kappa),
            "pearson_r": figure(p.pearson_r)}


# --------------------------------------------------------------------------- building the sections


def team_section(store: Store, rubric: Rubric, split: str | None = None, judge: str | None = None,
                 only_items: set[str] | None = None, tolerance: float = TOLERANCE) -> dict[str, Any] | None:
    """The team figures, or None when fewer than two experts rated this rubric."""
    # Asked first because it is cheap: most reports have one expert, and load_team reads every rating.
    if sum(is_expert(r["id"], r["kind"]) for r in store.rubric_raters(rubric.id)) < 2:
        return None
    view = load_team(store, rubric, split=split, judge=judge, only_items=only_items)
    if len(view.experts) < 2:
        return None
    result = team_agreement(view, tolerance)
    dims = []
    for d in result.dimensions:
        dims.append({
            "dimension": d.dimension,
            "alpha": figure(d.alpha),
            "alpha_level": d.alpha_level,
            "kappa_matrix": [[figure(k) for k in row] for row in d.kappa],
            "experts_vs_judge": {e: _pair(p) for e, p in d.experts_vs_judge.items()},
            "consensus_vs_judge": {**_pair(d.consensus_vs_judge), "items": d.consensus_items,
                                   "adjudicated": d.adjudicated_items, "ties": d.ties},
        })
    return {"experts": list(result.experts), "judge": result.judge, "items": result.items, "split": split,
            "tolerance": result.tolerance, "dimensions": dims, "pooled_alignment": {k: figure(v) for k, v in result.pooled_vs_judge.items()}}


def drift_section(store: Store, rubric: Rubric, split: str | None = None,
                  rater: str | None = None, tolerance: float = TOLERANCE) -> list[dict[str, Any]]:
    """Each expert's (or one expert's) self-agreement over the items they rated twice (empty when none did)."""
    if not store.has_human_rerating(rubric.id):
        return []
    return [{"rater": s.rater_id, "pairs": s.pairs, "tolerance": tolerance, "alignment": figure(s.alignment),
             "by_dimension": {d: {"alignment": figure(p.alignment_rate), "kappa": figure(p.cohen_kappa)}
                              for d, p in s.by_dimension.items()}}
            for s in self_agreement(store, rubric, split, tolerance) if rater is None or s.rater_id == rater]


def compare_section(store: Store, rubric: Rubric, v1: str, v2: str, split: str | None = None,
                    tolerance: float = TOLERANCE) -> dict[str, Any]:
    c = compare_versions(store, rubric, v1, v2, split, tolerance)

    def delta(pair: tuple[ag.Figure, ag.Figure]) -> float | dict[str, str]:
        a, b = pair
        if ag.is_defined(a) and ag.is_defined(b):
            return round(b - a, 4)
        return {"undefined": "one of the two figures is not defined"}

    return {
        "rubric": c.rubric, "split": c.split or "all items (no splits assigned)",
        "v1": {"name": c.v1.name, "judge": c.v1.rater_id}, "v2": {"name": c.v2.name, "judge": c.v2.rater_id},
        "reference": f"consensus of {len(c.experts)} expert(s): {', '.join(c.experts)}", "items": c.items,
        "tolerance": c.tolerance,
        "alignment": {"v1": figure(c.alignment[0]), "v2": figure(c.alignment[1]), "change": delta(c.alignment)},
        "dimensions": [{"dimension": s.dimension, "n": s.n,
                        "alignment": {"v1": figure(s.alignment[0]), "v2": figure(s.alignment[1]),
                                      "change": delta(s.alignment)},
                        "kappa": {"v1": figure(s.kappa[0]), "v2": figure(s.kappa[1]), "change": delta(s.kappa)},
                        "pearson_r": {"v1": figure(s.pearson[0]), "v2": figure(s.pearson[1]),
                                      "change": delta(s.pearson)}}
                       for s in c.dimensions],
    }


# --------------------------------------------------------------------------- rendering


def _num(value: Any, percent: bool = False, signed: bool = False) -> str:
    if isinstance(value, dict):
        return "n/a"
    if percent:
        return f"{value * 100:+.1f} pts" if signed else f"{value * 100:.1f}%"
    return f"{value:+.2f}" if signed else f"{value:.2f}"


def _cell(text: object, fmt: str) -> str:
    """Rater ids and names come from other people's databases: no control characters, no table breakers."""
    cleaned = clean(str(text)).replace("\n", " ")
    return cleaned.replace("\\", "\\\\").replace("|", "\\|") if fmt == "markdown" else cleaned


def _table(headers: list[str], rows: list[list[str]], fmt: str) -> list[str]:
    headers = [_cell(h, fmt) for h in headers]
    rows = [[_cell(c, fmt) for c in row] for row in rows]
    if fmt == "markdown":
        lines = ["| " + " | ".join(headers) + " |", "|" + "|".join(" --- " for _ in headers) + "|"]
        return lines + ["| " + " | ".join(row) + " |" for row in rows]
    widths = [max(len(str(c)) for c in column) for column in zip(headers, *rows, strict=True)]
    return ["  " + "  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
            for row in [headers, *rows]]


def _heading(text: str, fmt: str, level: int = 2) -> list[str]:
    return [f"{'#' * level} {text}", ""] if fmt == "markdown" else [text, "-" * len(text)]


def render_team(section: dict[str, Any], fmt: str) -> list[str]:
    experts = section["experts"]
    lines = _heading("Team: agreement among experts", fmt)
    lines.append(f"{len(experts)} experts ({_cell(', '.join(experts), fmt)}) on {section['items']} items; judge: "
                 f"{_cell(section['judge'] or 'none yet', fmt)}. Consensus = adjudicated score, else the experts' mean "
                 "(PASS/FAIL: majority; ties left out); kappa takes a mean at its nearest scale point.")
    lines.append("")
    lines += _table(["dimension", "alpha", "level"],
                    [[d["dimension"], _num(d["alpha"]), d["alpha_level"]] for d in section["dimensions"]], fmt)
    lines.append("")
    rows = []
    for d in section["dimensions"]:
        for name, p in [*d["experts_vs_judge"].items(), (CONSENSUS_RATER, d["consensus_vs_judge"])]:
            extra = ""
            if name == CONSENSUS_RATER and (p["adjudicated"] or p["ties"]):
                extra = f" ({p['adjudicated']} adjudicated, {p['ties']} ties left out)"
            rows.append([d["dimension"], name + extra, str(p["n"]), _num(p["alignment"], percent=True),
                         _num(p["kappa"]), _num(p["pearson_r"])])
    lines.append(f"Each expert and the consensus against the judge (alignment within ±{section['tolerance']:g}):")
    lines += _table(["dimension", "rater", "n", "alignment", "kappa", "r"], rows, fmt)
    lines.append("")
    pooled = ", ".join(f"{_cell(k, fmt)} {_num(v, percent=True)}" for k, v in section["pooled_alignment"].items())
    lines.append(f"Alignment with the judge over every judged dimension: {pooled}")
    lines.append("")
    for d in section["dimensions"]:
        lines.append(f"Cohen's kappa between experts, {d['dimension']}:")
        lines += _table(["", *experts], [[e, *(_num(k) for k in row)] for e, row in
                                          zip(experts, d["kappa_matrix"], strict=True)], fmt)
        lines.append("")
    return lines


def render_drift(section: list[dict[str, Any]], fmt: str) -> list[str]:
    lines = _heading("Self-agreement (items re-rated blind later)", fmt)
    if section:
        lines.append(f"First rating against the re-rating (alignment within ±{section[0]['tolerance']:g}):")
    dims = list(section[0]["by_dimension"]) if section else []
    rows = [[s["rater"], str(s["pairs"]), _num(s["alignment"], percent=True),
             *(_num(s["by_dimension"][d]["kappa"]) for d in dims)] for s in section]
    lines += _table(["expert", "items", "alignment", *(f"kappa {d}" for d in dims)], rows, fmt)
    lines.append("")
    return lines


def render_compare(section: dict[str, Any], fmt: str) -> list[str]:
    v1, v2 = section["v1"], section["v2"]
    lines = _heading(_cell(f"Version comparison: {v1['name']} -> {v2['name']}", fmt), fmt)
    lines.append(_cell(f"{v1['name']} = {v1['judge']}; {v2['name']} = {v2['judge']}", fmt))
    lines.append(_cell(f"Rubric {section['rubric']}, split {section['split']}, {section['items']} items judged "
                       f"under both and rated by the experts; reference: {section['reference']}; alignment within "
                       f"±{section['tolerance']:g}.", fmt))
    lines.append("")
    rows = []
    for d in section["dimensions"]:
        for name, key, percent in (("alignment", "alignment", True), ("kappa", "kappa", False),
                                   ("r", "pearson_r", False)):
            f = d[key]
            rows.append([d["dimension"] if name == "alignment" else "", name, str(d["n"]) if percent else "",
                         _num(f["v1"], percent), _num(f["v2"], percent), _num(f["change"], percent, signed=True)])
    a = section["alignment"]
    rows.append(["all judged", "alignment", "", _num(a["v1"], True), _num(a["v2"], True),
                 _num(a["change"], True, signed=True)])
    lines += _table(["dimension", "figure", "n", v1["name"], v2["name"], "change"], rows, fmt)
    lines.append("")
    return lines


# --------------------------------------------------------------------------- joining the agreement report


def with_team_sections(output: str, fmt: str, store: Store, rubric: Rubric, split: str | None,
                       judge: str | None, tolerance: float = TOLERANCE) -> str:
    """The report with the team section (two or more experts) and the experts' self-agreement (if any)."""
    team = team_section(store, rubric, split, judge, tolerance=tolerance)
    drift = drift_section(store, rubric, split, tolerance=tolerance)
    if team is None and not drift:
        return output
    if fmt == "json":
        data = json.loads(output)
        if team is not None:
            data["team"] = team
        if drift:
            data["expert_self_agreement"] = drift
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    lines = [output.rstrip("\n"), ""]
    if team is not None:
        lines += render_team(team, fmt)
    if drift:
        lines += render_drift(drift, fmt)
    return "\n".join(lines).rstrip("\n") + "\n"


def team_only(problem: str, fmt: str, store: Store, rubric: Rubric, split: str | None,
              tolerance: float = TOLERANCE) -> str | None:
    """When the judge comparison cannot be made: the team section alone, with the reason; None if no team."""
    team = team_section(store, rubric, split, tolerance=tolerance)
    if team is None:
        return None
    drift = drift_section(store, rubric, split, tolerance=tolerance)
    if fmt == "json":
        from judge_tui.analysis.report_format import SCHEMA_VERSION

        data: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "rubric": rubric.id, "judge_comparison": problem,
                                "team": team}
        if drift:
            data["expert_self_agreement"] = drift
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    lines = [_cell(f"No judge comparison: {problem}", fmt), ""] + render_team(team, fmt)
    if drift:
        lines += render_drift(drift, fmt)
    return "\n".join(lines).rstrip("\n") + "\n"


def render_version_comparison(store: Store, rubric: Rubric, v1: str, v2: str, split: str | None, fmt: str,
                              tolerance: float = TOLERANCE) -> str:
    """`judge-tui report --compare V1 V2` in the chosen format."""
    from judge_tui.analysis.report_format import SCHEMA_VERSION

    section = compare_section(store, rubric, v1, v2, split, tolerance)
    if fmt == "json":
        return json.dumps({"schema_version": SCHEMA_VERSION, "version_comparison": section}, indent=2,
                          ensure_ascii=False) + "\n"
    return "\n".join(render_compare(section, fmt)).rstrip("\n") + "\n"
