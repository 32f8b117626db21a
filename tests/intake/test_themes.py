"""Theme files: YAML, CSV and the XLSX template."""

import re

from config.settings import CONFIG_DIR
from tasks.intake.themes import read_themes
from tests.conftest import PROJECT_ROOT


def test_demo_themes_cover_what_the_demo_needs():
    themes = read_themes(PROJECT_ROOT / "config" / "demo" / "themes.yaml")
    assert themes.rejected == [] and len(themes.themes) >= 15
    briefs = " ".join(t.brief for t in themes.themes)
    for needed in ("不要温暖治愈", "鲁迅", "边城", "1980", "上次", "rainy night"):
        assert needed in briefs
    assert [t.position for t in themes.themes] == list(range(1, len(themes.themes) + 1))


def test_csv_rows_without_a_name_are_rejected_with_their_row(tmp_path):
    path = tmp_path / "themes.csv"
    path.write_text("theme_id,theme_name,description\nrain,Rainy night,quiet books\nx,,no name\n"
                    "rain,Again,duplicate\n,Unnamed id,gets one\n", encoding="utf-8")
    result = read_themes(path, batch_id="2026-11-22")
    assert [t.theme_id for t in result.themes] == ["rain", "theme-04"]
    assert [(r.row_number, r.field, r.reason) for r in result.rejected] == [
        (3, "theme_name", "missing"), (4, "theme_id", "duplicate theme_id 'rain'")]


def test_the_xlsx_template_imports_as_shipped_under_a_dated_batch(tmp_path):
    named = read_themes(CONFIG_DIR / "themes_template.xlsx", batch_id="template")
    assert named.rejected == [] and named.themes[0].theme_name and not named.made_batch_id
    shipped = read_themes(CONFIG_DIR / "themes_template.xlsx")  # it has no batch_id column
    assert shipped.rejected == [] and len(shipped.themes) == len(named.themes) and shipped.made_batch_id
    assert re.fullmatch(r"\d{4}-\d\d-\d\d-\d{4}-[0-9a-f]{4}", shipped.batch_id)


def test_a_theme_can_choose_its_language_preference_and_a_wrong_one_is_rejected(tmp_path):
    path = tmp_path / "themes.csv"
    path.write_text("theme_id,theme_name,language_preference\nrain,Rainy night,only\nsea,The sea,\n"
                    "stars,Stars,english\n", encoding="utf-8")
    result = read_themes(path, batch_id="b")
    assert [(t.theme_id, t.language_preference) for t in result.themes] == [("rain", "only"), ("sea", "")]
    assert [(r.row_number, r.field, r.reason) for r in result.rejected] == [
        (4, "language_preference", "'english' is not one of first, only, any (or empty)")]


def test_one_id_pattern_for_batches_and_themes():
    from tasks.intake.themes import id_problem

    for good in ("2026-12-week1", "rainy-night", "a", "B_2.x", "x" * 64):
        assert id_problem(good) is None
    for bad in ("", "../evil/x", "..", ".hidden", "-flag", "a/b", "雨夜", "a b", "x" * 65):
        assert id_problem(bad) is not None


def test_the_form_and_a_pasted_file_become_one_batch_and_any_bad_theme_refuses_all():
    import pytest

    from tasks.intake.themes import ThemeInputError, themes_from_form

    pasted = "theme_id,theme_name,description\nstars,宇宙星空,关于宇宙的书\n"
    batch = themes_from_form("b1", [{"theme_name": "Rainy night"}], pasted)
    assert [(t.theme_id, t.position, t.theme_name) for t in batch.themes] == [("theme-01", 1, "Rainy night"),
                                                                              ("stars", 2, "宇宙星空")]
    with pytest.raises(ThemeInputError, match=r"^run form: theme 2: theme_id: duplicate theme_id 'a'; "
                                              r"theme 3: theme_name: missing$"):
        themes_from_form("b1", [{"theme_id": "a", "theme_name": "x"}, {"theme_id": "a", "theme_name": "y"},
                                {"theme_id": "c", "theme_name": " "}])
    with pytest.raises(ThemeInputError, match=r"^run form: batch id: '\.\./x' is not an id"):
        themes_from_form("../x", [{"theme_name": "x"}])


def test_pasted_yaml_keeps_its_own_batch_id_unless_one_is_given(tmp_path):
    from tasks.intake.themes import themes_from_text

    text = "batch_id: from-text\nthemes:\n  - theme_id: a\n    theme_name: One\n"
    assert themes_from_text(text).batch_id == "from-text"
    assert themes_from_text(text, "given").themes[0].batch_id == "given"
