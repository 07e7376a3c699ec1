#!/bin/sh
# POSIX installer for the `tb` binary. Detects OS/arch, verifies the checksum,
# installs into $PREFIX/bin (default: ~/.local). Usage: curl -fsSL URL | sh -s -- [--prefix DIR]
set -eu

VERSION="${TB_VERSION:-1.8.2}"
BASE_URL="https://downloads.example.com/tb/v${VERSION}"
PREFIX="${HOME}/.local"

while [ $# -gt 0 ]; do
	case "$1" in
		--prefix) PREFIX="$2"; shift 2 ;;
		--prefix=*) PREFIX="${1#*=}"; shift ;;
		-h|--help) echo "usage: install.sh [--prefix DIR]"; exit 0 ;;
		*) echo "install.sh: unknown option: $1" >&2; exit 2 ;;
	esac
done

os=$(uname -s | tr '[:upper:]' '[:lower:]')
case "$(uname -m)" in
	x86_64|amd64) arch=x86_64 ;;
	aarch64|arm64) arch=aarch64 ;;
	armv7l) arch=armv7 ;;
	*) echo "unsupported architecture: $(uname -m)" >&2; exit 1 ;;
esac
case "$os" in
	linux|darwin) ;;
	*) echo "unsupported OS: $os (Windows users: use the .zip from the releases page)" >&2; exit 1 ;;
esac

asset="tb-${VERSION}-${arch}-${os}.tar.gz"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

fetch() {
	if command -v curl >/dev/null 2>&1; then curl -fsSL -o "$2" "$1"
	elif command -v wget >/dev/null 2>&1; then wget -q -O "$2" "$1"
	else echo "need curl or wget" >&2; exit 1
	fi
}

echo "Downloading $asset ..."
fetch "$BASE_URL/$asset" "$tmp/$asset"
fetch "$BASE_URL/SHA256SUMS" "$tmp/SHA256SUMS"

expected=$(grep " $asset\$" "$tmp/SHA256SUMS" | cut -d' ' -f1)
if command -v sha256sum >/dev/null 2>&1; then
	actual=$(sha256sum "$tmp/$asset" | cut -d' ' -f1)
else
	actual=$(shasum -a 256 "$tmp/$asset" | cut -d' ' -f1)
fi
[ -n "$expected" ] && [ "$expected" = "$actual" ] || { echo "checksum mismatch for $asset" >&2; exit 1; }

mkdir -p "$PREFIX/bin"
tar -xzf "$tmp/$asset" -C "$tmp"
install -m 0755 "$tmp/tb" "$PREFIX/bin/tb"
echo "Installed tb $VERSION to $PREFIX/bin/tb"
case ":$PATH:" in *":$PREFIX/bin:"*) ;; *) echo "note: add $PREFIX/bin to your PATH" ;; esac
