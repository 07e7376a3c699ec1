"""``tokbench show TEXT``: how each tokenizer cuts a text, token by token, in the terminal."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from tokbench.errors import InputError

if TYPE_CHECKING:
    from rich.text import Text

    from tokbench.engine.viewer import Tokenization

HELP = "show how tokenizers cut a text (coloured tokens; --ids for ids, --json for machines)"

#: alternating token backgrounds, with their own text colour so any terminal theme reads them
STYLES = ("#10141c on #b7d3fb", "#10141c on #f7d9a0")
UNKNOWN = "bold #ffffff on #b3261e"
HEX = "bold"
WHITESPACE = {" ": "·", "\t": "→", "\r": "␍", "\u00a0": "⍽"}
SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def _csv(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("text", metavar="TEXT", help='the text to tokenize; "-" reads standard input')
    p.add_argument("--tokenizers", "-t", type=_csv,
                   help="comma-separated names or specs (default: the eight reference "
                        "tokenizers of tokbench run)")
    p.add_argument("--ids", action="store_true", help="print each token's id after it")
    p.add_argument("--json", action="store_true",
                   help="print JSON: per tokenizer, its tokens as {id, piece, bytes (hex), "
                        "start, end, byte_start, byte_end}")
    p.add_argument("--no-fetch", action="store_true",
                   help="use only cached tokenizer files; never call pip")
    p.add_argument("--morphemes", action="store_true",
                   help="draw each tokenizer's cuts (│) under the analyzer's morpheme cuts, "
                        "× where a token crosses a morpheme boundary (Japanese: MeCab "
                        "UniDic-lite, Korean: Kiwi; pip install \"tokbench[morph]\")")
    p.add_argument("--lang", help="language of TEXT for --morphemes, e.g. jpn_Jpan or "
                                  "kor_Hang (default: from its script)")


def read_text(arg: str) -> str:
    """The TEXT argument, or standard input for ``-`` (exactly as given: no stripping)."""
    if arg != "-":
        text = arg
    else:
        data = sys.stdin.buffer.read()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise InputError(f"standard input is not valid UTF-8 (byte {e.start}); "
                             "convert it first, e.g. with iconv -t utf-8") from None
    if not text:
        raise InputError("empty text: give TEXT, or pipe text into `tokbench show -`")
    return text


def _chunks(tz: Tokenization, ids: bool, separator: str) -> list[Text | None]:
    """One rich Text per token, gap or split-character group; None is a line break."""
    from rich.text import Text

    out: list[Text | None] = []
    k = 0
    breaks = 0  # newlines seen in the current chunk: lines break after it (and after its id)

    def visible(chunk: Text, s: str, style: str) -> None:
        nonlocal breaks
        for ch in s:
            if ch == "\n":
                breaks += 1
                chunk.append("⏎", style=style)
            else:
                chunk.append(WHITESPACE.get(ch, ch), style=style)

    def token(t: Any, chunk: Text) -> None:
        nonlocal k
        style = UNKNOWN if t.kind == "unknown" else STYLES[k % len(STYLES)]
        k += 1
        if chunk.plain and separator:  # between the tokens of a split-character group
            chunk.append(separator, style="dim")
        if t.kind == "empty":
            chunk.append(f"[{t.piece}]", style="dim italic")
        for kind, s in t.parts:
            if kind == "hex":
                chunk.append(f"‹{s}›", style=f"{style} {HEX}")
            else:
                visible(chunk, s, style)
        if ids:
            chunk.append(str(t.id).translate(SUBSCRIPT),
                         style="dim" if t.kind == "empty" else f"{style} dim")

    for seg in tz.segments:
        chunk = Text()
        if seg.kind == "gap":
            visible(chunk, seg.text, "dim")
        elif seg.kind == "token":
            token(seg.tokens[0], chunk)
        else:
            for t in seg.tokens:
                token(t, chunk)
            chunk.append(f"={seg.split or seg.text}", style="dim")
        if chunk.plain:
            out.append(chunk)
        out.extend([None] * breaks)
        breaks = 0
    return out


def render_tokenization(tz: Tokenization, ids: bool = False, width: int = 80,
                        separator: str = "") -> Text:
    """One tokenizer's tokens as rich Text: alternating backgrounds, visible whitespace
    (``·`` ``⏎`` ``→``), partial UTF-8 bytes as ``‹c3›`` followed by ``=`` and the
    character they make, ids as subscripts. Lines break between tokens only (and after
    a newline), at ``width`` cells; ``separator`` goes between tokens (for plain output)."""
    from rich.text import Text

    lines: list[Text] = [Text()]
    for chunk in _chunks(tz, ids, separator):
        if chunk is None:
            lines.append(Text())
            continue
        line = lines[-1]
        if line.plain and separator:
            chunk = chunk.copy()
        if line.cell_len and line.cell_len + len(separator) + chunk.cell_len > width:
            line = Text()
            lines.append(line)
        elif line.plain and separator:
            line.append(separator, style="dim")
        line.append_text(chunk)
    return Text("\n").join(lines)


def to_json(text: str, results: list[Tokenization]) -> str:
    """``{"text", "tokenizers": {name: [token, ...]}}``, one token object per line."""
    from tokbench.results import dumps_json as dump

    blocks = []
    for tz in results:
        tokens = ",\n".join("   " + dump(t.to_dict()) for t in tz.tokens)
        blocks.append(f"  {dump(tz.tokenizer)}: [" + (f"\n{tokens}\n  ]" if tokens else "]"))
    body = ",\n".join(blocks)
    return (f'{{\n "text": {dump(text)},\n "tokenizers": {{'
            + (f"\n{body}\n }}" if body else "}") + "\n}\n")


def main(args: argparse.Namespace) -> int:
    from tokbench.cli.console import console
    from tokbench.engine.viewer import tokenize
    from tokbench.loading.loader import load_tokenizer

    text = read_text(args.text)
    if args.no_fetch:
        import os

        os.environ["TOKBENCH_OFFLINE"] = "1"
    specs = args.tokenizers
    if specs is None:
        from tokbench.engine.runner import DEFAULT_TOKENIZERS

        specs = list(DEFAULT_TOKENIZERS)
    if not specs:
        raise InputError("--tokenizers is empty; give comma-separated names, e.g. gpt2,bytes")
    if args.morphemes:
        return _morphemes(text, args, [load_tokenizer(spec) for spec in specs])
    results = []
    for spec in specs:
        tok = load_tokenizer(spec)
        results.append(tokenize(tok, text))

    if args.json:
        sys.stdout.write(to_json(text, results))
        return 0

    from rich.markup import escape

    con = console()
    plain = not con.is_terminal or con.no_color
    chars = len(text)
    for tz in results:
        n = len(tz.tokens)
        ratio = f" · {chars / n:.2f} chars/token" if n else ""
        con.print(f"[bold]{escape(tz.tokenizer)}[/] [dim]· {n} token{'s' if n != 1 else ''}"
                  f"{ratio}[/]",
                  highlight=False)
        con.print(render_tokenization(tz, ids=args.ids, width=con.width,
                                      separator="│" if plain else ""),
                  highlight=False, soft_wrap=True)
        if args.ids:
            con.print(f"[dim]ids:[/] {' '.join(str(t.id) for t in tz.tokens)}", highlight=False)
        con.print()
    return 0


def guess_lang(text: str) -> str | None:
    """``jpn_Jpan`` for text with kana, ``kor_Hang`` for text with Hangul, else None."""
    if any("\u3040" <= c <= "\u30ff" or "\uff66" <= c <= "\uff9f" for c in text):
        return "jpn_Jpan"
    if any("\uac00" <= c <= "\ud7a3" or "\u1100" <= c <= "\u11ff" for c in text):
        return "kor_Hang"
    return None


def _morphemes(text: str, args: argparse.Namespace, toks: list[Any]) -> int:
    """``show --morphemes``: token cuts under morpheme cuts, one aligned line each."""
    from rich.text import Text

    from tokbench.cli.console import console
    from tokbench.engine.segview import morph_view
    from tokbench.render.segmentation import view_lines
    from tokbench.suites.morphemes import SCHEMES

    lang = args.lang or guess_lang(text)
    view = morph_view({t.name: t for t in toks}, text, lang) if lang else None
    if view is None:
        known = ", ".join(sorted(SCHEMES["morph"][0]))
        raise InputError(f"--morphemes: no morphological analyzer for "
                         f"{lang or 'this text (no kana or Hangul)'}; analyzers exist for "
                         f"{known}: pass --lang jpn_Jpan or --lang kor_Hang")
    if args.json:
        from tokbench.results import dumps_json

        sys.stdout.write(dumps_json({"text": text, "lang": lang, **view}) + "\n")
        return 0
    con = console()
    lines = view_lines(text, view, [t.name for t in toks])
    width = max(len(label) for label, _, _ in lines) + 2
    for label, line, marks in lines:
        row = Text(label.ljust(width), style="bold")
        body = Text(line)
        for a, b in marks:
            body.stylize("bold red", a, b)
        row.append_text(body)
        con.print(row, highlight=False, soft_wrap=True)
    for name, row in view["rows"].items():
        if "error" in row:
            con.print(Text(f"{name}: {row['error']}", style="red"), highlight=False)
    return 0
