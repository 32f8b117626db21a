"""Benchmark: which vocabulary aliases name a broader or another value, by the vocabulary's own vectors.

    .venv/bin/python benchmarks/loose_aliases.py [--margin 0.0]

For every alias of every value (config/vocabulary.yaml), its similarity to its own value's profile (the vector the
relevance score and the gating compare briefs with: tasks/ranking/gating.py VocabularyVectors) less its similarity
to the nearest other value's profile. An alias its own value is not the nearest of (margin at or below --margin)
names what several values share, or another one better: 故乡 (hometown) is nearer another value than 乡土小镇 (villages
and small towns), 'science' as near 科幻 as 科普, while 'rain' stands 0.32 above every value but 雨天窗前. Printed: the
aliases at or below the margin, each with its value, its nearest other value and both similarities, then the
quartiles of all margins. Issue 31, round eight (LOOSE-ALIAS): a statistic for partial evidence, not yet read by
the product.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from config.settings import load_settings  # noqa: E402
from config.vocabulary import get_vocabulary  # noqa: E402
from tasks.language.embedders import create_embedder  # noqa: E402


def main(margin: float) -> int:
    vocabulary, embedder = get_vocabulary(), create_embedder(load_settings().embedder)
    values = [(d.name, v) for d in vocabulary.dimensions for v in d.values]
    profiles = embedder.embed_documents([v.profile_text for _, v in values])
    margins = []
    for i, (dimension, value) in enumerate(values):
        if not value.aliases:
            continue
        similarities = embedder.embed_queries(list(value.aliases)) @ profiles.T
        for alias, row in zip(value.aliases, similarities):
            others = [(float(s), values[j][1].name) for j, s in enumerate(row) if j != i]
            best, nearest = max(others)
            margins.append(float(row[i]) - best)
            if margins[-1] <= margin:
                print(f"{alias}\t{dimension}/{value.name} {row[i]:.2f}\tnearest other {nearest} {best:.2f}\t"
                      f"margin {margins[-1]:+.2f}")
    print(f"{len(margins)} aliases; at or below {margin:+.2f}: {sum(m <= margin for m in margins)}; margin quartiles "
          + ", ".join(f"{q:+.2f}" for q in statistics.quantiles(margins, n=4)))
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--margin", type=float, default=0.0)
    sys.exit(main(parser.parse_args().margin))
