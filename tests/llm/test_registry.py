"""The model registry: presets, validation errors, keys from the environment only."""

from __future__ import annotations

from pathlib import Path

import pytest

from polistemics.llm.registry import (
    MissingApiKey,
    RegistryError,
    builtin_registry,
    default_registry,
    load_registry,
)

PAPER_TABLE_3 = {
    "qwen3.6-flash": ("qwen/qwen3.6-flash", 0.0),
    "gpt-5.4": ("openai/gpt-5.4", 0.0),
    "claude-sonnet-4.6": ("anthropic/claude-sonnet-4-6", 0.0),
    "gemini-3-flash-judge": ("google/gemini-3-flash-preview", 0.0),
    "deepseek-v4-flash-judge": ("deepseek/deepseek-v4-flash", 0.0),
    "mimo-v2.5-judge": ("xiaomi/mimo-v2.5", 0.0),
    "gemini-3-flash-standardiser": ("google/gemini-3-flash-preview", 0.3),
    "gemini-3-flash-vague": ("google/gemini-3-flash-preview", 0.3),
}


def test_paper_preset_has_table_3_models_with_their_temperatures() -> None:
    paper = builtin_registry("paper")
    for name, (model, temperature) in PAPER_TABLE_3.items():
        endpoint = paper.get(name)
        assert (endpoint.model, endpoint.temperature) == (model, temperature)
        assert endpoint.provider == "openrouter" and endpoint.api_key_env == "OPENROUTER_API_KEY"
        assert endpoint.resolved_base_url == "https://openrouter.ai/api/v1"
    assert paper.get("gpt-5.4").generation_params()["reasoning"] == {"effort": "low"}
    assert paper.get("qwen3.6-flash").generation_params()["reasoning"] == {"max_tokens": 400}


def test_presets_give_the_paper_models_their_display_names() -> None:
    registry = default_registry()
    assert registry.get("gpt-5.4").display_name == "GPT-5.4"
    assert registry.get("claude-sonnet-4.6").display_name == "Claude Sonnet 4.6"
    assert registry.get("local").display_name == "SmolLM2-135M"
    for endpoint in registry.models.values():  # every preset names its model
        assert endpoint.display_name and endpoint.display_name.strip() == endpoint.display_name


def test_a_display_name_is_optional_and_never_blank(tmp_path: Path) -> None:
    path = tmp_path / "models.toml"
    path.write_text('[models.mine]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\n')
    assert load_registry(path).get("mine").display_name is None
    for blank in ('""', '"   "'):
        path.write_text(f'[models.mine]\nmodel = "m"\ndisplay_name = {blank}\n')
        with pytest.raises(RegistryError, match="models.mine.display_name"):
            load_registry(path)
    path.write_text('[models.mine]\nmodel = "m"\ndisplay_name = " My\\n model "\n')
    assert load_registry(path).get("mine").display_name == "My model"  # on one line


def test_default_registry_has_the_local_model_and_the_paper_models() -> None:
    registry = default_registry()
    assert registry.get("local").is_local
    assert registry.get("local").resolved_base_url == "local://smollm2"
    assert "gpt-5.4" in registry.models


def test_user_file_overlays_and_errors_name_the_key(tmp_path: Path) -> None:
    good = tmp_path / "models.toml"
    good.write_text('[models.mine]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\n')
    assert default_registry(good).get("mine").model == "m"
    bad = tmp_path / "bad.toml"
    bad.write_text('[models.mine]\nmodel = "m"\ntemperature = "hot"\nbogus = 1\n')
    with pytest.raises(RegistryError, match=r"models\.mine\.temperature") as err:
        load_registry(bad)
    assert "models.mine.bogus" in str(err.value)
    with pytest.raises(RegistryError, match="unknown model 'nope'"):
        default_registry().get("nope")


def test_missing_key_names_the_variable_never_a_value(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    with pytest.raises(MissingApiKey, match="OPENROUTER_API_KEY"):
        builtin_registry("paper").get("gpt-5.4").api_key()


def test_openrouter_base_url_override(monkeypatch: pytest.MonkeyPatch) -> None:
    paper = builtin_registry("paper")
    monkeypatch.setenv("POLISTEMICS_OPENROUTER_BASE_URL", " http://127.0.0.1:9/api/v1/ ")
    assert paper.get("gpt-5.4").resolved_base_url == "http://127.0.0.1:9/api/v1"
    explicit = (
        default_registry()
        .get("local")
        .model_copy(
            update={
                "provider": "openrouter",
                "base_url": "https://gw.example/v1",
                "local_model": None,
            }
        )
    )
    assert explicit.resolved_base_url == "https://gw.example/v1"  # an entry's base_url wins
    monkeypatch.setenv("POLISTEMICS_OPENROUTER_BASE_URL", "ftp://user:s3cret@host/v1")
    with pytest.raises(RegistryError, match="POLISTEMICS_OPENROUTER_BASE_URL") as err:
        _ = paper.get("gpt-5.4").resolved_base_url
    assert "s3cret" not in str(err.value)
    monkeypatch.delenv("POLISTEMICS_OPENROUTER_BASE_URL")
    assert paper.get("gpt-5.4").resolved_base_url == "https://openrouter.ai/api/v1"


def test_openai_base_url_override_and_no_credentials_in_any_override(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    openai = (
        default_registry()
        .get("local")
        .model_copy(update={"provider": "openai", "local_model": None})
    )
    assert openai.resolved_base_url == "https://api.openai.com/v1"
    monkeypatch.setenv("POLISTEMICS_OPENAI_BASE_URL", "http://127.0.0.1:9/v1/")
    assert openai.resolved_base_url == "http://127.0.0.1:9/v1"
    # The OpenRouter override does not move OpenAI entries, nor the other way round.
    assert builtin_registry("paper").get("gpt-5.4").resolved_base_url == (
        "https://openrouter.ai/api/v1"
    )
    for provider in ("OPENAI", "OPENROUTER"):
        variable = f"POLISTEMICS_{provider}_BASE_URL"
        monkeypatch.setenv(variable, "https://user:sk-s3cret@gw.example/v1")
        endpoint = openai if provider == "OPENAI" else builtin_registry("paper").get("gpt-5.4")
        with pytest.raises(RegistryError, match=variable) as err:
            _ = endpoint.resolved_base_url
        assert "s3cret" not in str(err.value)
        monkeypatch.delenv(variable)


def test_paper_judges_use_the_releases_output_modes() -> None:
    # models.yaml of the authors' release: Gemini and DeepSeek "native", MiMo "tool".
    paper = builtin_registry("paper")
    assert paper.get("gemini-3-flash-judge").structured_output == "json_schema"
    assert paper.get("deepseek-v4-flash-judge").structured_output == "json_schema"
    assert paper.get("mimo-v2.5-judge").structured_output == "tool"
    for target in ("qwen3.6-flash", "gpt-5.4", "claude-sonnet-4.6"):
        assert paper.get(target).structured_output == "none"


def test_judge_prompt_is_the_papers_unless_an_entry_opts_in(tmp_path: Path) -> None:
    for preset in ("paper", "default"):
        for endpoint in builtin_registry(preset).models.values():
            if endpoint.judge_prompt == "paper":
                assert "judge_prompt" not in endpoint.generation_params()
            else:  # only a local entry may opt in, and the run records it
                assert endpoint.is_local
                assert endpoint.generation_params()["judge_prompt"] == endpoint.judge_prompt
    assert all(e.judge_prompt == "paper" for e in builtin_registry("paper").models.values())
    path = tmp_path / "models.toml"
    path.write_text(
        '[models.j]\nmodel = "m"\nbase_url = "http://127.0.0.1:9/v1"\njudge_prompt = "short"\n'
    )
    with pytest.raises(RegistryError, match="judge_prompt"):
        load_registry(path)


@pytest.mark.parametrize(
    "base_url",
    [
        "http://alice:sk-in-the-url-0123456789@127.0.0.1:9/v1",
        "https://sk-in-the-url-0123456789@gw.example/v1",
        "http://gw.example:sk-in-the-url-0123456789@x/v1",
        "ftp://gw.example/v1",
    ],
)
def test_a_base_url_with_credentials_is_refused_without_showing_them(
    tmp_path: Path, base_url: str
) -> None:
    models = tmp_path / "models.toml"
    models.write_text(f'[models.x]\nbase_url = "{base_url}"\nmodel = "m"\n')
    with pytest.raises(RegistryError, match="models.x.base_url: .*without credentials") as error:
        load_registry(models)
    assert "sk-in-the-url" not in str(error.value) and "\n" not in str(error.value)


@pytest.mark.parametrize("price", ["nan", "inf"])
def test_a_price_that_is_not_finite_is_refused(tmp_path: Path, price: str) -> None:
    models = tmp_path / "models.toml"
    models.write_text(f'[models.x]\nmodel = "m"\nprice_input_per_mtok = {price}\n')
    with pytest.raises(RegistryError, match="price_input_per_mtok"):
        load_registry(models)
