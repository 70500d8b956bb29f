"""The SQLite store: the one package of judge-tui that speaks SQL.

Durability: WAL with synchronous=FULL, so a committed rating survives a crash or a power cut, and every
write is its own short transaction begun with BEGIN IMMEDIATE (a second process waits instead of failing).
A Store belongs to the thread that opened it.

One module per area, each a class of queries that Store combines (docs/architecture.md maps them): schema.py
(tables, migrations and the views every reader shares, current_ratings among them), core.py (connection,
transactions, meta), then items, ratings, drafts, flags, drift_rows (re-ratings), version_rows, agreement_queries,
judge_queue, judge_workers, judge_batches, judge_decisions (the judge's certificate and its marks), assignments,
queue_orders, finishes, status, import_export and merge_rows; foreign.py reads another database for a merge;
faults.py turns the database's faults into messages; rubric_choice.py picks the rubric definition a database works
with.
"""

from __future__ import annotations

from judge_tui.store.agreement_queries import AgreementQueries, RubricScores
from judge_tui.store.assignments import AssignmentQueries
from judge_tui.store.common import ItemConflict, StoreError, now
from judge_tui.store.core import StoreCore
from judge_tui.store.drafts import DraftQueries
from judge_tui.store.drift_rows import DriftQueries
from judge_tui.store.finishes import Finish, FinishQueries
from judge_tui.store.flags import FlagQueries
from judge_tui.store.foreign import ForeignDatabase
from judge_tui.store.import_export import ImportExportQueries
from judge_tui.store.items import ItemQueries
from judge_tui.store.judge_batches import JudgeBatchQueries
from judge_tui.store.judge_decisions import CertificateTerms, JudgeDecisionQueries
from judge_tui.store.judge_queue import JudgeQueueQueries
from judge_tui.store.judge_workers import JudgeWorkerQueries
from judge_tui.store.merge_rows import (
    CALIBRATION_CHANGE_KEY,
    RATING_CONTENT,
    MergeQueries,
    MergeState,
    rating_content,
)
from judge_tui.store.queue_orders import QueueOrderQueries
from judge_tui.store.ratings import RaterQueries, RatingQueries
from judge_tui.store.schema import migrations
from judge_tui.store.status import StatusQueries
from judge_tui.store.version_rows import VersionQueries

__all__ = [
    "CALIBRATION_CHANGE_KEY",
    "CertificateTerms",
    "Finish",
    "RATING_CONTENT",
    "ForeignDatabase",
    "ItemConflict",
    "MergeState",
    "RubricScores",
    "Store",
    "StoreError",
    "migrations",
    "now",
    "rating_content",
]


class Store(
    # A class built on another area comes before it: Python's method order requires it.
    VersionQueries,
    ImportExportQueries,
    MergeQueries,
    ItemQueries,
    RaterQueries,
    JudgeQueueQueries,
    JudgeWorkerQueries,
    JudgeBatchQueries,
    RatingQueries,
    DraftQueries,
    FlagQueries,
    AgreementQueries,
    DriftQueries,
    StatusQueries,
    AssignmentQueries,
    QueueOrderQueries,
    FinishQueries,
    JudgeDecisionQueries,
    StoreCore,
):
    """A judge-tui database: every query of every area, on one connection."""
