"""Deterministic, plausible answers for each benchmark stage, recognised from its prompt.

``polistemic_responder(request_json)`` reads an OpenAI chat request and answers as a compliant
model would for the stage whose template (``polistemics/prompts/*.txt``) the system message uses:

- standardisation: JSON ``{"third_person_rationale", "stance_is_explicit": true}``, five
  sentences opening "[PARTY] <stance verb> this measure." in the rationale's language
  (English, German or Dutch, guessed from stopwords; English by default);
- vague generation: JSON ``{"vague_rationale", "vagueness_modes_used": [mode number]}``;
- vague audit: ``{"determinable": false}``;
- judge: one "N. Yes" / "N. No" line per listed question; with a ``response_format`` or a
  forced tool it answers JSON instead (see ``judge_json``), which the server sends as the tool
  call's arguments when a tool is forced;
- stance coder: ``{"stance", "outside_knowledge"}`` coded from the task answer's phrases
  (``testing/stance_coder.py``);
- anything else (the task prompt): a short answer citing [1], in the requested language.

Choices that would vary between real models (judge verdicts, the task answer's stance) come from
a hash of the prompt, so they differ across prompts but repeat exactly for the same prompt.
"""

from __future__ import annotations

import json
import re
import threading
from collections import Counter
from collections.abc import Callable

from polistemics.conditions import ABSENT_SENTINEL
from polistemics.prompts import vague_modes
from polistemics.testing.comparison import (
    COMPARISON_CODER_MARKER,
    COMPARISON_JUDGE_MARKER,
    COMPARISON_QUESTION,
    comparison_answer,
    comparison_judge_verdicts,
)
from polistemics.testing.completions import content_text, forced_tool_parameters
from polistemics.testing.faults import stable_fraction
from polistemics.testing.issue_mapping import (
    ISSUE_MAPPING_JUDGE_MARKER,
    ISSUE_MAPPING_QUESTION,
    issue_mapping_answer,
    issue_mapping_coder_reply,
    issue_mapping_judge_verdicts,
)
from polistemics.testing.navigation import (
    NAVIGATION_CODER_MARKER,
    NAVIGATION_JUDGE_MARKER,
    NAVIGATION_QUESTION,
    navigation_answer,
    navigation_coder_reply,
    navigation_judge_verdicts,
)
from polistemics.testing.stance_coder import STANCE_CODER_MARKER, stance_coder_reply

STANDARDISE_MARKER = "You are an expert political data standardizer"
VAGUE_MARKER = "You are an expert in political framing"
VAGUE_AUDIT_MARKER = "Can you definitively determine"
JUDGE_MARKER = "You are an expert evaluator"
ANSWERER_MARKER = "You are a helpful assistant. Use the provided context"

_STOPWORDS = {
    "en": {
        "the",
        "and",
        "is",
        "of",
        "to",
        "we",
        "our",
        "that",
        "for",
        "in",
        "are",
        "not",
        "this",
        "it",
    },
    "de": {
        "der",
        "die",
        "das",
        "und",
        "ist",
        "nicht",
        "wir",
        "für",
        "zu",
        "mit",
        "ein",
        "eine",
        "den",
        "von",
        "auf",
        "sich",
        "dass",
        "unsere",
        "werden",
    },
    "nl": {
        "de",
        "het",
        "en",
        "een",
        "van",
        "is",
        "niet",
        "wij",
        "voor",
        "op",
        "met",
        "dat",
        "zijn",
        "te",
        "ook",
        "onze",
        "moet",
        "worden",
    },
}
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)

_STANCE_SENTENCE = {
    "en": {
        "agree": "[PARTY] supports this measure.",
        "disagree": "[PARTY] opposes this measure.",
        "neutral": "[PARTY] takes a neutral position on this measure.",
    },
    "de": {
        "agree": "[PARTY] unterstützt diese Maßnahme.",
        "disagree": "[PARTY] lehnt diese Maßnahme ab.",
        "neutral": "[PARTY] verhält sich neutral zu dieser Maßnahme.",
    },
    "nl": {
        "agree": "[PARTY] steunt deze maatregel.",
        "disagree": "[PARTY] is tegen deze maatregel.",
        "neutral": "[PARTY] neemt een neutrale positie in ten aanzien van deze maatregel.",
    },
}
_STANDARDISED_BODY = {
    "en": (
        "According to [PARTY], the question deserves clear and decisive political attention. "
        "The party grounds its reasoning in the concrete consequences for citizens. "
        "It stresses that the current situation cannot simply be left as it is. "
        "[PARTY] presents this position as a matter of principle rather than convenience."
    ),
    "de": (
        "Nach Auffassung von [PARTY] verdient die Frage klare und entschlossene politische Aufmerksamkeit. "
        "Die Partei begründet ihre Haltung mit den konkreten Folgen für die Bürgerinnen und Bürger. "
        "Sie betont, dass die gegenwärtige Lage nicht einfach so bleiben kann. "
        "[PARTY] stellt diese Position als Grundsatzfrage und nicht als Frage der Bequemlichkeit dar."
    ),
    "nl": (
        "Volgens [PARTY] verdient de kwestie duidelijke en daadkrachtige politieke aandacht. "
        "De partij onderbouwt haar standpunt met de concrete gevolgen voor burgers. "
        "Zij benadrukt dat de huidige situatie niet zomaar kan blijven zoals die is. "
        "[PARTY] presenteert dit standpunt als een principekwestie en niet als een kwestie van gemak."
    ),
}
# One sentence per vagueness mode (paper Table 7), between a shared opening and closing.
_VAGUE_TEXT = {
    "en": (
        "[PARTY] treats this issue as a matter of the highest priority.",
        {
            1: "Any decision must align with the core values that [PARTY] has always defended.",
            2: "[PARTY] insists on independent audits and a flawless implementation framework first.",
            3: "The serious risks involved have to be weighed against an undeniable necessity.",
            4: "[PARTY] frames the question as a balance between economic growth and social stability.",
            5: "Any movement is conceivable only if it places no disproportionate burden on households.",
        },
        "The party is determined to address the question head-on and with full commitment. "
        "Citizens can expect [PARTY] to keep this topic at the top of the agenda. "
        "What matters most is getting the approach exactly right.",
    ),
    "de": (
        "[PARTY] behandelt dieses Thema mit höchster Priorität.",
        {
            1: "Jede Entscheidung muss mit den Grundwerten übereinstimmen, für die [PARTY] steht.",
            2: "[PARTY] verlangt zuerst unabhängige Prüfungen und eine fehlerfreie Umsetzung.",
            3: "Die ernsten Risiken müssen gegen eine unbestreitbare Notwendigkeit abgewogen werden.",
            4: "[PARTY] sieht die Frage als Abwägung zwischen Wirtschaftswachstum und sozialer Stabilität.",
            5: "Bewegung ist nur denkbar, wenn keine unverhältnismäßige Belastung der Haushalte entsteht.",
        },
        "Die Partei will die Frage entschlossen und mit vollem Einsatz angehen. "
        "Die Bürgerinnen und Bürger können erwarten, dass [PARTY] das Thema weit oben hält. "
        "Entscheidend ist, den richtigen Weg zu finden.",
    ),
    "nl": (
        "[PARTY] behandelt deze kwestie als een zaak van de hoogste prioriteit.",
        {
            1: "Elk besluit moet aansluiten bij de kernwaarden waar [PARTY] altijd voor heeft gestaan.",
            2: "[PARTY] eist eerst onafhankelijke audits en een foutloze uitvoering.",
            3: "De ernstige risico's moeten worden afgewogen tegen een onmiskenbare noodzaak.",
            4: "[PARTY] ziet de vraag als een afweging tussen economische groei en sociale stabiliteit.",
            5: "Beweging is alleen denkbaar als huishoudens niet onevenredig worden belast.",
        },
        "De partij wil de kwestie vastberaden en met volle inzet aanpakken. "
        "Burgers kunnen verwachten dat [PARTY] dit onderwerp hoog op de agenda houdt. "
        "Waar het om gaat, is de juiste aanpak te vinden.",
    ),
}
_TASK_ANSWER = {
    "en": {
        "supports": 'According to the provided context, {party} supports the statement "{statement}" [1].',
        "opposes": 'According to the provided context, {party} opposes the statement "{statement}" [1].',
        "unclear": 'The provided context does not make clear whether {party} supports "{statement}" [1].',
        "absent": "The provided context does not contain information about {party}'s position on this statement.",
    },
    "de": {
        "supports": "Laut dem bereitgestellten Kontext unterstützt {party} die Aussage „{statement}“ [1].",
        "opposes": "Laut dem bereitgestellten Kontext lehnt {party} die Aussage „{statement}“ ab [1].",
        "unclear": "Aus dem bereitgestellten Kontext geht nicht klar hervor, ob {party} „{statement}“ unterstützt [1].",
        "absent": "Der bereitgestellte Kontext enthält keine Informationen zur Position von {party} zu dieser Aussage.",
    },
    "nl": {
        "supports": 'Volgens de aangeleverde context steunt {party} de stelling "{statement}" [1].',
        "opposes": 'Volgens de aangeleverde context is {party} tegen de stelling "{statement}" [1].',
        "unclear": 'Uit de aangeleverde context blijkt niet duidelijk of {party} "{statement}" steunt [1].',
        "absent": "De aangeleverde context bevat geen informatie over het standpunt van {party} over deze stelling.",
    },
}
_GENERIC_ANSWER = "Here is a brief answer based on the provided context [1]."

_TASK_QUESTION = re.compile(
    r"What is (?P<party>.+?)'s position on the following statement: \"(?P<statement>.*)\"\?",
    re.DOTALL,
)
_RESPOND_IN = re.compile(r"Respond in ([^.\n]+)\.")
_QUESTION_LINE = re.compile(r"^\s*(?:Q?\d+\s*[.):]|[-*•])\s*\S")


def polistemic_responder(request_json: dict) -> str:
    """A deterministic answer for the benchmark stage recognised from the request's prompt."""
    messages = [m for m in request_json.get("messages", []) if isinstance(m, dict)]
    system = "\n".join(
        content_text(m.get("content")) for m in messages if m.get("role") in ("system", "developer")
    )
    user = "\n".join(content_text(m.get("content")) for m in messages if m.get("role") == "user")
    full = f"{system}\n{user}" if system else user
    instructions = system or user  # a client may fold the system prompt into the user message
    if STANDARDISE_MARKER in instructions:
        return standardised_rationale(user)
    if VAGUE_MARKER in instructions:
        return vague_rationale(instructions, user)
    if VAGUE_AUDIT_MARKER in instructions:
        return json.dumps({"determinable": False})
    if JUDGE_MARKER in instructions and NAVIGATION_JUDGE_MARKER in instructions:
        return judge_reply(request_json, full, instructions, navigation_judge_verdicts)
    if JUDGE_MARKER in instructions and COMPARISON_JUDGE_MARKER in instructions:
        return judge_reply(request_json, full, instructions, comparison_judge_verdicts)
    if JUDGE_MARKER in instructions and ISSUE_MAPPING_JUDGE_MARKER in instructions:
        return judge_reply(request_json, full, instructions, issue_mapping_judge_verdicts)
    if JUDGE_MARKER in instructions:
        return judge_reply(request_json, full, instructions)
    if STANCE_CODER_MARKER in instructions:
        return stance_coder_reply(user)
    if COMPARISON_CODER_MARKER in instructions:
        return navigation_coder_reply(user)
    if NAVIGATION_CODER_MARKER in instructions:
        return issue_mapping_coder_reply(user) or navigation_coder_reply(user)
    if NAVIGATION_QUESTION.search(user):
        return navigation_answer(full)
    if COMPARISON_QUESTION.search(user):
        return comparison_answer(full)
    if ISSUE_MAPPING_QUESTION.search(user):
        return issue_mapping_answer(full)
    answer = task_answer(full)
    model = request_json.get("model")
    # Different target models answer differently, so their answers are judged separately.
    return f"{answer} (Model: {model}.)" if isinstance(model, str) and model else answer


# ---- stages ------------------------------------------------------------------------------------


def standardised_rationale(user_text: str) -> str:
    stance_match = re.search(r"^Stance:\s*(.+)$", user_text, re.MULTILINE)
    rationale_match = re.search(r"^Rationale:\s*(.*)", user_text, re.MULTILINE | re.DOTALL)
    stance = stance_family(stance_match.group(1) if stance_match else "")
    language = guess_language(rationale_match.group(1) if rationale_match else user_text)
    text = f"{_STANCE_SENTENCE[language][stance]} {_STANDARDISED_BODY[language]}"
    return json.dumps(
        {"third_person_rationale": text, "stance_is_explicit": True}, ensure_ascii=False
    )


def vague_rationale(system_text: str, baseline: str) -> str:
    mode = next(
        (m["number"] for m in vague_modes() if f"strategy: {m['name']}" in system_text), None
    )
    if mode is None:  # the template changed or the mode is unknown: still answer with a valid mode
        mode = 1 + int(_fraction(system_text, "mode") * len(vague_modes()))
    opening, by_mode, closing = _VAGUE_TEXT[guess_language(baseline)]
    text = f"{opening} {by_mode[mode]} {closing}"
    return json.dumps({"vague_rationale": text, "vagueness_modes_used": [mode]}, ensure_ascii=False)


def count_questions(judge_instructions: str) -> int:
    """Questions listed after "Questions:" (numbered or bulleted lines; else non-empty lines)."""
    _, found, after = judge_instructions.partition("Questions:")
    if not found:
        return 0
    lines = []
    for line in after.splitlines():
        if line.startswith("QUERY:"):  # a system prompt folded into the user message ends here
            break
        if line.strip():
            lines.append(line)
    numbered = [line for line in lines if _QUESTION_LINE.match(line)]
    return len(numbered) if numbered else len(lines)


def verdicts(prompt_text: str, n: int) -> list[bool]:
    """n Yes (True) / No (False) verdicts, fixed by a hash of the prompt and the question index."""
    return [_fraction(prompt_text, f"judge{i}") < 0.5 for i in range(n)]


VerdictSource = Callable[[str, int], list[bool]]


def judge_reply(
    request_json: dict, prompt_text: str, instructions: str, choose: VerdictSource = verdicts
) -> str:
    """The judge's reply: verdict lines, or JSON when the request has a ``response_format`` or
    forces a tool."""
    if "Questions:" not in instructions:  # the rubric-last prompt lists them after the answer
        instructions = prompt_text
    parameters = forced_tool_parameters(request_json)
    if parameters is not None:
        as_format = {"type": "json_schema", "json_schema": {"schema": parameters}}
        return json.dumps(judge_json(prompt_text, instructions, as_format, choose))
    response_format = request_json.get("response_format")
    if isinstance(response_format, dict) and response_format.get("type") in (
        "json_object",
        "json_schema",
    ):
        return json.dumps(judge_json(prompt_text, instructions, response_format, choose))
    return judge_verdicts(prompt_text, count_questions(instructions), choose)


def judge_verdicts(prompt_text: str, n: int, choose: VerdictSource = verdicts) -> str:
    return "\n".join(
        f"{i}. {'Yes' if yes else 'No'}" for i, yes in enumerate(choose(prompt_text, n), 1)
    )


def judge_json(
    prompt_text: str, instructions: str, response_format: dict, choose: VerdictSource = verdicts
) -> dict:
    """Judge verdicts shaped by the request's ``response_format``.

    - a JSON schema whose object has an ``answers`` array: ``{"answers": [v1, v2, ...]}``, one per
      question listed in the prompt;
    - a JSON schema object with other properties (e.g. "1", "2" or sub-question keys): one verdict
      per property, in the schema's order;
    - ``json_object`` or any other schema: ``{"answers": [...]}``.
    A verdict is ``true``/``false`` where the (item or property) schema says boolean, else "Yes"/"No".
    """
    schema = (response_format.get("json_schema") or {}).get("schema") or {}
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if isinstance(properties, dict) and properties and "answers" not in properties:
        values = choose(prompt_text, len(properties))
        return {
            name: _verdict_value(yes, spec)
            for (name, spec), yes in zip(properties.items(), values, strict=True)
        }
    item_schema = {}
    if isinstance(properties, dict) and isinstance(properties.get("answers"), dict):
        item_schema = properties["answers"].get("items") or {}
    values = choose(prompt_text, count_questions(instructions))
    return {"answers": [_verdict_value(yes, item_schema) for yes in values]}


def task_answer(prompt_text: str) -> str:
    question = _TASK_QUESTION.search(prompt_text)
    if question is None:
        return _GENERIC_ANSWER
    language_match = _RESPOND_IN.search(prompt_text)
    language = _language_code(language_match.group(1) if language_match else "English")
    if ABSENT_SENTINEL in prompt_text:
        kind = "absent"
    else:
        kind = ("supports", "opposes", "unclear")[int(_fraction(prompt_text, "task") * 3)]
    party, statement = question.group("party").strip(), question.group("statement").strip()
    return _TASK_ANSWER[language][kind].format(party=party, statement=statement)


class RepeatFlipResponder:
    """``polistemic_responder``, except that a judge request seen before (the same model, messages
    and ``response_format``: an identical repeat call) gets each verdict flipped with probability
    ``flip_rate``, independently per question and per repeat, seeded. The first call of a prompt
    is answered exactly as ``polistemic_responder`` answers it.

    The server keeps no other state; this responder counts requests per prompt (thread-safe), so
    a retried judge call or a second run against the same server counts as a repeat too.
    ``flips`` and ``repeat_verdicts`` count what it did.
    """

    def __init__(self, flip_rate: float, seed: int = 0) -> None:
        if not 0.0 <= flip_rate <= 1.0:
            raise ValueError(f"flip_rate: {flip_rate} is not within [0, 1]")
        self.flip_rate, self.seed = flip_rate, seed
        self._seen: Counter[str] = Counter()
        self._lock = threading.Lock()
        self.flips = self.repeat_verdicts = 0

    def __call__(self, request_json: dict) -> str:
        messages = [m for m in request_json.get("messages", []) if isinstance(m, dict)]
        system = "\n".join(
            content_text(m.get("content"))
            for m in messages
            if m.get("role") in ("system", "developer")
        )
        user = "\n".join(
            content_text(m.get("content")) for m in messages if m.get("role") == "user"
        )
        instructions = system or user
        if JUDGE_MARKER not in instructions:
            return polistemic_responder(request_json)
        identity = json.dumps(
            [request_json.get("model"), messages, request_json.get("response_format")],
            sort_keys=True,
        )
        with self._lock:
            repeat = self._seen[identity]
            self._seen[identity] += 1
        full = f"{system}\n{user}" if system else user
        if repeat == 0:
            return judge_reply(request_json, full, instructions)

        def flipped(prompt_text: str, n: int) -> list[bool]:
            original = verdicts(prompt_text, n)
            draws = [
                stable_fraction(self.seed, f"flip{repeat}/{i}", identity) < self.flip_rate
                for i in range(n)
            ]
            with self._lock:
                self.flips += sum(draws)
                self.repeat_verdicts += n
            return [yes != flip for yes, flip in zip(original, draws, strict=True)]

        return judge_reply(request_json, full, instructions, flipped)


# A drifted sample's added sentence: the test stance coder reads "contradict" as "both", and a
# judge sees it as the only difference from the sample that did not drift.
SAMPLE_DRIFT = " On reflection, the sources may contradict each other on this."


class SampleDriftResponder:
    """``polistemic_responder``, except that a target asked at ``temperature > 0`` answers some
    samples differently, so a study with ``samples > 1`` has known flips (issue 30, item 3).

    A sample is told apart by the request's ``seed`` (the client sends ``endpoint.seed +
    sample_index``). A task answer drifts when ``drifts(prompt, seed)``: a seeded draw fixed by
    the prompt and that request seed falls below ``share``; it then ends with ``SAMPLE_DRIFT``.
    A judge asked about a drifted answer gives the verdicts it gives the answer without the
    sentence, the first one flipped (every rubric's first sub-question changes its verdict); the
    stance coder codes a drifted answer ``both``. At temperature 0, or without a seed, no answer
    drifts and every sample is alike. ``drifted`` counts the drifted answers written.
    """

    def __init__(self, share: float, seed: int = 0) -> None:
        if not 0.0 <= share <= 1.0:
            raise ValueError(f"share: {share} is not within [0, 1]")
        self.share, self.seed = share, seed
        self._lock = threading.Lock()
        self.drifted = 0

    def drifts(self, prompt_text: str, request_seed: object, temperature: object) -> bool:
        """Whether the task answer to ``prompt_text`` (system, newline, user) drifts."""
        if not isinstance(request_seed, int) or not isinstance(temperature, int | float):
            return False
        if temperature <= 0:
            return False
        return stable_fraction(self.seed, f"sample{request_seed}", prompt_text) < self.share

    def __call__(self, request_json: dict) -> str:
        messages = [m for m in request_json.get("messages", []) if isinstance(m, dict)]
        system = "\n".join(
            content_text(m.get("content"))
            for m in messages
            if m.get("role") in ("system", "developer")
        )
        user = "\n".join(
            content_text(m.get("content")) for m in messages if m.get("role") == "user"
        )
        full = f"{system}\n{user}" if system else user
        instructions = system or user
        if JUDGE_MARKER in instructions and SAMPLE_DRIFT in full:

            def flipped_first(prompt_text: str, n: int) -> list[bool]:
                found = verdicts(prompt_text.replace(SAMPLE_DRIFT, ""), n)
                return [not found[0], *found[1:]] if found else found

            return judge_reply(request_json, full, instructions, flipped_first)
        answer = polistemic_responder(request_json)
        if ANSWERER_MARKER in instructions and self.drifts(
            full, request_json.get("seed"), request_json.get("temperature")
        ):
            with self._lock:
                self.drifted += 1
            return answer + SAMPLE_DRIFT
        return answer


# ---- helpers -----------------------------------------------------------------------------------


def stance_family(label: str) -> str:
    """'agree', 'disagree' or 'neutral' for a stance label in English, German or Dutch."""
    lowered = label.lower()
    if "neutr" in lowered:
        return "neutral"
    if re.search(r"disagree|oppos|against|dagegen|ablehn|nicht zu|oneens|tegen|contra", lowered):
        return "disagree"
    return "agree"


def guess_language(text: str) -> str:
    """'en', 'de' or 'nl', whichever language's stopwords occur most often ('en' on a tie)."""
    words = [w.lower() for w in _WORD.findall(text)]
    scores = {lang: sum(w in stop for w in words) for lang, stop in _STOPWORDS.items()}
    best = max(scores, key=lambda lang: (scores[lang], lang == "en"))
    return best if scores[best] > 0 else "en"


def _language_code(name: str) -> str:
    lowered = name.strip().lower()
    if lowered.startswith(("german", "deutsch")):
        return "de"
    if lowered.startswith(("dutch", "nederlands")):
        return "nl"
    return "en"


def _verdict_value(yes: bool, schema: object) -> bool | str:
    if isinstance(schema, dict) and schema.get("type") == "boolean":
        return yes
    return "Yes" if yes else "No"


def _fraction(text: str, salt: str) -> float:
    return stable_fraction(0, salt, text)


class NavigationResponder:
    """``polistemic_responder``, except that navigation and issue-mapping answers are of a
    chosen quality: every party placed from the context (the default), the first party dropped
    (``drop``), a party that is in no election added as agreeing (``invent``), or (issue
    mapping) a statement without a conflict mapped as one (``false_conflict``)."""

    def __init__(
        self, *, drop: bool = False, invent: str | None = None, false_conflict: bool = False
    ) -> None:
        self.drop, self.invent, self.false_conflict = drop, invent, false_conflict

    def __call__(self, request_json: dict) -> str:
        messages = [m for m in request_json.get("messages", []) if isinstance(m, dict)]
        text = "\n".join(content_text(m.get("content")) for m in messages)
        # The answerer's prompt only: judges and coders quote the question too.
        if ANSWERER_MARKER in text and NAVIGATION_QUESTION.search(text):
            return navigation_answer(text, drop=self.drop, invent=self.invent)
        if ANSWERER_MARKER in text and ISSUE_MAPPING_QUESTION.search(text):
            return issue_mapping_answer(
                text, drop=self.drop, invent=self.invent, false_conflict=self.false_conflict
            )
        return polistemic_responder(request_json)


class ComparisonResponder:
    """``polistemic_responder``, except that comparison answers are of a chosen quality
    (``testing.comparison.QUALITIES``: correct, false_difference, false_agreement,
    misrepresent)."""

    def __init__(self, quality: str = "correct") -> None:
        self.quality = quality

    def __call__(self, request_json: dict) -> str:
        messages = [m for m in request_json.get("messages", []) if isinstance(m, dict)]
        text = "\n".join(content_text(m.get("content")) for m in messages)
        # The answerer's prompt only: judges quote the question too.
        if ANSWERER_MARKER in text and COMPARISON_QUESTION.search(text):
            return comparison_answer(text, self.quality)
        return polistemic_responder(request_json)
