import asyncio
import json

import pytest

from environments.helpers import mini_election
from polistemics.conditions import Environment, Variant
from polistemics.environments.build import build_environments
from polistemics.environments.embeddings import TfidfEmbedder
from polistemics.environments.vague import VagueRewrite
from polistemics.runlog.release_io import (
    RELEASE_KEYS,
    ReleaseFormatError,
    item_to_row,
    read_release_evidence,
    read_release_items,
    restore_placeholder,
    variant_from_folder,
    write_items,
)

OUR_KEYS = (
    "conflict_party_id",
    "vague_mode",
    "variant",
    "language",
    "output_language",
    "chunk_sources",
)


def mini_items():
    ev = mini_election()
    rewrites = [
        VagueRewrite(
            observation_id=e.observation_id, mode=1 + i % 5, text=f"[PARTY] weighs it ({i})."
        )
        for i, e in enumerate(ev)
    ]
    result = asyncio.run(
        build_environments(ev, embedder=TfidfEmbedder(), rewrites=rewrites, seed=1)
    )
    return ev, result.items


def strip_ours(path, out):
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    out.write_text(
        "".join(
            json.dumps({k: v for k, v in r.items() if k not in OUR_KEYS}, ensure_ascii=False) + "\n"
            for r in rows
        ),
        encoding="utf-8",
    )


def test_rows_have_the_release_keys_first_then_ours(tmp_path):
    _, items = mini_items()
    rows = {(r["ie_name"]): r for r in (item_to_row(i) for i in items)}
    for env, row in rows.items():
        assert tuple(row)[: len(RELEASE_KEYS)] == RELEASE_KEYS
        assert ("conflict_party_id" in row) == (
            env in ("ie_consistency_contradiction", "ie_prior_conflict")
        )
        assert ("vague_mode" in row) == (env == "ie_clarity_vague")
    path = tmp_path / "ground_truth.jsonl"
    assert write_items(items, path) == len(items)
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith('{"observation_id":"mini2025__de_alpha__s001","election_id":"mini2025"')


def test_written_rows_read_back_as_the_same_items(tmp_path):
    _, items = mini_items()
    path = tmp_path / "ground_truth.jsonl"
    write_items(items, path)
    assert read_release_items(path) == items


def test_items_read_share_each_distinct_text_and_chunk(tmp_path):
    """A statement's text, a party's name and an evidence passage are one object in every item
    that holds them (issue 32: held once per item, they grew a 4x study's items by a third)."""
    _, items = mini_items()
    path = tmp_path / "ground_truth.jsonl"
    write_items(items, path)
    read = read_release_items(path)
    assert read == items
    chunks = [chunk for item in read for chunk in item.chunks]
    assert len({id(c) for c in chunks}) == len({c.model_dump_json() for c in chunks}) < len(chunks)
    texts = [item.statement_text for item in read]
    assert len({id(t) for t in texts}) == len(set(texts)) < len(texts)
    names = [item.party_name for item in read]
    assert len({id(n) for n in names}) == len(set(names))


def test_rows_without_our_keys_recover_provenance_from_baseline_rows(tmp_path):
    ev, items = mini_items()
    path, bare = tmp_path / "ours.jsonl", tmp_path / "full_v1" / "ground_truth.jsonl"
    write_items(items, path)
    bare.parent.mkdir()
    strip_ours(path, bare)
    assert read_release_evidence(bare) == ev
    back = read_release_items(bare)
    for got, want in zip(back, items, strict=True):
        assert got.chunks == want.chunks
        assert got.conflict_party_id == want.conflict_party_id
        assert got.model_dump(exclude={"chunks", "vague_mode"}) == want.model_dump(
            exclude={"chunks", "vague_mode"}
        )


def test_variant_comes_from_the_folder_name(tmp_path):
    assert variant_from_folder(tmp_path / "anon_v1" / "ground_truth.jsonl") is Variant.ANONYMIZED
    assert variant_from_folder(tmp_path / "en_v1" / "ground_truth.jsonl") is Variant.ENGLISH
    assert (
        variant_from_folder(tmp_path / "nl_tk2025_full_v1" / "ground_truth.jsonl") is Variant.FULL
    )


def test_placeholder_is_restored_only_for_whole_words():
    assert restore_placeholder("SP wil dit. SPD niet, SP-leden wel.", "SP") == (
        "[PARTY] wil dit. SPD niet, [PARTY]-leden wel."
    )
    assert restore_placeholder("CDU / CSU will.", "CDU / CSU") == "[PARTY] will."


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda r: "{not json", "-"),
        (lambda r: json.dumps({**r, "ie_name": "ie_other"}), "ie_name"),
        (lambda r: json.dumps({k: v for k, v in r.items() if k != "party_id"}), "party_id"),
        (lambda r: json.dumps({**r, "stance_label": "Maybe"}), "stance_label"),
        (lambda r: json.dumps({**r, "ie_chunks": "text"}), "ie_chunks"),
    ],
)
def test_bad_rows_name_file_line_and_field(tmp_path, mutate, field):
    _, items = mini_items()
    rows = [item_to_row(i) for i in items[:3]]
    lines = [json.dumps(r) for r in rows]
    lines[1] = mutate(rows[1])
    path = tmp_path / "ground_truth.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ReleaseFormatError, match=rf"ground_truth.jsonl, line 2, field '{field}'"):
        read_release_items(path)


def test_unmatched_chunk_is_an_error(tmp_path):
    ev, items = mini_items()
    noisy = next(i for i in items if i.environment is Environment.NOISY)
    row = {k: v for k, v in item_to_row(noisy).items() if k not in OUR_KEYS}
    row["ie_chunks"][0] = "Something nobody said."
    baseline = [item_to_row(i) for i in items if i.environment is Environment.BASELINE]
    path = tmp_path / "ground_truth.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [*baseline, row]), encoding="utf-8")
    with pytest.raises(ReleaseFormatError, match=r"field 'ie_chunks\[0\]'.*matches no Baseline"):
        read_release_items(path)
