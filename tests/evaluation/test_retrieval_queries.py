"""The retrieval sets' claims and questions (tasks/evaluation/queries.py) are no briefs: their query excludes
nothing and keeps what they are about. (They were fragments of the brief table while the brief grammar read them.)"""

import pytest

from tasks.evaluation.queries import retrieval_query


@pytest.mark.parametrize("text", [
    "Headaches are not correlated with cognitive impairment.",
    "Macrolides have no protective effect against myocardial infarction.",
    "Mice without IFN-γ are resistant to 1,000 strains.",
    "The one-child policy has been successful in lowering population growth.",  # "one" is no filler here
    "Deamination on the minus strand of viral DNA results in mutations.",  # nor "minus" a cue
    "威尔特郡作为非都市郡，实际管辖了哪几个非都市区？",
    "中国古代成人礼指的是什么内容？",
])
def test_a_claim_or_a_question_excludes_nothing_and_keeps_every_word(text):
    query = retrieval_query(text)
    assert not query.filter_conditions and not query.numeric_conditions and not query.preferred_numbers
    assert query.search_keywords == (text,) and query.synthetic_query == text
