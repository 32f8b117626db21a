"""The index-build flow: DuckDB catalog -> one self-contained index version (LanceDB tables, BM25, books, vocabulary)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Annotated

from prefect import flow, task
from prefect.cache_policies import NONE
from prefect.context import FlowRunContext
from prefect.utilities.annotations import quote

from config.settings import Settings, load_settings
from config.vocabulary import get_vocabulary
from flows.compute import COMPUTE_FIELD, ComputeChoice, fanout, with_compute
from flows.runs import form_field, label_run, trigger_tag, workspace_writer
from storage import index_store, subject_store
from storage.catalog_db import CatalogDB, open_catalog
from storage.index_root import index_root
from storage.models import IndexVersion
from tasks.catalog import bm25 as bm25_step
from tasks.catalog import index_build
from tasks.catalog import subjects as subject_step
from tasks.catalog.crosswalk import CROSSWALK_FILE
from tasks.compute import Fanout
from tasks.errors import InputError
from tasks.language.embedders import create_embedder
from tasks.progress import blas_threads, logger, long_lived_objects, timed


def _step(fn, name: str):
    """A Prefect task of a step whose arguments Prefect passes through untouched; outside a flow, the plain step.

    Caching is off (a DuckDB connection and arrays are not hashable), and every argument is quoted:
    Prefect otherwise walks each list looking for futures, a minute per call at 100k books. A task
    called outside a flow run (a script or test calling build_index_version) would start a temporary Prefect
    server just to record itself, 10-20 s: there the step is called as it is.
    """
    prefect_task = task(fn, name=name, cache_policy=NONE)

    def run(*args, **kwargs):
        if FlowRunContext.get() is None:
            return fn(*args, **kwargs)
        return prefect_task(*(quote(a) for a in args), **{k: quote(v) for k, v in kwargs.items()})

    return run


embed_sentences = _step(index_build.embed_sentences, "embed-sentences")
embed_vocabulary = _step(index_build.embed_vocabulary, "embed-vocabulary")
embed_books = _step(index_build.embed_books, "embed-books")
embed_books_e5 = _step(index_build.embed_books_e5, "embed-books-e5")
enrich_catalog = _step(index_build.enrich_catalog, "enrich-catalog")
build_bm25 = _step(bm25_step.build_bm25, "build-bm25")
write_lance = _step(index_build.write_lance, "write-lance-books")
write_books_snapshot = _step(index_store.write_books_snapshot, "write-books-snapshot")
save_bm25 = _step(index_store.save_bm25, "save-bm25")
build_subjects = _step(subject_step.build_subject_index, "build-subject-index")


def commit_version(db: CatalogDB, version: IndexVersion, content_hashes: dict[str, str],
                   settings: Settings) -> None:
    """Make the new version current (published, in DuckDB, then for readers), then delete versions beyond those
    kept."""
    root = index_root(settings)
    index_store.publish(root, version.version_id)
    db.commit_index_version(version, content_hashes)
    index_store.set_current(root, version.version_id)
    keep = {v.version_id for v in db.index_versions()[: settings.index.keep_versions]}
    index_store.prune_versions(root, keep)


def check_catalog_has_books(db: CatalogDB, settings: Settings) -> None:
    """InputError for a catalog with no book: there is nothing to index (and nothing to shelve)."""
    if not db.catalog_counts()["books"]:
        raise InputError(f"the catalog {settings.duckdb_path} has no books: import one with "
                         "`shelfwise catalog import FILE` before building the index")


def build_index_version(settings: Settings, full: bool = False,
                        workers: Fanout | None = None) -> index_build.IndexBuildReport:
    """Build (incrementally unless `full`) the vector and BM25 indexes of the catalog in settings.workspace; the
    embedding and tokenising in chunks on `workers` where given (compute.backend dask), each chunk's results
    cached here as it comes back, so that the version commits only when every chunk is in."""
    vocabulary = get_vocabulary()
    use_cache = not full
    stages: dict[str, float] = {}
    with open_catalog(settings.duckdb_path) as db:
        check_catalog_has_books(db, settings)
        with timed(stages, "load_model", log=True):
            embedder = create_embedder(settings.embedder)
        with timed(stages, "load_catalog", log=True), long_lived_objects():
            books = db.load_books(derived=False)
        inputs = index_build.inputs_hash(embedder, settings, vocabulary, CROSSWALK_FILE)
        snapshot = index_build.snapshot_hash(books, inputs)
        current = db.current_index_version()
        if current and not full and current.snapshot_hash == snapshot and index_store.version_exists(current.path):
            index_store.set_current(index_root(settings), current.version_id)  # a build that died may have left it behind
            logger.info("index %s is up to date with the catalog", current.version_id)
            return index_build.IndexBuildReport(current.version_id, True, current.book_count,
                                                current.sentence_count, 0, 0, 0, 0, stages)
        carry = index_build.plan_carry_over(
            books, index_store.open_previous(current, inputs, index_root(settings)) if current and not full else None)
        if carry.previous is not None:
            logger.info("%d of %d books unchanged since index %s: taken from it", len(carry.carried), len(books),
                        current.version_id)
        elif current and not full:
            logger.info("index %s was built from other settings, vocabulary or model, or its files are incomplete: "
                        "every book is derived again (cached vectors and tokens still count)", current.version_id)
        version_id, path = index_store.new_version(index_root(settings), snapshot)
        with timed(stages, "embed_sentences", log=True):
            sentence_list = index_build.split_sentences(books)
            sentence_files = index_store.SentenceFiles(path, [books[i].book_id for i in sentence_list.owners.tolist()],
                                                       sentence_list.texts, embedder.dim)
            sentences = embed_sentences(books, sentence_list, carry, embedder, db, sentence_files, use_cache,
                                        workers)
            sentence_files.finish()
        with timed(stages, "embed_books", log=True):
            book_vectors = embed_books(books, sentences, carry, vocabulary, embedder, db, settings, use_cache,
                                       workers)
        sentence_count, sentences_embedded, sentence_hashes = sentences.count, sentences.embedded, sentences.text_hashes
        del sentences, sentence_list  # their means and texts (300 MB at 100k books) are in the book vectors now
        # the probes' 512-wide solves and the zero-shot scores on recall.blas_threads, as a run's matrix products:
        # on two threads a solve took 7 times the CPU, and a small catalog's build 4.3-5.5 s of CPU instead of 2.1
        # while other processes held the cores (the second thread spinning as it waits)
        with timed(stages, "enrich_catalog", log=True), long_lived_objects(), \
                blas_threads(settings.recall.blas_threads):  # 100k books again, with facets
            vocabulary_vectors = embed_vocabulary(vocabulary, embedder, db, use_cache)
            enriched = enrich_catalog(books, book_vectors, carry, vocabulary_vectors, vocabulary, db, settings,
                                      index_build.reference_loader(vocabulary, embedder, db, settings, use_cache))
        books = enriched.books
        e5_vectors = None
        if settings.index.e5_path:
            with timed(stages, "embed_books_e5", log=True):
                e5_vectors = embed_books_e5(books, vocabulary, db, settings, use_cache)
        with timed(stages, "build_bm25", log=True), long_lived_objects():  # 100k books' token lists
            bm25 = build_bm25(books, db, settings, use_cache, workers)
        with timed(stages, "subjects", log=True):
            subjects = build_subjects(books, embedder, db, use_cache, workers)
        with timed(stages, "write_lance", log=True):
            write_lance(path, books, book_vectors.vectors, e5_vectors, carry, enriched.settled, vocabulary, settings)
        with timed(stages, "save_snapshot", log=True):
            index_store.save_filter_meta(path, settings.enrichment.filter_confidence)
            save_bm25(path, bm25.index)
            write_books_snapshot(path, books, carry.previous, enriched.settled)
            index_store.write_book_vectors(path, book_vectors.vectors)
            index_store.write_vocabulary_vectors(
                path, [(v.dimension, v.profile_text) for v in vocabulary_vectors.values],
                vocabulary_vectors.vectors)
            subject_store.write_subjects(path, subjects.subjects, subjects.vectors)
        version = IndexVersion(
            version_id=version_id, created_at=datetime.now(timezone.utc).replace(tzinfo=None),
            path=str(path), snapshot_hash=snapshot, book_count=len(books),
            sentence_count=sentence_count, embedder=embedder.model_id, embedding_dim=embedder.dim,
            books_embedded=book_vectors.embedded, sentences_embedded=sentences_embedded, stage_seconds=stages,
        )
        index_store.write_version_file(path, version, inputs)
        # Read before the commit, which may delete the previous version the stale texts are read from
        stale = index_build.stale_vectors(
            carry, [*sentence_hashes, *book_vectors.text_hashes, *vocabulary_vectors.text_hashes,
                    *subjects.text_hashes], vocabulary, settings)
        with timed(stages, "commit", log=True):
            commit_version(db, version, {b.book_id: b.content_hash for b in books}, settings)
        with timed(stages, "prune_cache", log=True):
            pruned = db.prune_embedding_cache(embedder.model_id, stale.hashes, stale.keep)
        logger.info("index version %s is current: %d books, %d sentences; %d stale cached vectors deleted",
                    version_id, len(books), sentence_count, pruned)
        return index_build.IndexBuildReport(
            version_id, False, len(books), sentence_count, enriched.enriched, book_vectors.embedded,
            sentences_embedded, bm25.tokenized, stages, pruned,
        )


@flow(name="build-indexes", flow_run_name="indexes-new",
      description="Bring the vector and BM25 indexes up to date with the catalog.")
def build_indexes(full: Annotated[bool, form_field(
        "Full rebuild", "Embed and tokenize every book again, ignoring the caches (slow). Off: only the books "
                        "changed since the last build.")] = False,
                  compute: Annotated[ComputeChoice, COMPUTE_FIELD] = "default") -> index_build.IndexBuildReport:
    """Build (incrementally unless `full`) the vector and BM25 indexes from the catalog."""
    settings = with_compute(load_settings(), compute)
    with workspace_writer(settings, "the index build"), fanout(settings) as workers:
        report = build_index_version(settings, full, workers)
    label_run(f"indexes-{report.version_id}", [trigger_tag()])
    return report
