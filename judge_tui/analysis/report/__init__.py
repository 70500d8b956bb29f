"""The agreement report, by job: its model (model.py), its computation (compute.py), its verdict (findings.py) and
the disagreement list (disagreements.py). The renderers are analysis/report_render/; `--raters` is cli/raters.py.

The names callers use are importable from here as before.
"""

from judge_tui.analysis.report.compute import MAX_REPEATS, build_report, default_groups
from judge_tui.analysis.report.disagreements import JudgeDisagreement, judge_disagreements
from judge_tui.analysis.report.findings import SKEWED_BY, band_decisions
from judge_tui.analysis.report.model import (
    OVERALL,
    Breakdown,
    Correction,
    Finding,
    Group,
    HumanAgreement,
    HumanRow,
    JudgeSelfAgreement,
    NoComparison,
    Report,
    ReportError,
    Row,
    Section,
    SelfRow,
    Summary,
    combined,
    meets_by_decision,
)
from judge_tui.analysis.targets import Combined

__all__ = [
    "MAX_REPEATS",
    "OVERALL",
    "SKEWED_BY",
    "Breakdown",
    "Combined",
    "Correction",
    "Finding",
    "Group",
    "HumanAgreement",
    "HumanRow",
    "JudgeDisagreement",
    "JudgeSelfAgreement",
    "NoComparison",
    "Report",
    "ReportError",
    "Row",
    "Section",
    "SelfRow",
    "Summary",
    "band_decisions",
    "build_report",
    "combined",
    "default_groups",
    "judge_disagreements",
    "meets_by_decision",
]
