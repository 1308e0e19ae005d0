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

# The fleet: beside each kube-apiserver, kube-controller-manager and kube-scheduler of the same version (built
# with it, in one `go build`), and kwok's controller playing kubelet for fake Nodes. kwok v0.8.0, the newest
# release, lists Kubernetes 1.34 in its supported_releases.txt; it is its own Go module
# (client-go v0.36), installed from the module proxy like the servers.
#   KARMADA_LITE_FLEET=kwok   the fleet (controllers, scheduler, kwok nodes); the default
#   KARMADA_LITE_FLEET=bare   kube-apiservers only: objects are stored, nothing acts on them
KWOK_VERSION=v0.8.0
KARMADA_LITE_FLEET="${KARMADA_LITE_FLEET:-kwok}"
KUBE_CONTROLLER_MANAGER_BIN="$K8S_BIN_DIR/kube-controller-manager"
KUBE_SCHEDULER_BIN="$K8S_BIN_DIR/kube-scheduler"
KWOK_BIN_DIR="$KARMADA_LITE_CACHE/bin/kwok-$KWOK_VERSION"
KWOK_BIN="$KWOK_BIN_DIR/kwok"
