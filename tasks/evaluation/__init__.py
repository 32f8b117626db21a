"""Evaluation stage: labelled sets, shelf benchmarks, tagged catalogs in; nDCG@10, pass shares, tag precision out."""
