"""The retrieval sets' claims and questions (tasks/evaluation/queries.py) are no briefs: their query excludes
nothing and keeps what they are about. (They were fragments of the brief table while the brief grammar read them.)"""

import pytest

from tasks.evaluation.queries import retrieval_query


@pytest.mark.parametrize("text, about", [
    ("Headaches are not correlated with cognitive impairment.", {"headaches", "correlated", "cognitive"}),
    ("Macrolides have no protective effect against myocardial infarction.", {"macrolides", "protective"}),
    ("Mice without IFN-γ are resistant to 1,000 strains.", {"mice", "without", "ifn", "1", "000"}),
    ("威尔特郡作为非都市郡，实际管辖了哪几个非都市区？", {"威尔特", "都市区", "非"}),
    ("中国古代成人礼指的是什么内容？", {"成人礼"}),
])
def test_a_claim_or_a_question_excludes_nothing_and_keeps_its_words(text, about):
    query = retrieval_query(text)
    assert not query.filter_conditions and not query.numeric_conditions
    assert about <= {k.lower() for k in query.search_keywords}, query.search_keywords
    assert query.synthetic_query == text


def test_a_claim_keeps_the_words_a_brief_would_call_filler_and_its_cues():
    # "one" is filler in a brief ("one more like this"); in a claim it is half of "one-child"
    assert {"one", "child"} <= set(retrieval_query("The one-child policy has been successful in lowering "
                                                   "population growth.").search_keywords)
    # a claim's letters and numbers are what it is about
    assert {"n", "1", "000"} <= set(retrieval_query("N-terminal cleavage of 1,000 proteins increases success."
                                                    ).search_keywords)
    # a cue word of a brief is a word of a claim: the minus strand; "does not" stays in the dense query
    assert "minus" in retrieval_query("Deamination on the minus strand of viral DNA results in mutations."
                                      ).search_keywords
    negated = retrieval_query("Localization of PIN1 in the embryo does not require VPS9a.")
    assert "does not require" in negated.synthetic_query
