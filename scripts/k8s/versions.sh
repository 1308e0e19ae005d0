# Sourced by build.sh and env.sh: the single place where the server versions are pinned.
# Changing a pin changes the binary directory, which is what triggers a rebuild.

# etcd is pinned to the exact version k8s.io/kubernetes v1.34.4 itself depends on, so the two builds share
# most of their module downloads and the pair is one upstream actually tests together.
K8S_VERSION=v1.34.4
ETCD_VERSION=v3.6.4

KARMADA_LITE_CACHE="${KARMADA_LITE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/karmada-lite}"
K8S_BIN_DIR="$KARMADA_LITE_CACHE/bin/kubernetes-$K8S_VERSION"
ETCD_BIN_DIR="$KARMADA_LITE_CACHE/bin/etcd-$ETCD_VERSION"
KUBE_APISERVER_BIN="$K8S_BIN_DIR/kube-apiserver"
ETCD_BIN="$ETCD_BIN_DIR/etcd"
