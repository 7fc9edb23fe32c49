"""Run configs: presets load, and each kind of mistake gives one clear message naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from polistemics.cli import app
from polistemics.conditions import Variant
from polistemics.run.config import PRESETS, ConfigError, load_config


@pytest.mark.parametrize("name", PRESETS)
def test_presets_load(name: str) -> None:
    config = load_config(name)
    assert config.targets and len(config.judges) == 3
    ablations = [] if name.startswith("demo") else [Variant.ANONYMIZED, Variant.ENGLISH]
    assert config.variants == [Variant.FULL, *ablations]


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "study.toml"
    path.write_text(text, encoding="utf-8")
    return path


VALID = """
name = "x"
targets = ["local"]
judges = ["local", "local", "local"]
standardiser = "local"
vague_generator = "local"
vague_auditor = "local"
[[elections]]
source = "demo"
"""


@pytest.mark.parametrize(
    ("text", "names"),
    [
        (VALID + "colour = 'red'\n", "colour"),
        (VALID.replace('targets = ["local"]', 'targets = "local"'), "targets"),
        (VALID.replace('name = "x"', 'name = "x"\nsamples = 0'), "samples"),
        (VALID.replace('name = "x"', 'name = "x"\nenvironments = ["sunny"]'), "sunny"),
        (VALID + "bogus = 1\n", "bogus"),
        (VALID.replace('name = "x"', 'name = "x"\nloo_min_items = 0'), "loo_min_items"),
        ("name = [", "not valid TOML"),
    ],
    ids=[
        "unknown-key",
        "wrong-type",
        "out-of-range",
        "unknown-environment",
        "extra-key",
        "loo-gate",
        "toml",
    ],
)
def test_config_errors_name_the_key(tmp_path: Path, text: str, names: str) -> None:
    with pytest.raises(ConfigError, match=names):
        load_config(write(tmp_path, text))


def test_cli_reports_a_bad_config_in_one_line_and_writes_nothing(tmp_path: Path) -> None:
    config = write(
        tmp_path,
        VALID.replace(
            'name = "x"', f'name = "x"\noutput_dir = "{tmp_path / "run"}"\nseed = "zero"'
        ),
    )
    result = CliRunner().invoke(app, ["run", str(config)])
    assert result.exit_code == 2
    assert "seed" in result.stderr and result.stderr.strip().count("\n") == 0
    assert not (tmp_path / "run").exists()


def test_unknown_model_and_missing_config_are_clear(tmp_path: Path) -> None:
    config = write(tmp_path, VALID.replace('targets = ["local"]', 'targets = ["nonesuch"]'))
    result = CliRunner().invoke(app, ["run", str(config), "--dry-run"])
    assert result.exit_code == 2 and "unknown model 'nonesuch'" in result.stderr
    missing = CliRunner().invoke(app, ["run", str(tmp_path / "absent.toml")])
    assert missing.exit_code == 2 and "no such config file" in missing.stderr


BAD_NAMES = ["..", "", ".", "../../x", "/tmp/elsewhere", "a/b", ".hidden", "x" * 65, "a b"]


@pytest.mark.parametrize("bad", BAD_NAMES)
def test_an_unsafe_run_name_is_refused(tmp_path: Path, bad: str) -> None:
    config = write(tmp_path, VALID.replace('name = "x"', f"name = {bad!r}"))
    with pytest.raises(ConfigError, match=r"name: .* is not usable as a folder name") as info:
        load_config(config)
    assert repr(bad) in str(info.value)


@pytest.mark.parametrize("bad", BAD_NAMES)
def test_an_unsafe_election_id_is_refused(tmp_path: Path, bad: str) -> None:
    config = write(tmp_path, VALID + f"id = {bad!r}\n")
    with pytest.raises(ConfigError, match=r"elections\.0\.id: .* is not usable as a folder name"):
        load_config(config)


@pytest.mark.parametrize(
    ("key", "text"),
    [
        ("name", VALID.replace('name = "x"', 'name = "../../x"')),
        ("elections.0.id", VALID + 'id = "../../../x"\n'),
        ("name", VALID.replace('name = "x"', 'name = ".."')),
    ],
)
def test_cli_refuses_an_unsafe_name_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str, text: str
) -> None:
    monkeypatch.chdir(tmp_path)
    config = write(tmp_path, text)
    before = sorted(p.name for p in tmp_path.iterdir())
    result = CliRunner().invoke(app, ["run", str(config)])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert f"{key}: " in result.stderr and "not usable as a folder name" in result.stderr
    assert "Traceback" not in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_statement_numbers_are_strict_integers(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"elections\.0\.statements\.0"):
        load_config(write(tmp_path, VALID + "statements = [true]\n"))


def test_default_run_dir_is_under_runs(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, VALID.replace('name = "x"', 'name = "de-2025.v1"')))
    assert config.run_dir() == Path("runs") / "de-2025.v1"
    assert config.run_dir(tmp_path) == tmp_path / "de-2025.v1"


def test_the_loo_gate_is_off_unless_the_config_sets_it(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, VALID)).loo_min_items is None
    gated = VALID.replace('name = "x"', 'name = "x"\nloo_min_items = 20')
    assert load_config(write(tmp_path, gated)).loo_min_items == 20


REPEATS = VALID.replace('judges = ["local", "local", "local"]', 'judges = ["local", "other"]')


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("items = 0", "judge_repeats.items: .*count of items must be >= 1"),
        ("items = 1.5", "judge_repeats.items: .*fraction of items must lie in"),
        ("items = 0.0", "judge_repeats.items: .*fraction"),
        ("items = '10'", "judge_repeats.items"),
        ("items = 10\nrepeats = 0", "judge_repeats.repeats"),
        (
            "items = 10\njudges = 'nobody'",
            "judge_repeats: judges: 'nobody' is not on the judge panel",
        ),
        ("items = 10\nwho = 'x'", "judge_repeats.who"),
        ("judges = 'all'", "judge_repeats.items: Field required"),
    ],
)
def test_judge_repeats_errors_name_the_key(tmp_path: Path, table: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(write(tmp_path, REPEATS + f"[judge_repeats]\n{table}\n"))


def test_judge_repeats_count_fraction_and_judges(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, REPEATS)).judge_repeats is None
    assert load_config(write(tmp_path, REPEATS)).repeat_judges == []
    count = load_config(write(tmp_path, REPEATS + "[judge_repeats]\nitems = 12\n"))
    assert count.judge_repeats.items == 12 and isinstance(count.judge_repeats.items, int)
    assert count.repeat_judges == ["local", "other"]
    share = load_config(
        write(tmp_path, REPEATS + "[judge_repeats]\nitems = 0.25\njudges = 'other'\nrepeats = 2\n")
    )
    assert share.judge_repeats.items == 0.25 and share.judge_repeats.repeats == 2
    assert share.repeat_judges == ["other"]
    # A panel of one endpoint three times repeats it once.
    tripled = load_config(write(tmp_path, VALID + "[judge_repeats]\nitems = 1.0\n"))
    assert tripled.repeat_judges == ["local"]


def with_keys(text: str) -> str:
    return VALID.replace('name = "x"', 'name = "x"\n' + text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("prior_probe = true", "prior_probe: the closed-book probe needs a stance coder"),
        ("stance_coder = []\nprior_probe = true", "prior_probe: .*set stance_coder"),
        ("coding_environments = ['cloudy']", "coding_environments.*unknown environment 'cloudy'"),
        ("contradictory_swapped = 'some'", "contradictory_swapped"),
        ("stance_coder = ''", "stance_coder: a coder name is empty"),
        ("stance_coder = 3", "stance_coder"),
    ],
)
def test_mechanism_keys_errors_name_the_key(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(write(tmp_path, with_keys(text)))


def test_mechanism_keys_default_off_and_coders_resolve_like_judges(tmp_path: Path) -> None:
    plain = load_config(write(tmp_path, VALID))
    assert plain.stance_coder == [] and plain.coded_environments == []
    assert not plain.prior_probe and plain.contradictory_swapped == "none"
    assert plain.coding_environments == [
        "ie_availability_absent",
        "ie_clarity_vague",
        "ie_consistency_contradiction",
        "ie_prior_conflict",
    ]
    one = load_config(write(tmp_path, with_keys("stance_coder = 'coder-a'\nprior_probe = true")))
    assert one.stance_coder == ["coder-a"] and one.prior_probe
    assert "coder-a" in one.model_names()
    panel = load_config(
        write(
            tmp_path,
            with_keys(
                "stance_coder = ['coder-a', 'coder-b', 'coder-a']\n"
                "environments = ['baseline', 'Absent', 'Contradictory']\n"
                "coding_environments = ['Absent', 'ie_consistency_contradiction', 'Vague']\n"
                "contradictory_swapped = 'half'"
            ),
        )
    )
    assert panel.stance_coder == ["coder-a", "coder-b", "coder-a"]
    assert panel.model_names().count("coder-a") == 1 and "coder-b" in panel.model_names()
    # Labels are accepted; only the environments the run builds are coded.
    assert [e.label for e in panel.coded_environments] == ["Absent", "Contradictory"]
    assert panel.contradictory_swapped == "half"


@pytest.mark.parametrize("name", ["paper-de", "paper-nl", "demo-mechanisms"])
def test_paper_and_demo_mechanisms_presets_turn_the_mechanisms_on(name: str) -> None:
    config = load_config(name)
    assert config.stance_coder and config.prior_probe and config.contradictory_swapped == "all"
    assert len(config.coded_environments) == 4
    assert load_config("demo").stance_coder == []  # the demo's time budget is kept


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "compositions = ['ie_availability_absent+ie_consistency_contradiction']",
            "compositions.*refused: Absent removes the evidence, so there is nothing left to "
            "contradict",
        ),
        ("compositions = ['Vague+Counterfactual']", "refused: Counterfactual tests a clear"),
        ("compositions = ['ie_noise']", "exactly two parts, found 1"),
        (
            "environments = ['baseline', 'ie_noise']\ncompositions = ['ie_clarity_vague+ie_noise']",
            "needs its parts among environments \\(missing: ie_clarity_vague\\)",
        ),
        (
            "environments = ['ie_clarity_vague+ie_noise']",
            "is a composition: name it in compositions",
        ),
    ],
)
def test_incompatible_compositions_are_refused_at_config_time(
    tmp_path: Path, text: str, message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(write(tmp_path, with_keys(text)))


def test_compositions_default_to_none_and_are_read_in_canonical_form(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, VALID)).compositions == []
    config = load_config(
        write(
            tmp_path,
            with_keys(
                "compositions = ['Noisy + Vague', 'ie_consistency_contradiction+ie_noise', "
                "'ie_clarity_vague+ie_noise', 'Absent+Noisy', 'Vague+Contradictory']"
            ),
        )
    )
    assert config.compositions == [
        "ie_clarity_vague+ie_noise",
        "ie_consistency_contradiction+ie_noise",
        "ie_availability_absent+ie_noise",
        "ie_clarity_vague+ie_consistency_contradiction",
    ]
    assert [c.label for c in config.composition_list][0] == "Vague + Noisy"
