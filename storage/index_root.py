"""Where index versions live: a local folder, or an object store (`index.uri: s3://bucket/prefix`).

A version is built in a local folder either way: its vector files are written in place and a carried LanceDB
table is hard-linked from the previous version's (storage/index_store.py). On an object-store root the finished
folder is then uploaded, its version file last, and CURRENT, an object beside the version prefixes, is written
after that with a condition (If-Match on the ETag read, If-None-Match for the first one): two builders sharing a
bucket cannot both move it from the same version, and a build never moves it back to an older version. A build
that dies mid-upload leaves objects without a version file under a name nothing points at; the next build's
pruning deletes them.

Readers read CURRENT from the store and open the version's LanceDB tables there. Its other files are kept in
the local folder (the builder's own copy, or a reader's download): memory-mapped vectors and the BM25 library
need local files, and a version never changes once uploaded, so a copy is never stale.

Credentials come from the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), never
from the settings; the endpoint from index.s3_endpoint or AWS_ENDPOINT_URL; the region from AWS_REGION or
AWS_DEFAULT_REGION.
"""

from __future__ import annotations

import os
import re
import shutil
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from config.settings import Settings

CURRENT_OBJECT = "CURRENT"
VERSION_OBJECT = "version.json"  # storage/index_store.py VERSION_FILE: uploaded last, its presence says complete
# new_version's ids (a UTC time stamp, then the snapshot hash's head): CURRENT's content becomes a path, and is
# only taken as one in this form
VERSION_ID = re.compile(r"\d{8}T\d{12}Z-[0-9a-f]{8}")
UPLOAD_THREADS = 8  # files in flight at once: an upload waits on the network, not the CPU


class IndexStoreError(RuntimeError):
    """The object store refused or could not do what a build or a reader asked of it; one line."""


class CurrentMoved(IndexStoreError):
    """CURRENT changed between this build's read of it and its write: another build committed meanwhile."""


@dataclass(frozen=True)
class IndexRoot:
    """The versions' home: `local` alone, or `uri` (s3://bucket/prefix) with `local` as staging and read copy."""

    local: Path
    uri: str = ""
    endpoint: str = ""  # index.s3_endpoint; empty: AWS_ENDPOINT_URL, or AWS's own

    @property
    def remote(self) -> bool:
        return bool(self.uri)

    def lance_uri(self, version_id: str) -> str:
        return f"{self.uri}/{version_id}/lance"

    def storage_options(self) -> dict[str, str]:
        """Object-store options in object_store's keys (LanceDB's storage_options), credentials read now from the
        environment: they are never kept in settings or written anywhere."""
        endpoint = self.endpoint or os.environ.get("AWS_ENDPOINT_URL", "")
        options = {"aws_region": os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"}
        if endpoint:
            options["aws_endpoint"] = endpoint
            if endpoint.startswith("http://"):
                options["allow_http"] = "true"
        for key in ("aws_access_key_id", "aws_secret_access_key", "aws_session_token"):
            if os.environ.get(key.upper()):
                options[key] = os.environ[key.upper()]
        return options

    def _store(self):
        bucket, _, prefix = self.uri.removeprefix("s3://").partition("/")
        return _s3_store(bucket, prefix, tuple(sorted(self.storage_options().items())))

    def _fail(self, doing: str, err: Exception) -> IndexStoreError:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        return IndexStoreError(f"{self.uri}: {doing} failed: {first}")

    def read_current(self) -> tuple[str | None, str | None]:
        """(the version CURRENT names, its ETag); (None, None) before the first commit."""
        import obstore

        try:
            got = obstore.get(self._store(), CURRENT_OBJECT)
            version_id, etag = bytes(got.bytes()).decode("utf-8").strip(), got.meta["e_tag"]
        except _store_errors() as err:
            if not self._exists(CURRENT_OBJECT):
                return None, None
            raise self._fail("reading CURRENT", err) from None
        if not VERSION_ID.fullmatch(version_id):
            raise IndexStoreError(f"{self.uri}/{CURRENT_OBJECT} does not name an index version")
        return version_id, etag

    def write_current(self, version_id: str) -> None:
        """Point readers at `version_id`, conditionally: only over the pointer just read, and never back to an
        older version than the one it names."""
        import obstore
        from obstore.exceptions import AlreadyExistsError, PreconditionError

        current, etag = self.read_current()
        if current == version_id:
            return
        if current is not None and current > version_id:  # ids start with their UTC build time
            raise CurrentMoved(f"{self.uri}: CURRENT names {current}, newer than {version_id}: not moved back")
        try:
            obstore.put(self._store(), CURRENT_OBJECT, version_id.encode("utf-8"),
                        mode={"e_tag": etag} if etag else "create")
        except (AlreadyExistsError, PreconditionError):
            raise CurrentMoved(f"{self.uri}: CURRENT changed while {version_id} was committed; another build "
                               "committed meanwhile: build again") from None
        except _store_errors() as err:
            raise self._fail(f"writing CURRENT ({version_id})", err) from None

    def has_version(self, version_id: str) -> bool:
        """Whether the store holds the whole version (its version file is uploaded last)."""
        return self._exists(f"{version_id}/{VERSION_OBJECT}")

    def has_table(self, version_id: str, table: str) -> bool:
        """Whether the version has this LanceDB table (a folder of objects named after it), without LanceDB's
        listing, which imports its REST client (storage/lance.py)."""
        import obstore

        try:
            listed = obstore.list_with_delimiter(self._store(), f"{version_id}/lance")
        except _store_errors() as err:
            raise self._fail(f"listing the tables of {version_id}", err) from None
        return any(p.rstrip("/").rpartition("/")[2] == f"{table}.lance" for p in listed["common_prefixes"])

    def _exists(self, key: str) -> bool:
        """Whether the store lists `key`: by a listing, since not every server's answer to reading a missing
        key comes back as obstore's NotFoundError (moto's do not)."""
        import obstore

        directory, _, name = key.rpartition("/")
        try:
            listed = obstore.list_with_delimiter(self._store(), directory or None)
        except _store_errors() as err:
            raise self._fail(f"reading {key}", err) from None
        return any(meta["path"].rpartition("/")[2] == name for meta in listed["objects"])

    def upload(self, version_id: str) -> None:
        """The local folder of `version_id` into the store, its version file last."""
        import obstore

        folder = self.local / version_id
        files = sorted(p for p in folder.rglob("*") if p.is_file())
        last = folder / VERSION_OBJECT
        store = self._store()

        def put(path: Path) -> None:
            obstore.put(store, f"{version_id}/{path.relative_to(folder).as_posix()}", path)

        pool = ThreadPoolExecutor(UPLOAD_THREADS)
        try:
            list(pool.map(put, [p for p in files if p != last]))  # list(): the first failure is raised here
            put(last)
        except _store_errors() as err:
            raise self._fail(f"uploading index version {version_id}", err) from None
        finally:
            pool.shutdown(cancel_futures=True)  # after a failure, the files not yet begun are not sent

    def versions(self) -> list[str]:
        """Every version prefix in the store, whole or not."""
        import obstore

        try:
            listed = obstore.list_with_delimiter(self._store())
        except _store_errors() as err:
            raise self._fail("listing index versions", err) from None
        return sorted(name for p in listed["common_prefixes"] if VERSION_ID.fullmatch(name := p.strip("/")))

    def _objects(self, version_id: str) -> list[str]:
        import obstore

        return [meta["path"] for batch in obstore.list(self._store(), version_id) for meta in batch]

    def delete_version(self, version_id: str) -> None:
        import obstore

        try:
            paths = self._objects(version_id)
            if paths:
                obstore.delete(self._store(), paths)
        except _store_errors() as err:
            raise self._fail(f"deleting index version {version_id}", err) from None

    def drop_pruned_copies(self, current: str) -> list[str]:
        """Delete the local copies of versions older than `current` that the store no longer holds (a build
        pruned them): a reader's folder would otherwise gain a version a night. A folder newer than `current`
        may be a build's staging, and is never touched."""
        if not self.local.is_dir():
            return []
        held = set(self.versions())
        dropped = sorted(p.name for p in self.local.iterdir()
                         if p.is_dir() and VERSION_ID.fullmatch(p.name) and p.name < current and p.name not in held)
        for name in dropped:
            shutil.rmtree(self.local / name, ignore_errors=True)
        return dropped

    def download(self, version_id: str, lance: bool) -> Path:
        """The version's local copy, the files it lacks fetched (its LanceDB tables only with `lance`), each
        under a temporary name renamed, and the version file last: a copy cut short is never taken as whole.
        A key is a path here; obstore refuses to list one with a ".." segment, so none leads out of the folder."""
        import obstore

        folder = self.local / version_id
        try:
            wanted = [p for p in self._objects(version_id) if lance or not p.startswith(f"{version_id}/lance/")]
            last = f"{version_id}/{VERSION_OBJECT}"
            for name in sorted(wanted, key=lambda p: p == last):
                target = self.local / name
                if target.exists():
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                temp = target.with_name(f".{target.name}.{os.getpid()}")
                with open(temp, "wb") as fh:
                    for chunk in obstore.get(self._store(), name):
                        fh.write(chunk)
                os.replace(temp, target)
        except _store_errors() as err:
            raise self._fail(f"fetching index version {version_id}", err) from None
        return folder


def _store_errors() -> tuple[type[Exception], ...]:
    """What a store operation raises when the store refuses or cannot be reached (and local file errors)."""
    from obstore.exceptions import BaseError

    return BaseError, OSError


@lru_cache(maxsize=4)
def _s3_store(bucket: str, prefix: str, options: tuple[tuple[str, str], ...]):
    """One client per store and credentials (its connections are reused)."""
    from obstore.store import S3Store

    config = dict(options)
    allow_http = config.pop("allow_http", "false") == "true"
    return S3Store(bucket, prefix=prefix or None, config=config, client_options={"allow_http": allow_http})


def index_root(settings: Settings) -> IndexRoot:
    """The settings' index root: index.uri when it is s3://, else the local folder settings.indexes_dir."""
    uri = settings.index.uri
    remote = uri if uri.startswith("s3://") else ""
    return IndexRoot(settings.indexes_dir, remote, settings.index.s3_endpoint if remote else "")
