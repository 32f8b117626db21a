"""A rerank endpoint over HTTP: POST {model, query, documents} -> scores.

Accepts both reply shapes in use: {"scores": [...]} and {"results": [{"index", "relevance_score"}]}.
A reply is used only when it scores every document exactly once with a finite number; otherwise
RerankReplyError says what is wrong and the fused order stands.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Sequence

import httpx

from config.settings import EndpointSettings
from tasks.endpoints import UNREACHABLE, CircuitBreaker, post_within
from tasks.ranking.rerank.base import Reranker

MAX_REPLY_BYTES = 1024 * 1024  # a score per document: a few kilobytes


class RerankReplyError(ValueError):
    """A reply that does not score each document once with a finite number."""


class HTTPReranker(Reranker):
    name = "http"

    def __init__(self, endpoint: EndpointSettings, budget_seconds: float):
        key = os.environ.get(endpoint.api_key_env, "") if endpoint.api_key_env else ""
        self._url = endpoint.base_url
        self._model = endpoint.model
        self._budget = min(endpoint.timeout_seconds, budget_seconds)  # the whole call, not each read
        self._client = httpx.Client(headers={"Authorization": f"Bearer {key}"} if key else {})
        self._breaker = CircuitBreaker()  # a dead reranker costs its budget twice, not on every theme

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        self._breaker.check()
        try:
            body = post_within(self._client, self._url, {"model": self._model, "query": query,
                                                         "documents": list(documents)},
                               time.monotonic() + self._budget, MAX_REPLY_BYTES)
        except UNREACHABLE:
            self._breaker.record(reached=False)
            raise
        self._breaker.record(reached=True)
        try:
            parsed = json.loads(body)
        except ValueError:
            raise RerankReplyError("reply is not JSON") from None
        return parse_scores(parsed, len(documents))


def _finite(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise RerankReplyError(f"{where} is {value!r}, not a finite number")
    return float(value)


def parse_scores(body: object, count: int) -> list[float]:
    """One finite score per document, in document order, from either reply shape."""
    if isinstance(body, dict) and isinstance(body.get("scores"), list):
        scores = [_finite(s, f"scores[{i}]") for i, s in enumerate(body["scores"])]
        if len(scores) != count:
            raise RerankReplyError(f"{len(scores)} scores for {count} documents")
        return scores
    if not isinstance(body, dict) or not isinstance(body.get("results"), list):
        raise RerankReplyError("reply has neither `scores` nor `results`")
    scores: dict[int, float] = {}
    for i, item in enumerate(body["results"]):
        index = item.get("index") if isinstance(item, dict) else None
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < count:
            raise RerankReplyError(f"results[{i}].index is {index!r}, not a document number 0-{count - 1}")
        if index in scores:
            raise RerankReplyError(f"results[{i}].index {index} appears twice")
        scores[index] = _finite(item.get("relevance_score"), f"results[{i}].relevance_score")
    if len(scores) != count:
        raise RerankReplyError(f"{len(scores)} scores for {count} documents")
    return [scores[i] for i in range(count)]
