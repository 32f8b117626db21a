"""Ranking stage: hits per path in; one fused, reranked, de-duplicated, checked and gated shelf out."""
