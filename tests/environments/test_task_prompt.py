import re

from polistemics.conditions import ABSENT_SENTINEL, Variant
from polistemics.environments.absent import build_absent_items
from polistemics.environments.baseline import baseline_item
from polistemics.environments.conflict import build_contradictory_items
from polistemics.environments.task_prompt import render_context, task_messages
from polistemics.records import Evidence, Party, Position, Stance, Statement

from .helpers import FIXTURES, evidence, table


def typographic_quotes(text: str) -> str:
    """The figure typesets the apostrophe as ’; the prompt has a plain '."""
    return text.replace("\u2019", "'")


def paragraph_lines(text: str) -> list[str]:
    """The lines of a text, ignoring how they are broken.

    The HTML figure sets every prompt line as its own paragraph (blank lines between, a stray
    space at a paragraph's edge), so it cannot show whether the prompt has a line break or an
    empty line between two lines, or a final newline. Both sides are compared line by line.
    """
    return [line.strip() for line in text.splitlines() if line.strip()]


def figure6() -> tuple[str, str]:
    figure = (FIXTURES / "fig6_prompt.txt").read_text(encoding="utf-8")
    system, user = re.split(r"^User \n", figure, flags=re.MULTILINE)
    system = re.sub(r"^System \n", "", system)
    return typographic_quotes(system), typographic_quotes(user)


def cdu_csu_evidence() -> Evidence:
    position = Position(
        election_id="bundestagswahl2025",
        country="de",
        language="German",
        party=Party(id="de_cdu___csu", name="CDU / CSU", anonymized_label="Party A"),
        statement=Statement(
            id="bundestagswahl2025__s001",
            number=1,
            text="Deutschland soll die Ukraine weiterhin militärisch unterstützen.",
        ),
        stance=Stance.AGREE,
        rationale="(not shown to the answerer)",
    )
    text = (FIXTURES / "fig9_before.txt").read_text(encoding="utf-8")
    return Evidence(position=position, text=text)


def test_figure_6_baseline_prompt_for_cdu_csu():
    item = baseline_item(cdu_csu_evidence())
    assert item.observation_id == "bundestagswahl2025__de_cdu___csu__s001"
    system, user = task_messages(item)
    figure_system, figure_user = figure6()
    assert (system["role"], user["role"]) == ("system", "user")
    assert paragraph_lines(system["content"]) == paragraph_lines(figure_system)
    assert paragraph_lines(user["content"]) == paragraph_lines(figure_user)
    # Nothing else differs: no line of the prompt starts or ends with a space.
    for message in (system, user):
        assert all(line == line.strip() for line in message["content"].splitlines())


def test_figure_6_fixture_is_the_paper_text(shared_dir):
    paper = (shared_dir / "spec" / "polistemics-paper.md").read_text(encoding="utf-8")
    assert (FIXTURES / "fig6_prompt.txt").read_text(encoding="utf-8") in paper
    assert (FIXTURES / "fig9_before.txt").read_text(encoding="utf-8") in paper


def test_chunks_are_numbered_one_per_line():
    item = build_contradictory_items(table({"a": "A", "b": "D"})).items[0]
    context = render_context(item)
    assert context == f"[1] {item.chunks[0].text}\n[2] {item.chunks[1].text}"
    assert task_messages(item)[0]["content"].rstrip("\n").endswith(f"Context:\n{context}")


def test_absent_context_is_the_sentinel():
    item = build_absent_items([evidence("a", 1, "Agree")])[0]
    assert render_context(item) == ABSENT_SENTINEL
    assert task_messages(item)[0]["content"].rstrip("\n").endswith(f"Context:\n{ABSENT_SENTINEL}")


def test_language_and_party_label_follow_the_variant():
    ev = evidence("a", 1, "Agree")
    english = task_messages(baseline_item(ev, Variant.ENGLISH))
    assert "Respond in English." in english[0]["content"]
    anon = task_messages(baseline_item(ev, Variant.ANONYMIZED))
    assert anon[1]["content"].startswith("What is Party A's position")
    assert "Respond in German." in anon[0]["content"]
