"""Settings: one validated pydantic-settings model, read once and passed to the code that uses it.

Sources, highest first: arguments given to `load_settings`, environment variables
`SHELFWISE__<SECTION>__<KEY>` (values read as YAML scalars or flow collections), the installation's
overlay `config/local.yaml` (what `shelfwise tune` writes), then `config/settings.yaml` (or the file
named by SHELFWISE_CONFIG). Nested mappings merge key by key, so an overlay changes only what it names.
config/settings.yaml documents every key; tests keep the two in step.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from difflib import get_close_matches
from pathlib import Path
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import yaml
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from config.yaml_files import SafeUniqueLoader

PROJECT_ROOT = Path(__file__).resolve().parent.parent
CONFIG_DIR = PROJECT_ROOT / "config"
ENV_PREFIX = "SHELFWISE__"

Positive = Annotated[int, Field(gt=0)]
NonNegative = Annotated[int, Field(ge=0)]
PositiveFloat = Annotated[float, Field(gt=0)]
Weight = Annotated[float, Field(ge=0)]
Share = Annotated[float, Field(ge=0, le=1)]  # thresholds, similarities and shares
PathName = Literal["vector", "bm25", "e5", "entity", "similar", "related", "recent"]


def _project_path(path: Path) -> Path:
    """Relative paths are relative to the project root, wherever the command runs."""
    return path if path.is_absolute() else PROJECT_ROOT / path


ProjectPath = Annotated[Path, AfterValidator(_project_path)]


# libyaml's loader when PyYAML has it: every command reads the settings file, and the pure-Python one
# takes 50 ms for it.


class SettingsError(ValueError):
    """Settings that do not fit the model; the message has one line per problem."""


class Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class EndpointSettings(Section):
    """An HTTP endpoint; the key is read from the variable named in api_key_env, never from config."""

    base_url: str = "http://127.0.0.1:8081/v1"
    model: str = ""
    api_key_env: str = ""
    timeout_seconds: PositiveFloat = 20.0


class EmbedderSettings(Section):
    backend: Literal["use", "e5", "openai"] = "use"
    threads: Positive = 2
    batch_size: Positive = 64
    openai: EndpointSettings = EndpointSettings(base_url="http://127.0.0.1:8080/v1", model="text-embedding-3-small",
                                                api_key_env="SHELFWISE_EMBEDDINGS_API_KEY", timeout_seconds=30)


class TextSection(Section):
    field: Literal["tags", "title_line", "title", "subtitle", "authors", "publisher", "summary", "author_intro", "toc",
                   "subjects"]
    repeat: Positive = 1
    max_chars: Positive | None = None


S3_URI = re.compile(r"s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/[^\s?#@]*)?")
ENDPOINT_URL = re.compile(r"https?://[^\s/?#@]+/?")


class IndexSettings(Section):
    # Where the index versions live: empty, the workspace's indexes/ folder; a local path; or s3://bucket/prefix
    # (storage/index_root.py), with credentials from the environment only.
    uri: str = ""
    s3_endpoint: str = ""  # an S3-compatible server (MinIO, Ceph...); empty: AWS_ENDPOINT_URL, or AWS's own
    brute_force_max_rows: Positive = 200_000  # exact in-memory vector search up to this many books, IVF above
    keep_versions: Positive = 2
    e5_path: bool = False
    text_sections: tuple[TextSection, ...] = (
        TextSection(field="tags", repeat=2), TextSection(field="title_line"),
        TextSection(field="subjects", max_chars=200), TextSection(field="summary", max_chars=500),
        TextSection(field="author_intro", max_chars=200), TextSection(field="toc", max_chars=300))
    head_sections: tuple[TextSection, ...] = (
        TextSection(field="tags"), TextSection(field="title_line"), TextSection(field="subjects", max_chars=200))
    summary_weight: Share = 0.5

    @field_validator("uri")
    @classmethod
    def _local_path_or_s3(cls, value: str) -> str:
        scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*)://", value)
        if scheme is None:
            return value  # a local path
        if scheme.group(1) != "s3" or not S3_URI.fullmatch(value):
            raise ValueError(f"{value!r} is neither a local path nor s3://bucket/prefix (a bucket name of 3-63 "
                             "lowercase letters, digits, dots and hyphens; no credentials, query or spaces)")
        return value.rstrip("/")

    @field_validator("s3_endpoint")
    @classmethod
    def _endpoint_url(cls, value: str) -> str:
        if value and not ENDPOINT_URL.fullmatch(value):
            raise ValueError(f"{value!r} is not an endpoint such as http://127.0.0.1:9000 (scheme, host and port; "
                             "credentials come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, never from here)")
        return value.rstrip("/")


class BM25Settings(Section):
    backend: Literal["bm25s", "rank_bm25"] = "bm25s"
    method: Literal["lucene", "robertson", "atire", "bm25l", "bm25+"] = "lucene"
    english_stemming: bool = True
    k1: PositiveFloat = 1.5
    b: Share = 0.75
    field_weights: dict[Literal["title", "authors", "summary", "subjects", "classification"], Weight] = {
        "title": 1.0, "authors": 1.0, "summary": 1.0, "subjects": 1.0, "classification": 1.0}


class EnrichmentSettings(Section):
    filter_confidence: Share = 0.85
    seed_confidence: Share = 0.85
    min_calibration_books: Positive = 30
    max_guesses_per_dimension: Positive = 3
    reference_catalog: str = Field(
        "demo/catalog.jsonl",
        description="A catalog whose books carry the vocabulary's tags (a path under config/, or absolute; empty: "
                    "none). Where the catalog being built has too few sure books of a dimension (moods, settings: "
                    "nothing in a library record says them), its books' nearest reference books vote instead. Such "
                    "guesses rank and demote; they never filter.")

    def reference_path(self) -> Path | None:
        """The reference catalog's file, or None."""
        return (CONFIG_DIR / self.reference_catalog) if self.reference_catalog else None


class TranslationSettings(Section):
    backend: Literal["rules", "llm"] = "rules"
    llm: EndpointSettings = EndpointSettings(model="qwen2.5-7b-instruct", api_key_env="SHELFWISE_LLM_API_KEY")
    llm_retries: NonNegative = 1
    deadline_seconds: PositiveFloat = 30.0


class RecallSettings(Section):
    vector_top_k: Positive = 100
    max_variant_share: Share = 0.5
    bm25_top_k: Positive = 100
    bm25_randomness: Share = 0.15
    max_keyword_share: Share = 0.25
    parallel_paths: bool = True
    blas_threads: Positive = 1


class ExpansionSettings(Section):
    enabled: bool = Field(True, description="Also search each brief's translation into the other language and its "
                                            "synonyms (config/term_mapping.yaml, config/synonyms.yaml).")


# The paths an intent adds (tasks/recall/paths/intent.py) weigh the same whatever the query's length.
_INTENT_WEIGHTS = {"entity": 2.0, "similar": 1.0, "related": 0.5, "recent": 2.0}


class FusionSettings(Section):
    method: Literal["rrf", "dbsf", "minmax"] = "minmax"
    rrf_k: Positive = 60
    weights: dict[PathName, Weight] = {"vector": 0.3, "bm25": 1.0, "e5": 0.3, **_INTENT_WEIGHTS}
    sentence_weight: Share = 0.5
    short_query_tokens: NonNegative = 2
    short_query_weights: dict[PathName, Weight] = {"vector": 1.0, "bm25": 1.0, "e5": 1.0, **_INTENT_WEIGHTS}
    bm25_full_cover: Share = 0.5


class SentenceRerankSettings(Section):
    enabled: bool = Field(False, description="Reorder the head of each shelf by how well each book's best summary "
                                             "sentence matches the brief.")
    top_n: Positive = 50
    budget_seconds: PositiveFloat = 5.0
    weight: Share = 0.25


class RerankSettings(Section):
    backend: Literal["none", "http"] = "none"
    http: EndpointSettings = EndpointSettings(base_url="http://127.0.0.1:8082/rerank",
                                              api_key_env="SHELFWISE_RERANK_API_KEY", timeout_seconds=10)
    top_n: Positive = 50
    budget_seconds: PositiveFloat = 10.0
    sentence: SentenceRerankSettings = SentenceRerankSettings()


class HistorySettings(Section):
    days: NonNegative = 30
    reference_days: NonNegative = 120
    brief_similarity: Share = 0.8
    condition_similarity: Share = 0.8


class GatingSettings(Section):
    min_books: NonNegative = 10
    option_similarity: Share = 0.3
    done_fit_share: Share = 0.9


class RankingSettings(Section):
    relevance_floor: Share = 0.4
    admission: bool = True  # each book clears the floor its evidence asks (config/relevance.yaml `admission`)


class ShelfSettings(Section):
    size: Positive = 30
    max_per_author: Positive = 2
    language_preference: Literal["first", "only", "any"] = Field(
        "first", description="Books in the brief's language: first (others fill the rest of the shelf), only, "
                             "or any (no preference).")


class ScheduleSettings(Section):
    cron: str = "0 2 * * *"
    timezone: str = "Asia/Shanghai"

    @field_validator("cron")
    @classmethod
    def _five_cron_fields(cls, value: str) -> str:
        # Prefect checks the ranges when it schedules; this catches what is not a cron line at all.
        if not re.fullmatch(r"\s*([\w*/,-]+\s+){4}[\w*/,-]+\s*", value):
            raise ValueError(f"{value!r} is not a cron expression (minute hour day month weekday)")
        return value

    @field_validator("timezone")
    @classmethod
    def _known_timezone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"{value!r} is not an IANA time zone such as Asia/Shanghai") from None
        return value


# A Dask scheduler's address as `dask scheduler` prints it: tcp://10.0.0.5:8786 (tls:// and ws:// too).
_DASK_ADDRESS = re.compile(r"(tcp|tls|ws|wss|inproc|ucx)://[^\s/]+")


class ComputeSettings(Section):
    """Where the index build's chunks and a batch's themes run: in this process, or on a Dask cluster."""

    backend: Literal["local", "dask"] = "local"
    dask_address: str = ""  # a running scheduler; "" = a LocalCluster of dask_workers processes on this machine
    dask_workers: Positive = 2
    chunk_texts: Positive = 2048  # texts a chunk of the build embeds (or books it tokenizes) on one worker

    @field_validator("dask_address")
    @classmethod
    def _scheduler_address(cls, value: str) -> str:
        if value and not _DASK_ADDRESS.fullmatch(value):
            raise ValueError(f"{value!r} is not a Dask scheduler address such as tcp://10.0.0.5:8786")
        return value


class PrefectSettings(Section):
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "INFO"
    client_retries: NonNegative = 2


class LockingSettings(Section):
    wait_seconds: PositiveFloat = 900.0
    busy_retry_seconds: PositiveFloat = 10.0


Port = Annotated[int, Field(gt=0, lt=65536)]


class ServerSettings(Section):
    host: str = "127.0.0.1"
    port: Port = 4200
    outputs_port: Port = 4201
    work_pool: str = "shelfwise"
    auth_file: str = ""


class EmailSettings(Section):
    """SMTP delivery of a batch's workbook; the password is read from the variable named in password_env."""

    host: str = ""
    port: Port = 25
    sender: str = "shelfwise@localhost"
    to: tuple[str, ...] = ()
    starttls: bool = False
    username: str = ""
    password_env: str = ""
    retries: NonNegative = 2
    retry_seconds: Annotated[float, Field(ge=0)] = 5.0
    timeout_seconds: PositiveFloat = 30.0


class DeliverySettings(Section):
    folder: str = ""
    email: EmailSettings = EmailSettings()


# ---- sources ----------------------------------------------------------------------------------------

class _DictSource(PydanticBaseSettingsSource):
    """A source whose whole tree is read up front; `origin` names it in error messages."""

    def __init__(self, settings_cls: type[BaseSettings], data: dict, origin: str):
        super().__init__(settings_cls)
        self.data = data
        self.origin = origin

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return self.data.get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return self.data

    def origin_of(self, location: tuple[str, ...]) -> str | None:
        """Where the value at `location` (or the mapping holding it) came from, if this source set it."""
        node: Any = self.data
        for key in location:
            if not isinstance(node, Mapping) or key not in node:
                return None
            node = node[key]
        return self.origin


class _EnvironmentSource(_DictSource):
    """SHELFWISE__SECTION__KEY=value overrides; each value is read as YAML ("0.5", "{bm25: 2}", "[a, b]")."""

    def __init__(self, settings_cls: type[BaseSettings], environ: Mapping[str, str]):
        data: dict = {}
        self.names: dict[tuple[str, ...], str] = {}
        for name, value in sorted(environ.items()):
            if not name.startswith(ENV_PREFIX):
                continue
            path = tuple(part.lower() for part in name[len(ENV_PREFIX):].split("__") if part)
            if not path:
                continue
            try:
                parsed = yaml.safe_load(value) if value.strip() else ""
            except yaml.YAMLError:
                raise SettingsError(f"setting {'.'.join(path)} (from {name}): not a YAML value: {value!r}") from None
            node = data
            for part in path[:-1]:
                node = node.setdefault(part, {})
                if not isinstance(node, dict):
                    raise SettingsError(f"setting {'.'.join(path)} (from {name}): "
                                        f"{part} is set as a whole by another variable")
            node[path[-1]] = parsed
            self.names[path] = name
        super().__init__(settings_cls, data, "the environment")

    def origin_of(self, location: tuple[str, ...]) -> str | None:
        for size in range(len(location), 0, -1):
            if location[:size] in self.names:
                return self.names[location[:size]]
        return None


def _yaml_source(settings_cls: type[BaseSettings], path: Path, required: bool, named_by: str = "") -> _DictSource:
    label = str(path) + (f" (from {named_by})" if named_by else "")
    if not path.exists():
        if required:
            raise SettingsError(f"settings file {label} not found")
        return _DictSource(settings_cls, {}, label)
    try:
        with open(path, encoding="utf-8") as fh:
            raw = yaml.load(fh, Loader=SafeUniqueLoader) or {}
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        problem = f": {err.problem}" if getattr(err, "problem", None) else ""
        raise SettingsError(f"settings file {label}: not valid YAML{where}{problem}") from None
    if not isinstance(raw, dict):
        raise SettingsError(f"settings file {label}: expected a mapping of sections")
    return _DictSource(settings_cls, raw, label)


def settings_file(environ: Mapping[str, str] | None = None) -> Path:
    """config/settings.yaml, or the file SHELFWISE_CONFIG names."""
    environ = os.environ if environ is None else environ
    return Path(environ.get("SHELFWISE_CONFIG", CONFIG_DIR / "settings.yaml"))


def local_config_path(environ: Mapping[str, str] | None = None) -> Path:
    """The per-installation overlay (`shelfwise tune` writes here); not in git."""
    environ = os.environ if environ is None else environ
    return Path(environ.get("SHELFWISE_LOCAL_CONFIG", CONFIG_DIR / "local.yaml"))


class Settings(BaseSettings):
    """Every setting of the product; config/settings.yaml says what each one does."""

    model_config = SettingsConfigDict(frozen=True, extra="forbid")

    workspace: ProjectPath = Path("var")
    outputs_dir: ProjectPath = Path("outputs")
    embedder: EmbedderSettings = EmbedderSettings()
    index: IndexSettings = IndexSettings()
    bm25: BM25Settings = BM25Settings()
    enrichment: EnrichmentSettings = EnrichmentSettings()
    translation: TranslationSettings = TranslationSettings()
    recall: RecallSettings = RecallSettings()
    expansion: ExpansionSettings = ExpansionSettings()
    fusion: FusionSettings = FusionSettings()
    rerank: RerankSettings = RerankSettings()
    history: HistorySettings = HistorySettings()
    gating: GatingSettings = GatingSettings()
    ranking: RankingSettings = RankingSettings()
    shelf: ShelfSettings = ShelfSettings()
    schedule: ScheduleSettings = ScheduleSettings()
    prefect: PrefectSettings = PrefectSettings()
    locking: LockingSettings = LockingSettings()
    server: ServerSettings = ServerSettings()
    delivery: DeliverySettings = DeliverySettings()
    compute: ComputeSettings = ComputeSettings()

    @classmethod
    def settings_customise_sources(cls, settings_cls, init_settings, env_settings, dotenv_settings,
                                   file_secret_settings):
        return (init_settings, *cls.file_and_environment_sources())

    @classmethod
    def file_and_environment_sources(cls) -> tuple[_DictSource, ...]:
        """The environment, config/local.yaml and the settings file, highest first."""
        named = "SHELFWISE_CONFIG" if "SHELFWISE_CONFIG" in os.environ else ""
        return (_EnvironmentSource(cls, os.environ),
                _yaml_source(cls, local_config_path(), required=False),
                _yaml_source(cls, settings_file(), required=True, named_by=named))

    @property
    def duckdb_path(self) -> Path:
        return self.workspace / "shelfwise.duckdb"

    @property
    def indexes_dir(self) -> Path:
        """The index versions' local folder: index.uri where that is a path; otherwise under the workspace, where
        an s3:// index keeps its builds' staging and its readers' copies."""
        uri = self.index.uri
        return _project_path(Path(uri)) if uri and "://" not in uri else self.workspace / "indexes"

    @property
    def prefect_home(self) -> Path:
        return self.workspace / "prefect"


def load_settings(**overrides: Any) -> Settings:
    """The settings from every source (`overrides` first); SettingsError names each bad key and its source."""
    try:
        return Settings(**overrides)
    except ValidationError as err:
        sources = Settings.file_and_environment_sources()
        lines = [_describe(problem, overrides, sources) for problem in err.errors(include_url=False)]
        raise SettingsError("\n".join(dict.fromkeys(lines))) from None


def setting_source(key: str) -> str:
    """`key` (dotted) and where its value came from, for messages: "outputs_dir (from SHELFWISE__OUTPUTS_DIR)"."""
    location = tuple(key.split("."))
    origin = next((o for s in Settings.file_and_environment_sources() if (o := s.origin_of(location))), "defaults")
    return f"{key} (from {origin})"


_EXPECTED = {
    "dict_type": "expected a mapping", "model_type": "expected a mapping", "model_attributes_type": "expected a mapping",
    "int_parsing": "expected a whole number", "int_type": "expected a whole number",
    "int_from_float": "expected a whole number", "float_parsing": "expected a number", "float_type": "expected a number",
    "bool_parsing": "expected true or false", "bool_type": "expected true or false", "string_type": "expected text",
    "tuple_type": "expected a list", "list_type": "expected a list", "extra_forbidden": "unknown setting",
    "missing": "missing",
}


def _describe(problem: Mapping[str, Any], overrides: Mapping[str, Any], sources: tuple[_DictSource, ...]) -> str:
    """One line: the key, where its value came from, what is wrong."""
    location = tuple(str(part) for part in problem["loc"] if part != "[key]")
    key = ".".join(location)
    if location and location[0] in overrides:
        origin = "given by the caller"
    else:
        origin = next((o for s in sources if (o := s.origin_of(location))), "defaults")
    kind, ctx = problem["type"], problem.get("ctx") or {}
    if kind in _EXPECTED:
        what = _EXPECTED[kind]
    elif kind == "literal_error":
        what = f"must be one of {ctx.get('expected')}"
    elif kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        bound = next(iter(ctx.values()), "")
        bound = f"{bound:g}" if isinstance(bound, (int, float)) else bound
        what = {"greater_than": "must be greater than", "greater_than_equal": "must be at least",
                "less_than": "must be less than", "less_than_equal": "must be at most"}[kind] + f" {bound}"
    else:
        what = str(problem["msg"]).removeprefix("Value error, ")
    given = problem.get("input")
    quiet = kind in ("missing", "extra_forbidden", "value_error") or isinstance(given, (dict, list))
    shown = "" if quiet else f", got {given!r}"
    if kind == "extra_forbidden" and location:
        shown = nearest_name(location[-1], _known_keys(location[:-1]))
    return f"setting {key} (from {origin}): {what}{shown}"


def _known_keys(location: tuple[str, ...]) -> list[str]:
    """The setting names a section at `location` knows ([] where that is no section)."""
    model: Any = Settings
    for part in location:
        field = getattr(model, "model_fields", {}).get(part)
        model = field.annotation if field is not None else None
    return list(getattr(model, "model_fields", {}))


def nearest_name(word: str, known: list[str]) -> str:
    """", did you mean 'weights'?" for a typo of a known name, else "" (difflib's closest match, case folded)."""
    names = {k.casefold(): k for k in known}
    close = get_close_matches(word.casefold(), list(names), n=1, cutoff=0.6)
    return f", did you mean {names[close[0]]!r}?" if close else ""


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


def _merged(base: Mapping[str, Any], overlay: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in overlay.items():
        both = isinstance(value, Mapping) and isinstance(merged.get(key), Mapping)
        merged[key] = _merged(merged[key], value) if both else value
    return merged


def write_local_overlay(updates: Mapping[str, Any], path: Path | None = None) -> Path:
    """Merge `updates` into config/local.yaml key by key, keeping what else it holds (atomic write)."""
    path = path or local_config_path()
    current = yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else {}
    merged = _merged(current or {}, updates)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text("# Written by `shelfwise tune`; overrides config/settings.yaml on this installation.\n"
                   + yaml.safe_dump(merged, allow_unicode=True, sort_keys=False), encoding="utf-8")
    os.replace(tmp, path)
    return path
