"""Issue-mapping items: one per theme of two or more statements that holds a conflict; a source
without such themes is skipped with a note and counted; a theme without a conflict makes no
item; a context over the budget is refused and counted, never cut. And the per-answer checks
from a coder reading, exactly."""

from __future__ import annotations

from typer.testing import CliRunner

from polistemics.cli import app
from polistemics.records import Evidence, Stance
from polistemics.runlog import CodedStance
from polistemics.sources.load import load_election
from polistemics.sources.scope import apply_scope, load_scope
from polistemics.tasks.issue_mapping.items import build_issue_mapping_items, prompt_tokens
from polistemics.tasks.issue_mapping.metrics import check_mapping
from polistemics.tasks.navigation.coder import PanelReading

STANCE_SENTENCE = {"Agree": "supports", "Disagree": "opposes", "Neutral": "is neutral on"}


def _evidence(themes: dict[int, str], stances: dict[int, str] | None = None) -> list[Evidence]:
    scoped = apply_scope(load_election("demo"), load_scope("demo"))
    found = []
    for p in scoped.observations:
        number = p.statement.number
        statement = p.statement.model_copy(update={"theme": themes.get(number, p.statement.theme)})
        stance = Stance((stances or {}).get(number, p.stance.value))
        position = p.model_copy(update={"statement": statement, "stance": stance})
        found.append(
            Evidence(
                position=position,
                text=f"[PARTY] {STANCE_SENTENCE[stance.value]} this measure. [PARTY] says why.",
            )
        )
    return found


def test_a_source_without_grouping_themes_is_skipped_with_a_note() -> None:
    built = build_issue_mapping_items(_evidence({}), election_id="demo_en")
    assert built.items == [] and built.counts == {"elections_without_themes": 1}
    assert built.notes == [
        "demo_en: issue mapping skipped: the source groups no two statements under one theme "
        "(it has no themes, or one per statement)"
    ]


def test_one_item_per_theme_with_a_conflict_and_the_rest_counted() -> None:
    # statements 2 and 5 everyone agrees with: a theme of them has no conflict
    evidence = _evidence(
        {1: "Work", 4: "Work", 2: "Calm", 5: "Calm"}, stances={2: "Agree", 5: "Agree"}
    )
    built = build_issue_mapping_items(evidence, election_id="demo_en")
    assert [(i.theme, [s.number for s in i.statements]) for i in built.items] == [("Work", [1, 4])]
    assert built.counts == {"themes": 2, "themes_without_conflict": 1}
    item = built.items[0]
    assert [s.number for s in item.conflicts] == [1, 4]
    assert len(item.chunks) == len(item.chunk_statements) == 2 * len(item.parties)
    tight = build_issue_mapping_items(
        evidence, election_id="demo_en", token_budget=prompt_tokens(item) - 1
    )
    assert tight.items == [] and tight.counts["refused_over_budget"] == 1


def test_the_checks_of_one_answer_follow_the_coder_reading_exactly() -> None:
    item = build_issue_mapping_items(
        _evidence({1: "Work", 4: "Work"}), election_id="demo_en"
    ).items[0]
    first, second = item.conflicts
    names = {p.party_id: p.party_name for p in item.parties}
    right = {names[pid]: CodedStance(stance.value.lower()) for pid, stance in first.stances.items()}
    # conflict 1 read right; conflict 2: one party left out, one on the wrong side, one invented
    wrong = dict(
        list({names[p]: CodedStance(s.value.lower()) for p, s in second.stances.items()}.items())[
            1:
        ]
    )
    flipped = next(n for n, s in wrong.items() if s in (CodedStance.AGREE, CodedStance.DISAGREE))
    wrong[flipped] = (
        CodedStance.DISAGREE if wrong[flipped] is CodedStance.AGREE else CodedStance.AGREE
    )
    wrong["Phantom Party"] = CodedStance.AGREE
    check = check_mapping(
        item,
        {
            first.statement_id: PanelReading(right, 1),
            second.statement_id: PanelReading(wrong, 1),
        },
    )
    pairs = len(first.stances) + len(second.stances)
    assert (check.pairs, check.placed, check.placed_true) == (pairs, pairs - 1, pairs - 2)
    assert check.conflicts == 2 and check.invented == ("Phantom Party",)
    assert check.conflicts_covered >= 1
    unread = check_mapping(item, {first.statement_id: PanelReading(right, 1)})
    assert unread.unread_conflicts == 1 and unread.conflicts == 1


def test_the_dry_run_plans_the_task_per_task(tmp_path) -> None:
    tasks = ["party_position", "issue_mapping"]
    config = tmp_path / "study.toml"
    config.write_text(
        'name = "t"\ntargets = ["local"]\njudges = ["local"]\nstandardiser = "local"\n'
        'vague_generator = "local"\nvague_auditor = "local"\nstance_coder = "local"\n'
        f"tasks = {tasks!r}\n".replace("'", '"')
        + '\n[[elections]]\nsource = "demo"\n',
        encoding="utf-8",
    )
    result = CliRunner().invoke(app, ["run", str(config), "--dry-run"])
    assert result.exit_code == 0, result.output
    # the demo names each statement its own theme: no item, and the line says why
    assert "issue_mapping: about 0 items" in result.output
    assert "an election without such themes is skipped" in result.output
    assert "issue_mapping: demo_en skipped: the source groups no two statements" in result.output
    assert "task issue_mapping: 0 calls" in result.output
    assert "task party_position:" in result.output
