"""Derive the Gutenberg catalog file (pg_catalog.csv layout, plus Summary) from a Gutendex JSON dump.

Usage: python derive.py ALL_JSON OUT_CSV [OUT_JSONL]
ALL_JSON is a JSON list of Gutendex book objects (id, title, authors, translators, editors, subjects,
bookshelves, summaries, languages, download_count); see SOURCE.md for where it came from. The output
writes people and lists the way Project Gutenberg's own pg_catalog.csv does ("Surname, Forename,
1797-1851; Other, Name, 1814-1900 [Translator]", subjects and bookshelves joined with "; "), so that
the import meets the catalog as Project Gutenberg exports it (read it with config/mappings/gutenberg.yaml).
OUT_JSONL, when given, holds the same books under the catalog's own field names (what that mapping makes of
the CSV), for runners that import a catalog without a mapping.
"""
import csv
import json
import sys


def person(p: dict, role: str = "") -> str:
    born, died = p.get("birth_year"), p.get("death_year")
    dates = ""
    if born is not None or died is not None:
        fmt = lambda y: "" if y is None else (f"{-y} BCE" if y < 0 else str(y))
        dates = f", {fmt(born)}-{fmt(died)}"
    return f"{p['name']}{dates}" + (f" [{role}]" if role else "")


def main(src: str, out: str, jsonl: str | None = None) -> None:
    books = json.load(open(src, encoding="utf-8"))
    seen: set[int] = set()
    rows = []
    for b in books:
        if b["id"] in seen or b.get("media_type") != "Text":
            continue
        seen.add(b["id"])
        people = [person(a) for a in b.get("authors") or []]
        people += [person(a, "Editor") for a in b.get("editors") or []]
        people += [person(a, "Translator") for a in b.get("translators") or []]
        rows.append({
            "Text#": b["id"], "Title": b["title"], "Language": "; ".join(b.get("languages") or []),
            "Authors": "; ".join(people), "Subjects": "; ".join(b.get("subjects") or []),
            "Bookshelves": "; ".join(b.get("bookshelves") or []),
            "Summary": " ".join(b.get("summaries") or []), "Downloads": b.get("download_count") or "",
        })
    rows.sort(key=lambda r: r["Text#"])
    with open(out, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"{len(rows)} books -> {out}")
    if jsonl:
        with open(jsonl, "w", encoding="utf-8") as fh:
            for r in rows:
                split = lambda v: [x.strip() for x in v.split(";") if x.strip()]
                book = {"book_id": f"pg-{r['Text#']}", "title": r["Title"], "authors": split(r["Authors"]),
                        "language": r["Language"], "subjects": split(r["Subjects"]), "summary": r["Summary"],
                        "copies_available": 1}
                fh.write(json.dumps(book, ensure_ascii=False) + "\n")
        print(f"{len(rows)} books -> {jsonl}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
