"""A heading's qualifier read as what it says: "Concertos (Violoncello)" is violoncello concertos (issue 31, round
nine). Written before the change, on headings as MARC music records write them (the Evergreen export's
"Concertos (Violoncello)", "Sonatas (Piano)"), with this round's own wordings."""

from __future__ import annotations

import numpy as np

from tasks.catalog.subjects import collect_subjects
from tasks.model.books import BookRecord
from tasks.model.subjects import PREFERRED_ROLE, REQUIRED_ROLE
from tasks.understanding.expansion import load_expansion_tables
from tasks.understanding.subjects import SubjectVocabulary, _same
from tests.understanding.test_subject_matching import index_of, read, roles

MUSIC = [
    *(BookRecord(f"vc{i}", f"Cello concerto no. {i}", subjects=("Concertos (Violoncello)",)) for i in range(4)),
    BookRecord("vc-score", "Cello concerto in D", subjects=("Concertos (Violoncello) -- Scores",)),
    *(BookRecord(f"pc{i}", f"Piano concerto no. {i}", subjects=("Concertos (Piano)",)) for i in range(4)),
    *(BookRecord(f"ps{i}", f"Piano sonata no. {i}", subjects=("Sonatas (Piano)",)) for i in range(3)),
    BookRecord("vn", "Violin and cello double concerto", subjects=("Concertos (Violin and violoncello)",)),
    BookRecord("about1", "The concerto", subjects=("Concerto",)),
    BookRecord("about2", "Talking about concertos", subjects=("Concertos -- Analytical guides",)),
    BookRecord("mars", "A guide to the red planet", subjects=("Mars (Planet)",)),
]


def vocabulary() -> SubjectVocabulary:
    subjects = tuple(collect_subjects(MUSIC))
    return SubjectVocabulary(subjects, np.zeros((len(subjects), 4), np.float32))


def labels(matches) -> dict[str, str]:
    return {m.subject.label: m.how for m in matches}


def test_a_two_word_topic_matches_the_headings_whose_qualifier_says_its_other_word_not_its_head_alone():
    found = labels(vocabulary().lexical("violoncello concertos"))
    assert found["Concertos (Violoncello)"] == "exact"
    assert "Concertos (Violin and violoncello)" in found  # the qualifier holds the word among others
    assert "Concertos (Piano)" not in found and "Concerto" not in found and "Concertos" not in found


def test_a_topic_that_is_a_headings_qualifier_holds_the_works_it_qualifies():
    found = labels(vocabulary().lexical("piano"))
    assert found == {"Concertos (Piano)": "holds", "Sonatas (Piano)": "holds"}
    assert labels(vocabulary().lexical("planet")) == {"Mars (Planet)": "holds"}


def test_a_word_of_a_phrase_said_by_its_other_name_makes_the_phrase_another_name():
    assert "violoncello concertos" in _same("Cello concertos", load_expansion_tables())


def test_cello_concertos_require_the_cello_concertos_not_books_on_the_concerto(embedder, tmp_path):
    subjects = index_of(MUSIC, embedder, tmp_path)
    cello = roles(read("Cello concertos", subjects, embedder, MUSIC))
    role, found = cello["cello concertos"]
    assert role == REQUIRED_ROLE and "Concertos (Violoncello)" in found
    assert not {"Concerto", "Concertos", "Concertos (Piano)"} & set(found)
    piano = roles(read("A month of the piano: recordings for a recital, and the sonatas", subjects, embedder, MUSIC))
    assert piano["piano"][0] == PREFERRED_ROLE and {"Concertos (Piano)", "Sonatas (Piano)"} <= set(piano["piano"][1])
