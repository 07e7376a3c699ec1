"""The segmentation view: each tokenizer's cuts against an analyzer's morphemes.

``morph_view`` gives, for one text, the analyzer's morpheme boundaries and every
tokenizer's token boundaries as character offsets, and which morpheme boundaries a token
crosses. Token boundaries are found as the morph metrics find them
(``tokbench.metrics.robustness.boundaries``: the backend's offsets, a cut inside a
character no boundary), so the view shows what was measured. Plain JSON, stored in
``viewer.json``; the HTML report and ``tokbench show --morphemes`` draw it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tokbench.adapters.base import Tokenizer
    from tokbench.metrics.compute import TokenTable


def token_cuts(tok: Tokenizer, text: str, table: TokenTable | None = None) -> list[int]:
    """Sorted character offsets where ``tok``'s tokens of ``text`` start or end
    (``table``: ``tok``'s token bytes, filled as needed and kept for its next texts)."""
    from tokbench.metrics.compute import TokenTable
    from tokbench.metrics.robustness import boundaries

    enc = tok.encode_batch_offsets([text])
    return sorted(boundaries(tok, table or TokenTable(tok), [text], enc)[0])


def crossed(morph: Sequence[int], cuts: Sequence[int], text: str) -> list[int]:
    """Morpheme boundaries strictly inside a word (as the morph metrics count them) that
    are no token boundary: a token crosses each of them. A token that takes the space
    before a word (`` 분``) crosses no morpheme boundary."""
    from tokbench.metrics.morph import inside
    from tokbench.suites.words import RULE_PATTERN, _regex

    words = [m.span() for m in _regex(RULE_PATTERN).finditer(text)]
    have = set(cuts)
    return [p for p in inside(morph, words) if p not in have]


def morph_view(tokenizers: Mapping[str, Tokenizer], text: str, lang: str,
               scheme: str = "morph", tables: dict[str, TokenTable] | None = None
               ) -> dict[str, Any] | None:
    """The view of ``text`` (None: no analyzer of ``scheme`` for ``lang``). ``tables``:
    each tokenizer's token bytes by name, kept across the views of many texts (a table
    of every token's bytes took 45 ms for gpt2, once per text without it)."""
    from tokbench.metrics.compute import TokenTable
    from tokbench.suites.morphemes import analyzer_for

    analyzer = analyzer_for(scheme, lang)
    if analyzer is None:
        return None
    morph = analyzer.boundaries(text)
    tables = {} if tables is None else tables
    rows: dict[str, Any] = {}
    for name, tok in tokenizers.items():
        try:
            table = tables.get(name)
            if table is None:
                table = tables[name] = TokenTable(tok)
            cuts = token_cuts(tok, text, table)
        except Exception as e:  # one text a tokenizer raises on must not sink the view
            rows[name] = {"error": f"{type(e).__name__}: {e}"}
            continue
        rows[name] = {"cuts": cuts, "crossed": crossed(morph, cuts, text)}
    return {"analyzer": analyzer.label, "morph_cuts": morph, "rows": rows}
