"""The human annotation sample and its labels, in the run's SQLite store (issue 17).

Two tables live beside the call cache in ``store.sqlite`` (``runlog.RunDir.store``):
``annotation_sample`` (the drawn answer x rubric items, in draw order) and ``annotation_labels``
(one row per annotator x item x sub-question). Each label is one ``BEGIN IMMEDIATE`` transaction
committed with ``synchronous=FULL`` before ``add_label`` returns, so neither a killed server nor a
power cut loses a given label; the primary key makes a second label for the same
(annotator, item, sub-question) impossible, across threads and processes alike.

Labels are never deleted or changed: a sample can only be replaced while it has none.
``annotation_reveals`` records each time the app showed an annotator the panel's verdicts on an
item, with the commit position (``rowid``) of the last label stored then. A label counts in the
statistics only if it was stored before its annotator saw any verdict and before anyone saw
its item's verdicts (``counted_labels``); ``add_label`` refuses such labels outright.
A fourth table, ``annotation_views``, is a cache: what the app shows of each sample item
(``item_view``), saved with a fingerprint of the run files it was read from, so that a server
start need not read ~150 MB of run files again. Replacing the sample empties it.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import defaultdict
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from polistemics.conditions import Environment
from polistemics.rubrics import BY_CODE, BY_KEY, Rubric, SubQuestion, sub_questions
from polistemics.runlog import RunDir
from polistemics.sqlite_files import wal_connection
from polistemics.tasks import PARTY_POSITION, TASKS, TaskSubQuestion

SCHEMA = """
CREATE TABLE IF NOT EXISTS annotation_sample (
    sample_id TEXT PRIMARY KEY,
    item_key TEXT NOT NULL,
    model TEXT NOT NULL,
    sample_index INTEGER NOT NULL,
    rubric TEXT NOT NULL,
    environment TEXT NOT NULL,
    language TEXT NOT NULL,
    stratum TEXT NOT NULL,
    judges_agreed INTEGER NOT NULL,
    weight REAL NOT NULL,
    annotators_wanted INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    task TEXT NOT NULL DEFAULT 'party_position'
);
CREATE TABLE IF NOT EXISTS annotation_labels (
    annotator TEXT NOT NULL,
    sample_id TEXT NOT NULL REFERENCES annotation_sample,
    sub_question TEXT NOT NULL,
    says_yes INTEGER NOT NULL,
    note TEXT,
    given_at TEXT NOT NULL,
    source TEXT NOT NULL,
    PRIMARY KEY (annotator, sample_id, sub_question)
);
CREATE INDEX IF NOT EXISTS annotation_labels_item ON annotation_labels(sample_id);
CREATE TABLE IF NOT EXISTS annotation_reveals (
    annotator TEXT NOT NULL,
    sample_id TEXT NOT NULL REFERENCES annotation_sample,
    revealed_at TEXT NOT NULL,
    label_watermark INTEGER NOT NULL,
    PRIMARY KEY (annotator, sample_id)
);
CREATE TABLE IF NOT EXISTS annotation_views (
    sample_id TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    view TEXT NOT NULL
);
"""

MAX_ANNOTATOR_LENGTH = 64
MAX_NOTE_LENGTH = 4000  # a note is a remark, not a document: a bound keeps the store small
MIN_SAMPLE_ID_DIGITS = 4

SAMPLE_COLUMNS = (
    "sample_id",
    "item_key",
    "model",
    "sample_index",
    "rubric",
    "environment",
    "language",
    "stratum",
    "judges_agreed",
    "weight",
    "annotators_wanted",
    "seed",
    "task",
)
# A label is not blind when it was stored after its annotator saw any verdict, or after anyone
# saw its item's verdicts (names are not authentication: another name may be the same person).
# Labels are never deleted, so rowid is their commit order; a reveal keeps the last rowid then.
_AFTER_A_REVEAL = """EXISTS (
    SELECT 1 FROM annotation_reveals AS r
    WHERE (r.annotator = annotation_labels.annotator OR r.sample_id = annotation_labels.sample_id)
      AND annotation_labels.rowid > r.label_watermark
)"""
_LABEL_COLUMNS = (
    "annotator",
    "sample_id",
    "sub_question",
    "says_yes",
    "note",
    "given_at",
    "source",
)


def sample_id_for(draw_number: int, sample_size: int) -> str:
    """``a0001`` for the first item drawn: one width for the whole sample, so that ids sort in
    draw order whatever its size."""
    digits = max(MIN_SAMPLE_ID_DIGITS, len(str(sample_size)))
    return f"a{draw_number:0{digits}d}"


class SampleItem(BaseModel):
    """One drawn answer x rubric, as stored in ``annotation_sample``."""

    model_config = ConfigDict(frozen=True)

    sample_id: str
    item_key: str  # EnvironmentItem.key
    model: str  # the target model whose answer is labelled
    sample_index: int  # the answer's sample index
    rubric: Rubric
    environment: Environment
    language: str
    stratum: str  # "<environment>|<rubric>|agreed" or "...|split"
    judges_agreed: bool  # every panel judge gave the same verdicts
    weight: float  # inverse inclusion probability: stratum size / drawn
    annotators_wanted: int  # overlap: how many annotators should label it
    seed: int
    task: str = PARTY_POSITION  # the task of the answer (issue 29; polistemics.tasks)

    @property
    def sub_questions(self) -> list[SubQuestion] | list[TaskSubQuestion]:
        """The sub-questions the judges answered on this item: App. F's, in App. F order, for
        the paper's task; the task's own table (docs/tasks.md) for another."""
        if self.task == PARTY_POSITION:
            return sub_questions(self.rubric, self.environment)
        return list(TASKS[self.task].active_questions(self.environment, self.rubric))


class Label(BaseModel):
    """One annotator's Yes/No on one sub-question of one sample item."""

    model_config = ConfigDict(frozen=True)

    annotator: str
    sample_id: str
    sub_question: str  # sub-question code as in rubrics.py, e.g. "F1"
    says_yes: bool
    note: str | None = None
    given_at: datetime  # UTC
    source: Literal["app", "import"] = "app"


class LabelRefused(ValueError):
    """A label that cannot be stored; ``reason`` says why in words an annotator understands."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class LabelNotBlind(LabelRefused):
    """A label refused because the panel's verdicts were shown to its annotator or on its item."""


class SampleExistsError(ValueError):
    """The run already has a sample that may not be replaced."""


def clean_annotator(name: object) -> str:
    """The annotator's name, stripped; refused when empty or longer than 64 characters.

    A name is not an identity check (the app says so): any other text is accepted.
    """
    if not isinstance(name, str):
        raise LabelRefused("the annotator name must be text")
    cleaned = name.strip()
    if not cleaned:
        raise LabelRefused("the annotator name is empty")
    if "\x00" in cleaned:  # cut short by C strings, SQLite tools and terminals; other text is kept
        raise LabelRefused("the annotator name holds a NUL character")
    if len(cleaned) > MAX_ANNOTATOR_LENGTH:
        raise LabelRefused(
            f"the annotator name is longer than {MAX_ANNOTATOR_LENGTH} characters ({len(cleaned)})"
        )
    return cleaned


def _sub_question_code(item: SampleItem, sub_question: object) -> str:
    """The code of an active sub-question of the item (a release key is accepted too)."""
    if not isinstance(sub_question, str):
        raise LabelRefused("the sub-question must be text, e.g. 'F1'")
    if item.task != PARTY_POSITION:
        return _task_sub_question_code(item, sub_question.strip())
    found = BY_CODE.get(sub_question.strip()) or BY_KEY.get(sub_question.strip())
    if found is None:
        raise LabelRefused(f"unknown sub-question {sub_question!r}")
    active = item.sub_questions
    if found not in active:
        codes = ", ".join(sq.code for sq in active)
        raise LabelRefused(
            f"sub-question {found.code} is not asked for {item.rubric.label} in "
            f"{item.environment.label} (item {item.sample_id} asks {codes})"
        )
    return found.code


def _task_sub_question_code(item: SampleItem, sub_question: str) -> str:
    """The code of an active sub-question of an item of a task beyond the paper's (by its code
    or key in the task's table)."""
    task = TASKS[item.task]
    found = next((sq for sq in task.sub_questions if sub_question in (sq.code, sq.key)), None)
    if found is None:
        raise LabelRefused(f"unknown sub-question {sub_question!r} of the {task.label} task")
    active = item.sub_questions
    if found not in active:
        codes = ", ".join(sq.code for sq in active)
        raise LabelRefused(
            f"sub-question {found.code} is not asked for {item.rubric.label} in "
            f"{item.environment.label} (item {item.sample_id} asks {codes})"
        )
    return found.code


def _connect(path: Path) -> sqlite3.Connection:
    # FULL: a label survives a power cut once its commit returns (NORMAL covers crashes only).
    db = wal_connection(path, synchronous="FULL")
    db.execute("PRAGMA foreign_keys=ON")
    return db


def _add_task_column(db: sqlite3.Connection) -> None:
    """A store made before tasks (issue 29) gets the ``task`` column; its items are the paper's
    task's."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(annotation_sample)")}
    if "task" not in columns:
        db.execute(
            "ALTER TABLE annotation_sample ADD COLUMN task TEXT NOT NULL DEFAULT 'party_position'"
        )


class AnnotationStore:
    """The annotation tables of one run; thread-safe, and safe to open from several processes."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._lock = threading.Lock()
        self._db = _connect(self.path)
        self._db.executescript(SCHEMA)
        _add_task_column(self._db)
        self._sample_cache: tuple[int, list[SampleItem], dict[str, SampleItem]] | None = None

    @classmethod
    def open(cls, run_dir: Path | str) -> AnnotationStore:
        """The store of ``run_dir`` (its ``store.sqlite``, created with the tables if missing)."""
        run_dir = Path(run_dir)
        if not run_dir.is_dir():
            raise FileNotFoundError(f"run directory {run_dir} does not exist")
        return cls(RunDir(run_dir).store)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> AnnotationStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the sample ---------------------------------------------------------------------------

    def sample(self) -> list[SampleItem]:
        """Every sample item, in draw order."""
        with self._lock:
            return list(self._cached_sample()[1])

    def sample_item(self, sample_id: str) -> SampleItem | None:
        with self._lock:
            return self._cached_sample()[2].get(sample_id)

    def write_sample(self, items: Iterable[SampleItem], *, replace: bool = False) -> None:
        """Store a drawn sample. An existing sample is kept unless ``replace``, and a sample
        with labels is never replaced (labels are never deleted)."""
        rows = [tuple(_sample_row(item)) for item in items]
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                (labels,) = db.execute("SELECT COUNT(*) FROM annotation_labels").fetchone()
                (drawn,) = db.execute("SELECT COUNT(*) FROM annotation_sample").fetchone()
                if labels:
                    raise SampleExistsError(
                        f"the run already has a sample with {labels} labels; labels are never "
                        "deleted, so the sample cannot be replaced"
                    )
                if drawn and not replace:
                    raise SampleExistsError(
                        f"the run already has a sample of {drawn} items (no labels yet); "
                        "pass --replace to draw a new one"
                    )
                db.execute("DELETE FROM annotation_views")
                db.execute("DELETE FROM annotation_sample")
                db.executemany(
                    f"INSERT INTO annotation_sample ({', '.join(SAMPLE_COLUMNS)}) "
                    f"VALUES ({', '.join('?' * len(SAMPLE_COLUMNS))})",
                    rows,
                )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            self._sample_cache = None

    def _cached_sample(self) -> tuple[int, list[SampleItem], dict[str, SampleItem]]:
        """The sample, read again only when the database changed (``data_version`` covers other
        connections' commits, the ``write_sample`` reset this connection's)."""
        (version,) = self._db.execute("PRAGMA data_version").fetchone()
        if self._sample_cache is None or self._sample_cache[0] != version:
            rows = self._db.execute(
                f"SELECT {', '.join(SAMPLE_COLUMNS)} FROM annotation_sample ORDER BY sample_id"
            ).fetchall()
            items = [SampleItem(**dict(zip(SAMPLE_COLUMNS, row, strict=True))) for row in rows]
            self._sample_cache = (version, items, {item.sample_id: item for item in items})
        return self._sample_cache

    # -- the item view cache ------------------------------------------------------------------

    def save_views(self, fingerprint: str, views: dict[str, str]) -> None:
        """Replace the cached item views (sample id -> JSON) read from run files ``fingerprint``."""
        rows = [(sample_id, fingerprint, view) for sample_id, view in views.items()]
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute("DELETE FROM annotation_views")
                self._db.executemany(
                    "INSERT INTO annotation_views (sample_id, fingerprint, view) VALUES (?,?,?)",
                    rows,
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def cached_views(self, fingerprint: str) -> dict[str, str]:
        """The cached item views read from run files with this fingerprint (sample id -> JSON)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT sample_id, view FROM annotation_views WHERE fingerprint = ?", (fingerprint,)
            ).fetchall()
        return dict(rows)

    # -- labels -------------------------------------------------------------------------------

    def add_label(
        self,
        annotator: str,
        sample_id: str,
        sub_question: str,
        says_yes: bool,
        note: str | None = None,
        source: Literal["app", "import"] = "app",
        given_at: datetime | None = None,
    ) -> Label:
        """Store one label and commit it; refused (``LabelRefused``) for an unknown item, a
        sub-question the item's rubric does not ask in its environment, a duplicate or a bad
        annotator name. ``given_at`` (default now) lets an import keep when it was given."""
        name = clean_annotator(annotator)
        if not isinstance(says_yes, bool):
            raise LabelRefused("the verdict must be Yes or No")
        if note is not None and not isinstance(note, str):
            raise LabelRefused("the note must be text")
        note = (note or "").strip() or None
        if note is not None and len(note) > MAX_NOTE_LENGTH:
            raise LabelRefused(f"the note is longer than {MAX_NOTE_LENGTH} characters")
        if source not in ("app", "import"):
            raise LabelRefused(f"unknown label source {source!r}")
        when = (given_at or datetime.now(UTC)).astimezone(UTC)
        with self._lock:
            item = self._cached_sample()[2].get(sample_id) if isinstance(sample_id, str) else None
            if item is None:
                raise LabelRefused(f"item {sample_id!r} is not in the run's annotation sample")
            code = _sub_question_code(item, sub_question)
            label = Label(
                annotator=name,
                sample_id=item.sample_id,
                sub_question=code,
                says_yes=says_yes,
                note=note,
                given_at=when,
                source=source,
            )
            try:
                # One statement is one transaction: the primary key settles races, and no
                # reveal can slip in between the check for one and the insert.
                stored = self._db.execute(
                    f"INSERT INTO annotation_labels ({', '.join(_LABEL_COLUMNS)}) "
                    "SELECT ?,?,?,?,?,?,? WHERE NOT EXISTS (SELECT 1 FROM annotation_reveals "
                    "WHERE annotator = ? OR sample_id = ?)",
                    (
                        *(name, item.sample_id, code, int(says_yes), note, when.isoformat()),
                        source,
                        name,
                        item.sample_id,
                    ),
                ).rowcount
            except sqlite3.IntegrityError as exc:
                if "UNIQUE" in str(exc) or "PRIMARY KEY" in str(exc):
                    raise LabelRefused(
                        f"{name} already labelled {code} of item {item.sample_id}"
                    ) from None
                # The foreign key: the sample was replaced by another process meanwhile.
                raise LabelRefused(
                    f"item {item.sample_id!r} is not in the run's annotation sample"
                ) from None
            if not stored:
                raise LabelNotBlind(self._why_not_blind(name, item.sample_id))
        return label

    def _why_not_blind(self, annotator: str, sample_id: str) -> str:
        (seen,) = self._db.execute(
            "SELECT COUNT(*) FROM annotation_reveals WHERE annotator = ?", (annotator,)
        ).fetchone()
        if seen:
            return (
                f"{annotator} has seen the panel's verdicts, so their labels are no longer "
                "blind and none is taken any more"
            )
        return (
            f"the panel's verdicts on item {sample_id} have been shown, so labels on it are no "
            "longer blind and none is taken any more"
        )

    def labels(self, annotator: str | None = None, sample_id: str | None = None) -> list[Label]:
        """Stored labels in the order they were committed, optionally of one annotator/item."""
        where, args = [], []
        if annotator is not None:
            where.append("annotator = ?")
            args.append(annotator.strip())
        if sample_id is not None:
            where.append("sample_id = ?")
            args.append(sample_id)
        sql = f"SELECT {', '.join(_LABEL_COLUMNS)} FROM annotation_labels"
        if where:
            sql += " WHERE " + " AND ".join(where)
        with self._lock:
            rows = self._db.execute(sql + " ORDER BY rowid", args).fetchall()
        return [_label_from_row(row) for row in rows]

    def counted_labels(self) -> list[Label]:
        """The labels the statistics use: those stored before their annotator saw any of the
        panel's verdicts and before anyone saw their item's verdicts (docs/annotation-app.md)."""
        sql = f"SELECT {', '.join(_LABEL_COLUMNS)} FROM annotation_labels"
        with self._lock:
            rows = self._db.execute(f"{sql} WHERE NOT {_AFTER_A_REVEAL} ORDER BY rowid").fetchall()
        return [_label_from_row(row) for row in rows]

    def labels_after_a_reveal(self) -> int:
        """How many stored labels are not counted, because they were given after a reveal."""
        with self._lock:
            (n,) = self._db.execute(
                f"SELECT COUNT(*) FROM annotation_labels WHERE {_AFTER_A_REVEAL}"
            ).fetchone()
        return n

    def annotators(self) -> list[str]:
        with self._lock:
            rows = self._db.execute(
                "SELECT DISTINCT annotator FROM annotation_labels ORDER BY annotator"
            ).fetchall()
        return [row[0] for row in rows]

    # -- who labels what next -----------------------------------------------------------------

    def available_for(self, annotator: str) -> list[tuple[SampleItem, bool]]:
        """The items open to ``annotator`` in draw order, each with whether they finished it.

        Open: the annotator has labelled part of it already, or fewer annotators than it wants
        have started it (the overlap is respected).
        """
        name = clean_annotator(annotator)
        with self._lock:
            items = self._cached_sample()[1]
            counts = self._db.execute(
                "SELECT sample_id, annotator, COUNT(*) FROM annotation_labels "
                "GROUP BY sample_id, annotator"
            ).fetchall()
        others: dict[str, int] = defaultdict(int)
        mine: dict[str, int] = {}
        for sample_id, who, n in counts:
            if who == name:
                mine[sample_id] = n
            else:
                others[sample_id] += 1
        open_items = []
        for item in items:
            if item.sample_id in mine:
                open_items.append((item, mine[item.sample_id] >= len(item.sub_questions)))
            elif others[item.sample_id] < item.annotators_wanted:
                open_items.append((item, False))
        return open_items

    def next_for(
        self, annotator: str, *, after: str | None = None, task: str | None = None
    ) -> SampleItem | None:
        """The first item in draw order that ``annotator`` has not fully labelled among those
        open to them; with ``after`` (a sample id, for skipping) the first one after it; with
        ``task``, only that task's items (issue 29)."""
        for item, done in self.available_for(annotator):
            # Ids share one width within a sample, so they compare in draw order.
            if task is not None and item.task != task:
                continue
            if not done and (after is None or item.sample_id > after):
                return item
        return None

    def task_counts(self) -> dict[str, int]:
        """The sample's items per task, in the order the tasks are first drawn."""
        counts: dict[str, int] = {}
        for item in self.sample():
            counts[item.task] = counts.get(item.task, 0) + 1
        return counts

    def progress(self, annotator: str) -> tuple[int, int]:
        """(items this annotator fully labelled, items open to them)."""
        open_items = self.available_for(annotator)
        return sum(done for _, done in open_items), len(open_items)

    # -- the reveal ---------------------------------------------------------------------------

    def assignment_done(self, annotator: str) -> bool:
        """Whether ``annotator`` has finished their whole assignment: every item open to them
        (``available_for``) fully labelled. A name that has labelled nothing yet has every
        item nobody else took still open to it."""
        return all(done for _, done in self.available_for(annotator))

    def revealable(self, annotator: str) -> list[SampleItem]:
        """The items whose panel verdicts ``annotator`` may see now (the ``--reveal`` policy):
        none until their whole assignment is done; then each item they fully labelled that is
        closed, i.e. labelled fully by as many annotators as it wants and by everyone who
        started it, so that showing it spoils no one's blind label on it."""
        name = clean_annotator(annotator)
        if not self.assignment_done(name):
            return []
        with self._lock:
            items = self._cached_sample()[1]
            counts = self._db.execute(
                "SELECT sample_id, annotator, COUNT(*) FROM annotation_labels "
                "GROUP BY sample_id, annotator"
            ).fetchall()
        wanted = {item.sample_id: len(item.sub_questions) for item in items}
        finished: dict[str, set[str]] = defaultdict(set)
        started: dict[str, set[str]] = defaultdict(set)
        for sample_id, who, n in counts:
            started[sample_id].add(who)
            if n >= wanted.get(sample_id, n + 1):
                finished[sample_id].add(who)
        return [
            item
            for item in items
            if name in finished[item.sample_id]
            and finished[item.sample_id] == started[item.sample_id]
            and len(finished[item.sample_id]) >= item.annotators_wanted
        ]

    def record_reveal(self, annotator: str, sample_id: str) -> None:
        """Note that ``annotator`` is being shown the panel's verdicts on ``sample_id`` (kept
        with the last label stored now; every later label of theirs, or on the item, is not
        blind). Committed before the verdicts are sent."""
        name = clean_annotator(annotator)
        with self._lock:
            self._db.execute(
                "INSERT OR IGNORE INTO annotation_reveals "
                "(annotator, sample_id, revealed_at, label_watermark) "
                "SELECT ?, ?, ?, COALESCE(MAX(rowid), 0) FROM annotation_labels",
                (name, sample_id, datetime.now(UTC).isoformat()),
            )

    def revealed(self, annotator: str | None = None) -> list[tuple[str, str]]:
        """(annotator, sample id) of every reveal so far, optionally of one annotator."""
        sql = "SELECT annotator, sample_id FROM annotation_reveals"
        args: tuple = ()
        if annotator is not None:
            sql, args = sql + " WHERE annotator = ?", (annotator.strip(),)
        with self._lock:
            return [tuple(row) for row in self._db.execute(sql + " ORDER BY rowid", args)]


def _sample_row(item: SampleItem) -> list:
    values = item.model_dump()
    values["rubric"] = item.rubric.value
    values["environment"] = item.environment.value
    values["judges_agreed"] = int(item.judges_agreed)
    return [values[name] for name in SAMPLE_COLUMNS]


def _label_from_row(row: tuple) -> Label:
    values = dict(zip(_LABEL_COLUMNS, row, strict=True))
    values["says_yes"] = bool(values["says_yes"])
    values["given_at"] = datetime.fromisoformat(values["given_at"])
    return Label(**values)
