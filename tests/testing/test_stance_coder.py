"""The test server codes its own task answers: end to end through ``code_subjects``."""

from __future__ import annotations

import asyncio

import pytest

from polistemics.coding.coder import code_subjects
from polistemics.coding.subjects import CodingSubject
from polistemics.llm.client import LLMClient
from polistemics.llm.registry import ModelEndpoint
from polistemics.runlog import CodedStance
from polistemics.testing import FakeOpenAIServer
from polistemics.testing.responders import _TASK_ANSWER

EXPECTED = {
    "supports": CodedStance.AGREE,
    "opposes": CodedStance.DISAGREE,
    "unclear": CodedStance.NO_POSITION,
    "absent": CodedStance.NO_POSITION,
}
# A statement holding the other labels' keywords: the coder must not read the quoted statement.
STATEMENT = "Neutral states that oppose and lehnt ab is tegen should steunt supports"


def subjects() -> list[CodingSubject]:
    out = []
    for language, kinds in _TASK_ANSWER.items():
        for kind, template in kinds.items():
            out.append(
                CodingSubject(
                    kind="answer",
                    subject_key=f"{language}|{kind}",
                    model="target",
                    sample_index=0,
                    party_name="Party A",
                    statement_text=STATEMENT,
                    answer_text=template.format(party="Party A", statement=STATEMENT),
                    language=language,
                    context=("Party A supports it.",),
                )
            )
    return out


@pytest.mark.parametrize("mode", ["json_object", "tool", "none"])
def test_server_codes_its_task_answers(mode):
    with FakeOpenAIServer() as server:
        coder = ModelEndpoint(
            name="coder", model="fake-model", base_url=server.base_url, structured_output=mode
        )
        probe = CodingSubject(
            kind="probe",
            subject_key="prior|e|p|s",
            model="target",
            sample_index=0,
            party_name="Party A",
            statement_text=STATEMENT,
            answer_text="Party A opposes this measure.",
            language="en",
        )

        async def code():
            client = LLMClient()
            try:
                return await code_subjects(client, [coder], [*subjects(), probe])
            finally:
                await client.aclose()

        records = asyncio.run(code())
    *answers, probe_code = records
    for record in answers:
        assert record.stance is EXPECTED[record.subject_key.split("|")[1]], record
        assert record.outside_knowledge is False and record.attempts == 1
    assert probe_code.stance is CodedStance.DISAGREE and probe_code.outside_knowledge is True
