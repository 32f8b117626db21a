"""What `shelfwise server` serves and `shelfwise deploy` registers, and the run form curators fill in."""

from config.settings import ExpansionSettings, SentenceRerankSettings, load_settings
from flows.build_indexes import build_indexes
from flows.deployments import deployments
from flows.generate_shelves import generate_shelves
from tasks.intake.themes import ID_PATTERN


def test_nightly_runs_on_the_configured_cron_and_timezone_and_every_deployment_runs_one_at_a_time():
    settings = load_settings(schedule={"cron": "0 2 * * *", "timezone": "Asia/Shanghai"})
    nightly, shelves, build, review = deployments(settings)
    assert [d.name for d in (nightly, shelves, build, review)] == ["nightly", "generate-shelves", "build-indexes",
                                                                   "import-review"]
    [schedule] = nightly.schedules
    assert schedule.schedule.cron == "0 2 * * *" and schedule.schedule.timezone == "Asia/Shanghai"
    assert shelves.schedules == [] and build.schedules == [] and review.schedules == []
    limits = {(d.concurrency_limit, d.concurrency_options.collision_strategy.value)
              for d in (nightly, shelves, build, review)}
    assert limits == {(1, "ENQUEUE")}
    assert "nightly" in nightly.tags and all("manual" in d.tags for d in (shelves, build, review))


def test_the_run_form_has_titles_a_dated_default_batch_and_a_place_to_paste_a_themes_file():
    form = deployments(load_settings())[1]._parameter_openapi_schema.model_dump()
    fields = form["properties"]
    assert form["required"] == []
    assert [fields[name]["title"] for name in fields] == [
        "Batch id", "Themes", "Themes file text", "Include unavailable books", "Sentence rerank", "Query expansion",
        "Language preference", "Apply review", "Compute"]
    assert all(field.get("description") for field in fields.values())
    # the batch id: checked by the form against the one pattern; empty means a new, dated batch
    assert fields["batch_id"]["pattern"] == ID_PATTERN and fields["batch_id"]["default"] == "auto"
    assert "named after the date and time the run starts" in fields["batch_id"]["description"]
    theme = form["definitions"]["ThemeBrief"]
    assert theme["title"] == "Theme" and theme["required"] == ["theme_name"]
    assert theme["properties"]["theme_id"]["pattern"] == f"^$|{ID_PATTERN}"
    assert all(p["title"] and p["description"] for p in theme["properties"].values())
    assert fields["themes_file_text"]["type"] == "string" and "YAML" in fields["themes_file_text"]["description"]


def test_the_switches_are_three_choices_described_in_the_settings_own_words():
    fields = generate_shelves.parameters.model_dump()["properties"]
    for name, section, key in (("sentence_rerank", SentenceRerankSettings, "rerank.sentence.enabled"),
                               ("query_expansion", ExpansionSettings, "expansion.enabled")):
        assert fields[name]["enum"] == ["default", "on", "off"] and fields[name]["default"] == "default"
        assert fields[name]["description"].startswith(section.model_fields["enabled"].description)
        assert key in fields[name]["description"] and "anyOf" not in fields[name]
    assert fields["sentence_rerank"]["title"] == "Sentence rerank"
    assert fields["language_preference"]["enum"] == ["default", "first", "only", "any"]


def test_the_build_form_says_what_a_full_rebuild_is():
    full = build_indexes.parameters.model_dump()["properties"]["full"]
    assert full["title"] == "Full rebuild" and full["default"] is False
    assert "ignoring the caches" in full["description"]


def test_both_forms_choose_where_the_run_computes():
    for flow in (build_indexes, generate_shelves):
        compute = flow.parameters.model_dump()["properties"]["compute"]
        assert compute["title"] == "Compute" and compute["enum"] == ["default", "local", "dask"]
        assert "compute.backend" in compute["description"] and compute["default"] == "default"


def test_a_flow_called_without_its_optional_parameters_gets_their_defaults():
    # Field(...) as a default once reached the flow as a FieldInfo object
    assert generate_shelves.validate_parameters({"batch_id": "b1"}) == {
        "batch_id": "b1", "themes": [], "themes_file_text": "", "include_unavailable": False,
        "sentence_rerank": "default", "query_expansion": "default", "language_preference": "default",
        "apply_review": False, "compute": "default"}


def test_the_serve_loop_starts_again_when_it_ends_or_fails_until_asked_to_stop(capsys):
    import threading

    from flows.deployments import keep_serving

    stopping, calls = threading.Event(), []

    def serve_once():  # the first loop fails, the second ends on its own, the third is stopped
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("the API went away")
        if len(calls) == 3:
            stopping.set()

    keep_serving(serve_once, stopping, pause_seconds=0)
    assert len(calls) == 3
    assert capsys.readouterr().err.splitlines() == [
        "the serve loop stopped: RuntimeError: the API went away; starting it again in 0 s",
        "the serve loop stopped; starting it again in 0 s"]
