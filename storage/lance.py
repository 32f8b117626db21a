"""LanceDB, imported without building the REST client of remote namespaces until something asks for it.

`import lancedb` imports lance_namespace, whose client package builds a pydantic validator for every
method of its REST API on import: 1.0 of the 1.3 s lancedb took to import (`python -X importtime`),
paid by every `shelfwise try` although local tables never call it. The client package is registered
unexecuted; its first attribute lookup runs it, so a remote namespace still gets the real thing.
"""

from __future__ import annotations

import importlib.util
import sys

REST_CLIENT = "lance_namespace_urllib3_client"


def _defer_rest_client() -> None:
    spec = importlib.util.find_spec(REST_CLIENT)
    if spec is None or spec.loader is None or REST_CLIENT in sys.modules:
        return
    client = importlib.util.module_from_spec(spec)  # its submodules (the models) still import normally

    def load_on_first_use(name: str):
        del client.__getattr__
        spec.loader.exec_module(client)
        return getattr(client, name)

    client.__getattr__ = load_on_first_use
    sys.modules[REST_CLIENT] = client


_defer_rest_client()

import lancedb  # noqa: E402

__all__ = ["lancedb"]
