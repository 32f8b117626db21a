"""The LLM translator and the HTTP reranker against a real HTTP server on 127.0.0.1."""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from config.settings import EndpointSettings, TranslationSettings
from tasks.model.books import BookRecord
from tasks.model.conditions import FilterCondition, NumericCondition
from tasks.model.query import Candidate
from tasks.model.themes import Theme
from tasks.ranking.rerank import rerank
from tasks.ranking.rerank.http import HTTPReranker
from tasks.understanding.entities import EntityIndex
from tasks.understanding.reading import read_brief
from tasks.understanding.translate import create_translator

VALID_REPLY = {
    "filter_conditions": [{"field": "emotional_tone", "values": ["平静淡然"], "operator": "SHOULD"},
                          {"field": "emotional_tone", "values": ["温暖治愈"], "operator": "MUST_NOT"}],
    "search_keywords": ["rain", "quiet", "night"],
    "synthetic_query": "A quiet, restrained novel for a rainy night.",
    "confidence": 0.85,
}
THEME = Theme("b1", "rain", "Quiet novels for a rainy night", description="avoid heart-warming stories")


class Endpoint:
    """What the fake model server answers next, and what it was asked."""

    def __init__(self):
        self.behaviour = "valid"
        self.requests: list[dict] = []


@pytest.fixture
def endpoint():
    state = Endpoint()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append(body)
            if state.behaviour == "slow":
                time.sleep(1.5)
            if state.behaviour == "error":
                self.send_response(500)
                self.end_headers()
                return
            if "documents" in body:  # a rerank request: score by document length
                payload = {"results": [{"index": i, "relevance_score": len(d)}
                                       for i, d in enumerate(body["documents"])]}
            else:
                reply = VALID_REPLY if state.behaviour == "valid" else {
                    **VALID_REPLY, "filter_conditions": [{"field": "mood", "values": ["x"], "operator": "MAYBE"}]}
                content = json.dumps(reply) if state.behaviour != "garbage" else "Sure! Here are books:"
                payload = {"choices": [{"message": {"role": "assistant", "content": content}}]}
            data = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    yield state
    server.shutdown()
    server.server_close()


def llm_translator(endpoint, vocabulary):
    settings = TranslationSettings(backend="llm", llm=EndpointSettings(
        base_url=endpoint.url + "/v1", model="test-model", timeout_seconds=0.5), llm_retries=1)
    return create_translator(settings, vocabulary)


def test_a_valid_llm_reply_is_used(endpoint, vocabulary):
    query = llm_translator(endpoint, vocabulary).translate(THEME, read_brief(THEME.brief, vocabulary))
    assert query.translator == "llm" and query.confidence == 0.85
    assert query.conditions("MUST_NOT")[0].values == ("温暖治愈",)
    assert query.search_keywords == ("rain", "quiet", "night")
    # what the reply cannot say comes from the brief's reading: the form, a number only preferred
    assert query.conditions("MUST") == (FilterCondition("form", ("fiction",), "MUST"),)
    spotted = Theme("b1", "tea", "小说，但不要刘慈欣的，最好是2000年以后的")
    authors = EntityIndex.build([BookRecord("c1", "三体", authors=("刘慈欣",))], {})
    query = llm_translator(endpoint, vocabulary).translate(spotted, read_brief(spotted.brief, vocabulary, authors))
    assert [c.values[0] for c in query.conditions("MUST_NOT") if c.field == "author"] == ["刘慈欣"]
    assert query.preferred_numbers == (NumericCondition("pub_year", ">=", 2000),)
    request = endpoint.requests[0]
    assert request["model"] == "test-model"
    assert "DATA" in request["messages"][1]["content"]  # the brief travels as a data block
    assert "平静淡然" in request["messages"][0]["content"]  # the prompt carries the vocabulary


@pytest.mark.parametrize("behaviour, reason", [("invalid", "unknown field 'mood'"),
                                               ("garbage", "not JSON"),
                                               ("slow", "DeadlineExceeded: no complete reply within"),
                                               ("error", "500")])
def test_a_bad_or_slow_llm_reply_falls_back_to_rules_and_says_so(endpoint, vocabulary, behaviour, reason):
    endpoint.behaviour = behaviour
    query = llm_translator(endpoint, vocabulary).translate(THEME, read_brief(THEME.brief, vocabulary))
    assert query.translator.startswith("rules (llm failed:") and reason in query.translator
    assert len(endpoint.requests) == 2  # one retry, then the fallback
    assert ("emotional_tone", ("温暖治愈",), "MUST_NOT") in [(c.field, c.values, c.operator)
                                                            for c in query.filter_conditions]


def test_http_rerank_reorders_the_head_and_a_failure_keeps_the_fused_order(endpoint):
    reranker = HTTPReranker(EndpointSettings(base_url=endpoint.url + "/rerank", timeout_seconds=0.5), 5)
    candidates = [Candidate(b, rrf_score=1 / (60 + i)) for i, b in enumerate(["short", "longest one", "mid one"])]
    outcome = rerank(candidates, "q", lambda b: b, reranker, top_n=2)
    assert [c.book_id for c in outcome.candidates] == ["longest one", "short", "mid one"]
    assert outcome.candidates[0].rerank_score == len("longest one") and outcome.note == "http"

    endpoint.behaviour = "error"
    fresh = [Candidate(b, rrf_score=1 / (60 + i)) for i, b in enumerate(["short", "longest one"])]
    failed = rerank(fresh, "q", lambda b: b, reranker, top_n=2)
    assert [c.book_id for c in failed.candidates] == ["short", "longest one"]
    assert failed.note.startswith("http failed, fused order kept")
