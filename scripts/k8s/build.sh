#!/usr/bin/env bash
# Builds etcd and kube-apiserver from the Go module proxy at the versions pinned in versions.sh, and for the fleet
# (KARMADA_LITE_FLEET=kwok) kube-controller-manager, kube-scheduler and kwok as well.
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
[[ $KARMADA_LITE_FLEET == kwok || $KARMADA_LITE_FLEET == bare ]] ||
  die "KARMADA_LITE_FLEET is '$KARMADA_LITE_FLEET'; use kwok (controllers, scheduler and kwok nodes) or bare (apiservers only)"

build_root="$KARMADA_LITE_CACHE/build"
mkdir -p "$build_root" "$KARMADA_LITE_CACHE/bin"

# Everything this fleet needs already built (a binary is moved into place before its stamp is written, so a
# matching stamp means a whole binary): nothing to wait for, not even another caller's build of something else.
all_cached() {
  local b
  [[ $force -eq 0 && -x "$ETCD_BIN" && "$(cat "$ETCD_BIN_DIR/.stamp" 2>/dev/null)" == "etcd $ETCD_VERSION $(go env GOVERSION)" ]] || return 1
  for b in kube-apiserver $([[ $KARMADA_LITE_FLEET == kwok ]] && echo kube-controller-manager kube-scheduler); do
    [[ -x "$K8S_BIN_DIR/$b" && "$(cat "$(k8s_stamp_file "$b")" 2>/dev/null)" == "$b $K8S_VERSION $(go env GOVERSION)" ]] || return 1
  done
  [[ $KARMADA_LITE_FLEET != kwok ]] || [[ -x "$KWOK_BIN" && "$(cat "$KWOK_BIN_DIR/.stamp" 2>/dev/null)" == "kwok $KWOK_VERSION $(go env GOVERSION)" ]]
}
# Each Kubernetes binary has its own stamp (kube-apiserver's keeps the name `.stamp` it always had), so turning
# the fleet on builds only the two that are missing.
k8s_stamp_file() { # binary-name
  if [[ $1 == kube-apiserver ]]; then echo "$K8S_BIN_DIR/.stamp"; else echo "$K8S_BIN_DIR/.stamp-$1"; fi
}
if all_cached; then
  log "all cached ($KARMADA_LITE_FLEET fleet): $ETCD_BIN_DIR, $K8S_BIN_DIR$([[ $KARMADA_LITE_FLEET == kwok ]] && echo ", $KWOK_BIN_DIR")"
  printf 'ETCD_BIN=%s\nKUBE_APISERVER_BIN=%s\n' "$ETCD_BIN" "$KUBE_APISERVER_BIN"
  if [[ $KARMADA_LITE_FLEET == kwok ]]; then
    printf 'KUBE_CONTROLLER_MANAGER_BIN=%s\nKUBE_SCHEDULER_BIN=%s\nKWOK_BIN=%s\n' "$KUBE_CONTROLLER_MANAGER_BIN" "$KUBE_SCHEDULER_BIN" "$KWOK_BIN"
  fi
  exit 0
fi

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

# Moves a built binary into the cache, then stamps it: a matching stamp always describes a whole binary.
install_built() { # built target stamp-file stamp
  mkdir -p "$(dirname "$2")"
  mv -f "$1" "$2.tmp" && mv -f "$2.tmp" "$2"
  echo "$4" >"$3"
}

# Fails (after saying so) when <binary> is cached with <stamp>; otherwise empties <build-dir> for a build.
needs_build() { # label stamp-dir stamp binary build-dir
  if is_cached "$2" "$3" "$4"; then
    log "$1: cached at $4"
    return 1
  fi
  log "$1: building in $5"
  rm -rf "$5" && mkdir -p "$5"
}

build_etcd() {
  local stamp="etcd $ETCD_VERSION $(go env GOVERSION)" dir="$build_root/etcd-$ETCD_VERSION" t0=$SECONDS
  needs_build "etcd $ETCD_VERSION" "$ETCD_BIN_DIR" "$stamp" "$ETCD_BIN" "$dir" || return 0
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
  install_built "$dir/etcd" "$ETCD_BIN" "$ETCD_BIN_DIR/.stamp" "$stamp"
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

build_kubernetes() { # binary-name...
  local want=("$@") missing=() b
  for b in "${want[@]}"; do
    if [[ $force -eq 0 && -x "$K8S_BIN_DIR/$b" && "$(cat "$(k8s_stamp_file "$b")" 2>/dev/null)" == "$b $K8S_VERSION $(go env GOVERSION)" ]]; then
      log "$b $K8S_VERSION: cached at $K8S_BIN_DIR/$b"
    else
      missing+=("$b")
    fi
  done
  ((${#missing[@]})) || return 0
  local t0=$SECONDS dir="$build_root/kubernetes-$K8S_VERSION"
  log "${missing[*]} $K8S_VERSION: building in $dir (about 5 minutes for kube-apiserver on 2 cores with a cold Go cache; the others share most of its packages)"
  rm -rf "$dir" && mkdir -p "$dir"
  local minor="${K8S_VERSION#v1.}"
  minor="${minor%%.*}"
  local pkgs=()
  for b in "${missing[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$b"); done
  (
    cd "$dir"
    # k8s.io/kubernetes requires its staging modules as v0.0.0 and replaces them with ./staging paths,
    # which only work inside its own repo. Read the list from its go.mod so a version bump picks up
    # added or removed staging modules, and point each at the published v0.<minor>.<patch>.
    log "kubernetes: fetching k8s.io/kubernetes $K8S_VERSION"
    local gomod
    gomod="$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')"
    [[ -f "$gomod" ]] || { log "could not locate go.mod of k8s.io/kubernetes@$K8S_VERSION"; exit 1; }
    local staging_version="v0.${K8S_VERSION#v1.}"
    {
      printf 'module karmada-lite.local/kubernetes-build\n\ngo 1.24\n\nrequire k8s.io/kubernetes %s\n\nreplace (\n' "$K8S_VERSION"
      sed -n 's#^[[:space:]]*\(k8s\.io/[A-Za-z0-9._-]*\) => \./staging/src/.*$#\1#p' "$gomod" |
        while read -r m; do printf '\t%s => %s %s\n' "$m" "$m" "$staging_version"; done
      printf ')\n'
    } >go.mod
    local n
    n="$(grep -c ' => ' go.mod)"
    [[ $n -gt 10 ]] || { log "found only $n staging modules in $gomod; refusing to guess"; exit 1; }
    log "kubernetes: $n staging modules replaced with $staging_version; resolving dependencies"
    go get "${pkgs[@]/%/@$K8S_VERSION}"
    log "kubernetes: compiling ${missing[*]} in one go build (progress is silent; this is the long part)"
    local pkg=k8s.io/component-base/version
    # one invocation: the three commands share most of their packages, compiled once
    go build -o "$dir/" -ldflags "$ldflags_base \
      -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor \
      -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z" \
      "${pkgs[@]}"
  ) || return 1
  for b in "${missing[@]}"; do
    "$dir/$b" --version >/dev/null || return 1
    install_built "$dir/$b" "$K8S_BIN_DIR/$b" "$(k8s_stamp_file "$b")" "$b $K8S_VERSION $(go env GOVERSION)"
  done
  log "${missing[*]} $K8S_VERSION: built in $((SECONDS - t0))s -> $K8S_BIN_DIR"
}

# kwok is a Go module of its own (no replace directives), so `go install module@version` builds it as
# released, with the version it reports set as its release script sets it.
build_kwok() {
  local stamp="kwok $KWOK_VERSION $(go env GOVERSION)" dir="$build_root/kwok-$KWOK_VERSION" t0=$SECONDS
  needs_build "kwok $KWOK_VERSION" "$KWOK_BIN_DIR" "$stamp" "$KWOK_BIN" "$dir" || return 0
  # `go install pkg@version` builds the module as published, with its own go.mod and go.sum: -mod=mod has
  # nothing to resolve there
  GOFLAGS="-trimpath" GOBIN="$dir" go install -ldflags "$ldflags_base -X sigs.k8s.io/kwok/pkg/consts.Version=${KWOK_VERSION#v}" \
    "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION" || return 1
  "$dir/kwok" --version >/dev/null || return 1
  install_built "$dir/kwok" "$KWOK_BIN" "$KWOK_BIN_DIR/.stamp" "$stamp"
  log "kwok $KWOK_VERSION: built in $((SECONDS - t0))s -> $KWOK_BIN"
}

t_start=$SECONDS
if ! build_etcd; then
  log "building etcd $ETCD_VERSION failed"
  etcd_from_apt || die "no usable etcd: the Go build failed and Debian's etcd-server is unavailable or too old"
fi
case "$KARMADA_LITE_FLEET" in
  kwok)
    build_kubernetes kube-apiserver kube-controller-manager kube-scheduler || die "building Kubernetes $K8S_VERSION failed (see the go output above)"
    build_kwok || die "building kwok $KWOK_VERSION failed (see the go output above)"
    ;;
  *) build_kubernetes kube-apiserver || die "building kube-apiserver $K8S_VERSION failed (see the go output above)" ;;
esac

log "ready in $((SECONDS - t_start))s: $("$ETCD_BIN" --version | head -1), $("$KUBE_APISERVER_BIN" --version)"
printf 'ETCD_BIN=%s\nKUBE_APISERVER_BIN=%s\n' "$ETCD_BIN" "$KUBE_APISERVER_BIN"
if [[ $KARMADA_LITE_FLEET == kwok ]]; then
  printf 'KUBE_CONTROLLER_MANAGER_BIN=%s\nKUBE_SCHEDULER_BIN=%s\nKWOK_BIN=%s\n' "$KUBE_CONTROLLER_MANAGER_BIN" "$KUBE_SCHEDULER_BIN" "$KWOK_BIN"
fi
