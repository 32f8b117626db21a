"""Recall stage: a ThemeQuery and its hard constraints in; ranked hits per path (vector, BM25, intent) out."""
