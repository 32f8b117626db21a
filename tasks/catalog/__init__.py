"""Catalog stage: source files (CSV, JSON Lines, Parquet, XLSX, MARC) in; works, facets, vectors and BM25 tokens out."""
