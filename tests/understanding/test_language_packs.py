"""Language packs (tasks/understanding/lang/): the reader's language knowledge is data under one checked schema, and
a language is added with data only."""

import shutil
from datetime import date
from pathlib import Path

import pytest

from config.vocabulary import get_vocabulary
from tasks.understanding.lang import KINDS_FILE, PACKS_DIR, SCHEMA, PackError, load_packs, pack_keys
from tasks.understanding.reading import EXCLUDED, load_cues, read_brief

FRENCH = {
    "cues.yaml": """
negation_before: ["pas de", "pas d'", sans, "aucun", "aucune", "sauf"]
negation_after: [exclus, "à éviter"]
termination: [mais, cependant]
requirement: [uniquement, seulement]
preference: [idéalement, "de préférence"]
""",
    "clauses.yaml": """
ends: [",", ";", "!", "?", ":"]
ends_before_space: ["."]
joiners: [ou, et]
""",
    "numbers.yaml": """
digits: {deux: 2, trois: 3, dix: 10}
units:
  pages: [pages]
field_words:
  pub_year: [publiés, parus, "publiés en"]
before: {après: ">", avant: "<", depuis: ">=", "moins de": "<", "plus de": ">"}
after: {"ou plus": ">=", "ou moins": "<=", "et après": ">="}
not_content: [semaine]
""",
    "readings.yaml": """
kinds:
  推理悬疑: [romans policiers, roman policier, polars, polar]
  fiction: [romans, roman]
""",
}


def _with_french(tmp_path: Path) -> Path:
    """The product's packs and a French one written here: no Python of the reader knows French."""
    root = tmp_path / "lang"
    shutil.copytree(PACKS_DIR, root, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    (root / "fr").mkdir()
    for name, text in FRENCH.items():
        (root / "fr" / name).write_text(text, encoding="utf-8")
    return root


def test_a_third_language_is_read_from_data_alone(tmp_path):
    root = _with_french(tmp_path)
    assert load_packs(root).languages == ("en", "fr", "zh")
    reading = read_brief("pas de romans policiers, publiés après 2000", get_vocabulary(), today=date(2026, 11, 22),
                         cues=load_cues(root))
    assert [(m.field, m.value, m.polarity) for m in reading.mentions] == [("genre", "推理悬疑", EXCLUDED)]
    assert [n.describe() for n in reading.numeric] == ["MUST pub_year>2000"]
    # the product's own packs know no French: the same brief asks for nothing there
    assert not read_brief("pas de romans policiers, publiés après 2000", get_vocabulary()).mentions


def test_a_negation_in_the_new_language_turns_its_numbers_round(tmp_path):
    reading = read_brief("romans, sans les livres de plus de 400 pages", get_vocabulary(), cues=load_cues(
        _with_french(tmp_path)))
    assert [n.describe() for n in reading.numeric] == ["MUST pages<=400"]


def _broken(tmp_path: Path, file: str, text: str, folder: str = "fr") -> Path:
    root = _with_french(tmp_path)
    (root / folder).mkdir(exist_ok=True)
    (root / folder / file).write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize("folder, file, text, named", [
    ("fr", "cues.yaml", "negation_befor: [pas]\n", "negation_befor: unknown key"),
    ("fr", "readings.yaml", "languages:\n  german: [allemand]\n", "languages.german: not a language code"),
    ("fr", "cues.yaml", "hedge: ou\n", "hedge: must be a list of words"),
    ("fr", "notes.yaml", "x: [1]\n", "notes.yaml: unknown file"),
    ("french", "cues.yaml", "hedge: [ou]\n", "french: unknown language"),
])
def test_a_pack_that_breaks_the_schema_is_refused_naming_file_and_key(tmp_path, folder, file, text, named):
    root = _broken(tmp_path, file, text, folder)
    with pytest.raises(PackError) as refused:
        load_packs(root)
    message = str(refused.value)
    assert named in message and str(root) in message and "\n" not in message


def test_every_pack_holds_the_same_files_and_only_known_keys():
    packs = load_packs()
    assert set(packs.languages) >= {"zh", "en"}
    for pack in packs.packs:
        assert set(pack.files) == set(SCHEMA), pack.code
        for file, keys in pack.files.items():
            assert set(keys) <= pack_keys(file, packs.kinds), (pack.code, file)


def test_a_new_cue_kind_is_a_row_of_data(tmp_path):
    """The scope algorithm knows a kind only by what kinds.yaml says it does: a kind added there, with its words in a
    pack, scopes as its row says (here a negation after what it negates, in French)."""
    root = _with_french(tmp_path)
    with (root / KINDS_FILE).open("a", encoding="utf-8") as kinds:
        kinds.write("rejection: {effect: exclude, direction: preceding}\n")
    with (root / "fr" / "cues.yaml").open("a", encoding="utf-8") as cues:
        cues.write("rejection: [\"pas pour nous\"]\n")
    reading = read_brief("des romans; les romans policiers pas pour nous", get_vocabulary(), cues=load_cues(root))
    assert ("genre", "推理悬疑", EXCLUDED) in [(m.field, m.value, m.polarity) for m in reading.mentions]
    assert ("form", "fiction", EXCLUDED) not in [(m.field, m.value, m.polarity) for m in reading.mentions]


@pytest.mark.parametrize("row, named", [
    ("negation_before: {effect: forbid}", "negation_before.effect: unknown value 'forbid'"),
    ("hedge: {effect: allow, direction: sideways}", "hedge.direction: unknown value 'sideways'"),
    ("hedge: {effect: allow, continues_over: [nothing]}", "hedge.continues_over: must be a list of the file's kinds"),
    ("hedge: {direction: clause}", "hedge.effect: missing"),
])
def test_a_cue_kind_that_says_nothing_the_algorithm_knows_is_refused(tmp_path, row, named):
    root = _with_french(tmp_path)
    (root / KINDS_FILE).write_text(row + "\n", encoding="utf-8")
    with pytest.raises(PackError) as refused:
        load_packs(root)
    assert named in str(refused.value) and KINDS_FILE in str(refused.value)


def test_a_cue_kinds_words_composed_of_heads_and_verbs(tmp_path):
    """A pack's composed row makes every head and verb one word of its kind: a French exclusion after what it
    negates, said with a verb of displaying no pack lists whole."""
    root = _with_french(tmp_path)
    with (root / "fr" / "cues.yaml").open("a", encoding="utf-8") as cues:
        cues.write("composed:\n  negation_after:\n    heads: [ne seront pas, pas]\n    verbs: [exposés, exposées]\n")
    reading = read_brief("des romans; les romans policiers ne seront pas exposés", get_vocabulary(),
                         cues=load_cues(root))
    assert ("genre", "推理悬疑", EXCLUDED) in [(m.field, m.value, m.polarity) for m in reading.mentions]
    broken = _with_french(tmp_path / "broken")  # a composed row of a kind kinds.yaml does not have
    with (broken / "fr" / "cues.yaml").open("a", encoding="utf-8") as cues:
        cues.write("composed:\n  rejection:\n    heads: [pas]\n    verbs: [exposé]\n")
    with pytest.raises(PackError) as refused:
        load_cues(broken)
    assert "composed.rejection" in str(refused.value) and "cues.yaml" in str(refused.value)


def test_a_reading_lists_its_topics_with_their_polarity():
    """What subject headings are matched to: asked-for content words, excluded topics, an occasion's topics."""
    reading = read_brief("cookbooks for beginners, no war stories, a 中秋 shelf", get_vocabulary())
    topics = {(t.text, t.polarity, t.source) for t in reading.topics}
    assert {("cookbooks", "wanted", "asked"), ("war", EXCLUDED, "excluded"), ("团圆", "wanted", "occasion")} <= topics
    assert not {t for t in topics if t[0] in ("shelf", "中秋", "no", "stories")}


def test_a_likeness_pointing_back_is_composed_of_pointers_and_words_of_kind(tmp_path):
    """readings.yaml `alike_composed`: every pointer before every word of kind is a likeness pointing back, in a new
    language too; a row without both parts is refused naming the file and key."""
    root = _with_french(tmp_path)
    with (root / "fr" / "readings.yaml").open("a", encoding="utf-8") as readings:
        readings.write("alike_composed:\n  genre:\n    pointers: [même, pareil]\n    kinds: [veine, genre]\n")
    assert {"même veine", "pareil genre"} <= set(load_cues(root).readings.alike_back)
    broken = _with_french(tmp_path / "broken")
    with (broken / "fr" / "readings.yaml").open("a", encoding="utf-8") as readings:
        readings.write("alike_composed:\n  genre:\n    pointers: [même]\n")
    with pytest.raises(PackError) as refused:
        load_cues(broken)
    assert "alike_composed.genre" in str(refused.value) and "readings.yaml" in str(refused.value)
