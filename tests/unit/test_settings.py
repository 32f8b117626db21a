from pathlib import Path

import pytest

from config.settings import PROJECT_ROOT, SettingsError, load_settings


def test_defaults_come_from_the_yaml_file():
    settings = load_settings(environ={})
    assert settings.embedder.backend == "use"
    assert settings.bm25.field_weights == {"title": 1.0, "authors": 1.0, "summary": 1.0}
    assert settings.fusion.method == "minmax" and settings.fusion.weights["vector"] == 0.3
    assert settings.workspace == PROJECT_ROOT / "var"
    assert settings.index.text_sections[0].field == "tags"


def test_environment_overrides_nested_keys():
    settings = load_settings(environ={
        "SHELFWISE__EMBEDDER__BACKEND": "e5",
        "SHELFWISE__BM25__K1": "1.2",
        "SHELFWISE__WORKSPACE": "/tmp/elsewhere",
    })
    assert settings.embedder.backend == "e5"
    assert settings.bm25.k1 == 1.2
    assert settings.workspace == Path("/tmp/elsewhere")


def test_unknown_key_and_bad_choice_are_named(tmp_path):
    bad = tmp_path / "settings.yaml"
    bad.write_text("bm25:\n  k_one: 1.2\n")
    with pytest.raises(SettingsError, match=r"bm25: unknown key\(s\) \['k_one'\]"):
        load_settings(bad, environ={})
    with pytest.raises(SettingsError, match="embedder.backend: 'bert'"):
        load_settings(environ={"SHELFWISE__EMBEDDER__BACKEND": "bert"})
