"""compute.backend dask on a real 2-worker LocalCluster of processes: a slice of the demo built there, with a worker
killed mid-build, and a batch of demo themes shelved there give what the local path gives."""

import json
import os
from pathlib import Path

import numpy as np
import pytest
import yaml
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


def _on_dask(monkeypatch, client, chunk: int = 256) -> None:
    monkeypatch.setenv("SHELFWISE__COMPUTE__DASK_ADDRESS", client.scheduler.address)
    monkeypatch.setenv("SHELFWISE__COMPUTE__CHUNK_TEXTS", str(chunk))  # several chunks per step


def _demo_slice(target: Path, every: int) -> Path:
    """Every `every`-th book of the demo catalog, both of its languages among them."""
    lines = [line for line in DEMO_CATALOG.read_text(encoding="utf-8").splitlines() if line.strip()]
    target.write_text("\n".join(lines[::every]) + "\n", encoding="utf-8")
    return target


def _built(folder: Path, catalog: Path, compute: str) -> dict:
    """The index of `catalog` built in a workspace of its own under `folder` on `compute`."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SHELFWISE__WORKSPACE", str(folder / "var"))
        patch.setenv("SHELFWISE__OUTPUTS_DIR", str(folder / "outputs"))
        assert shelfwise(["catalog", "import", str(catalog)]) == 0
        assert shelfwise(["index", "build", "--compute", compute]) == 0
        return _index(load_settings())


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


def test_a_dask_build_with_a_worker_killed_mid_build_equals_the_local_build(cluster, tmp_path, monkeypatch):
    """On every 8th book of the demo (41) in chunks of 16: each step has more chunks than the cluster has workers, and
    one worker dies on its first. The slice's local build is the reference (facets are fitted on the whole catalog:
    the demo's index is none for a slice); what the test costs is the worker processes' start, ~8 s of CPU each."""
    catalog = _demo_slice(tmp_path / "slice.jsonl", every=8)
    local = _built(tmp_path / "local", catalog, "local")
    marker = tmp_path / "killed"
    plugin = KillFirstChunk(str(marker))
    cluster.register_plugin(plugin)
    _on_dask(monkeypatch, cluster, chunk=16)
    try:
        dask = _built(tmp_path / "dask", catalog, "dask")
    finally:
        cluster.unregister_worker_plugin(plugin.name)
    assert marker.exists()  # a worker died on the build's first chunk
    assert len(local["ids"]) == 41 and len(local["texts"]) > 4 * 16  # over four sentence chunks for two workers
    assert dask["ids"] == local["ids"]  # no book lost
    assert dask["facets"] == local["facets"]
    assert dask["tokens"] == local["tokens"]
    assert (dask["owners"], dask["texts"]) == (local["owners"], local["texts"])
    np.testing.assert_allclose(dask["sentences"], local["sentences"], atol=1e-5)
    np.testing.assert_allclose(dask["vectors"], local["vectors"], atol=1e-5)
    # every chunk of both workers (the killed one's successor too) used the one model its process loaded
    loaded = cluster.run(lambda: len(__import__("tasks.language.embedders", fromlist=["_SHARED"])._SHARED))
    assert sorted(loaded.values()) == [1, 1]


def test_a_batch_shelved_on_dask_equals_the_ordered_local_run(demo_copy, cluster, tmp_path, monkeypatch):
    """Each theme recalled and ranked on a worker, the within-batch rule settled after: the same shelves as the
    local run of the batch, whose second theme is like its first (its books stay off the second shelf) and whose last
    continues the shelf before it: the two ways history enters a theme, beside two themes it does not enter (the
    demo's 17 themes on dask cost 20 s of CPU and showed nothing more)."""
    _on_dask(monkeypatch, cluster)
    batch = tmp_path / "rainy.yaml"
    batch.write_text(yaml.safe_dump({"batch_id": "rainy-twice", "themes": [
        {"theme_id": "rainy", "theme_name": "Quiet novels for a rainy night"},
        {"theme_id": "rainy-nights", "theme_name": "Quiet novels for rainy nights"},
        {"theme_id": "luxun", "theme_name": "鲁迅作品专题"},
        {"theme_id": "lighter", "theme_name": "延续上次的主题，但更轻松一些",
         "description": "延续上次那个书架的主题，但更轻松一些，少一点沉重。"}]},
        allow_unicode=True), encoding="utf-8")
    assert shelfwise(["run", str(batch), "--compute", "dask"]) == 0
    on_dask = _shelves(demo_copy.outputs_dir / "rainy-twice.xlsx")
    wb = BatchWorkbook(demo_copy.outputs_dir / "rainy-twice.xlsx")
    assert shelfwise(["run", "--batch", "rainy-twice", "--compute", "local"]) == 0
    assert _shelves(demo_copy.outputs_dir / "rainy-twice.xlsx") == on_dask
    first, second = ({row["title"] for row in wb.rows(theme)} for theme in ("rainy", "rainy-nights"))
    assert first and not first & second
    assert "history: skipped books of rainy-twice/rainy" in wb.summary["rainy-nights"]["notes"]
    assert wb.rows("luxun") and wb.rows("lighter")
    assert "-> rainy-twice/luxun (continue" in wb.summary["lighter"]["notes"]  # the shelf before it
