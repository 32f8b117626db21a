"""Typed settings: config/settings.yaml read once, overridable by environment variables."""

from __future__ import annotations

import dataclasses
import os
import types
import typing
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import yaml

PROJECT_ROOT = Path(__file__).resolve().parent.parent
CONFIG_DIR = PROJECT_ROOT / "config"
ENV_PREFIX = "SHELFWISE__"


class SettingsError(ValueError):
    """A settings file or override that does not fit the schema."""


@dataclass(frozen=True)
class EndpointSettings:
    """An HTTP endpoint; the key is read from the variable named in api_key_env, never from config."""

    base_url: str = "http://127.0.0.1:8081/v1"
    model: str = ""
    api_key_env: str = ""
    timeout_seconds: float = 20.0


@dataclass(frozen=True)
class EmbedderSettings:
    backend: Literal["use", "e5", "openai"] = "use"
    threads: int = 2
    batch_size: int = 64
    openai: EndpointSettings = field(default_factory=EndpointSettings)


@dataclass(frozen=True)
class TextSection:
    field: str
    repeat: int = 1
    max_chars: int | None = None


@dataclass(frozen=True)
class IndexSettings:
    brute_force_max_rows: int = 50_000
    keep_versions: int = 2
    e5_path: bool = False  # also embed books with multilingual-e5 (about 4 a second): a third recall path
    text_sections: tuple[TextSection, ...] = ()


@dataclass(frozen=True)
class BM25Settings:
    backend: Literal["bm25s", "rank_bm25"] = "bm25s"
    method: Literal["lucene", "robertson", "atire", "bm25l", "bm25+"] = "lucene"
    english_stemming: bool = True
    k1: float = 1.5
    b: float = 0.75
    field_weights: dict[str, float] = field(
        default_factory=lambda: {"title": 1.0, "authors": 1.0, "summary": 1.0}
    )


@dataclass(frozen=True)
class EnrichmentSettings:
    min_similarity: float = 0.25
    second_value_margin: float = 0.02
    max_values_per_dimension: int = 2


@dataclass(frozen=True)
class TranslationSettings:
    backend: Literal["rules", "llm"] = "rules"
    llm: EndpointSettings = field(default_factory=EndpointSettings)
    llm_retries: int = 1


@dataclass(frozen=True)
class RecallSettings:
    vector_top_k: int = 100
    bm25_top_k: int = 100
    min_confidence: float = 0.30
    threshold_factor: float = 0.75
    bm25_randomness: float = 0.15
    parallel_paths: bool = True  # run the recall paths on threads at once


# The paths an intent adds (tasks/intent_recall.py); the same weight whatever the query's length.
INTENT_PATH_WEIGHTS = {"entity": 2.0, "similar": 1.0, "related": 0.5, "recent": 2.0}


@dataclass(frozen=True)
class FusionSettings:
    method: Literal["rrf", "dbsf", "minmax"] = "minmax"
    rrf_k: int = 60
    weights: dict[str, float] = field(
        default_factory=lambda: {"vector": 0.3, "bm25": 1.0, "e5": 0.3, **INTENT_PATH_WEIGHTS})
    sentence_weight: float = 0.5  # dense score = (1 - w) x document + w x best-sentence similarity
    short_query_tokens: int = 2  # a query of at most this many BM25 tokens uses short_query_weights
    short_query_weights: dict[str, float] = field(
        default_factory=lambda: {"vector": 1.0, "bm25": 1.0, "e5": 1.0, **INTENT_PATH_WEIGHTS})


@dataclass(frozen=True)
class ExpansionSettings:
    enabled: bool = True  # seed 001: the query, its translation and its synonyms all search the vector path


@dataclass(frozen=True)
class SentenceRerankSettings:
    enabled: bool = False  # a batch can switch it either way (`shelfwise run --sentence-rerank`)
    top_n: int = 50
    budget_seconds: float = 5.0
    weight: float = 0.25  # order by w x sentence score + (1 - w) x fused score (1: seed 001, sentences alone)


@dataclass(frozen=True)
class RerankSettings:
    backend: Literal["none", "http"] = "none"
    http: EndpointSettings = field(default_factory=EndpointSettings)
    top_n: int = 50
    budget_seconds: float = 10.0
    sentence: SentenceRerankSettings = field(default_factory=SentenceRerankSettings)


@dataclass(frozen=True)
class HistorySettings:
    days: int = 30
    brief_similarity: float = 0.8
    condition_similarity: float = 0.8


@dataclass(frozen=True)
class GatingSettings:
    min_confidence: float = 0.5
    min_books: int = 15
    flat_head_gap: float = 0.2


@dataclass(frozen=True)
class ShelfSettings:
    size: int = 30
    max_per_author: int = 2


@dataclass(frozen=True)
class ScheduleSettings:
    cron: str = "0 2 * * *"
    timezone: str = "Asia/Shanghai"


@dataclass(frozen=True)
class PrefectSettings:
    log_level: str = "INFO"


@dataclass(frozen=True)
class Settings:
    workspace: Path = Path("var")
    outputs_dir: Path = Path("outputs")
    embedder: EmbedderSettings = field(default_factory=EmbedderSettings)
    index: IndexSettings = field(default_factory=IndexSettings)
    bm25: BM25Settings = field(default_factory=BM25Settings)
    enrichment: EnrichmentSettings = field(default_factory=EnrichmentSettings)
    translation: TranslationSettings = field(default_factory=TranslationSettings)
    recall: RecallSettings = field(default_factory=RecallSettings)
    expansion: ExpansionSettings = field(default_factory=ExpansionSettings)
    fusion: FusionSettings = field(default_factory=FusionSettings)
    rerank: RerankSettings = field(default_factory=RerankSettings)
    history: HistorySettings = field(default_factory=HistorySettings)
    gating: GatingSettings = field(default_factory=GatingSettings)
    shelf: ShelfSettings = field(default_factory=ShelfSettings)
    schedule: ScheduleSettings = field(default_factory=ScheduleSettings)
    prefect: PrefectSettings = field(default_factory=PrefectSettings)

    @property
    def duckdb_path(self) -> Path:
        return self.workspace / "shelfwise.duckdb"

    @property
    def indexes_dir(self) -> Path:
        return self.workspace / "indexes"

    @property
    def prefect_home(self) -> Path:
        return self.workspace / "prefect"


def _build(cls: Any, raw: Any, where: str) -> Any:
    """Turn parsed YAML into the annotated type `cls`, naming the key that does not fit."""
    origin = typing.get_origin(cls)
    if dataclasses.is_dataclass(cls):
        if not isinstance(raw, dict):
            raise SettingsError(f"{where}: expected a mapping, got {raw!r}")
        hints = typing.get_type_hints(cls)
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(raw) - known
        if unknown:
            raise SettingsError(f"{where}: unknown key(s) {sorted(unknown)}; known: {sorted(known)}")
        return cls(**{k: _build(hints[k], v, f"{where}.{k}") for k, v in raw.items()})
    if origin is Literal:
        if raw not in typing.get_args(cls):
            raise SettingsError(f"{where}: {raw!r} is not one of {typing.get_args(cls)}")
        return raw
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(cls) if a is not type(None)]
        return None if raw is None else _build(args[0], raw, where)
    if origin is tuple:
        item = typing.get_args(cls)[0]
        return tuple(_build(item, v, f"{where}[{i}]") for i, v in enumerate(raw or []))
    if origin is dict:
        key_t, val_t = typing.get_args(cls)
        return {_build(key_t, k, where): _build(val_t, v, f"{where}.{k}") for k, v in (raw or {}).items()}
    if cls is Path:
        return Path(str(raw))
    if cls is bool:
        if isinstance(raw, str):
            return raw.strip().lower() in {"1", "true", "yes", "on"}
        return bool(raw)
    if cls in (int, float, str):
        try:
            return cls(raw)
        except (TypeError, ValueError) as exc:
            raise SettingsError(f"{where}: expected {cls.__name__}, got {raw!r}") from exc
    return raw


def _apply_env_overrides(raw: dict, environ: typing.Mapping[str, str]) -> dict:
    """Apply SHELFWISE__A__B=value overrides; values are parsed as YAML scalars."""
    for name, value in environ.items():
        if not name.startswith(ENV_PREFIX):
            continue
        path = [part.lower() for part in name[len(ENV_PREFIX):].split("__") if part]
        node = raw
        for part in path[:-1]:
            node = node.setdefault(part, {})
        node[path[-1]] = yaml.safe_load(value)
    return raw


def _resolve(path: Path) -> Path:
    return path if path.is_absolute() else PROJECT_ROOT / path


def _deep_merge(base: dict, overlay: dict) -> dict:
    merged = dict(base)
    for key, value in overlay.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict) and not key.endswith("weights"):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def local_config_path(environ: typing.Mapping[str, str] | None = None) -> Path:
    """The per-installation overlay (`shelfwise tune` writes here); not in git."""
    environ = os.environ if environ is None else environ
    return Path(environ.get("SHELFWISE_LOCAL_CONFIG", CONFIG_DIR / "local.yaml"))


def load_settings(
    path: Path | None = None, environ: typing.Mapping[str, str] | None = None
) -> Settings:
    """Read the settings file, then config/local.yaml over it, then environment overrides."""
    environ = os.environ if environ is None else environ
    path = path or Path(environ.get("SHELFWISE_CONFIG", CONFIG_DIR / "settings.yaml"))
    with open(path, encoding="utf-8") as fh:
        raw = yaml.safe_load(fh) or {}
    local = local_config_path(environ)
    if local.exists():
        with open(local, encoding="utf-8") as fh:
            raw = _deep_merge(raw, yaml.safe_load(fh) or {})
    raw = _apply_env_overrides(raw, environ)
    settings = _build(Settings, raw, str(path))
    return dataclasses.replace(
        settings, workspace=_resolve(settings.workspace), outputs_dir=_resolve(settings.outputs_dir)
    )


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read once."""
    return load_settings()


def configure_runtime_environment(settings: Settings) -> None:
    """Keep Prefect offline, quiet and inside the workspace; call before importing prefect."""
    settings.prefect_home.mkdir(parents=True, exist_ok=True)
    defaults = {
        "DO_NOT_TRACK": "1",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_HOME": str(settings.prefect_home),
        "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "120",
        "PREFECT_LOGGING_LEVEL": settings.prefect.log_level,
        # Steps log to the "shelfwise" logger; this sends those lines to the Prefect run logs too.
        "PREFECT_LOGGING_EXTRA_LOGGERS": "shelfwise",
        # Steps also run outside flows (eval, try): their lines go to the terminal only.
        "PREFECT_LOGGING_TO_API_WHEN_MISSING_FLOW": "ignore",
        "LANCEDB_LOG": "error",  # LanceDB's Rust logger warns on every new table
    }
    for name, value in defaults.items():
        os.environ.setdefault(name, value)
