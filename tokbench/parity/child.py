"""A tokenizer served over a pipe, in another Python environment (``tokbench drift``).

``python -m tokbench.parity.child SPEC`` loads ``SPEC`` with tokbench's own loader (so the
adapter contract is the same in every environment), writes one JSON line describing it,
then answers one JSON request per line: ``{"op": "encode", "text": ...}`` -> ``{"ids":
[...]}``, ``decode``, ``token_bytes`` (hex), ``token_str``, ``is_byte``. An error is
``{"error": "..."}``; the child keeps serving.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any


def _answer(tok: Any, req: dict[str, Any]) -> dict[str, Any]:
    op = req.get("op")
    if op == "encode":
        return {"ids": tok.encode(req["text"])}
    if op == "decode":
        return {"text": tok.decode(req["ids"])}
    if op == "token_bytes":
        return {"hex": [tok.token_bytes(int(i)).hex() for i in req["ids"]]}
    if op == "token_str":
        return {"text": tok.token_str(int(req["id"]))}
    if op == "is_byte":
        return {"value": bool(tok.is_byte_fallback_token(int(req["id"])))}
    return {"error": f"unknown op {op!r}"}


def main(argv: list[str]) -> int:
    from tokbench.loading.loader import load_tokenizer

    out = sys.stdout
    t0 = time.perf_counter()
    try:
        tok = load_tokenizer(argv[0])
    except Exception as exc:
        out.write(json.dumps({"error": f"{type(exc).__name__}: {exc}"}) + "\n")
        out.flush()
        return 1
    info = tok.describe()
    info["load_seconds"] = time.perf_counter() - t0
    out.write(json.dumps(info, default=str) + "\n")
    out.flush()
    for line in sys.stdin:
        try:
            reply = _answer(tok, json.loads(line))
        except Exception as exc:
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        out.write(json.dumps(reply) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
