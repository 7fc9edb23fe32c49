"""One observation placed in one information environment (``EnvironmentItem``): what the
answerer and judges see. The environment builders (``environments``) make items; a run persists
them in its release folders' ``ground_truth.jsonl`` (``release_io``) and the swapped-order ones
in ``swapped_items.jsonl``, and every stage after them reads them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from polistemics.conditions import Environment, Variant
from polistemics.records import Stance


class Chunk(BaseModel):
    """One context passage and where it came from."""

    model_config = ConfigDict(frozen=True)

    text: str  # as shown to the answerer (party label already filled in)
    role: Literal["target", "distractor"]
    party_id: str  # whose evidence this passage is
    statement_id: str  # which statement it is about
    stance: Stance | None = None


ENGLISH = "English"  # the language an English-output (``en``) variant's answers are asked in

# Key suffix of a Contradictory item built again with its chunks in the other order (issue 16):
# answered and stance-coded, never judged or scored.
SWAPPED_SUFFIX = "|swapped"


def is_swapped_key(key: str) -> bool:
    """Whether an item key (or an answer's ``item_key``) names a swapped-order item."""
    return key.endswith(SWAPPED_SUFFIX)


class EnvironmentItem(BaseModel):
    """An observation in one environment and variant, ready to be asked and judged."""

    model_config = ConfigDict(frozen=True)

    observation_id: str
    election_id: str
    party_id: str
    party_name: str
    party_anonymized: str
    statement_id: str
    statement_number: int | None = None
    statement_text: str
    stance_label: Stance  # the party's real stance
    rationale_text: str | None = None  # raw source rationale
    environment: Environment
    variant: Variant = Variant.FULL
    language: str  # language of the evidence, e.g. "Dutch"
    output_language: str  # language the answer must be in ("English" for the en ablation)
    chunks: list[Chunk]
    evidence_index: int | None = None  # index of the target evidence chunk, where one is marked
    expected_stance: Stance | None = None  # evidence-induced stance; None where not determinable
    conflict_party_id: str | None = None  # whose evidence Contradictory/Counterfactual used
    vague_mode: int | None = None  # Table 7 mode number, Vague (and compositions with it) only
    # Contradictory only: "swapped" is the item again with its chunks in the other order.
    chunk_order: Literal["original", "swapped"] = "original"

    @property
    def key(self) -> str:
        """Unique within a run: observation x environment x variant (x the swapped order)."""
        key = f"{self.observation_id}|{self.environment.value}|{self.variant.value}"
        return key + SWAPPED_SUFFIX if self.swapped else key

    @property
    def swapped(self) -> bool:
        return self.chunk_order == "swapped"

    @property
    def party_label(self) -> str:
        """How the party is named to the answerer."""
        return self.party_anonymized if self.variant is Variant.ANONYMIZED else self.party_name

    @property
    def judged_expected_stance(self) -> Stance:
        """Table 11: evidence-induced stance for Counterfactual (and a composition with it), the
        real stance otherwise."""
        if Environment.COUNTERFACTUAL in self.environment.parts and self.expected_stance:
            return self.expected_stance
        return self.stance_label
