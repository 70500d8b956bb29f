"""`judge-tui report` rendered whole from its sections' objects (full_report.FullReport): JSON built from them in
one go; text draws every table with Rich; Markdown joins the sections."""

from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass, field
from typing import Any, assert_never

from judge_tui.analysis.compare import VersionComparison
from judge_tui.analysis.full_report import (
    FlaggedItems,
    FullReport,
    JudgeBiases,
    NoJudgeComparison,
    PositionBiases,
    Section,
    SelfAgreement,
    TheJudge,
)
from judge_tui.analysis.judges import ChosenJudge
from judge_tui.analysis.jury import Jury
from judge_tui.analysis.report import Report
from judge_tui.analysis.report_render import validity as validity_format
from judge_tui.analysis.report_render.as_json import SCHEMA_VERSION, no_comparison_to_dict, report_to_dict
from judge_tui.analysis.report_render.as_markdown import render_markdown
from judge_tui.analysis.report_render.as_text import rich_sections
from judge_tui.analysis.report_render.biases import biases_blocks, biases_dict
from judge_tui.analysis.report_render.blocks import Block, Paragraph, lines_of, md, rich_of
from judge_tui.analysis.report_render.comparison import compare_blocks, comparison_to_dict
from judge_tui.analysis.report_render.flags import flag_row
from judge_tui.analysis.report_render.flags import render as render_flags
from judge_tui.analysis.report_render.jury import jury_blocks, jury_to_dict
from judge_tui.analysis.report_render.position_bias import blocks as position_blocks
from judge_tui.analysis.report_render.position_bias import to_dict as position_dict
from judge_tui.analysis.report_render.team import drift_blocks, drift_to_dicts, team_blocks, team_to_dict
from judge_tui.analysis.team import TeamAgreement
from judge_tui.formats.numbers import plural
from judge_tui.formats.terminal import output_width, render_plain


def render_full(full: FullReport, fmt: str, width: int | None = None) -> str:
    """The report in a format: "json", "markdown" or "text" (at ``width``, or fitted to standard output)."""
    if fmt == "json":
        data: dict[str, Any] = {}
        for section in full.sections:
            data |= _json(section, full)
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    page = _Page(fmt, width)
    for section in full.sections:
        page.draw(section, full)
    return page.joined()


def _json(section: Section, full: FullReport) -> dict[str, Any]:
    """The section's keys of the JSON report (the judge comparison's are the report's top level)."""
    match section:
        case Report():
            return {**report_to_dict(section), "judge_comparison": None}
        case VersionComparison():
            return {"schema_version": SCHEMA_VERSION, "version_comparison": comparison_to_dict(section)}
        case NoJudgeComparison():
            return no_comparison_to_dict(full.rubric, full.split, full.settings, section.experts, section.reason)
        case TheJudge():
            return {**({"judge": section.chosen.to_dict()} if section.chosen is not None else {}),
                    **({"judge_validity": validity_format.to_dict(section.validity)}
                       if section.validity is not None else {})}
        case JudgeBiases():
            return {**({"judge_biases": [biases_dict(b) for b in section.biases]} if section.biases else {}),
                    **({"judge_biases_missing": section.missing} if section.missing else {})}
        case PositionBiases():
            return {"position_bias": [position_dict(p, full.rubric) for p in section.figures]}
        case TeamAgreement():
            return {"team": team_to_dict(section, full.split)}
        case Jury():
            return {"jury": jury_to_dict(section)}
        case SelfAgreement():
            return {"expert_self_agreement": drift_to_dicts(section.experts, full.settings)}
        case FlaggedItems():
            return {"flagged_items": [flag_row(f) for f in section.flags]}
    assert_never(section)


@dataclass
class _Page:
    """The text or Markdown report as its sections draw it: the judge's first page ahead, then the tables (the
    judge comparison's and every section's blocks), then the flagged items."""

    fmt: str
    width: int | None
    ahead: str = ""
    report: Report | None = None
    blocks: list[Block] = field(default_factory=list)
    flagged: str | None = None

    def draw(self, section: Section, full: FullReport) -> None:
        match section:
            case Report():
                self.report = section
            case VersionComparison():
                self.blocks += compare_blocks(section)
            case NoJudgeComparison():
                self.blocks.append(Paragraph((f"No judge comparison: {section.reason}",)))
            case TheJudge():
                self.ahead += self._the_judge(section)
            case JudgeBiases():
                for b in section.biases:
                    self.blocks += biases_blocks(b)
                if section.missing:
                    self.blocks.append(Paragraph((f"Judge biases: {section.missing}.",)))
            case PositionBiases():
                for p in section.figures:
                    self.blocks += position_blocks(p, full.rubric)
            case TeamAgreement():
                self.blocks += team_blocks(section)
            case Jury():
                self.blocks += jury_blocks(section)
            case SelfAgreement():
                self.blocks += drift_blocks(section.experts, full.rubric.scale, full.settings)
            case FlaggedItems():
                self.flagged = render_flags(list(section.flags), "markdown" if self.fmt == "markdown" else "text",
                                            width=(self.width or output_width()) if self.fmt == "text" else None)
            case _:
                assert_never(section)

    def _the_judge(self, section: TheJudge) -> str:
        """The judge the report compares is named first: by the heading of its validity page, which leads, else
        by a line of its own; after the page, how it was chosen and the rubric's other judges."""
        named, page, leads = section.chosen, section.validity, section.named_by_page
        if self.fmt == "markdown":
            return ((md(named.line()) + "\n\n" if named is not None and not leads else "")
                    + (validity_format.render_markdown(page) + "\n" if page is not None else "")
                    + (md(judge_paragraph(named, leads)) + "\n\n" if named is not None else ""))
        fit = min(self.width or output_width(), validity_format.WIDTH)
        return ((_wrapped(named.line(), fit) + "\n" if named is not None and not leads else "")
                + (validity_format.render_text(page, min(self.width or validity_format.WIDTH,
                                                         validity_format.WIDTH)) + "\n" if page is not None else "")
                + (_wrapped(judge_paragraph(named, leads), fit) + "\n" if named is not None else ""))

    def joined(self) -> str:
        if self.fmt == "markdown":
            lines = [render_markdown(self.report).rstrip("\n"), ""] if self.report is not None else []
            body = "\n".join(lines + lines_of(self.blocks, self.fmt))
        else:
            sections = rich_sections(self.report) if self.report is not None else []
            body = render_plain([*sections, *rich_of(self.blocks)], width=self.width, gap=True, split=True)
        body = (self.ahead + body).rstrip("\n")
        return body + "\n" if self.flagged is None else body + "\n\n" + self.flagged


def judge_paragraph(chosen: ChosenJudge, named_before: bool) -> str:
    """How the judge was chosen (the judge itself when not named before), the items it rated, and the rubric's
    other judges (reverted or under trial where they are) with how to compare one of them instead."""
    text = (chosen.line() if not named_before else f"The judge is {chosen.rater} ({chosen.why})")
    text = f"{text}; it rated {plural(chosen.rated, 'item')}."
    if chosen.others:
        others = ", ".join(f"{rater} ({rated}{'' if state in ('', 'kept') else ', ' + state})"
                           for rater, rated, state in chosen.others)
        text += f" Other judges (items): {others}. Compare another with --judge RATER or --judge VERSION."
    return text


def _wrapped(text: str, width: int) -> str:
    return textwrap.fill(text, width, subsequent_indent="  ", break_on_hyphens=False, break_long_words=False) + "\n"
