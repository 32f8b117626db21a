"""A real S3 protocol server for the object-storage tests: moto's server mode on 127.0.0.1, in its own process,
and a real HTTP proxy in front of it that can stop a build's upload part-way."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx

CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class MotoServer:
    """`moto_server` on a free port of 127.0.0.1; new_bucket() makes an empty bucket of a test's own."""

    def __init__(self) -> None:
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        moto = Path(sys.executable).with_name("moto_server")
        self.process = subprocess.Popen([str(moto), "-H", "127.0.0.1", "-p", str(self.port)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{self.endpoint}/", timeout=2)
                break
            except httpx.TransportError:
                assert self.process.poll() is None and time.monotonic() < deadline, "moto_server did not start"
                time.sleep(0.2)

    def client(self):
        """boto3's client (moto's own dependency): the tests look at the bucket through another S3 client than
        the product's."""
        import boto3

        return boto3.client("s3", endpoint_url=self.endpoint, region_name=CREDENTIALS["AWS_REGION"],
                            aws_access_key_id=CREDENTIALS["AWS_ACCESS_KEY_ID"],
                            aws_secret_access_key=CREDENTIALS["AWS_SECRET_ACCESS_KEY"])

    def new_bucket(self) -> str:
        bucket = f"shelf-{uuid.uuid4().hex[:12]}"
        self.client().create_bucket(Bucket=bucket)
        return bucket

    def keys(self, bucket: str) -> list[str]:
        pages = self.client().get_paginator("list_objects_v2").paginate(Bucket=bucket)
        return sorted(item["Key"] for page in pages for item in page.get("Contents", []))

    def read(self, bucket: str, key: str) -> str:
        return self.client().get_object(Bucket=bucket, Key=key)["Body"].read().decode("utf-8")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=20)


class UploadGate(ThreadingHTTPServer):
    """A proxy to the S3 server that lets `allowed` uploads into a version other than `known` through, then
    stops the next ones: `reached` is set, and they wait until `release()`, then fail with 503; or, with
    `refuse`, they are answered at once with S3's 403 AccessDenied, which no client retries."""

    daemon_threads = True

    def __init__(self, target: str, known: str, allowed: int, refuse: bool = False):
        super().__init__(("127.0.0.1", 0), _Forward)
        self.target, self.known, self.allowed, self.refuse = target, known, allowed, refuse
        self.reached, self._released = threading.Event(), threading.Event()
        self.passed = 0
        self._lock = threading.Lock()
        self.client = httpx.Client(timeout=30)
        self.endpoint = f"http://127.0.0.1:{self.server_address[1]}"
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def holds(self, method: str, path: str) -> bool:
        """Whether this request waits: a PUT of a new version's file once the allowed ones have passed."""
        version = re.search(r"/(\d{8}T\d{12}Z-[0-9a-f]{8})/", path)
        if method != "PUT" or version is None or version.group(1) == self.known:
            return False
        with self._lock:
            self.passed += 1
            if self.passed <= self.allowed:
                return False
        self.reached.set()
        return True

    def release(self) -> None:
        self._released.set()
        self.shutdown()
        self.client.close()


class _Forward(BaseHTTPRequestHandler):
    server: UploadGate

    def _forward(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.server.holds(self.command, self.path):
            if not self.server.refuse:
                self.server._released.wait(timeout=120)
            status, error = (403, b"<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>") \
                if self.server.refuse else (503, b"")
            self.send_response(status)
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", str(len(error)))
            self.end_headers()
            self.wfile.write(error)
            return
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
        answer = self.server.client.request(self.command, self.server.target + self.path, headers=headers,
                                            content=body)
        self.send_response(answer.status_code)
        for key, value in answer.headers.items():
            if key.lower() not in ("content-length", "transfer-encoding", "connection", "content-encoding"):
                self.send_header(key, value)
        self.send_header("Content-Length", str(len(answer.content)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(answer.content)

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _forward

    def log_message(self, *args) -> None:
        pass


def s3_environment(endpoint: str, uri: str) -> dict[str, str]:
    """The variables a process needs to keep its index at `uri` on the server at `endpoint`."""
    return {**CREDENTIALS, "SHELFWISE__INDEX__URI": uri, "SHELFWISE__INDEX__S3_ENDPOINT": endpoint}

