"""``tokbench drift``: the same tokenizer under two versions of a library, as a parity run.

Each version (``tokenizers==0.19.1``) gets its own virtual environment under tokbench's
cache, built once with pip (the user's pip configuration and package index apply) and
reused. The tokenizer is loaded there by tokbench's own loader in a child process
(``tokbench.parity.child``) with that environment's packages first on the path, and is
used here through ``EnvTokenizer``, a proxy that the parity engine treats like any
other tokenizer (worker processes start their own child).
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tokbench.adapters.base import Tokenizer
from tokbench.errors import InputError, TokbenchError
from tokbench.record import TokenizerSource

#: seconds pip may take to build one environment
PIP_TIMEOUT = 900


class VersionError(TokbenchError):
    """A version that pip rejects or cannot install."""


def parse_versions(text: str) -> list[tuple[str, str]]:
    """``"tokenizers==0.19.1,tokenizers==0.23.3"`` -> [(package, version), ...]; anything but
    exact ``NAME==VERSION`` pins is refused with one line naming it."""
    from packaging.requirements import InvalidRequirement, Requirement

    out = []
    for item in (x.strip() for x in text.split(",")):
        if not item:
            continue
        try:
            req = Requirement(item)
        except InvalidRequirement as exc:
            why = str(exc).strip().splitlines()[0] if str(exc).strip() else "invalid"
            raise VersionError(f"--versions: {item!r} is not a requirement pip accepts "
                               f"({why}); write NAME==VERSION, e.g. tokenizers==0.19.1") from None
        pins = [s for s in req.specifier if s.operator == "=="]
        if len(pins) != 1 or len(req.specifier) != 1 or req.extras or req.marker:
            raise VersionError(f"--versions: {item!r} must pin one exact version "
                               "(NAME==VERSION, e.g. tokenizers==0.19.1)")
        out.append((req.name, pins[0].version))
    if len(out) < 2:
        raise InputError("--versions: give at least two NAME==VERSION pins, comma-separated "
                         "(the first is the reference)")
    return out


def env_dir(package: str, version: str) -> Path:
    from tokbench.paths import cache_dir

    tag = f"py{sys.version_info.major}{sys.version_info.minor}"
    return cache_dir() / "drift-envs" / re.sub(r"[^A-Za-z0-9._-]", "_",
                                               f"{package}-{version}-{tag}")


def site_packages(env: Path) -> Path:
    found = sorted(env.glob("lib/python*/site-packages")) or sorted(
        env.glob("Lib/site-packages"))
    if not found:
        raise VersionError(f"{env}: no site-packages in this environment; delete it to rebuild")
    return found[0]


def ensure_env(package: str, version: str) -> Path:
    """The environment of ``package==version``, built with pip on first use."""
    env = env_dir(package, version)
    done = env / ".tokbench-ok"
    if done.is_file():
        return env
    pin = f"{package}=={version}"
    try:
        if not (env / "pyvenv.cfg").is_file():
            subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True,
                           capture_output=True, timeout=PIP_TIMEOUT)
        # the running pip installs into the environment's site-packages (the user's pip
        # configuration and index apply); dependencies come along, so they match the version
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--disable-pip-version-check",
             "--no-input", "--target", str(site_packages(env)), "--upgrade", pin],
            capture_output=True, text=True, timeout=PIP_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise VersionError(f"{pin}: pip did not finish within {PIP_TIMEOUT} s") from None
    except (OSError, subprocess.CalledProcessError) as exc:
        raise VersionError(f"{pin}: could not create its environment ({exc})") from None
    if proc.returncode != 0:
        shutil.rmtree(env, ignore_errors=True)  # no half-built environment is kept
        why = pip_reason(proc.stderr or proc.stdout)
        raise VersionError(f"{pin}: pip cannot install it ({why})")
    done.write_text(pin + "\n", encoding="utf-8")
    return env


def pip_reason(output: str) -> str:
    """The line of pip's output that says why (the version list it appends cut off)."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith("ERROR")]
    why = next((ln for ln in errors if "Could not find" in ln or "No matching" in ln),
               errors[-1] if errors else (lines[-1] if lines else "no output"))
    why = re.sub(r" \(from versions: .*\)", "", why.removeprefix("ERROR: "))
    return why[:200]


class EnvTokenizer(Tokenizer):
    """A tokenizer loaded in another environment's child process (see the module doc)."""

    def __init__(self, spec: str, package: str, version: str, env: Path) -> None:
        super().__init__(f"{spec}@{package}=={version}",
                         TokenizerSource("environment", f"{package}=={version}:{spec}"))
        self.spec, self.package, self.version, self.env = spec, package, version, env
        self._lock = threading.Lock()
        self._bytes: dict[int, bytes] = {}
        root = Path(__file__).resolve().parents[2]
        path = os.pathsep.join([str(site_packages(env)), str(root),
                                os.environ.get("PYTHONPATH", "")])
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "tokbench.parity.child", spec], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, encoding="utf-8",
            env={**os.environ, "PYTHONPATH": path})
        info = self._read()
        if "error" in info:
            self.close()
            raise InputError(f"{self.name}: {info['error'][:300]}")
        self.info = info
        self.backend = f"{info.get('backend')} ({package}=={version})"
        self.load_seconds = float(info.get("load_seconds", 0.0))
        self.source = TokenizerSource("environment", f"{package}=={version}:{spec}",
                                      (info.get("source") or {}).get("sha256"),
                                      (info.get("source") or {}).get("path"))

    def _read(self) -> dict[str, Any]:
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline()
        if not line:
            raise InputError(f"{self.name}: the child process of {self.package}=={self.version} "
                             "ended")
        data: dict[str, Any] = json.loads(line)
        return data

    def _ask(self, **req: Any) -> dict[str, Any]:
        with self._lock:
            assert self._proc.stdin is not None
            self._proc.stdin.write(json.dumps(req) + "\n")
            self._proc.stdin.flush()
            reply = self._read()
        if "error" in reply:
            raise RuntimeError(reply["error"])
        return reply

    @property
    def vocab_size(self) -> int:
        return int(self.info.get("vocab_size") or 0)

    @property
    def unk_id(self) -> int | None:
        unk = self.info.get("unk_id")
        return int(unk) if unk is not None else None

    @property
    def special_tokens(self) -> dict[str, int]:
        return {str(k): int(v) for k, v in (self.info.get("special_tokens") or {}).items()}

    @property
    def byte_fallback(self) -> bool:
        return bool(self.info.get("byte_fallback"))

    def is_byte_fallback_token(self, token_id: int) -> bool:
        return self.byte_fallback and bool(self._ask(op="is_byte", id=token_id)["value"])

    def encode(self, text: str) -> list[int]:
        return [int(i) for i in self._ask(op="encode", text=text)["ids"]]

    def decode(self, ids: Sequence[int]) -> str:
        return str(self._ask(op="decode", ids=[int(i) for i in ids])["text"])

    def token_bytes(self, token_id: int) -> bytes:
        if token_id not in self._bytes:
            self._bytes[token_id] = bytes.fromhex(self._ask(op="token_bytes",
                                                            ids=[token_id])["hex"][0])
        return self._bytes[token_id]

    def token_str(self, token_id: int) -> str:
        return str(self._ask(op="token_str", id=token_id)["text"])

    def backend_version(self) -> str:
        return str(self.info.get("backend_version"))

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "environment": str(self.env),
                "pinned": f"{self.package}=={self.version}",
                "load_seconds": round(self.load_seconds, 4)}

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait(timeout=10)

    def __del__(self) -> None:
        # also at interpreter exit, when module globals may already be gone
        proc = getattr(self, "_proc", None)
        if proc is None or proc.poll() is not None:
            return
        try:
            proc.kill()
        except OSError:
            return


def env_tokenizer(spec: str, package: str, version: str) -> EnvTokenizer:
    """``spec`` loaded under ``package==version`` (its environment built if need be)."""
    return EnvTokenizer(spec, package, version, ensure_env(package, version))


def drift(spec: str, versions: str, suites: Sequence[str], **options: Any) -> Any:
    """The parity report of ``spec`` between library versions (the first is the reference);
    ``options`` go to ``tokbench.parity.run.parity``."""
    from tokbench.parity.run import parity

    pins = parse_versions(versions)
    for package, version in pins:  # build (or fail) before anything is run
        ensure_env(package, version)
    factories = [functools.partial(env_tokenizer, spec, p, v) for p, v in pins]
    results = parity(factories[0], factories[1:], suites, **options)
    assert results.meta.parity is not None
    results.meta.parity["drift"] = {"spec": spec, "versions": [f"{p}=={v}" for p, v in pins]}
    return results
