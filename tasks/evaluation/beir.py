"""BEIR-layout data sets (corpus.jsonl, queries.jsonl, qrels/<split>.tsv), and a corpus as a catalog file."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class BeirSet:
    name: str
    corpus: Path
    queries: dict[str, str]  # only queries that have judgements
    qrels: dict[str, dict[str, int]]  # query id -> {doc id: grade}


def load_beir(folder: Path, split: str = "test") -> BeirSet:
    """corpus.jsonl, queries.jsonl and qrels/<split>.tsv of a BEIR folder."""
    qrels: dict[str, dict[str, int]] = {}
    with open(folder / "qrels" / f"{split}.tsv", encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            qrels.setdefault(row["query-id"], {})[row["corpus-id"]] = int(row["score"])
    queries = {}
    with open(folder / "queries.jsonl", encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            if record["_id"] in qrels:
                queries[record["_id"]] = record["text"]
    return BeirSet(folder.name, folder / "corpus.jsonl", queries, qrels)


def corpus_as_catalog(beir: BeirSet, target: Path) -> Path:
    """The corpus as a catalog JSON Lines file: a document is a book whose summary is its text."""
    with open(beir.corpus, encoding="utf-8") as src, open(target, "w", encoding="utf-8") as out:
        for line in src:
            doc = json.loads(line)
            text = doc.get("text") or ""
            out.write(json.dumps({"book_id": doc["_id"], "title": doc.get("title") or text[:30] or doc["_id"],
                                  "summary": text, "copies_available": 1}, ensure_ascii=False) + "\n")
    return target
