#!/usr/bin/env python3
"""Count word frequencies in text files and print the most common ones.

Usage:
    wordfreq_cli.py [--top N] [--min-length K] [--json] FILE...

Reads UTF-8 text, folds case, and treats any run of letters (including
accented Latin, Cyrillic, or kana/kanji runs) as a word. Exits with status 1
if a file cannot be read.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path

WORD_RE = re.compile(r"[^\W\d_]+", re.UNICODE)
DEFAULT_TOP = 20
STOPWORDS = frozenset({"the", "a", "an", "and", "or", "of", "to", "in", "is", "it"})


def normalize(word: str) -> str:
    """Case-fold and compose so 'Café' and 'CAFE\u0301' count as the same word."""
    return unicodedata.normalize("NFC", word.casefold())


def count_words(paths: list[Path], min_length: int = 1, skip_stopwords: bool = True) -> Counter[str]:
    counts: Counter[str] = Counter()
    for path in paths:
        with path.open(encoding="utf-8", errors="replace") as fh:
            for line in fh:
                # Compose first: the regex would split "e" + U+0301 into "e" and a mark.
                for match in WORD_RE.finditer(unicodedata.normalize("NFC", line)):
                    word = normalize(match.group())
                    if len(word) < min_length:
                        continue
                    if skip_stopwords and word in STOPWORDS:
                        continue
                    counts[word] += 1
    return counts


def format_table(rows: list[tuple[str, int]], total: int) -> str:
    if not rows:
        return "(no words found — 単語が見つかりませんでした)"
    width = max(len(word) for word, _ in rows)
    lines = [f"{'word':<{width}}  {'count':>7}  {'share':>6}"]
    lines.append("-" * (width + 17))
    for word, n in rows:
        lines.append(f"{word:<{width}}  {n:>7,}  {100.0 * n / total:>5.1f}%")
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Print the most frequent words in text files.")
    parser.add_argument("files", nargs="+", type=Path, help="UTF-8 text files")
    parser.add_argument("--top", type=int, default=DEFAULT_TOP, help="how many words to show (default: %(default)s)")
    parser.add_argument("--min-length", type=int, default=1, help="ignore words shorter than this")
    parser.add_argument("--keep-stopwords", action="store_true", help="count 'the', 'and', ... too")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    missing = [p for p in args.files if not p.is_file()]
    if missing:
        for p in missing:
            print(f"wordfreq: {p}: no such file", file=sys.stderr)
        return 1
    counts = count_words(args.files, args.min_length, not args.keep_stopwords)
    total = sum(counts.values())
    rows = counts.most_common(args.top)
    if args.json:
        json.dump({"total": total, "top": [{"word": w, "count": n} for w, n in rows]},
                  sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        print(format_table(rows, total))
        print(f"\n{total:,} words, {len(counts):,} distinct")
    return 0


if __name__ == "__main__":
    sys.exit(main())
