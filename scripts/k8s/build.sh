#!/usr/bin/env bash
# Builds etcd and kube-apiserver from the Go module proxy at the versions pinned in versions.sh.
# Binaries land in a cache outside the work tree so fresh clones (CI) on the same machine reuse them;
# a second run with the same pins is a no-op that takes well under a second.
#
#   bash scripts/k8s/build.sh          # build what is missing, print the binary paths
#   bash scripts/k8s/build.sh --force  # rebuild even if cached
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=versions.sh
. "$here/versions.sh"

force=0
[[ "${1:-}" == "--force" ]] && force=1

log() { printf '[k8s-build %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

command -v go >/dev/null || die "go is not on PATH; the servers are built from source with the Go toolchain"

build_root="$KARMADA_LITE_CACHE/build"
mkdir -p "$build_root" "$KARMADA_LITE_CACHE/bin"

# The vitest global setup calls this too; a lock keeps a concurrent caller from building the same thing
# twice on 2 cores, and makes it wait for the binary instead of failing.
exec 9>"$KARMADA_LITE_CACHE/build.lock"
if ! flock -n 9; then
  log "another build holds $KARMADA_LITE_CACHE/build.lock; waiting for it"
  flock 9
fi

# The stamp records what was built; a binary without a matching stamp (an interrupted build) is not trusted.
is_cached() { # dir expected-stamp binary
  [[ $force -eq 0 && -x "$3" && -f "$1/.stamp" && "$(cat "$1/.stamp")" == "$2" ]]
}

# Kubernetes' official release flags: a static binary, no debug info. Module cache stays in the usual place
# (~/go/pkg/mod) so CI and later sessions share it.
export CGO_ENABLED=0
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-trimpath -mod=mod"
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
ldflags_base="-s -w"

build_etcd() {
  local stamp="etcd $ETCD_VERSION $(go env GOVERSION)"
  if is_cached "$ETCD_BIN_DIR" "$stamp" "$ETCD_BIN"; then
    log "etcd $ETCD_VERSION: cached at $ETCD_BIN"
    return
  fi
  local t0=$SECONDS dir="$build_root/etcd-$ETCD_VERSION"
  log "etcd $ETCD_VERSION: building in $dir"
  rm -rf "$dir" && mkdir -p "$dir"
  # etcd's own root module carries replace directives, so `go install` of it is refused; its main() is a
  # one-liner around etcdmain, which is a normal published package.
  cat >"$dir/go.mod" <<EOF
module karmada-lite.local/etcd-build

go 1.24

require go.etcd.io/etcd/server/v3 $ETCD_VERSION
EOF
  cat >"$dir/main.go" <<'EOF'
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
EOF
  (
    cd "$dir"
    log "etcd: resolving modules"
    go mod tidy
    log "etcd: compiling"
    go build -o "$dir/etcd" -ldflags "$ldflags_base" .
  ) || return 1
  "$dir/etcd" --version >/dev/null || return 1
  mkdir -p "$ETCD_BIN_DIR"
  mv -f "$dir/etcd" "$ETCD_BIN.tmp" && mv -f "$ETCD_BIN.tmp" "$ETCD_BIN"
  echo "$stamp" >"$ETCD_BIN_DIR/.stamp"
  log "etcd $ETCD_VERSION: built in $((SECONDS - t0))s -> $ETCD_BIN"
}

# Debian's etcd-server is only a fallback, used when the Go build fails. Debian 12 ships 3.4.23, older than
# what kube-apiserver 1.34 is released against, but the integration suite passes on it (checked by hand with
# KARMADA_LITE_ETCD_BIN=/usr/bin/etcd), so 3.4 is accepted; anything older is not.
etcd_from_apt() {
  command -v apt-get >/dev/null || return 1
  log "etcd: falling back to Debian's etcd-server"
  if ! command -v /usr/bin/etcd >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq || return 1
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq etcd-server >/dev/null || return 1
  fi
  local v
  v="$(/usr/bin/etcd --version | sed -n 's/^etcd Version: //p')"
  case "$v" in
    3.[4-9].*) ;;
    *) log "Debian's etcd is $v, too old for kube-apiserver $K8S_VERSION"; return 1 ;;
  esac
  mkdir -p "$ETCD_BIN_DIR"
  ln -sf /usr/bin/etcd "$ETCD_BIN"
  # no stamp: the next run tries the Go build again instead of settling for the fallback
  rm -f "$ETCD_BIN_DIR/.stamp"
  log "etcd: using Debian's etcd $v via $ETCD_BIN"
}

build_kube_apiserver() {
  local stamp="kube-apiserver $K8S_VERSION $(go env GOVERSION)"
  if is_cached "$K8S_BIN_DIR" "$stamp" "$KUBE_APISERVER_BIN"; then
    log "kube-apiserver $K8S_VERSION: cached at $KUBE_APISERVER_BIN"
    return
  fi
  local t0=$SECONDS dir="$build_root/kubernetes-$K8S_VERSION"
  log "kube-apiserver $K8S_VERSION: building in $dir (about 5 minutes on 2 cores with a cold Go cache)"
  rm -rf "$dir" && mkdir -p "$dir"
  local minor="${K8S_VERSION#v1.}"
  minor="${minor%%.*}"
  (
    cd "$dir"
    # k8s.io/kubernetes requires its staging modules as v0.0.0 and replaces them with ./staging paths,
    # which only work inside its own repo. Read the list from its go.mod so a version bump picks up
    # added or removed staging modules, and point each at the published v0.<minor>.<patch>.
    log "kube-apiserver: fetching k8s.io/kubernetes $K8S_VERSION"
    local gomod
    gomod="$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')"
    [[ -f "$gomod" ]] || { log "could not locate go.mod of k8s.io/kubernetes@$K8S_VERSION"; exit 1; }
    local staging_version="v0.${K8S_VERSION#v1.}"
    {
      printf 'module karmada-lite.local/kube-apiserver-build\n\ngo 1.24\n\nrequire k8s.io/kubernetes %s\n\nreplace (\n' "$K8S_VERSION"
      sed -n 's#^[[:space:]]*\(k8s\.io/[A-Za-z0-9._-]*\) => \./staging/src/.*$#\1#p' "$gomod" |
        while read -r m; do printf '\t%s => %s %s\n' "$m" "$m" "$staging_version"; done
      printf ')\n'
    } >go.mod
    local n
    n="$(grep -c ' => ' go.mod)"
    [[ $n -gt 10 ]] || { log "found only $n staging modules in $gomod; refusing to guess"; exit 1; }
    log "kube-apiserver: $n staging modules replaced with $staging_version; resolving dependencies"
    go get "k8s.io/kubernetes/cmd/kube-apiserver@$K8S_VERSION"
    log "kube-apiserver: compiling (progress is silent; this is the long part)"
    local pkg=k8s.io/component-base/version
    go build -o "$dir/kube-apiserver" -ldflags "$ldflags_base \
      -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor \
      -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z" \
      k8s.io/kubernetes/cmd/kube-apiserver
  ) || return 1
  "$dir/kube-apiserver" --version >/dev/null || return 1
  mkdir -p "$K8S_BIN_DIR"
  mv -f "$dir/kube-apiserver" "$KUBE_APISERVER_BIN.tmp" && mv -f "$KUBE_APISERVER_BIN.tmp" "$KUBE_APISERVER_BIN"
  echo "$stamp" >"$K8S_BIN_DIR/.stamp"
  log "kube-apiserver $K8S_VERSION: built in $((SECONDS - t0))s -> $KUBE_APISERVER_BIN"
}

t_start=$SECONDS
if ! build_etcd; then
  log "building etcd $ETCD_VERSION failed"
  etcd_from_apt || die "no usable etcd: the Go build failed and Debian's etcd-server is unavailable or too old"
fi
build_kube_apiserver || die "building kube-apiserver $K8S_VERSION failed (see the go output above)"

log "ready in $((SECONDS - t_start))s: $("$ETCD_BIN" --version | head -1), $("$KUBE_APISERVER_BIN" --version)"
printf 'ETCD_BIN=%s\nKUBE_APISERVER_BIN=%s\n' "$ETCD_BIN" "$KUBE_APISERVER_BIN"
