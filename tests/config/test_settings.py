"""Settings: sources and their order, key-by-key overlays, one-line errors naming key and source."""

from pathlib import Path

import pytest
import yaml
from pydantic import BaseModel

from config.settings import CONFIG_DIR, PROJECT_ROOT, Settings, SettingsError, load_settings, write_local_overlay


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    """No SHELFWISE__ variable from the caller's shell, and an empty local overlay."""
    for name in list(__import__("os").environ):
        if name.startswith("SHELFWISE__") or name == "SHELFWISE_CONFIG":
            monkeypatch.delenv(name)
    local = tmp_path / "local.yaml"
    monkeypatch.setenv("SHELFWISE_LOCAL_CONFIG", str(local))
    return local


def test_without_overrides_the_settings_are_the_yaml_files(clean_env):
    settings = load_settings()
    written = yaml.safe_load((CONFIG_DIR / "settings.yaml").read_text(encoding="utf-8"))
    for section in ("embedder", "bm25", "fusion", "shelf", "gating"):
        model = getattr(settings, section).model_dump()
        assert {k: model[k] for k in written[section]} == written[section], section
    assert settings.workspace == PROJECT_ROOT / written["workspace"]


def test_the_documented_environment_overrides_work(clean_env, monkeypatch):
    monkeypatch.setenv("SHELFWISE__EMBEDDER__BACKEND", "e5")
    monkeypatch.setenv("SHELFWISE__BM25__K1", "1.2")
    monkeypatch.setenv("SHELFWISE__WORKSPACE", "/data/shelfwise")
    monkeypatch.setenv("SHELFWISE__FUSION__WEIGHTS", "{bm25: 2}")
    settings = load_settings()
    assert settings.embedder.backend == "e5" and settings.bm25.k1 == 1.2
    assert settings.workspace == Path("/data/shelfwise")
    # a mapping from the environment merges into the file's, key by key
    assert settings.fusion.weights["bm25"] == 2.0 and settings.fusion.weights["entity"] == 2.0


def test_init_arguments_come_before_the_environment(clean_env, monkeypatch):
    monkeypatch.setenv("SHELFWISE__WORKSPACE", "/from/env")
    assert load_settings(workspace="/given").workspace == Path("/given")
    assert load_settings(workspace="rel").workspace == PROJECT_ROOT / "rel"  # paths resolve against the project


def test_a_partial_overlay_keeps_the_other_weights(clean_env):
    # what `shelfwise tune` writes: only the two weights it fitted
    before = load_settings().fusion.weights
    write_local_overlay({"fusion": {"method": "dbsf", "weights": {"bm25": 1.0, "vector": 0.5}}}, clean_env)
    settings = load_settings()
    assert settings.fusion.method == "dbsf"
    assert settings.fusion.weights == {**before, "vector": 0.5, "bm25": 1.0}
    # a second tune keeps what the first wrote beside it
    write_local_overlay({"fusion": {"sentence_weight": 0.0}}, clean_env)
    assert yaml.safe_load(clean_env.read_text())["fusion"]["weights"] == {"bm25": 1.0, "vector": 0.5}


@pytest.mark.parametrize("name, value, message", [
    ("SHELFWISE__FUSION__WEIGHTS", "oops",
     "setting fusion.weights (from SHELFWISE__FUSION__WEIGHTS): expected a mapping, got 'oops'"),
    ("SHELFWISE__FUSION__WEIGHTS__BM25", "heavy",
     "setting fusion.weights.bm25 (from SHELFWISE__FUSION__WEIGHTS__BM25): expected a number, got 'heavy'"),
    ("SHELFWISE__SHELF__SIZE", "-5", "setting shelf.size (from SHELFWISE__SHELF__SIZE): must be greater than 0, got -5"),
    ("SHELFWISE__SHELF__SIZE", "thirty",
     "setting shelf.size (from SHELFWISE__SHELF__SIZE): expected a whole number, got 'thirty'"),
    ("SHELFWISE__EMBEDDER__BACKEND", "bert",
     "setting embedder.backend (from SHELFWISE__EMBEDDER__BACKEND): must be one of 'use', 'e5' or 'openai', "
     "got 'bert'"),
    ("SHELFWISE__GATING__OPTION_SIMILARITY", "1.5",
     "setting gating.option_similarity (from SHELFWISE__GATING__OPTION_SIMILARITY): must be at most 1, got 1.5"),
    ("SHELFWISE__FUSION__WEIGHTS__VECTOR", "-0.3",
     "setting fusion.weights.vector (from SHELFWISE__FUSION__WEIGHTS__VECTOR): must be at least 0, got -0.3"),
    ("SHELFWISE__RECALL__PARALLEL_PATHS", "sometimes",
     "setting recall.parallel_paths (from SHELFWISE__RECALL__PARALLEL_PATHS): expected true or false, "
     "got 'sometimes'"),
    ("SHELFWISE__SHELF__SIZ", "30", "setting shelf.siz (from SHELFWISE__SHELF__SIZ): unknown setting"),
    ("SHELFWISE__SCHEDULE__TIMEZONE", "Mars/Base",
     "setting schedule.timezone (from SHELFWISE__SCHEDULE__TIMEZONE): 'Mars/Base' is not an IANA time zone"),
    ("SHELFWISE__FUSION__WEIGHTS", "{bm25: [",
     "setting fusion.weights (from SHELFWISE__FUSION__WEIGHTS): not a YAML value: '{bm25: ['"),
    ("SHELFWISE__COMPUTE__BACKEND", "spark",
     "setting compute.backend (from SHELFWISE__COMPUTE__BACKEND): must be one of 'local' or 'dask', got 'spark'"),
    ("SHELFWISE__COMPUTE__DASK_ADDRESS", "10.0.0.5:8786",
     "setting compute.dask_address (from SHELFWISE__COMPUTE__DASK_ADDRESS): '10.0.0.5:8786' is not a Dask scheduler "
     "address such as tcp://10.0.0.5:8786"),
    ("SHELFWISE__COMPUTE__DASK_WORKERS", "0",
     "setting compute.dask_workers (from SHELFWISE__COMPUTE__DASK_WORKERS): must be greater than 0, got 0"),
])
def test_each_bad_environment_value_gives_its_one_line_message(clean_env, monkeypatch, name, value, message):
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError) as caught:
        load_settings()
    assert str(caught.value).startswith(message) and "\n" not in str(caught.value)


def test_file_errors_blame_the_file_that_holds_the_value(clean_env, monkeypatch, tmp_path):
    clean_env.write_text("shelf:\n  size: 0\n")
    with pytest.raises(SettingsError, match=r"^setting shelf.size \(from .*local.yaml\): must be greater than 0"):
        load_settings()
    clean_env.write_text("")
    custom = tmp_path / "custom.yaml"
    custom.write_text("bm25:\n  k_one: 1.2\nrecall:\n  vector_top_k: 0\n")
    monkeypatch.setenv("SHELFWISE_CONFIG", str(custom))
    with pytest.raises(SettingsError) as caught:
        load_settings()
    lines = str(caught.value).splitlines()
    assert lines == [f"setting bm25.k_one (from {custom} (from SHELFWISE_CONFIG)): unknown setting",
                     f"setting recall.vector_top_k (from {custom} (from SHELFWISE_CONFIG)): must be greater than 0, "
                     "got 0"]
    monkeypatch.setenv("SHELFWISE_CONFIG", str(tmp_path / "missing.yaml"))
    with pytest.raises(SettingsError, match="settings file .*missing.yaml \\(from SHELFWISE_CONFIG\\) not found"):
        load_settings()


def _leaves(model: type[BaseModel], prefix: str = "") -> dict[str, object]:
    """Every field of the model as dotted keys; mappings and lists of sections are leaves."""
    keys = {}
    for name, field in model.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            keys.update(_leaves(annotation, f"{prefix}{name}."))
        else:
            keys[f"{prefix}{name}"] = field
    return keys


def _yaml_leaves(raw: dict, prefix: str = "", model: type[BaseModel] = Settings) -> dict[str, object]:
    keys = {}
    for name, value in raw.items():
        field = model.model_fields.get(name)
        annotation = field.annotation if field else None
        if isinstance(value, dict) and isinstance(annotation, type) and issubclass(annotation, BaseModel):
            keys.update(_yaml_leaves(value, f"{prefix}{name}.", annotation))
        else:
            keys[f"{prefix}{name}"] = value
    return keys


def test_settings_yaml_and_the_model_agree(clean_env):
    documented = _yaml_leaves(yaml.safe_load((CONFIG_DIR / "settings.yaml").read_text(encoding="utf-8")))
    assert set(documented) == set(_leaves(Settings))
    # and the model's defaults are what the file says, so no default silently differs from the documentation
    defaults = Settings.model_construct()
    for key, value in documented.items():
        node = defaults
        for part in key.split("."):
            node = getattr(node, part)
        if isinstance(node, tuple):
            value = tuple(type(node[0])(**item) for item in value)
        if key in ("workspace", "outputs_dir"):
            node = str(node)
        assert node == value, key
