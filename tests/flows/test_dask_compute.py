"""compute.backend dask on a real 2-worker LocalCluster of processes: the demo built and shelved there gives what the
local path gives, with a worker killed mid-build."""

import json
import os
from pathlib import Path

import numpy as np
import pytest
from distributed.diagnostics.plugin import WorkerPlugin

from config.settings import load_settings
from flows.cli import main as shelfwise
from storage.catalog_db import open_catalog
from storage.index_root import index_root
from storage.index_store import open_current
from tasks.export.excel import IDS_SHEET
from tests.conftest import DEMO_CATALOG
from tests.flows.test_generate_shelves import read_shelves
from tests.flows.workbook_reading import BatchWorkbook

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cluster(prefect_server):
    """Two worker processes of one thread each, as compute.dask_workers 2 starts them, but kept by the test: it
    looks into the workers after a build and kills one during another."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as running:
        with Client(running) as client:
            yield client


class KillFirstChunk(WorkerPlugin):
    """A worker plugin: the first worker to start a chunk of the build dies at once (os._exit, as the kernel's OOM
    killer leaves it), once per marker file; its nanny starts a new worker."""

    name = "kill-first-chunk"

    def __init__(self, marker: str):
        self.marker = marker

    def transition(self, key, start: str, finish: str, **kwargs) -> None:  # noqa: ANN001
        if finish == "executing" and str(key).startswith("open_parcel") and not os.path.exists(self.marker):
            Path(self.marker).touch()
            os._exit(1)


def _on_dask(monkeypatch, client) -> None:
    monkeypatch.setenv("SHELFWISE__COMPUTE__DASK_ADDRESS", client.scheduler.address)
    monkeypatch.setenv("SHELFWISE__COMPUTE__CHUNK_TEXTS", "256")  # several chunks per step on the demo


def _shelves(workbook: Path) -> dict[str, list[tuple]]:
    """Every sheet but the summary (its stage timings) as rows; the ids sheet's rows without their path scores,
    whose last digit follows the process's string hashing (the book graph sums over sets)."""
    sheets = read_shelves(workbook)
    ids = [(*row[:5], {k: v for k, v in json.loads(row[5]).items() if k != "scores"} if row[0] == "book" else None)
           for row in sheets.pop(IDS_SHEET)]
    return {**{k: v for k, v in sheets.items() if k != "summary"}, IDS_SHEET: ids}


def _index(settings) -> dict:
    snapshot = open_current(index_root(settings))
    books = snapshot.load_books()
    ids = [b.book_id for b in books]
    with open_catalog(settings.duckdb_path, read_only=True) as db:
        tokens = {k: v[1] for k, v in db.cached_tokens().items()}
    owners, texts, sentences = snapshot.sentences_of(ids)
    vectors = snapshot.book_vectors(ids)
    return {"ids": ids, "facets": {b.book_id: b.facets for b in books}, "tokens": tokens, "owners": owners,
            "texts": texts, "sentences": sentences, "vectors": np.vstack([vectors[i] for i in ids])}


def test_a_dask_build_with_a_worker_killed_mid_build_equals_the_local_build(demo_workspace, cluster, tmp_path,
                                                                            monkeypatch):
    marker = tmp_path / "killed"
    plugin = KillFirstChunk(str(marker))
    cluster.register_plugin(plugin)
    _on_dask(monkeypatch, cluster)
    monkeypatch.setenv("SHELFWISE__WORKSPACE", str(tmp_path / "var"))
    monkeypatch.setenv("SHELFWISE__OUTPUTS_DIR", str(tmp_path / "outputs"))
    try:
        assert shelfwise(["catalog", "import", str(DEMO_CATALOG)]) == 0
        assert shelfwise(["index", "build", "--compute", "dask"]) == 0
    finally:
        cluster.unregister_worker_plugin(plugin.name)
    assert marker.exists()  # a worker died on the build's first chunk
    local, dask = _index(demo_workspace), _index(load_settings())
    assert dask["ids"] == local["ids"]  # no book lost
    assert dask["facets"] == local["facets"]
    assert dask["tokens"] == local["tokens"]
    assert (dask["owners"], dask["texts"]) == (local["owners"], local["texts"])
    np.testing.assert_allclose(dask["sentences"], local["sentences"], atol=1e-5)
    np.testing.assert_allclose(dask["vectors"], local["vectors"], atol=1e-5)
    # every chunk of both workers (the killed one's successor too) used the one model its process loaded
    loaded = cluster.run(lambda: len(__import__("tasks.language.embedders", fromlist=["_SHARED"])._SHARED))
    assert sorted(loaded.values()) == [1, 1]


def test_a_batch_shelved_on_dask_equals_the_ordered_local_run(demo_run, demo_run_copy, cluster, tmp_path,
                                                              monkeypatch):
    """Each theme recalled and ranked on a worker, the within-batch rule settled after: the same shelves as the
    local run, in the demo batch (whose last theme continues an earlier one) and in a batch whose second theme is
    like its first (its books stay off the second shelf)."""
    _on_dask(monkeypatch, cluster)
    local = _shelves(demo_run.outputs_dir / "demo-2026-11.xlsx")
    assert shelfwise(["run", "--batch", "demo-2026-11", "--compute", "dask"]) == 0
    assert _shelves(demo_run_copy.outputs_dir / "demo-2026-11.xlsx") == local

    twice = tmp_path / "twice.yaml"
    twice.write_text(
        "batch_id: rainy-twice\nthemes:\n  - theme_id: rainy\n    theme_name: Quiet novels for a rainy night\n"
        "  - theme_id: rainy-nights\n    theme_name: Quiet novels for rainy nights\n", encoding="utf-8")
    assert shelfwise(["run", str(twice), "--compute", "dask"]) == 0
    on_dask = _shelves(demo_run_copy.outputs_dir / "rainy-twice.xlsx")
    assert shelfwise(["run", "--batch", "rainy-twice", "--compute", "local"]) == 0
    assert _shelves(demo_run_copy.outputs_dir / "rainy-twice.xlsx") == on_dask
    wb = BatchWorkbook(demo_run_copy.outputs_dir / "rainy-twice.xlsx")
    first, second = ({row["title"] for row in wb.rows(theme)} for theme in ("rainy", "rainy-nights"))
    assert first and not first & second
    assert "history: skipped books of rainy-twice/rainy" in wb.summary["rainy-nights"]["notes"]

