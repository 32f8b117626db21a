"""Evaluation stage: labelled sets (BEIR layout) in; nDCG@10 and Recall@100 per recall mode out."""
