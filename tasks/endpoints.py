"""Calling an HTTP endpoint the run does not control (the LLM translator, the reranker), for both alike.

A call has one total deadline: a server that drips its reply a byte at a time answers every read in time,
so a per-read timeout never fires; the call runs in a thread the caller stops waiting for at the deadline.
A circuit breaker stops asking an endpoint that keeps failing to answer (timed out, refused, past the
deadline) for a while, so a dead endpoint costs its timeout on two themes, not on every theme.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import httpx

COOLDOWN_SECONDS = 300.0  # an open breaker tries the endpoint again after this (one call: then open or closed)


class DeadlineExceeded(TimeoutError):
    """No complete reply by the call's deadline."""


class ReplyTooLarge(ValueError):
    """A reply past the caller's size limit (a runaway reply is cut off, not read to its end)."""


class CircuitOpen(RuntimeError):
    """The endpoint failed to answer too often in a row: not asked now."""


# what says the endpoint is not there (as opposed to a reply that is wrong)
UNREACHABLE = (httpx.TimeoutException, httpx.NetworkError, DeadlineExceeded)


def post_within(client: httpx.Client, url: str, payload: Any, deadline: float, max_bytes: int) -> bytes:
    """The body of a POST of `payload` as JSON, by `deadline` (time.monotonic()) or DeadlineExceeded.

    httpx errors (status, connection, per-read timeout) and ReplyTooLarge are raised as they come.
    """
    outcome: dict[str, Any] = {}

    def call() -> None:
        try:
            # httpx's own timeouts a little later: the deadline below is what stops waiting, and says so
            timeout = max(deadline - time.monotonic(), 0.0) + 1.0
            with client.stream("POST", url, json=payload, timeout=timeout) as response:
                outcome["response"] = response
                response.raise_for_status()
                body = bytearray()
                for chunk in response.iter_bytes():
                    body += chunk
                    if len(body) > max_bytes:
                        raise ReplyTooLarge(f"reply larger than {max_bytes // 1024} KiB")
                outcome["body"] = bytes(body)
        except BaseException as err:  # noqa: BLE001 - handed to the caller's thread as it is
            outcome["error"] = err

    worker = threading.Thread(target=call, name="endpoint-call", daemon=True)
    worker.start()
    worker.join(max(deadline - time.monotonic(), 0.0))
    if worker.is_alive():
        response = outcome.get("response")
        if response is not None:
            try:  # frees the worker's read now rather than at its read timeout
                response.close()
            except Exception:  # noqa: BLE001, S110 - closing is a courtesy; the caller has moved on
                pass
        raise DeadlineExceeded("no complete reply by the deadline")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["body"]


class CircuitBreaker:
    """Open after `failures` calls in a row could not reach the endpoint; after `cooldown_seconds` one call may
    try again (a success closes it, a failure opens it for another cooldown)."""

    def __init__(self, failures: int = 2, unit: str = "themes", cooldown_seconds: float = COOLDOWN_SECONDS):
        self.failures, self.unit, self.cooldown_seconds = failures, unit, cooldown_seconds
        self._in_a_row = 0
        self._opened_at: float | None = None

    def check(self) -> None:
        """CircuitOpen while the breaker is open and cooling down."""
        if self._opened_at is None:
            return
        waited = time.monotonic() - self._opened_at
        if waited < self.cooldown_seconds:
            raise CircuitOpen(f"endpoint unreachable for {self._in_a_row} {self.unit} in a row; not asked "
                              f"(again in {self.cooldown_seconds - waited:.0f} s)")
        self._opened_at = None  # half open: this call tries

    def record(self, reached: bool) -> None:
        """What became of a call: reached (any reply, even a wrong one) or not."""
        if reached:
            self._in_a_row, self._opened_at = 0, None
            return
        self._in_a_row += 1
        if self._in_a_row >= self.failures:
            self._opened_at = time.monotonic()
