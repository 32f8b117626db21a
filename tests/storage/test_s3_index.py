"""Index versions on object storage (index.uri: s3://...), against a real S3 protocol server (moto's) on 127.0.0.1."""

from __future__ import annotations

import json
import shutil

import pytest

from config.settings import SettingsError, load_settings
from storage.index_root import CurrentMoved, IndexRoot, IndexStoreError
from storage.index_store import NoIndexError, open_current, prune_versions, publish, set_current
from tests.conftest import DEMO_CATALOG, Command, copy_workspace
from tests.storage.s3_server import MotoServer, UploadGate, s3_environment

V1, V2, V3 = "20261101T010000000000Z-aaaaaaaa", "20261102T010000000000Z-bbbbbbbb", "20261103T010000000000Z-cccccccc"


@pytest.fixture(scope="module")
def s3():
    server = MotoServer()
    yield server
    server.stop()


@pytest.fixture
def root(s3, tmp_path, monkeypatch):
    """An empty bucket of this test's, as an index root with its local folder."""
    for key, value in s3_environment(s3.endpoint, "").items():
        monkeypatch.setenv(key, value)
    return IndexRoot(tmp_path / "indexes", f"s3://{s3.new_bucket()}/shelves", s3.endpoint)


def fake_version(root: IndexRoot, version_id: str) -> None:
    """A local version folder of a few files (the store does not read them)."""
    folder = root.local / version_id
    (folder / "lance" / "books.lance").mkdir(parents=True)
    (folder / "lance" / "books.lance" / "data.lance").write_bytes(b"\x00" * 100)
    (folder / "books.npy").write_bytes(b"\x01" * 1000)
    (folder / "version.json").write_text(json.dumps({"version_id": version_id}), encoding="utf-8")


def test_settings_take_a_local_path_or_an_s3_uri_and_never_credentials(monkeypatch, tmp_path):
    monkeypatch.setenv("SHELFWISE__WORKSPACE", str(tmp_path / "var"))
    assert load_settings().indexes_dir == tmp_path / "var" / "indexes"
    settings = load_settings(index={"uri": "s3://shelves.example/nightly/", "s3_endpoint": "http://127.0.0.1:9000"})
    assert settings.index.uri == "s3://shelves.example/nightly"  # the staging and read copies stay local
    assert settings.indexes_dir == tmp_path / "var" / "indexes"
    assert load_settings(index={"uri": str(tmp_path / "elsewhere")}).indexes_dir == tmp_path / "elsewhere"
    for uri in ("gs://bucket/prefix", "s3://KEY:SECRET@bucket/x", "s3://b/x", "s3://bucket/x?versionId=1"):
        with pytest.raises(SettingsError, match="index.uri"):
            load_settings(index={"uri": uri})
    with pytest.raises(SettingsError, match="index.s3_endpoint.*never from here"):
        load_settings(index={"s3_endpoint": "http://key:secret@127.0.0.1:9000"})


def test_a_version_is_published_its_version_file_last_and_current_moves_only_conditionally(root, s3):
    fake_version(root, V1)
    assert not root.has_version(V1) and root.read_current() == (None, None)
    publish(root, V1)
    assert root.has_version(V1) and root.versions() == [V1]
    set_current(root, V1)
    assert root.read_current()[0] == V1

    # A commit whose read of CURRENT another build overtook is refused, and so is a move back to an older version.
    fake_version(root, V2)
    publish(root, V2)
    stale_etag = root.read_current()[1]
    fake_version(root, V3)
    set_current(root, V3)  # a newer build commits meanwhile
    with pytest.raises(CurrentMoved, match="newer than"):
        set_current(root, V2)
    import obstore
    from obstore.exceptions import PreconditionError

    with pytest.raises(PreconditionError):  # what write_current relies on: the server checks the ETag
        obstore.put(root._store(), "CURRENT", V2.encode(), mode={"e_tag": stale_etag})
    assert root.read_current()[0] == V3

    # set_current uploads a version a build committed but did not finish uploading (it died in between)
    assert root.has_version(V3)
    assert prune_versions(root, {V3, V2}) == [V1]
    assert root.versions() == [V2, V3] and not (root.local / V1).exists()
    assert not [k for k in s3.keys(root.uri.split("/")[2]) if f"/{V1}/" in k]


def test_a_reader_copies_a_version_but_its_lance_tables_and_a_dead_store_is_one_line(root, s3, tmp_path):
    fake_version(root, V1)
    publish(root, V1)
    elsewhere = IndexRoot(tmp_path / "reader", root.uri, root.endpoint)
    copy = elsewhere.download(V1, lance=False)
    assert sorted(p.name for p in copy.iterdir()) == ["books.npy", "version.json"]
    assert (copy / "books.npy").read_bytes() == b"\x01" * 1000
    assert elsewhere.download(V1, lance=True) == copy and (copy / "lance" / "books.lance" / "data.lance").exists()
    with pytest.raises(NoIndexError, match="no index has been built in s3://"):
        open_current(elsewhere)

    # A reader's copies of versions the builder has pruned go; a newer folder (a build's staging) stays.
    staging = elsewhere.local / V3
    staging.mkdir()
    (elsewhere.local / V2).mkdir()
    fake_version(root, V2)
    publish(root, V2)
    prune_versions(root, {V2})  # the builder keeps V2 only
    assert elsewhere.drop_pruned_copies(V2) == [V1]
    assert sorted(p.name for p in elsewhere.local.iterdir()) == [V2, V3]

    # A key that would step out of the version's folder is never written anywhere.
    s3.client().put_object(Bucket=root.uri.split("/")[2], Key=f"shelves/{V1}/../../escaped", Body=b"x")
    with pytest.raises(IndexStoreError, match=f"fetching index version {V1} failed: .*invalid path"):
        IndexRoot(tmp_path / "third", root.uri, root.endpoint).download(V1, lance=False)
    assert not list(tmp_path.rglob("escaped"))

    dead = IndexRoot(tmp_path / "x", "s3://no-such-bucket-here/p", root.endpoint)
    with pytest.raises(IndexStoreError, match=r"^s3://no-such-bucket-here/p: reading CURRENT failed: ") as err:
        dead.read_current()
    assert "\n" not in str(err.value)


def test_a_store_that_refuses_is_one_line_and_exit_code_2_from_the_command(s3, tmp_path, monkeypatch, capsys):
    from flows.cli import main as shelfwise

    monkeypatch.setenv("SHELFWISE__WORKSPACE", str(tmp_path / "var"))
    for key, value in s3_environment(s3.endpoint, "s3://no-such-bucket-here/idx").items():
        monkeypatch.setenv(key, value)
    assert shelfwise(["try", "quiet novels for a rainy night"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: s3://no-such-bucket-here/idx: reading CURRENT failed:") and "\n" not in err


# ---- the demo, built to and shelved from the store ---------------------------------------------------------

# each shelves books with the admission on or off (a read-alike may come back empty with it on)
BRIEFS = ["适合雨天窗前读的安静小说，不要温暖治愈的", "鲁迅作品专题", "儿童文学与童话", "Science fiction after 1980"]


def shelves(settings) -> list[list[str]]:
    from config.vocabulary import get_vocabulary
    from tasks.model.themes import Theme
    from tasks.shelving import build_context, shelve

    ctx = build_context(settings, get_vocabulary())
    return [[e.candidate.book_id for e in shelve(Theme("s3", f"t{i}", brief), [], ctx).entries]
            for i, brief in enumerate(BRIEFS)]


def edited_catalog(folder, every: int = 1) -> str:
    """Every `every`-th book of the demo catalog, its first book's summary rewritten: the next build makes a new
    version."""
    lines = DEMO_CATALOG.read_text(encoding="utf-8").splitlines()[::every]
    book = json.loads(lines[0])
    book["summary"] = "A summary rewritten since the last build, so that the next build makes a new version."
    (folder / "edited.jsonl").write_text("\n".join([json.dumps(book, ensure_ascii=False), *lines[1:]]) + "\n",
                                         encoding="utf-8")
    return str(folder / "edited.jsonl")


@pytest.fixture
def s3_demo(prefect_server, demo_workspace, s3, tmp_path, monkeypatch):
    """A copy of the demo workspace whose index lives in a bucket of its own; its local versions removed, so
    that the first build there derives every book again (vectors from the catalog's cache)."""
    env = {**copy_workspace(demo_workspace, tmp_path), **s3_environment(s3.endpoint, f"s3://{s3.new_bucket()}/idx")}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    settings = load_settings()
    shutil.rmtree(settings.indexes_dir)
    return settings



@pytest.mark.slow
def test_the_demo_built_to_s3_gives_the_local_build_shelves_read_from_the_store(demo_workspace, s3_demo, s3,
                                                                               tmp_path):
    from flows.cli import main as shelfwise

    assert shelfwise(["index", "build"]) == 0
    bucket = s3_demo.index.uri.split("/")[2]
    version_id = s3.read(bucket, "idx/CURRENT")
    keys = s3.keys(bucket)
    assert f"idx/{version_id}/version.json" in keys and f"idx/{version_id}/bm25/meta.json" in keys
    assert f"idx/{version_id}/subjects.parquet" in keys
    assert any(k.startswith(f"idx/{version_id}/lance/books.lance/") for k in keys)

    shutil.rmtree(s3_demo.indexes_dir)  # a reader on another machine: nothing local
    from_store = shelves(s3_demo)
    snapshot = open_current(IndexRoot(s3_demo.indexes_dir, s3_demo.index.uri, s3.endpoint))
    assert snapshot.version_id == version_id and snapshot.store is not None
    assert not (snapshot.path / "lance").exists()  # the LanceDB table is read in the bucket
    assert snapshot.books.count_rows() == snapshot.version.book_count and not snapshot.has_e5
    assert snapshot.store.has_table(version_id, "books")
    assert from_store == shelves(demo_workspace) and all(from_store)

    # The next build patches that version's LanceDB table, which the local copy left in the bucket: fetched.
    assert shelfwise(["catalog", "import", edited_catalog(tmp_path)]) == 0
    assert shelfwise(["index", "build"]) == 0
    patched = open_current(IndexRoot(s3_demo.indexes_dir, s3_demo.index.uri, s3.endpoint))
    assert patched.version_id != version_id and (s3_demo.indexes_dir / version_id / "lance").is_dir()
    assert patched.books.count_rows() == patched.version.book_count == snapshot.version.book_count


@pytest.mark.slow
def test_a_build_failed_or_killed_mid_upload_leaves_the_previous_version_current_and_the_next_build_prunes(
        s3_demo, s3, tmp_path, monkeypatch, capsys):
    from flows.cli import main as shelfwise

    # What is proven is the upload's, not the books': every 8th book of the demo (41, the rest withdrawn, the vectors
    # from the catalog's cache) makes each of the four builds an eighth of the demo's
    every = 8
    (tmp_path / "slice.jsonl").write_text("\n".join(DEMO_CATALOG.read_text(encoding="utf-8").splitlines()[::every])
                                          + "\n", encoding="utf-8")
    assert shelfwise(["catalog", "import", "--replace", str(tmp_path / "slice.jsonl")]) == 0
    assert shelfwise(["index", "build"]) == 0
    bucket = s3_demo.index.uri.split("/")[2]
    first = s3.read(bucket, "idx/CURRENT")
    assert open_current(IndexRoot(s3_demo.indexes_dir, s3_demo.index.uri, s3.endpoint)).version.book_count == 41
    assert shelfwise(["catalog", "import", str(edited_catalog(tmp_path, every))]) == 0

    # An upload the store refuses part-way: the build fails in one line and changes nothing readers see.
    gate = UploadGate(s3.endpoint, known=first, allowed=5, refuse=True)
    monkeypatch.setenv("SHELFWISE__INDEX__S3_ENDPOINT", gate.endpoint)
    assert shelfwise(["index", "build"]) == 1  # a failed build, as any other
    gate.release()
    said = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    assert len(said) == 1 and "uploading index version" in said[0] and "403" in said[0]
    assert s3.read(bucket, "idx/CURRENT") == first

    # A build killed part-way through its upload.
    gate = UploadGate(s3.endpoint, known=first, allowed=5)
    monkeypatch.setenv("SHELFWISE__INDEX__S3_ENDPOINT", gate.endpoint)
    build = Command("index", "build")
    try:
        assert gate.reached.wait(timeout=400), "\n".join(build.lines[-20:])
        build.kill()  # mid-upload: five of the new version's files are in the bucket, its version file is not
    finally:
        gate.release()
    monkeypatch.setenv("SHELFWISE__INDEX__S3_ENDPOINT", s3.endpoint)
    keys = s3.keys(bucket)
    orphans = {k.split("/")[1] for k in keys if k.startswith("idx/2") and f"/{first}/" not in k}
    assert len(orphans) == 2 and not [k for k in keys if k.endswith("version.json") and f"/{first}/" not in k]
    assert s3.read(bucket, "idx/CURRENT") == first

    reader = IndexRoot(tmp_path / "reader", s3_demo.index.uri, s3.endpoint)  # readers elsewhere keep the first
    assert open_current(reader).version_id == first
    assert any(shelves(s3_demo))  # and so do runs here

    # The next build commits; keep_versions (2) keeps it and the first, the killed upload's objects are deleted.
    assert shelfwise(["index", "build"]) == 0
    second = s3.read(bucket, "idx/CURRENT")
    assert second not in (first, *orphans)
    assert {k.split("/")[1] for k in s3.keys(bucket) if k.startswith("idx/2")} == {first, second}
    assert sorted(p.name for p in s3_demo.indexes_dir.iterdir() if p.is_dir()) == sorted([first, second])
    assert open_current(reader).version_id == second
