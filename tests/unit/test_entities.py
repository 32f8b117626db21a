"""Authors and titles named in a brief, on a tiny catalog."""

from storage.models import BookRecord
from tasks.entities import EntityIndex, understand

BOOKS = [BookRecord("z1", "呐喊", authors=("鲁迅",)), BookRecord("z2", "野草", authors=("鲁迅",)),
         BookRecord("z3", "边城", authors=("沈从文",)), BookRecord("z4", "三体", authors=("刘慈欣",)),
         BookRecord("z5", "三体II", authors=("刘慈欣",)), BookRecord("e1", "Stoner", authors=("John Williams",))]
INDEX = EntityIndex.build(BOOKS, {"鲁迅": ("周树人", "Lu Xun"), "不在目录里": ("x",)})


def test_an_author_or_an_alias_makes_a_spotlight():
    for brief in ("鲁迅作品专题", "周树人的书", "the works of Lu Xun"):
        found = understand(brief, INDEX)
        assert found.intent == "author_spotlight" and found.authors == ("鲁迅",) and found.book_ids == ("z1", "z2")


def test_a_named_book_with_a_likeness_cue_asks_for_similar_books():
    found = understand("像《边城》那样的书", INDEX)
    assert (found.intent, found.titles, found.book_ids) == ("similar_to_book", ("边城",), ("z3",))
    assert understand("books like Stoner", INDEX).book_ids == ("e1",)
    assert understand("像三体II那样的科幻", INDEX).titles == ("三体II",)  # the longer title wins


def test_a_plain_theme_is_a_theme_shelf():
    assert understand("适合雨天读的安静小说", INDEX).intent == "theme_shelf"
