"""A brief's keywords are its content words by the catalog's own count (the demo index): counts, time units and
words the catalog holds nowhere or everywhere never reach the sheet."""

import pytest

from config.vocabulary import get_vocabulary
from tasks.model.themes import Theme
from tasks.shelving import build_context
from tasks.understanding.understand import understand

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def tools(demo_workspace):
    return build_context(demo_workspace, get_vocabulary()).tools


@pytest.mark.parametrize("brief, content, not_content", [
    ("推荐十本关于大海的书给高中生，两周内读完", "大海", {"十本", "两周", "推荐", "高中生"}),
    ("a dozen books about the sea for a week at the beach, anything", "sea", {"dozen", "week", "anything"}),
    ("Five novels about war for the reading group xyzzyplugh", "war", {"five", "xyzzyplugh"}),
    ("想找几本关于战争但不血腥的小说，给高中生读", "战争", {"找", "几本", "高中生"}),  # a verb of asking names no topic
])
def test_only_content_words_are_keywords(tools, brief, content, not_content):
    keywords = {k.lower() for k in understand(Theme("t", "t", brief), [], tools).query.search_keywords}
    assert content in keywords and not keywords & not_content, keywords
