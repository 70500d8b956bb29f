"""The judge's certificate in force for a rubric and the items it marks as decided by the judge alone
(`judge-tui assign --escalate`; analysis/certify.py makes the certificate).

One certificate per rubric: recording another replaces it and every mark of the old one in one transaction, and
recording none (a plan made without --escalate, which puts every item in the experts' queues) removes both.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from judge_tui.store.core import StoreCore


@dataclass(frozen=True)
class CertificateTerms:
    """What a certificate was made with and what it found (lambda_ None: no threshold passed)."""

    rubric: str
    judge: str  # the judge rater, or "jury"
    members: tuple[str, ...]  # the jury's judges; () for one judge
    jury_rule: str  # "majority" or "median"; "" for one judge
    confidence: str  # where the judge's confidence came from, by name ("repeats", "jury", ...)
    split: str  # the expert-rated split it was made on
    alpha: float
    delta: float
    lambda_: float | None
    tolerance: float
    n: int  # certification items with a confidence
    kept: int  # of them, those the judge keeps at λ (0 when none passed)
    disagreements: int | None
    bound: float | None
    unrated: int  # the items no expert had rated, outside the certification and test splits: decided or escalated
    plan_id: str | None = None  # the assignment plan made with it
    created_at: str = ""  # ISO 8601 in UTC


_COLUMNS = ("rubric, judge, members, jury_rule, confidence, split, alpha, delta, lambda, tolerance, n, kept,"
            " disagreements, bound, unrated, plan_id, created_at")


class JudgeDecisionQueries(StoreCore):
    # ------------------------------------------------------------------ the judge's certificate and its marks

    def record_certificate(self, rubric: str, terms: CertificateTerms | None, decided: Iterable[str]) -> None:
        """Make ``terms`` the rubric's certificate in force and ``decided`` its items decided by the judge,
        replacing the old certificate and all its marks; with ``terms`` None, remove them."""
        with self.transaction() as conn:
            conn.execute("DELETE FROM judge_decisions WHERE rubric = ?", [rubric])
            conn.execute("DELETE FROM judge_certificates WHERE rubric = ?", [rubric])
            if terms is None:
                return
            conn.execute(
                f"INSERT INTO judge_certificates ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [rubric, terms.judge, json.dumps(list(terms.members), ensure_ascii=False), terms.jury_rule,
                 terms.confidence, terms.split, terms.alpha, terms.delta, terms.lambda_, terms.tolerance, terms.n,
                 terms.kept, terms.disagreements, terms.bound, terms.unrated, terms.plan_id, terms.created_at])
            conn.executemany("INSERT INTO judge_decisions (rubric, item_id) VALUES (?, ?)",
                             [(rubric, item) for item in decided])

    def certificate_in_force(self, rubric: str) -> CertificateTerms | None:
        row = self.conn.execute(f"SELECT {_COLUMNS} FROM judge_certificates WHERE rubric = ?", [rubric]).fetchone()
        if row is None:
            return None
        (rubric_id, judge, members, jury_rule, confidence, split, alpha, delta, lambda_, tolerance, n, kept,
         disagreements, bound, unrated, plan_id, created_at) = row
        return CertificateTerms(rubric_id, judge, tuple(json.loads(members)), jury_rule, confidence, split,
                                float(alpha), float(delta), None if lambda_ is None else float(lambda_),
                                float(tolerance), int(n), int(kept), disagreements,
                                None if bound is None else float(bound), int(unrated), plan_id, created_at)

    def judge_decided(self, rubric: str) -> list[str]:
        """The ids of the items the certificate in force leaves to the judge, in the rubric's order."""
        return [r[0] for r in self.conn.execute(
            "SELECT d.item_id FROM judge_decisions d JOIN items i ON i.id = d.item_id WHERE d.rubric = ?"
            " ORDER BY i.position, i.id", [rubric])]

    def expert_rating_seconds(self, rubric: str, experts: Iterable[str]) -> list[float]:
        """The recorded seconds of these experts' current ratings of the rubric's items (a rating without a
        known time left out)."""
        names = list(experts)
        if not names:
            return []
        marks = ", ".join("?" * len(names))
        return [float(r[0]) for r in self.conn.execute(
            "SELECT r.seconds FROM current_ratings r JOIN items i ON i.id = r.item_id WHERE i.rubric = ?"
            f" AND r.rater_id IN ({marks}) AND r.seconds IS NOT NULL", [rubric, *names])]
