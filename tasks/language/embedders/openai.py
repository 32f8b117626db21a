"""Any OpenAI-compatible /v1/embeddings endpoint."""

from __future__ import annotations

import os

import httpx
import numpy as np

from config.settings import EndpointSettings
from tasks.language.embedders.base import Embedder


class OpenAIEmbedder(Embedder):
    """Posts batches to {base_url}/embeddings; the key is read from the variable named in config."""

    def __init__(self, settings: EndpointSettings, batch_size: int = 64):
        super().__init__(batch_size)
        self._url = settings.base_url.rstrip("/") + "/embeddings"
        self._model = settings.model
        key = os.environ.get(settings.api_key_env, "")
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._client = httpx.Client(timeout=settings.timeout_seconds, headers=headers)
        self.model_id = f"openai:{settings.model}"
        self.dim = self._embed_batch(["dimension probe"], is_query=True).shape[1]

    def _embed_batch(self, texts: list[str], is_query: bool) -> np.ndarray:
        response = self._client.post(self._url, json={"model": self._model, "input": texts})
        response.raise_for_status()
        data = sorted(response.json()["data"], key=lambda item: item["index"])
        if len(data) != len(texts):
            raise RuntimeError(f"{self._url} returned {len(data)} vectors for {len(texts)} texts")
        return np.asarray([item["embedding"] for item in data], dtype=np.float32)
