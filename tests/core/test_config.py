import pytest

from crseval.core.config import load_config, validate
from crseval.core.errors import ConfigError
from crseval.llm import LLMConfig


def test_valid_toml(tmp_path):
    p = tmp_path / "c.toml"
    p.write_text(
        'backend = "openai"\nmodel = "qwen"\nbase_url = "http://127.0.0.1:9/v1"\ntemperature = 0.2\n'
    )
    cfg = load_config(p, LLMConfig)
    assert cfg.backend == "openai"
    assert cfg.temperature == 0.2


def test_bad_literal_names_key_and_allowed_values(tmp_path):
    p = tmp_path / "c.toml"
    p.write_text('backend = "gpt"\n')
    with pytest.raises(ConfigError) as e:
        load_config(p, LLMConfig)
    assert "backend" in str(e.value)
    assert "'llamacpp', 'openai' or 'scripted'" in str(e.value)


def test_api_key_in_config_is_refused(tmp_path):
    p = tmp_path / "c.toml"
    p.write_text('backend = "openai"\napi_key = "sk-secret"\n')
    with pytest.raises(ConfigError) as e:
        load_config(p, LLMConfig)
    assert "api_key" in str(e.value)
    assert "environment variable" in str(e.value)


def test_toml_syntax_error_has_line(tmp_path):
    p = tmp_path / "c.toml"
    p.write_text('backend = "openai"\ntemperature = \n')
    with pytest.raises(ConfigError) as e:
        load_config(p, LLMConfig)
    assert e.value.line == 2


def test_required_option_left_out_names_the_flag():
    from pydantic import BaseModel, Field

    class Job(BaseModel):
        pair_model: str = Field(..., description="A saved pair model.")

    with pytest.raises(ConfigError) as e:
        validate(Job, {"pair_model": None})
    assert e.value.field == "pair_model"
    assert "required, not given" in str(e.value)
    assert "pass --pair-model: A saved pair model" in str(e.value)


def test_a_misspelt_key_is_named_before_the_field_it_leaves_missing():
    from pydantic import BaseModel, ConfigDict

    class Job(BaseModel):
        model_config = ConfigDict(extra="forbid")
        votes: list[str]

    with pytest.raises(ConfigError) as e:
        validate(Job, {"vots": ["v.csv"]})
    assert "unknown key 'vots'" in str(e.value) and "votes" in str(e.value)


def test_a_rule_across_fields_is_not_followed_by_the_whole_config():
    from pydantic import BaseModel, model_validator

    class Job(BaseModel):
        a: str | None = None
        b: str | None = None

        @model_validator(mode="after")
        def _one(self):
            if not (self.a or self.b):
                raise ValueError("give --a and/or --b")
            return self

    with pytest.raises(ConfigError) as e:
        validate(Job, {"a": None, "b": None})
    assert str(e.value).endswith("give --a and/or --b")
