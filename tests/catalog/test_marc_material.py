"""What a MARC record says it is: leader/06-07 the material, 008/22 and 008/33 (UNIMARC 100 $a/17-19, 105 $a/11) its
audience and literary form, read from pymarc-written records into a real catalog, and a shelf that keeps to them."""

from pathlib import Path

import pytest
import yaml
from pymarc import Field, Indicators, Record, Subfield, XMLWriter

from config.materials import get_materials
from flows.cli import main as shelfwise
from storage.catalog_db import open_catalog
from tasks.catalog.crosswalk import default_crosswalk
from tasks.catalog.enrich import known_facets
from tasks.catalog.ingest import ColumnMapping, validate_file
from tasks.model.conditions import FilterCondition
from tasks.model.constraints import reading_material
from tasks.model.query import ThemeQuery
from tests.catalog.test_marc_import import write_binary


def marc21(book_id: str, leader: str, fixed: str, title: str, headings: list[tuple[str, ...]] = (),
           summary: str = "") -> Record:
    """A MARC21 record; `leader` gives positions 06-07, `fixed` the 008's positions 22 and 33 ("e1")."""
    record = Record(force_utf8=True)
    record.leader = record.leader[:6] + leader + record.leader[8:]
    record.add_field(
        Field(tag="001", data=book_id),
        Field(tag="008", data=f"200101s2001    xxu{' ' * 4}{fixed[0]}{' ' * 10}{fixed[1]} eng d"),
        Field(tag="245", indicators=Indicators("1", "0"), subfields=[Subfield("a", title)]),
        *(Field(tag="655" if len(h) == 1 else "650", indicators=Indicators(" ", "0"),
                subfields=[Subfield("a", h[0]), *([Subfield("v", h[1])] if len(h) > 1 else [])]) for h in headings),
        *([Field(tag="520", indicators=Indicators(" ", " "), subfields=[Subfield("a", summary)])] if summary else []),
    )
    return record


def write_xml(path: Path, records) -> Path:
    writer = XMLWriter(open(path, "wb"))
    for record in records:
        writer.write(record)
    writer.close()
    return path


def _records() -> list[Record]:
    return [marc21("p1", "am", "ed", "Hamlet", [("Tragedies",)]),
            marc21("f1", "gm", "e ", "Hamlet", [("Feature films",), ("Drama.",)]),
            marc21("s1", "as", " a", "Garden journal"),  # a serial's 008/33 is its title's alphabet, no form
            marc21("j1", "am", "jp", "Verses for the young"),
            marc21("u1", "  ", "j1", "Untyped")]  # no type of record: its 008 cannot be read


@pytest.mark.parametrize("write", [write_binary, write_xml], ids=["binary", "marcxml"])
def test_marc21_leader_and_008_are_read_as_material_and_coded_values(tmp_path, vocabulary, write):
    source = write(tmp_path / ("export.mrc" if write is write_binary else "export.xml"), _records())
    books = {b.book_id: b for b in validate_file(source, ColumnMapping(), vocabulary).books}
    assert {i: (b.material, b.coded) for i, b in books.items()} == {
        "p1": ("text", ("marc21_audience:e", "marc21_literary_form:d")),
        "f1": ("film", ("marc21_audience:e",)),
        "s1": ("serial", ()),
        "j1": ("text", ("marc21_audience:j", "marc21_literary_form:p")),
        "u1": (None, ())}  # unknown stays unknown, never "text"
    with open_catalog(tmp_path / "catalog.duckdb") as db:
        db.import_books(list(books.values()), [], str(source))
        stored = {b.book_id: b for b in db.load_books()}
    assert {i: (b.material, b.coded) for i, b in stored.items()} == {i: (b.material, b.coded)
                                                                      for i, b in books.items()}


def test_the_coded_form_and_audience_are_sure_facets_and_the_material_one_too(tmp_path, vocabulary):
    books = {b.book_id: b for b in validate_file(write_binary(tmp_path / "x.mrc", _records()), ColumnMapping(),
                                                 vocabulary).books}
    crosswalk = default_crosswalk(vocabulary)

    def facets(book_id: str) -> dict[tuple[str, str], float]:
        return {(f.dimension, f.value): f.confidence for f in known_facets(books[book_id], crosswalk)}

    assert facets("p1")[("form", "drama")] >= 0.95 and facets("p1")[("material", "text")] == 1.0
    assert facets("j1")[("form", "poetry")] >= 0.95 and facets("j1")[("audience", "children")] >= 0.95
    assert facets("f1")[("material", "film")] == 1.0
    assert ("material", "text") not in facets("u1") and ("audience", "children") not in facets("u1")


def test_unimarc_record_label_100_and_105_are_read(tmp_path, vocabulary):
    record = Record(force_utf8=True)
    record.leader = record.leader[:6] + "am" + record.leader[8:]
    record.add_field(
        Field(tag="001", data="cn-1"),
        Field(tag="100", indicators=Indicators(" ", " "),
              subfields=[Subfield("a", "20180601d2018    kc y0chiy50      ea")]),
        Field(tag="105", indicators=Indicators(" ", " "), subfields=[Subfield("a", "y   z   000gy")]),
        Field(tag="200", indicators=Indicators("1", " "), subfields=[Subfield("a", "小诗集")]),
    )
    [book] = validate_file(write_binary(tmp_path / "cn.iso", [record]), ColumnMapping(), vocabulary, "cnmarc").books
    assert (book.material, book.coded) == ("text", ("unimarc_audience:k", "unimarc_audience:c",
                                                    "unimarc_literary_form:g"))
    facets = {(f.dimension, f.value) for f in known_facets(book, default_crosswalk(vocabulary))}
    assert {("form", "poetry"), ("audience", "children"), ("material", "text")} <= facets


def test_a_material_column_is_read_by_name_and_an_unknown_word_stays_unknown(tmp_path, vocabulary):
    source = tmp_path / "books.csv"
    source.write_text("book_id,title,material\n1,A film,Films and videos\n2,A thing,Realia\n3,A book,\n",
                      encoding="utf-8")
    rows = validate_file(source, ColumnMapping(), vocabulary)
    assert [b.material for b in rows.books] == ["film", None, None]
    assert [(w.field, w.message) for w in rows.warnings] == [("material", "unknown material 'Realia'")]


def _query(*conditions: FilterCondition) -> ThemeQuery:
    return ThemeQuery(filter_conditions=conditions, search_keywords=(), synthetic_query="", confidence=0.5,
                      translator="rules")


def test_a_brief_about_reading_leaves_out_the_materials_the_catalog_names_that_are_no_reading():
    not_reading = get_materials().not_reading
    plays = _query(FilterCondition("form", ("drama",), "MUST"))
    held = frozenset({("material", "text"), ("material", "film"), ("form", "drama")})
    added = reading_material(plays, held, not_reading).filter_conditions[-1]
    assert added == FilterCondition("material", ("film",), "MUST_NOT")  # only what some book is said to be
    assert reading_material(plays, frozenset({("form", "drama")}), not_reading) == plays  # records say nothing
    films = _query(FilterCondition("material", ("film",), "MUST"))
    assert reading_material(films, held, not_reading) == films  # a material asked for is the brief's own
    wish = _query(FilterCondition("form", ("drama",), "SHOULD"))
    assert reading_material(wish, held, not_reading) == wish
    # a carrier named beside a kind of book is one of the alternatives: "audiobooks and short novels"
    both = _query(FilterCondition("form", ("fiction",), "MUST"), FilterCondition("material", ("audiobook",), "MUST"))
    assert reading_material(both, held, not_reading).filter_conditions == (
        FilterCondition("form", ("fiction",), "MUST"), FilterCondition("material", ("audiobook",), "SHOULD"))
    # ...unless the brief requires the carrier in so many words: "Audiobooks only: mysteries for long drives"
    assert reading_material(both, held, not_reading, frozenset({"audiobook"})) == both


PLAYS = [("Hamlet", "A prince of Denmark avenges his father in Shakespeare's tragedy of revenge and madness."),
         ("Macbeth", "A Scottish general murders his king in Shakespeare's tragedy of ambition and guilt."),
         ("A Doll's House", "Ibsen's play about a wife who leaves her husband and her home."),
         ("Death of a Salesman", "Arthur Miller's play about a travelling salesman and his sons."),
         ("The Cherry Orchard", "Chekhov's comedy of a family losing its estate and its orchard."),
         ("Waiting for Godot", "Beckett's play of two tramps waiting by a tree for someone who never comes.")]


@pytest.mark.slow
def test_a_play_brief_shelves_no_film_and_a_dvd_brief_gets_the_films(prefect_server, workspace, tmp_path, capsys):
    """Films whose headings say "Drama." over a small real catalog: a brief to read plays gets the printed plays,
    one for DVDs the films."""
    records = [marc21(f"p{i}", "am", "ed", title, [("English drama",), ("Tragedies",)], summary)
               for i, (title, summary) in enumerate(PLAYS)]
    records += [marc21(f"f{i}", "gm", "e ", title, [("Feature films",), ("Drama.",), (title, "Drama")],
                       f"A filmed performance on DVD. {summary}") for i, (title, summary) in enumerate(PLAYS)]
    records += [marc21("n1", "am", "e1", "The gardener's year", [("Gardening",)], "A year in a kitchen garden.")]
    source = write_xml(tmp_path / "library.xml", records)
    assert shelfwise(["catalog", "import", str(source)]) == 0
    assert shelfwise(["index", "build"]) == 0

    def shelf(brief: str) -> set[str]:
        capsys.readouterr()
        assert shelfwise(["try", brief, "--yaml"]) == 0
        return {entry["book_id"] for entry in yaml.safe_load(capsys.readouterr().out)["shelf"]}

    plays = shelf("plays to read aloud: tragedies and drama")
    assert plays and all(book_id.startswith("p") for book_id in plays), plays
    films = shelf("DVDs of filmed stage performances for a movie night")
    assert films and all(book_id.startswith("f") for book_id in films), films
