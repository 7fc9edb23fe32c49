"""The JSON the annotation page gets: an item blind (what the judges were shown, the annotator's
own labels) and the reveal (the target model and each panel seat's verdicts beside the
annotator's), which the server sends only as its policy allows (``server._reveal_of``: with
``--reveal``, once the annotator's whole assignment is done).

Blindness is by construction: ``blind_item`` reads only ``ItemView.content``, which holds no
verdict and no model name; ``reveal_verdicts`` is the one function that reads
``ItemView.reveal``, and it refuses while a sub-question is unanswered.
"""

from __future__ import annotations

from collections.abc import Sequence

from polistemics.annotate.item_view import ItemView
from polistemics.annotate.store import Label


class NotAnsweredYet(ValueError):
    """The reveal was asked for before the annotator answered every sub-question."""


def _verdict_word(value: bool | None) -> str:
    return "missing" if value is None else "Yes" if value else "No"


def own_labels(labels: Sequence[Label]) -> dict[str, dict]:
    """The annotator's labels on one item, by sub-question code."""
    return {
        label.sub_question: {"says_yes": label.says_yes, "note": label.note} for label in labels
    }


def is_complete(view: ItemView, labels: Sequence[Label]) -> bool:
    answered = {label.sub_question for label in labels}
    return all(sq.code in answered for sq in view.content.sub_questions)


def blind_item(view: ItemView, labels: Sequence[Label]) -> dict:
    """What the page shows before answering: the item as the judges saw it, no verdicts."""
    return {**view.content.model_dump(mode="json"), "labels": own_labels(labels)}


def reveal_verdicts(view: ItemView, labels: Sequence[Label]) -> dict:
    """The model and the panel's verdicts beside the annotator's own, per sub-question."""
    if not is_complete(view, labels):
        raise NotAnsweredYet("the panel's verdicts are shown only after every sub-question")
    mine = own_labels(labels)
    panel = view.reveal
    rows = [
        {
            "code": sq.code,
            "you": _verdict_word(mine[sq.code]["says_yes"]),
            "judges": [_verdict_word(seat.says_yes.get(sq.code)) for seat in panel.judges],
            "majority": _verdict_word(panel.majority.get(sq.code)),
        }
        for sq in view.content.sub_questions
    ]
    return {
        "model": panel.model,
        "judges": [seat.seat for seat in panel.judges],
        "rows": rows,
        "judges_agreed": panel.judges_agreed,
    }
