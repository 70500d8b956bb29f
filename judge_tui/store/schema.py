"""The database schema: the first version's tables and the migrations applied since, in order.

sqlite-utils records each applied migration by name in _sqlite_migrations, so a name never changes once
a database has it, and a schema change is always a new migration at the end.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import sqlite_utils
    from sqlite_utils.migrations import Migrations


def load_sqlite_utils() -> None:
    """Import sqlite-utils without numpy and pandas.

    sqlite-utils imports both, if installed, only to map their scalar types to column types. judge-tui writes
    plain Python values, so both are hidden while sqlite-utils loads: that keeps ~80 ms and numpy's memory
    off the rating screen's start-up path. numpy imports normally afterwards.
    """
    if "sqlite_utils" in sys.modules:
        return
    hidden = [name for name in ("numpy", "pandas") if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # makes `import name` raise ImportError
    try:
        import sqlite_utils  # noqa: F401
    finally:
        for name in hidden:
            del sys.modules[name]


class LazyMigrations:
    """judge-tui's migration set, declared as with sqlite-utils' `Migrations` (`@migrations()` above each one).

    sqlite-utils (and what it imports: click, dateutil, pluggy) loads only when a database has a migration
    to apply: opening an up-to-date database compares the names in `_sqlite_migrations` with `names`, one
    query, which keeps ~20 ms off every start of the rating screen.
    """

    name = "judge_tui"

    def __init__(self) -> None:
        self._declared: list[tuple[Callable[..., None], dict[str, Any]]] = []
        self._engine: Migrations | None = None

    def __call__(self, **options: Any) -> Callable[[Callable[..., None]], Callable[..., None]]:
        def declare(function: Callable[..., None]) -> Callable[..., None]:
            self._declared.append((function, options))
            self._engine = None
            return function

        return declare

    @property
    def names(self) -> list[str]:
        return [options.get("name") or function.__name__ for function, options in self._declared]

    def engine(self) -> Migrations:
        """sqlite-utils' Migrations holding every migration declared here, in order."""
        if self._engine is None:
            load_sqlite_utils()
            from sqlite_utils.migrations import Migrations

            engine = Migrations(self.name)
            for function, options in self._declared:
                engine(**options)(function)
            self._engine = engine
        return self._engine

    def pending(self, db: sqlite_utils.Database) -> list[Any]:
        return self.engine().pending(db)

    def apply(self, db: sqlite_utils.Database) -> None:
        self.engine().apply(db)


migrations = LazyMigrations()


@migrations()
def m001_initial_schema(db: sqlite_utils.Database) -> None:
    # Statement by statement: executescript() would commit the migration's transaction half way.
    for statement in _SCHEMA_V1.split(";"):
        if statement.strip():
            db.execute(statement)


@migrations()
def m002_items_next_unrated_index(db: sqlite_utils.Database) -> None:
    # Covers "the next item of a rubric (and split) in import order": finding the first unrated item then
    # reads only this index and the ratings index. It makes items_by_rubric (a prefix of it) redundant.
    db.execute("CREATE INDEX items_next_unrated ON items (rubric, position, id, split)")
    db.execute("DROP INDEX items_by_rubric")


@migrations()
def m003_judge_queue_index(db: sqlite_utils.Database) -> None:
    # The judge queue is read per rater: counts by status and the next job to claim.
    db.execute("CREATE INDEX judge_jobs_by_rater ON judge_jobs (rater_id, status, id)")
    db.execute("CREATE INDEX judge_calls_by_job ON judge_calls (job_id)")


@migrations()
def m004_prompt_versions(db: sqlite_utils.Database) -> None:
    # A judge prompt version (the judge's hash of its template and rubric) with the reason it was made, so
    # prompt changes are documented like rubric changes. Judge raters keep pointing at it by that hash.
    db.execute(
        """
        CREATE TABLE prompt_versions (
            id INTEGER PRIMARY KEY,
            rubric TEXT NOT NULL,
            prompt_version TEXT NOT NULL UNIQUE,
            rubric_version_id INTEGER REFERENCES rubric_versions (id),
            template TEXT NOT NULL DEFAULT '',
            reason TEXT NOT NULL DEFAULT '',
            motivating_items TEXT NOT NULL DEFAULT '[]',
            created_at TEXT NOT NULL
        )
        """
    )



@migrations()
def m005_rating_flags(db: sqlite_utils.Database) -> None:
    # A flag and its reason belong to the rating, so they travel with it through exports, bundles and merges;
    # an item flagged but not rated (skipped, say) keeps its flag in its draft row, which merges also carry.
    # seconds becomes nullable: NULL is "not known" (an import without times), 0 is a measured zero.
    # SQLite cannot drop NOT NULL in place: the table is rebuilt with the same ids. judge_jobs.rating_id points
    # at them; it is set aside while the old table goes (dropping a referenced table would break the foreign
    # key, and PRAGMA foreign_keys cannot change inside the migration's transaction), then put back.
    db.execute("CREATE TEMP TABLE job_ratings AS SELECT id, rating_id FROM judge_jobs WHERE rating_id IS NOT NULL")
    db.execute("UPDATE judge_jobs SET rating_id = NULL WHERE rating_id IS NOT NULL")
    db.execute(_RATINGS_V5)
    db.execute(
        "INSERT INTO ratings_v5 (id, item_id, rater_id, rubric_version_id, repeat, scores, overall, verdict, notes,"
        " seconds, source, details, created_at, updated_at) SELECT id, item_id, rater_id, rubric_version_id,"
        " repeat, scores, overall, verdict, notes, seconds, source, details, created_at, updated_at FROM ratings"
    )
    db.execute("DROP TABLE ratings")
    db.execute("ALTER TABLE ratings_v5 RENAME TO ratings")
    db.execute("CREATE INDEX ratings_by_rater ON ratings (rater_id, item_id)")
    # The few flagged ratings, found without reading the rest (the status line counts them after each change).
    db.execute("CREATE INDEX ratings_flagged ON ratings (rater_id, item_id) WHERE flagged = 1")
    db.execute("UPDATE judge_jobs SET rating_id = (SELECT j.rating_id FROM temp.job_ratings j"
               " WHERE j.id = judge_jobs.id) WHERE id IN (SELECT id FROM temp.job_ratings)")
    db.execute("DROP TABLE temp.job_ratings")
    # Flags set on already-submitted items lived in drafts: they move onto the rater's newest first-run rating.
    db.execute(
        "UPDATE ratings SET flagged = 1, flag_reason = (SELECT d.flag_reason FROM drafts d"
        " WHERE d.item_id = ratings.item_id AND d.rater_id = ratings.rater_id)"
        " WHERE repeat = 0 AND rubric_version_id = (SELECT MAX(o.rubric_version_id) FROM ratings o"
        " WHERE o.item_id = ratings.item_id AND o.rater_id = ratings.rater_id AND o.repeat = 0)"
        " AND EXISTS (SELECT 1 FROM drafts d WHERE d.item_id = ratings.item_id AND d.rater_id = ratings.rater_id"
        " AND d.flagged = 1)"
    )
    db.execute(
        "DELETE FROM drafts WHERE flagged = 1 AND scores = '{}' AND notes = '' AND skipped = 0"
        " AND EXISTS (SELECT 1 FROM ratings r WHERE r.item_id = drafts.item_id AND r.rater_id = drafts.rater_id)"
    )


_RATINGS_V5 = """
        CREATE TABLE ratings_v5 (
            id INTEGER PRIMARY KEY,
            item_id TEXT NOT NULL REFERENCES items (id),
            rater_id TEXT NOT NULL REFERENCES raters (id),
            rubric_version_id INTEGER NOT NULL REFERENCES rubric_versions (id),
            repeat INTEGER NOT NULL DEFAULT 0,
            scores TEXT NOT NULL,
            overall REAL,
            verdict TEXT,
            notes TEXT NOT NULL DEFAULT '',
            seconds REAL,
            source TEXT NOT NULL DEFAULT '',
            details TEXT NOT NULL DEFAULT '{}',
            flagged INTEGER NOT NULL DEFAULT 0,
            flag_reason TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            UNIQUE (item_id, rater_id, rubric_version_id, repeat)
        )
        """


@migrations()
def m006_judge_job_leases(db: sqlite_utils.Database) -> None:
    # A running job belongs to the judge process that claimed it (lease_owner, a judge_workers row). Another
    # process re-queues it only when that owner is gone: its process has ended, or its heartbeat went stale.
    db.execute("ALTER TABLE judge_jobs ADD COLUMN lease_owner TEXT")
    db.execute(
        """
        CREATE TABLE judge_workers (
            id TEXT PRIMARY KEY,
            host TEXT NOT NULL,
            pid INTEGER NOT NULL,
            started_at TEXT NOT NULL,
            heartbeat_at TEXT NOT NULL
        )
        """
    )


_SCHEMA_V1 = """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

        CREATE TABLE rubric_versions (
            id INTEGER PRIMARY KEY,
            rubric TEXT NOT NULL,
            version TEXT NOT NULL,
            content_hash TEXT NOT NULL UNIQUE,
            definition TEXT NOT NULL,
            reason TEXT NOT NULL DEFAULT '',
            motivating_items TEXT NOT NULL DEFAULT '[]',
            created_at TEXT NOT NULL
        );

        CREATE TABLE items (
            id TEXT PRIMARY KEY,
            rubric TEXT NOT NULL,
            task_type TEXT,
            fields TEXT NOT NULL,
            split TEXT,
            content_hash TEXT NOT NULL,
            position INTEGER NOT NULL,
            source TEXT NOT NULL DEFAULT '',
            few_shot_used INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL
        );
        CREATE INDEX items_by_rubric ON items (rubric, position);

        CREATE TABLE raters (
            id TEXT PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('human', 'judge', 'code')),
            model TEXT,
            prompt_version TEXT,
            display_name TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL
        );

        CREATE TABLE ratings (
            id INTEGER PRIMARY KEY,
            item_id TEXT NOT NULL REFERENCES items (id),
            rater_id TEXT NOT NULL REFERENCES raters (id),
            rubric_version_id INTEGER NOT NULL REFERENCES rubric_versions (id),
            repeat INTEGER NOT NULL DEFAULT 0,
            scores TEXT NOT NULL,
            overall REAL,
            verdict TEXT,
            notes TEXT NOT NULL DEFAULT '',
            seconds REAL NOT NULL DEFAULT 0,
            source TEXT NOT NULL DEFAULT '',
            details TEXT NOT NULL DEFAULT '{}',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            UNIQUE (item_id, rater_id, rubric_version_id, repeat)
        );
        CREATE INDEX ratings_by_rater ON ratings (rater_id, item_id);

        CREATE TABLE drafts (
            item_id TEXT NOT NULL REFERENCES items (id),
            rater_id TEXT NOT NULL REFERENCES raters (id),
            scores TEXT NOT NULL DEFAULT '{}',
            notes TEXT NOT NULL DEFAULT '',
            seconds REAL NOT NULL DEFAULT 0,
            skipped INTEGER NOT NULL DEFAULT 0,
            flagged INTEGER NOT NULL DEFAULT 0,
            flag_reason TEXT NOT NULL DEFAULT '',
            updated_at TEXT NOT NULL,
            PRIMARY KEY (item_id, rater_id)
        );

        CREATE TABLE judge_jobs (
            id INTEGER PRIMARY KEY,
            item_id TEXT NOT NULL REFERENCES items (id),
            rater_id TEXT NOT NULL REFERENCES raters (id),
            rubric_version_id INTEGER NOT NULL REFERENCES rubric_versions (id),
            repeat INTEGER NOT NULL DEFAULT 0,
            status TEXT NOT NULL DEFAULT 'queued'
                CHECK (status IN ('queued', 'running', 'done', 'failed')),
            attempts INTEGER NOT NULL DEFAULT 0,
            last_error TEXT NOT NULL DEFAULT '',
            raw_output TEXT NOT NULL DEFAULT '',
            batch_id TEXT,
            rating_id INTEGER REFERENCES ratings (id),
            next_attempt_at TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            UNIQUE (item_id, rater_id, rubric_version_id, repeat)
        );
        CREATE INDEX judge_jobs_by_status ON judge_jobs (status, id);

        CREATE TABLE judge_batches (
            id TEXT PRIMARY KEY,
            rater_id TEXT NOT NULL REFERENCES raters (id),
            rubric_version_id INTEGER NOT NULL REFERENCES rubric_versions (id),
            status TEXT NOT NULL,
            request_count INTEGER NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );

        CREATE TABLE judge_calls (
            id INTEGER PRIMARY KEY,
            job_id INTEGER NOT NULL REFERENCES judge_jobs (id),
            model TEXT NOT NULL,
            input_tokens INTEGER NOT NULL DEFAULT 0,
            output_tokens INTEGER NOT NULL DEFAULT 0,
            cache_read_tokens INTEGER NOT NULL DEFAULT 0,
            cache_write_tokens INTEGER NOT NULL DEFAULT 0,
            cost_usd REAL NOT NULL DEFAULT 0,
            sampling TEXT NOT NULL DEFAULT '{}',
            outcome TEXT NOT NULL,
            created_at TEXT NOT NULL
        );

        CREATE TABLE revision_marks (
            id INTEGER PRIMARY KEY,
            item_id TEXT NOT NULL REFERENCES items (id),
            rubric TEXT NOT NULL,
            note TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            UNIQUE (item_id, rubric)
        );
        """


@migrations()
def m007_items_split_from_import(db: sqlite_utils.Database) -> None:
    # Whether an item's split was set when it was imported (the item's own "split", or import --split): a
    # decision of the user's that `judge-tui split` keeps unless told --reassign. An earlier database cannot
    # tell an imported split from one `split` made, so every split it holds is kept.
    db.execute("ALTER TABLE items ADD COLUMN split_from_import INTEGER NOT NULL DEFAULT 0")
    db.execute("UPDATE items SET split_from_import = 1 WHERE split IS NOT NULL")


@migrations()
def m008_assignments(db: sqlite_utils.Database) -> None:
    # `judge-tui assign`: which expert rates which items. A plan keeps the options it was made with; its rows
    # are each expert's queue in order, with the items several experts rate (the overlap) marked. Plans are
    # never edited: re-assigning adds a newer plan, and a rubric's newest plan is the one in force. The id is
    # made on the lead's machine, so copies of a plan in bundles and merged databases are recognised as one.
    # rater_id has no foreign key: experts are named before they have rated anything.
    db.execute(
        """
        CREATE TABLE assignment_plans (
            id TEXT PRIMARY KEY,
            rubric TEXT NOT NULL,
            experts TEXT NOT NULL,
            overlap REAL NOT NULL,
            overlap_raters INTEGER NOT NULL,
            per_expert INTEGER,
            seed INTEGER NOT NULL,
            balance TEXT NOT NULL DEFAULT '[]',
            created_at TEXT NOT NULL
        )
        """
    )
    db.execute(
        """
        CREATE TABLE assignments (
            plan_id TEXT NOT NULL REFERENCES assignment_plans (id),
            rater_id TEXT NOT NULL,
            item_id TEXT NOT NULL REFERENCES items (id),
            position INTEGER NOT NULL,
            overlap INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (plan_id, rater_id, item_id)
        )
        """
    )
    db.execute("CREATE INDEX assignments_queue ON assignments (plan_id, rater_id, position)")


@migrations()
def m009_queue_orders(db: sqlite_utils.Database) -> None:
    # The order each reviewer rates a rubric's items in (rate --order, queue_order): its kind and seed, and the
    # judge whose verdicts stratify a balanced order; queue_entries hold a random or balanced order's items in
    # place. rating_draws record how each first rating's item was drawn, so the report can weight a balanced
    # design's strata back to their share of the pool. rater_id has no foreign key, as in assignments.
    db.execute(
        """
        CREATE TABLE queue_orders (
            rater_id TEXT NOT NULL,
            rubric TEXT NOT NULL,
            kind TEXT NOT NULL,
            seed INTEGER NOT NULL,
            judge_rater TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (rater_id, rubric)
        )
        """
    )
    db.execute(
        """
        CREATE TABLE queue_entries (
            rater_id TEXT NOT NULL,
            rubric TEXT NOT NULL,
            item_id TEXT NOT NULL REFERENCES items (id),
            position INTEGER NOT NULL,
            stratum TEXT,
            PRIMARY KEY (rater_id, rubric, item_id)
        )
        """
    )
    db.execute("CREATE INDEX queue_entries_order ON queue_entries (rater_id, rubric, position)")
    db.execute(
        """
        CREATE TABLE rating_draws (
            item_id TEXT NOT NULL REFERENCES items (id),
            rater_id TEXT NOT NULL,
            rubric TEXT NOT NULL,
            kind TEXT NOT NULL,
            stratum TEXT,
            judge_rater TEXT,
            seed INTEGER,
            position INTEGER,
            created_at TEXT NOT NULL,
            PRIMARY KEY (item_id, rater_id)
        )
        """
    )


@migrations()
def m010_calibration_changes(db: sqlite_utils.Database) -> None:
    # A change to the judge kept or reverted on the judge screen, with its reason and motivating items: a row
    # of its own (earlier databases held them as JSON in meta), so merges and bundles carry it. A change is
    # recognised in another database by its rubric, outcome, versions and time, so merging twice adds nothing.
    import json

    db.execute(
        """
        CREATE TABLE calibration_changes (
            id INTEGER PRIMARY KEY,
            rubric TEXT NOT NULL,
            outcome TEXT NOT NULL CHECK (outcome IN ('kept', 'reverted')),
            before_version TEXT NOT NULL,
            after_version TEXT NOT NULL,
            reason TEXT NOT NULL DEFAULT '',
            motivating_items TEXT NOT NULL DEFAULT '[]',
            created_at TEXT NOT NULL,
            UNIQUE (rubric, outcome, before_version, after_version, created_at)
        )
        """
    )
    prefix = "calibration.outcomes:"
    for key, value in db.execute("SELECT key, value FROM meta WHERE key LIKE ?", [prefix + "%"]).fetchall():
        try:
            entries = json.loads(value) if value else []
        except json.JSONDecodeError:
            entries = []
        for entry in entries if isinstance(entries, list) else []:
            if not isinstance(entry, dict) or entry.get("outcome") not in ("kept", "reverted"):
                continue
            db.execute(
                "INSERT OR IGNORE INTO calibration_changes (rubric, outcome, before_version, after_version, reason,"
                " motivating_items, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [key[len(prefix):], entry["outcome"], str(entry.get("before", "")), str(entry.get("after", "")),
                 str(entry.get("reason", "")), json.dumps(list(entry.get("motivating_items") or []),
                                                          ensure_ascii=False),
                 str(entry.get("created_at", ""))])
        db.execute("DELETE FROM meta WHERE key = ?", [key])


@migrations()
def m011_queue_allocation(db: sqlite_utils.Database) -> None:
    # A balanced order's untouched items are laid out again after every ALLOCATE_EVERY ratings of its reviewer
    # (model/queue_orders.py); allocated_with is the number of ratings the layout in place was made with, so a
    # reopened session knows whether it is due (and a session killed before it lays it out as it would have).
    db.execute("ALTER TABLE queue_orders ADD COLUMN allocated_with INTEGER NOT NULL DEFAULT 0")


@migrations()
def m012_judge_batch_owner(db: sqlite_utils.Database) -> None:
    # Which judge process polls a Message Batch (its lease owner, judge/lease.py), so two `judge --batch`
    # processes never poll and read the same batch; a batch whose owner is gone is taken over. A batch is also
    # recorded, as 'sending', before it is sent: a process killed while the API takes it finds it again.
    db.execute("ALTER TABLE judge_batches ADD COLUMN owner TEXT")


@migrations()
def m013_study_finishes(db: sqlite_utils.Database) -> None:
    # What an expert says when they finish a rubric's study (the rating screen's finish screen, or a rating form
    # imported): their summary notes (failure-mode patterns across items) and when they finished. Their name is
    # the raters row's display_name. It moves the summary notes and completion dates an imported form kept in
    # the meta table.
    db.execute(
        """
        CREATE TABLE study_finishes (
            rater_id TEXT NOT NULL REFERENCES raters (id),
            rubric TEXT NOT NULL,
            summary_notes TEXT NOT NULL DEFAULT '',
            finished_at TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (rater_id, rubric)
        )
        """
    )
    for key, value in db.execute(
            "SELECT key, value FROM meta WHERE key LIKE 'summary_notes:%' OR key LIKE 'completion_date:%'"
    ).fetchall():
        what, _, rest = key.partition(":")
        rater_id, _, rubric = rest.rpartition(":")
        column = "summary_notes" if what == "summary_notes" else "finished_at"
        if db.execute("SELECT 1 FROM raters WHERE id = ?", [rater_id]).fetchone() is None:
            continue  # a rater since removed: nothing to hang it on
        db.execute("INSERT OR IGNORE INTO study_finishes (rater_id, rubric) VALUES (?, ?)", [rater_id, rubric])
        db.execute(f"UPDATE study_finishes SET {column} = ? WHERE rater_id = ? AND rubric = ?",
                   [value or "", rater_id, rubric])
        db.execute("DELETE FROM meta WHERE key = ?", [key])


@migrations()
def m014_current_ratings(db: sqlite_utils.Database) -> None:
    # The one rule for a rater's current rating of an item, which every reader asks for by name (report,
    # export, status, flags, queues, the rating screen): their first run (repeat 0) under the newest rubric
    # version they rated the item in. Newest is by the date the version was made, which merges keep, then by
    # row id for versions made in the same millisecond; never by row id alone, since a merge gives the versions
    # it brings new, higher ids however old they are. rubric_version_order numbers each rubric's versions in
    # that order (1 = oldest): the numbers `history` and exports show, and the order the figures' arrays use.
    db.execute(
        "CREATE VIEW rubric_version_order AS SELECT id, rubric,"
        " ROW_NUMBER() OVER (PARTITION BY rubric ORDER BY created_at, id) AS number FROM rubric_versions"
    )
    # Written as "no first run of the same item and rater under a newer version" rather than "the version of
    # the newest first run", which sorts for every row (benchmarks/bench_current_ratings.py times both against
    # the row-id rule this replaces).
    db.execute(
        """
        CREATE VIEW current_ratings AS
        SELECT r.* FROM ratings r JOIN rubric_versions v ON v.id = r.rubric_version_id
         WHERE r.repeat = 0 AND NOT EXISTS (
               SELECT 1 FROM ratings o JOIN rubric_versions w ON w.id = o.rubric_version_id
                WHERE o.item_id = r.item_id AND o.rater_id = r.rater_id AND o.repeat = 0
                  AND o.rubric_version_id <> r.rubric_version_id
                  AND (w.created_at > v.created_at OR (w.created_at = v.created_at AND w.id > v.id)))
        """
    )


@migrations()
def m015_rubric_versions_without_examples(db: sqlite_utils.Database) -> None:
    # A rubric version is what the experts are asked; the judge's chosen few-shot examples belong to its prompt
    # version, so a rubric's content hash leaves them out (model/rubrics.py, definition_hash). An earlier release
    # recorded a change of examples as a rubric version. Those rows stay, with every rating on them, and are
    # compared as the oldest version that asks the same (store/version_rows.py, compared_versions); this gives
    # that oldest version the hash without examples, so the rubric file is found among the database's versions
    # again. A hash already held by a row of the same question is left alone (content_hash is unique).
    import json

    from judge_tui.model.rubrics import definition_hash

    held = {digest for (digest,) in db.execute("SELECT content_hash FROM rubric_versions").fetchall()}
    seen: set[tuple[str, str]] = set()
    rows = db.execute("SELECT id, rubric, definition FROM rubric_versions ORDER BY rubric, created_at, id").fetchall()
    asked_of: dict[int, str] = {}
    for version_id, _rubric, definition in rows:
        try:
            asked_of[version_id] = definition_hash(json.loads(definition))
        except (ValueError, TypeError):
            continue  # a definition this release cannot read keeps its hash
    for version_id, rubric, _definition in rows:
        asked = asked_of.get(version_id)
        if asked is None or (rubric, asked) in seen:
            continue
        seen.add((rubric, asked))
        if asked not in held:
            db.execute("UPDATE rubric_versions SET content_hash = ? WHERE id = ?", [asked, version_id])
            held.add(asked)


@migrations()
def m016_judge_decisions(db: sqlite_utils.Database) -> None:
    # Trust or escalate (analysis/certify.py): the judge's certificate in force for a rubric, with its terms, and
    # the items it marks as decided by the judge alone (kept out of the experts' queues). One certificate per
    # rubric: certifying again replaces it and its marks whole. lambda is NULL when no threshold passed (the
    # judge then decides no item); confidence names where the judge's confidence came from ("repeats", "jury",
    # or another source), so a certificate says what it was made with.
    db.execute(
        """
        CREATE TABLE judge_certificates (
            rubric TEXT PRIMARY KEY,
            judge TEXT NOT NULL,
            members TEXT NOT NULL DEFAULT '[]',
            jury_rule TEXT NOT NULL DEFAULT '',
            confidence TEXT NOT NULL,
            split TEXT NOT NULL,
            alpha REAL NOT NULL,
            delta REAL NOT NULL,
            lambda REAL,
            tolerance REAL NOT NULL,
            n INTEGER NOT NULL,
            kept INTEGER NOT NULL,
            disagreements INTEGER,
            bound REAL,
            unrated INTEGER NOT NULL,
            plan_id TEXT,
            created_at TEXT NOT NULL
        )
        """
    )
    db.execute(
        """
        CREATE TABLE judge_decisions (
            rubric TEXT NOT NULL REFERENCES judge_certificates (rubric) ON DELETE CASCADE,
            item_id TEXT NOT NULL REFERENCES items (id),
            PRIMARY KEY (rubric, item_id)
        )
        """
    )


@migrations()
def m017_judge_definitions(db: sqlite_utils.Database) -> None:
    # The judge's whole definition kept with its prompt version in the study's own database: the rubric as the
    # judge reads it (its chosen examples, few-shot count and output extras included), the rubric file's text and
    # the judge template. adopted_at is when the lead last put that version in force (the judge screen's change,
    # its revert, `rubric-change`): the judge of a study reads its definition here, never a file another study
    # may have changed. Versions recorded before hold no definition (NULL) and are never put in force again.
    db.execute("ALTER TABLE prompt_versions ADD COLUMN definition TEXT")
    db.execute("ALTER TABLE prompt_versions ADD COLUMN adopted_at TEXT")
    # A rubric version's hash now leaves out the judge's few-shot count and output extras too (model/rubrics.py,
    # JUDGE_ONLY_SETTINGS): m015's rule, applied again with that hash, gives it to the oldest version that asks
    # the same, and versions that differed only in those compare as one (version_rows.compared_versions).
    m015_rubric_versions_without_examples(db)
    # A rater's current rating of an item: their first run under the newest version asked differently, and among
    # versions that ask the same (compared_as: the oldest of them; NULL, itself) the one they rated last. A
    # re-rating under the version in force thus replaces one made under an earlier release's judge-only
    # version, where ordering by the versions' dates kept the older rating current.
    from judge_tui.store.common import record_compared_versions

    db.execute("ALTER TABLE rubric_versions ADD COLUMN compared_as INTEGER")
    record_compared_versions(db.conn)
    db.execute("DROP VIEW current_ratings")
    db.execute(
        """
        CREATE VIEW current_ratings AS
        SELECT r.* FROM ratings r JOIN rubric_versions v ON v.id = r.rubric_version_id
          JOIN rubric_versions g ON g.id = COALESCE(v.compared_as, v.id)
         WHERE r.repeat = 0 AND NOT EXISTS (
               SELECT 1 FROM ratings o JOIN rubric_versions w ON w.id = o.rubric_version_id
                 JOIN rubric_versions h ON h.id = COALESCE(w.compared_as, w.id)
                WHERE o.item_id = r.item_id AND o.rater_id = r.rater_id AND o.repeat = 0 AND o.id <> r.id
                  AND (h.created_at > g.created_at OR (h.created_at = g.created_at AND h.id > g.id)
                       OR (h.id = g.id AND (o.updated_at > r.updated_at
                                            OR (o.updated_at = r.updated_at AND o.id > r.id)))))
        """
    )
