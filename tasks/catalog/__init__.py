"""Catalog stage: source files (CSV, JSON Lines, Parquet, XLSX) in; vectors, tags and BM25 tokens out."""
