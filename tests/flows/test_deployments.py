"""What `shelfwise serve` registers."""

from config.settings import ScheduleSettings
from flows.deployments import deployments


def test_nightly_runs_on_the_configured_cron_and_timezone_and_shelves_take_a_form():
    nightly, shelves, build = deployments(ScheduleSettings(cron="0 2 * * *", timezone="Asia/Shanghai"))
    assert nightly.name == "nightly"
    [schedule] = nightly.schedules
    assert schedule.schedule.cron == "0 2 * * *" and schedule.schedule.timezone == "Asia/Shanghai"
    assert shelves.schedules == [] and build.schedules == []
    form = shelves._parameter_openapi_schema.model_dump()
    assert form["required"] == ["batch_id"]
    assert "themes" in form["properties"] and "ThemeBrief" in str(form["definitions"])
    # the optional stages are switches on the form, each saying what it does and what empty means
    for switch in ("sentence_rerank", "query_expansion"):
        assert "Empty: the batch's earlier choice" in form["properties"][switch]["description"]


def test_the_run_form_describes_the_switches_with_the_settings_own_words():
    from config.settings import ExpansionSettings, SentenceRerankSettings
    from flows.generate_shelves import generate_shelves

    form = generate_shelves.parameters.model_dump()["properties"]
    for name, section, key in (("sentence_rerank", SentenceRerankSettings, "rerank.sentence.enabled"),
                               ("query_expansion", ExpansionSettings, "expansion.enabled")):
        assert form[name]["description"].startswith(section.model_fields["enabled"].description)
        assert key in form[name]["description"] and form[name]["default"] is None
    assert form["sentence_rerank"]["title"] == "Sentence rerank"
