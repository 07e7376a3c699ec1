#!/usr/bin/env bash
# deploy.sh — build a release tarball, upload it and switch the "current" symlink.
#
#   ./deploy.sh staging            # deploy HEAD to staging
#   ./deploy.sh production v2.4.1  # deploy a tag to production
#
# Keeps the last $KEEP_RELEASES releases on each host for quick rollback.
set -euo pipefail

readonly APP="inventory-api"
readonly KEEP_RELEASES="${KEEP_RELEASES:-5}"
readonly SSH_OPTS=(-o BatchMode=yes -o ConnectTimeout=10)

declare -A HOSTS=(
  [staging]="deploy@stg-app-01.internal"
  [production]="deploy@app-01.internal deploy@app-02.internal deploy@app-03.internal"
)

log()  { printf '\033[1;34m[%s]\033[0m %s\n' "$(date +%H:%M:%S)" "$*"; }
die()  { printf '\033[1;31merror:\033[0m %s\n' "$*" >&2; exit 1; }

usage() {
  sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
}

[[ $# -ge 1 ]] || usage
env_name="$1"
ref="${2:-HEAD}"
[[ -n "${HOSTS[$env_name]:-}" ]] || die "unknown environment '$env_name' (expected: ${!HOSTS[*]})"

git rev-parse --verify --quiet "$ref^{commit}" >/dev/null || die "no such git ref: $ref"
sha="$(git rev-parse --short=10 "$ref")"
release="$(date -u +%Y%m%dT%H%M%SZ)-$sha"
tarball="$(mktemp -d)/$APP-$release.tar.gz"
trap 'rm -rf "$(dirname "$tarball")"' EXIT

if [[ "$env_name" == production && "$ref" == HEAD ]]; then
  read -r -p "Deploy untagged HEAD ($sha) to PRODUCTION? [y/N] " answer
  [[ "$answer" =~ ^[Yy]$ ]] || die "aborted"
fi

log "building $APP @ $sha"
git archive --format=tar --prefix="$release/" "$ref" | gzip -9 > "$tarball"
log "tarball: $(du -h "$tarball" | cut -f1)"

for host in ${HOSTS[$env_name]}; do
  log "→ $host"
  scp "${SSH_OPTS[@]}" -q "$tarball" "$host:/tmp/"
  ssh "${SSH_OPTS[@]}" "$host" bash -s -- "$APP" "$release" "$KEEP_RELEASES" <<'REMOTE'
set -euo pipefail
app="$1"; release="$2"; keep="$3"
base="/srv/$app/releases"
mkdir -p "$base"
tar -xzf "/tmp/$app-$release.tar.gz" -C "$base"
rm -f "/tmp/$app-$release.tar.gz"
ln -sfn "$base/$release" "/srv/$app/current.tmp"
mv -T "/srv/$app/current.tmp" "/srv/$app/current"   # atomic switch
sudo systemctl reload "$app" || sudo systemctl restart "$app"
ls -1dt "$base"/*/ | tail -n +"$((keep + 1))" | xargs -r rm -rf
REMOTE
done

log "deployed $release to $env_name ✅"
