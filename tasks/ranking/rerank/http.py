"""A rerank endpoint over HTTP: POST {model, query, documents} -> scores.

Accepts both reply shapes in use: {"scores": [...]} and {"results": [{"index", "relevance_score"}]}.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import httpx

from config.settings import EndpointSettings
from tasks.ranking.rerank.base import Reranker


class HTTPReranker(Reranker):
    name = "http"

    def __init__(self, endpoint: EndpointSettings, budget_seconds: float):
        key = os.environ.get(endpoint.api_key_env, "") if endpoint.api_key_env else ""
        self._url = endpoint.base_url
        self._model = endpoint.model
        self._client = httpx.Client(timeout=min(endpoint.timeout_seconds, budget_seconds),
                                    headers={"Authorization": f"Bearer {key}"} if key else {})

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        response = self._client.post(self._url, json={"model": self._model, "query": query,
                                                      "documents": list(documents)})
        response.raise_for_status()
        body = response.json()
        if "scores" in body:
            scores = [float(s) for s in body["scores"]]
        else:
            scores = [0.0] * len(documents)
            for item in body["results"]:
                scores[int(item["index"])] = float(item["relevance_score"])
        if len(scores) != len(documents):
            raise ValueError(f"{self._url} returned {len(scores)} scores for {len(documents)} documents")
        return scores
