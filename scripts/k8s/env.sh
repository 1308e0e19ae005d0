#!/usr/bin/env bash
# A throwaway Kubernetes control plane for tests: one etcd and three kube-apiservers (host, member1, member2)
# on 127.0.0.1, sharing the etcd under separate --etcd-prefix values.
#
# KARMADA_LITE_FLEET=kwok (the fleet, the default): beside each member's apiserver a kube-controller-manager, a kube-scheduler
# and kwok playing the kubelet of $KARMADA_LITE_FLEET_NODES fake Nodes (2; 32 CPU, 256Gi, 110 Pods each), so Pods
# are scheduled and run, Deployments become Available, Jobs complete, namespaces finish terminating and the
# garbage collector runs. kwok's stages (kwok-stages.yaml) also make Pods and Nodes fail when labelled. The host
# is a Karmada control plane: its controller-manager runs the controllers Karmada's does (namespace, garbage
# collector, tokens...), not the workload ones, and it has no scheduler and no Nodes: a template Deployment
# there gets no Pods, and its status is the one karmada-lite aggregates.
# KARMADA_LITE_FLEET=bare (the opt-out): the apiservers only; objects are stored, validated and defaulted, nothing acts on them.
#
#   bash scripts/k8s/env.sh start    # (re)start from a clean state, wait for /readyz, write env.json
#   bash scripts/k8s/env.sh status   # exit 0 only if every server is running and ready
#   bash scripts/k8s/env.sh stop     # stop what the pid files name; nothing else is touched
#
# State lives in ${KARMADA_LITE_ENV_DIR:-/tmp/karmada-lite-env}: <name>/kubeconfig, <name>/pki, pid files,
# logs, and env.json describing each server for the test harness. Every server has the aggregation layer:
# <name>/pki/front-proxy-{ca,client}.{crt,key} and a serving certificate for an aggregated apiserver,
# <name>/pki/aggregated-serving.{crt,key} (signed by <name>/pki/ca.crt; the host's is karmada-lite's).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=versions.sh
. "$here/versions.sh"

ENV_DIR="${KARMADA_LITE_ENV_DIR:-/tmp/karmada-lite-env}"
ETCD_BIN="${KARMADA_LITE_ETCD_BIN:-$ETCD_BIN}"
KUBE_APISERVER_BIN="${KARMADA_LITE_KUBE_APISERVER_BIN:-$KUBE_APISERVER_BIN}"
READY_TIMEOUT="${KARMADA_LITE_ENV_TIMEOUT:-180}"
STOP_GRACE="${KARMADA_LITE_ENV_STOP_GRACE:-15}"
KUBE_CONTROLLER_MANAGER_BIN="${KARMADA_LITE_KUBE_CONTROLLER_MANAGER_BIN:-$KUBE_CONTROLLER_MANAGER_BIN}"
KUBE_SCHEDULER_BIN="${KARMADA_LITE_KUBE_SCHEDULER_BIN:-$KUBE_SCHEDULER_BIN}"
KWOK_BIN="${KARMADA_LITE_KWOK_BIN:-$KWOK_BIN}"
FLEET_NODES="${KARMADA_LITE_FLEET_NODES:-2}"
SERVERS=(host member1 member2)
# the fleet's processes per cluster: pid file / log name, and the binary pid_if_ours expects
FLEET_COMPONENTS=(controller-manager scheduler kwok)
fleet_components() { # name
  if [[ $1 == host ]]; then echo controller-manager; else echo "${FLEET_COMPONENTS[*]}"; fi
}
# karmada-kube-controller-manager's --controllers as Karmada's operator deploys it (csrsigning with the host CA)
HOST_CONTROLLERS=namespace,garbagecollector,serviceaccount-token,ttl-after-finished,bootstrapsigner,tokencleaner,csrcleaner,csrsigning,clusterrole-aggregation
component_binary() {
  case $1 in
    controller-manager) echo kube-controller-manager ;;
    scheduler) echo kube-scheduler ;;
    kwok) echo kwok ;;
  esac
}

log() { printf '[k8s-env %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# --- processes, by pid file only --------------------------------------------------------------------------

# A pid file can outlive its process and the pid can be reused by something unrelated; only signal a pid
# whose command line still names the binary we started.
pid_if_ours() { # pidfile binary-basename
  local pidfile=$1 want=$2 pid cmd
  [[ -f "$pidfile" ]] || return 1
  pid="$(cat "$pidfile" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [[ -r "/proc/$pid/cmdline" ]] || return 1
  cmd="$(tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | head -n 1 || true)"
  [[ "${cmd##*/}" == "$want" ]] || return 1
  # a zombie is dead for our purposes
  [[ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ]] || return 1
  echo "$pid"
}

stop_one() { # label pidfile binary-basename
  local label=$1 pidfile=$2 want=$3 pid waited=0
  if ! pid="$(pid_if_ours "$pidfile" "$want")"; then
    rm -f "$pidfile"
    return 0
  fi
  log "stopping $label (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  while pid_if_ours "$pidfile" "$want" >/dev/null && ((waited < STOP_GRACE * 10)); do
    sleep 0.1
    waited=$((waited + 1))
  done
  if pid_if_ours "$pidfile" "$want" >/dev/null; then
    log "$label did not exit within ${STOP_GRACE}s of SIGTERM; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    sleep 0.2
  fi
  rm -f "$pidfile"
}

cmd_stop() {
  [[ -d "$ENV_DIR" ]] || return 0
  # the fleet's processes first, then the apiservers, then etcd: stopping a server under its clients only
  # produces a storm of reconnect errors
  local pids=() name c
  for name in "${SERVERS[@]}"; do
    for c in "${FLEET_COMPONENTS[@]}"; do
      stop_one "$c $name" "$ENV_DIR/$name/$c.pid" "$(component_binary "$c")" &
      pids+=($!)
    done
  done
  ((${#pids[@]} == 0)) || wait "${pids[@]}"
  pids=()
  for name in "${SERVERS[@]}"; do
    stop_one "kube-apiserver $name" "$ENV_DIR/$name/pid" kube-apiserver &
    pids+=($!)
  done
  wait "${pids[@]}"
  stop_one etcd "$ENV_DIR/etcd/pid" etcd
}

# --- ports ------------------------------------------------------------------------------------------------

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Assigns to a variable rather than printing: a $(...) subshell would lose the record of ports already handed
# out, and two servers would be given the same free port.
TAKEN=" "
# Two runs starting at once both see the same ports free before either binds them; a random offset per start
# (unless the ports are pinned) makes that collision unlikely, and a collision only fails that start, which
# the test setup retries.
PORT_OFFSET=$(( (RANDOM % 500) * 8 ))
free_port() { # var preferred
  local p=$2
  while port_in_use "$p" || [[ "$TAKEN" == *" $p "* ]]; do p=$((p + 1)); done
  TAKEN+="$p "
  printf -v "$1" '%s' "$p"
}

# --- certificates -----------------------------------------------------------------------------------------

# EC P-256 keys: generated in milliseconds, and accepted by kube-apiserver for serving, client auth and
# service-account signing (ES256).
gen_key() { openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$1"; }

# Each server gets its own CA, serving cert, service-account key pair and admin client cert, so a test that
# wires the wrong kubeconfig to the wrong server fails TLS instead of silently talking to another "cluster".
gen_pki() { # name dir
  local name=$1 d=$2
  mkdir -p "$d"
  gen_key "$d/ca.key"
  openssl req -x509 -new -key "$d/ca.key" -sha256 -days 3650 -subj "/CN=karmada-lite-$name-ca" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" \
    -out "$d/ca.crt" 2>/dev/null

  gen_key "$d/serving.key"
  openssl req -new -key "$d/serving.key" -subj "/CN=kube-apiserver-$name" -out "$d/serving.csr" 2>/dev/null
  cat >"$d/serving.ext" <<EOF
basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,IP:10.0.0.1
EOF
  openssl x509 -req -in "$d/serving.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial -days 3650 \
    -sha256 -extfile "$d/serving.ext" -out "$d/serving.crt" 2>/dev/null

  # O=system:masters is bound to cluster-admin by the bootstrap RBAC policy and also short-circuits
  # authorization, so the admin works before the RBAC bootstrap roles exist.
  gen_key "$d/admin.key"
  openssl req -new -key "$d/admin.key" -subj "/O=system:masters/CN=karmada-lite-admin" -out "$d/admin.csr" 2>/dev/null
  printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n' >"$d/admin.ext"
  openssl x509 -req -in "$d/admin.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial -days 3650 \
    -sha256 -extfile "$d/admin.ext" -out "$d/admin.crt" 2>/dev/null

  gen_key "$d/sa.key"
  openssl pkey -in "$d/sa.key" -pubout -out "$d/sa.pub" 2>/dev/null
  rm -f "$d"/*.csr "$d"/*.ext "$d"/*.srl
  chmod 600 "$d"/*.key
}

b64() { base64 -w0 <"$1"; }

# A server's aggregation layer: a front-proxy CA of its own (as kubeadm makes it) and the client certificate
# the aggregator presents to aggregated API servers, plus a serving certificate for karmada-lite's
# aggregated apiserver, signed by the host CA, for the name the aggregator checks (<service>.<namespace>.svc).
AGGREGATED_SERVICE=karmada-aggregated-apiserver
AGGREGATED_NAMESPACE=karmada-system
gen_front_proxy() { # dir
  local d=$1
  gen_key "$d/front-proxy-ca.key"
  openssl req -x509 -new -key "$d/front-proxy-ca.key" -sha256 -days 3650 -subj "/CN=karmada-lite-front-proxy-ca" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" \
    -out "$d/front-proxy-ca.crt" 2>/dev/null
  gen_key "$d/front-proxy-client.key"
  openssl req -new -key "$d/front-proxy-client.key" -subj "/CN=front-proxy-client" -out "$d/fp.csr" 2>/dev/null
  printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n' >"$d/fp.ext"
  openssl x509 -req -in "$d/fp.csr" -CA "$d/front-proxy-ca.crt" -CAkey "$d/front-proxy-ca.key" -CAcreateserial -days 3650 \
    -sha256 -extfile "$d/fp.ext" -out "$d/front-proxy-client.crt" 2>/dev/null
  gen_key "$d/aggregated-serving.key"
  openssl req -new -key "$d/aggregated-serving.key" -subj "/CN=$AGGREGATED_SERVICE.$AGGREGATED_NAMESPACE.svc" -out "$d/ag.csr" 2>/dev/null
  printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:%s.%s.svc,DNS:%s.%s.svc.cluster.local,DNS:localhost,IP:127.0.0.1\n' \
    "$AGGREGATED_SERVICE" "$AGGREGATED_NAMESPACE" "$AGGREGATED_SERVICE" "$AGGREGATED_NAMESPACE" >"$d/ag.ext"
  openssl x509 -req -in "$d/ag.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial -days 3650 \
    -sha256 -extfile "$d/ag.ext" -out "$d/aggregated-serving.crt" 2>/dev/null
  rm -f "$d"/*.csr "$d"/*.ext "$d"/*.srl
  chmod 600 "$d"/*.key
}


write_kubeconfig() { # name port pki-dir out
  local name=$1 port=$2 d=$3 out=$4
  cat >"$out" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: $name
  cluster:
    server: https://127.0.0.1:$port
    certificate-authority-data: $(b64 "$d/ca.crt")
users:
- name: $name-admin
  user:
    client-certificate-data: $(b64 "$d/admin.crt")
    client-key-data: $(b64 "$d/admin.key")
contexts:
- name: $name
  context:
    cluster: $name
    user: $name-admin
    namespace: default
current-context: $name
EOF
  chmod 600 "$out"
}

# --- readiness --------------------------------------------------------------------------------------------

https_get() { # name port path -> prints HTTP status
  local d="$ENV_DIR/$1/pki"
  curl -s -o /dev/null -w '%{http_code}' --max-time 5 --cacert "$d/ca.crt" --cert "$d/admin.crt" \
    --key "$d/admin.key" "https://127.0.0.1:$2$3" 2>/dev/null || true
}

# /readyz covers storage, RBAC bootstrap and CRD informers; the `default` namespace is created afterwards by
# the bootstrap controller's first loop, and tests rely on it, so wait for that as well.
is_ready() { # name port
  [[ "$(https_get "$1" "$2" /readyz)" == 200 && "$(https_get "$1" "$2" /api/v1/namespaces/default)" == 200 ]]
}

# Polls every server with <ready> until all are ready; fails at once when <dead> says a process of it exited,
# or at the deadline after <late> has told about each one still pending. Each is a function of the name.
wait_each() { # deadline ready dead late
  local deadline=$1 ready=$2 dead=$3 late=$4 pending=("${SERVERS[@]}") still name
  while ((${#pending[@]})); do
    still=()
    for name in "${pending[@]}"; do
      ! "$dead" "$name" || return 1
      "$ready" "$name" || still+=("$name")
    done
    pending=("${still[@]}")
    ((${#pending[@]})) || break
    if ((SECONDS >= deadline)); then
      for name in "${pending[@]}"; do "$late" "$name"; done
      return 1
    fi
    sleep 0.5
  done
}

apiserver_dead() { # name
  pid_if_ours "$ENV_DIR/$1/pid" kube-apiserver >/dev/null && return 1
  log "kube-apiserver $1 exited during startup; last lines of $ENV_DIR/$1/apiserver.log:"
  tail -n 25 "$ENV_DIR/$1/apiserver.log" >&2 || true
}
apiserver_ready() { # name
  local port
  port="$(cat "$ENV_DIR/$1/port")"
  is_ready "$1" "$port" || return 1
  log "kube-apiserver $1 ready at https://127.0.0.1:$port"
}
apiserver_late() { # name
  log "kube-apiserver $1 not ready after ${READY_TIMEOUT}s; see $ENV_DIR/$1/apiserver.log; last lines:"
  tail -n 15 "$ENV_DIR/$1/apiserver.log" >&2 || true
}
wait_ready() { wait_each "$1" apiserver_ready apiserver_dead apiserver_late; }

# --- the fleet: controller-manager, scheduler, kwok and its Nodes ----------------------------------------------

# A component's /healthz on its secure port (self-signed serving certificate; /healthz needs no credentials).
component_healthy() { # port
  [[ "$(curl -sk -o /dev/null -w '%{http_code}' --max-time 5 "https://127.0.0.1:$1/healthz" 2>/dev/null || true)" == 200 ]]
}

# The Nodes kwok plays the kubelet of: what a kubelet registers (labels, capacity), with kwok's annotation, by
# which this cluster's kwok manages them and no other.
create_nodes() { # name port
  local name=$1 port=$2 d="$ENV_DIR/$1/pki" i node code
  for ((i = 0; i < FLEET_NODES; i++)); do
    node="$name-node-$i"
    code="$(curl -s -o "$ENV_DIR/$name/node-create.out" -w '%{http_code}' --max-time 10 --cacert "$d/ca.crt" --cert "$d/admin.crt" --key "$d/admin.key" \
      -H 'Content-Type: application/json' -X POST "https://127.0.0.1:$port/api/v1/nodes" --data-binary @- <<EOF || true
{"apiVersion":"v1","kind":"Node","metadata":{"name":"$node","annotations":{"kwok.x-k8s.io/node":"fake","node.alpha.kubernetes.io/ttl":"0"},
 "labels":{"kubernetes.io/hostname":"$node","kubernetes.io/os":"linux","kubernetes.io/arch":"amd64","type":"kwok"}},
 "spec":{},
 "status":{"capacity":{"cpu":"32","memory":"256Gi","pods":"110"},"allocatable":{"cpu":"32","memory":"256Gi","pods":"110"}}}
EOF
)"
    if [[ "$code" != 201 ]]; then
      log "creating Node $node on $name failed (HTTP $code): $(cat "$ENV_DIR/$name/node-create.out" 2>/dev/null)"
      return 1
    fi
  done
}

# Every Node of the cluster reports Ready=True (kwok's node-initialize stage).
nodes_ready() { # name port
  local d="$ENV_DIR/$1/pki" n
  n="$(curl -s --max-time 5 --cacert "$d/ca.crt" --cert "$d/admin.crt" --key "$d/admin.key" "https://127.0.0.1:$2/api/v1/nodes" 2>/dev/null |
    tr -d ' \n' | grep -o '"type":"Ready","status":"True"' | wc -l || true)"
  ((n >= FLEET_NODES))
}

start_fleet() { # deadline
  local deadline=$1 name port d kc c
  for name in "${SERVERS[@]}"; do
    port="$(cat "$ENV_DIR/$name/port")"
    d="$ENV_DIR/$name/pki"
    kc="$ENV_DIR/$name/kubeconfig"
    local kcm_port sched_port kwok_port controllers='*'
    free_port kcm_port $((port + 1000))
    echo "$kcm_port" >"$ENV_DIR/$name/controller-manager.port"
    [[ $name != host ]] || controllers=$HOST_CONTROLLERS
    log "starting kube-controller-manager for $name"
    # The admin credentials for every controller (no per-controller service accounts): what the fleet needs is
    # the controllers' effect, not their RBAC. The service-account key signs the token controller's tokens.
    setsid "$KUBE_CONTROLLER_MANAGER_BIN" --kubeconfig "$kc" \
      --authentication-kubeconfig "$kc" --authorization-kubeconfig "$kc" \
      --leader-elect=false --bind-address 127.0.0.1 --secure-port "$kcm_port" --cert-dir "$ENV_DIR/$name/controller-manager-certs" \
      --controllers "$controllers" \
      --service-account-private-key-file "$d/sa.key" --root-ca-file "$d/ca.crt" \
      --cluster-signing-cert-file "$d/ca.crt" --cluster-signing-key-file "$d/ca.key" \
      --use-service-account-credentials=false \
      </dev/null >"$ENV_DIR/$name/controller-manager.log" 2>&1 &
    echo $! >"$ENV_DIR/$name/controller-manager.pid"
    [[ $name != host ]] || continue
    free_port sched_port $((port + 2000))
    free_port kwok_port $((port + 3000))
    echo "$sched_port" >"$ENV_DIR/$name/scheduler.port"
    echo "$kwok_port" >"$ENV_DIR/$name/kwok.port"
    create_nodes "$name" "$port" || return 1
    log "starting kube-scheduler and kwok $KWOK_VERSION for $name ($FLEET_NODES Nodes)"
    setsid "$KUBE_SCHEDULER_BIN" --kubeconfig "$kc" \
      --authentication-kubeconfig "$kc" --authorization-kubeconfig "$kc" \
      --leader-elect=false --bind-address 127.0.0.1 --secure-port "$sched_port" --cert-dir "$ENV_DIR/$name/scheduler-certs" \
      </dev/null >"$ENV_DIR/$name/scheduler.log" 2>&1 &
    echo $! >"$ENV_DIR/$name/scheduler.pid"
    # kwok's own server listens where the Nodes' InternalIP (127.0.0.1, kwok-stages.yaml) and kubelet port send
    # the apiserver, with the apiserver's serving certificate; the apiserver only reaches Nodes by InternalIP
    # (--kubelet-preferred-address-types). No container runs: every container's log is one line that says so
    # (a ClusterLogs rule), and exec is kwok's refusal.
    # the CRI log format kwok reads: time, stream, F (a full line), text
    printf '%s stdout F no container runs on the kwok fleet: kwok plays the kubelet of the Nodes of %s (scripts/k8s/env.sh), and this line is every container'"'"'s log\n' \
      "$(date -u +%Y-%m-%dT%H:%M:%S.000000000Z)" "$name" >"$ENV_DIR/$name/container.log"
    printf 'apiVersion: kwok.x-k8s.io/v1alpha1\nkind: ClusterLogs\nmetadata:\n  name: fleet-placeholder\nspec:\n  logs:\n  - logsFile: %s\n    follow: false\n' \
      "$ENV_DIR/$name/container.log" >"$ENV_DIR/$name/kwok-logs.yaml"
    setsid "$KWOK_BIN" --kubeconfig "$kc" --config "$here/kwok-stages.yaml" --config "$ENV_DIR/$name/kwok-logs.yaml" \
      --manage-nodes-with-annotation-selector kwok.x-k8s.io/node=fake \
      --server-address "127.0.0.1:$kwok_port" --node-port "$kwok_port" \
      --tls-cert-file "$d/serving.crt" --tls-private-key-file "$d/serving.key" \
      </dev/null >"$ENV_DIR/$name/kwok.log" 2>&1 &
    echo $! >"$ENV_DIR/$name/kwok.pid"
  done
  wait_each "$deadline" fleet_ready fleet_dead fleet_late
}

fleet_dead() { # name
  local c
  for c in $(fleet_components "$1"); do
    pid_if_ours "$ENV_DIR/$1/$c.pid" "$(component_binary "$c")" >/dev/null && continue
    log "$c of $1 exited during startup; last lines of $ENV_DIR/$1/$c.log:"
    tail -n 25 "$ENV_DIR/$1/$c.log" >&2 || true
    return 0
  done
  return 1
}
fleet_ready() { # name
  component_healthy "$(cat "$ENV_DIR/$1/controller-manager.port")" || return 1
  if [[ $1 == host ]]; then
    log "fleet of $1 ready: controller-manager ($HOST_CONTROLLERS)"
    return 0
  fi
  component_healthy "$(cat "$ENV_DIR/$1/scheduler.port")" && nodes_ready "$1" "$(cat "$ENV_DIR/$1/port")" || return 1
  log "fleet of $1 ready: controller-manager, scheduler, $FLEET_NODES Ready Nodes"
}
fleet_late() { # name
  local c
  log "the fleet of $1 is not ready after ${READY_TIMEOUT}s; see $ENV_DIR/$1/{controller-manager,scheduler,kwok}.log"
  for c in $(fleet_components "$1"); do tail -n 5 "$ENV_DIR/$1/$c.log" >&2 || true; done
}

# --- start ------------------------------------------------------------------------------------------------

cmd_start() {
  [[ -x "$ETCD_BIN" ]] || die "etcd not found at $ETCD_BIN; run: bash scripts/k8s/build.sh"
  [[ -x "$KUBE_APISERVER_BIN" ]] || die "kube-apiserver not found at $KUBE_APISERVER_BIN; run: bash scripts/k8s/build.sh"
  command -v openssl >/dev/null || die "openssl is required to generate certificates"
  command -v curl >/dev/null || die "curl is required to probe /readyz"
  case "$KARMADA_LITE_FLEET" in
    kwok)
      local b
      for b in "$KUBE_CONTROLLER_MANAGER_BIN" "$KUBE_SCHEDULER_BIN" "$KWOK_BIN"; do
        [[ -x "$b" ]] || die "$b not found (KARMADA_LITE_FLEET=kwok); run: KARMADA_LITE_FLEET=kwok bash scripts/k8s/build.sh, or start with KARMADA_LITE_FLEET=bare"
      done
      ;;
    bare) ;;
    *) die "KARMADA_LITE_FLEET is '$KARMADA_LITE_FLEET'; use kwok (controllers, scheduler and kwok nodes) or bare (apiservers only)" ;;
  esac

  local t0=$SECONDS
  cmd_stop
  # A clean state every start: tests must not depend on objects a previous run left in etcd.
  rm -rf "$ENV_DIR"
  mkdir -p "$ENV_DIR/etcd"

  local etcd_port peer_port
  free_port etcd_port "${KARMADA_LITE_ETCD_PORT:-$((23790 + PORT_OFFSET))}"
  free_port peer_port $((etcd_port + 10))
  log "starting etcd $ETCD_VERSION on 127.0.0.1:$etcd_port"
  # fsync off: the data is disposable and fsync dominates etcd latency on shared disks.
  setsid "$ETCD_BIN" --name karmada-lite --data-dir "$ENV_DIR/etcd/data" \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-cluster "karmada-lite=http://127.0.0.1:$peer_port" --initial-cluster-state new \
    --unsafe-no-fsync --log-level warn \
    </dev/null >"$ENV_DIR/etcd/etcd.log" 2>&1 &
  echo $! >"$ENV_DIR/etcd/pid"
  echo "$etcd_port" >"$ENV_DIR/etcd/port"

  # certificates are made while etcd boots
  local name port i=0
  for name in "${SERVERS[@]}"; do
    free_port port $((${KARMADA_LITE_APISERVER_PORT:-$((26443 + PORT_OFFSET))} + i))
    i=$((i + 1))
    mkdir -p "$ENV_DIR/$name"
    echo "$port" >"$ENV_DIR/$name/port"
    gen_pki "$name" "$ENV_DIR/$name/pki"
    gen_front_proxy "$ENV_DIR/$name/pki"
    write_kubeconfig "$name" "$port" "$ENV_DIR/$name/pki" "$ENV_DIR/$name/kubeconfig"
  done

  local deadline=$((SECONDS + READY_TIMEOUT))
  until [[ "$(curl -s --max-time 2 "http://127.0.0.1:$etcd_port/health" 2>/dev/null)" == *'"health":"true"'* ]]; do
    if ! pid_if_ours "$ENV_DIR/etcd/pid" etcd >/dev/null; then
      tail -n 25 "$ENV_DIR/etcd/etcd.log" >&2 || true
      die "etcd exited during startup; see $ENV_DIR/etcd/etcd.log"
    fi
    ((SECONDS < deadline)) || die "etcd not healthy after ${READY_TIMEOUT}s; see $ENV_DIR/etcd/etcd.log"
    sleep 0.2
  done

  for name in "${SERVERS[@]}"; do
    port="$(cat "$ENV_DIR/$name/port")"
    local d="$ENV_DIR/$name/pki"
    log "starting kube-apiserver $K8S_VERSION $name on https://127.0.0.1:$port"
    # Every apiserver has the aggregation layer (front-proxy client certificate, request-header CA and names):
    # the host for karmada-lite's aggregated apiserver, the members for a metrics.k8s.io server (the
    # FederatedHPA's end-to-end test registers one). An APIService reaches a server on loopback through an
    # ExternalName Service (externalName localhost, port = the server's port): the aggregator resolves
    # ExternalName to that host and port, while Endpoints refuse loopback addresses and a ClusterIP needs a
    # kube-proxy nobody runs here.
    local aggregation=(--requestheader-client-ca-file "$d/front-proxy-ca.crt" --requestheader-allowed-names front-proxy-client
      --requestheader-username-headers X-Remote-User --requestheader-group-headers X-Remote-Group
      --requestheader-extra-headers-prefix X-Remote-Extra- --proxy-client-cert-file "$d/front-proxy-client.crt"
      --proxy-client-key-file "$d/front-proxy-client.key")
    # ServiceAccount admission is off because without a controller-manager (the bare fleet) nothing creates
    # the `default` service account, which would make every Pod create fail, and the kwok fleet's Pods mount
    # nothing. Priority-and-fairness is off because its config controllers add load and nothing here needs
    # request isolation. A Node's kubelet is reached at its InternalIP only: kwok's server on 127.0.0.1, never
    # a name to resolve.
    setsid "$KUBE_APISERVER_BIN" \
      --etcd-servers "http://127.0.0.1:$etcd_port" --etcd-prefix "/karmada-lite/$name" \
      --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$port" \
      --cert-dir "$ENV_DIR/$name/certs" \
      --tls-cert-file "$d/serving.crt" --tls-private-key-file "$d/serving.key" \
      --client-ca-file "$d/ca.crt" \
      --authorization-mode RBAC \
      --service-account-issuer "https://kubernetes.default.svc.$name.karmada-lite.local" \
      --service-account-key-file "$d/sa.pub" --service-account-signing-key-file "$d/sa.key" \
      --service-cluster-ip-range 10.0.0.0/24 \
      --disable-admission-plugins ServiceAccount \
      --enable-priority-and-fairness=false \
      --profiling=false \
      --kubelet-preferred-address-types InternalIP \
      "${aggregation[@]}" \
      </dev/null >"$ENV_DIR/$name/apiserver.log" 2>&1 &
    echo $! >"$ENV_DIR/$name/pid"
  done

  if ! wait_ready "$deadline"; then
    log "startup failed; stopping what was started"
    cmd_stop
    exit 1
  fi
  local t_api=$((SECONDS - t0))
  echo "$KARMADA_LITE_FLEET" >"$ENV_DIR/fleet"
  if [[ $KARMADA_LITE_FLEET == kwok ]] && ! start_fleet "$deadline"; then
    log "the fleet's startup failed; stopping what was started"
    cmd_stop
    exit 1
  fi
  write_env_json "$etcd_port"
  log "environment ($KARMADA_LITE_FLEET fleet) ready in $((SECONDS - t0))s (apiservers after ${t_api}s); description in $ENV_DIR/env.json"
}

write_env_json() { # etcd-port
  local name port first=1
  # the etcd actually running, which differs from the pin when Debian's fallback or an override is used
  local etcd_version
  etcd_version="v$("$ETCD_BIN" --version 2>/dev/null | sed -n 's/^etcd Version: //p')"
  {
    printf '{\n  "kubernetesVersion": "%s",\n  "etcdVersion": "%s",\n  "dir": "%s",\n  "fleet": "%s",\n' "$K8S_VERSION" "$etcd_version" "$ENV_DIR" "$KARMADA_LITE_FLEET"
    printf '  "etcd": { "url": "http://127.0.0.1:%s", "pidFile": "%s" },\n' "$1" "$ENV_DIR/etcd/pid"
    printf '  "clusters": [\n'
    for name in "${SERVERS[@]}"; do
      port="$(cat "$ENV_DIR/$name/port")"
      ((first)) || printf ',\n'
      first=0
      printf '    { "name": "%s", "server": "https://127.0.0.1:%s", "port": %s, "kubeconfig": "%s", "etcdPrefix": "/karmada-lite/%s", "pidFile": "%s", "log": "%s"' \
        "$name" "$port" "$port" "$ENV_DIR/$name/kubeconfig" "$name" "$ENV_DIR/$name/pid" "$ENV_DIR/$name/apiserver.log"
      if [[ $KARMADA_LITE_FLEET == kwok ]]; then
        local c sep='' i
        printf ',\n      "components": {'
        for c in $(fleet_components "$name"); do
          printf '%s "%s": { "binary": "%s", "port": %s, "pidFile": "%s", "log": "%s" }' "$sep" "$c" "$(component_binary "$c")" \
            "$(cat "$ENV_DIR/$name/$c.port")" "$ENV_DIR/$name/$c.pid" "$ENV_DIR/$name/$c.log"
          sep=','
        done
        printf ' },\n      "nodes": ['
        sep=''
        [[ $name == host ]] || for ((i = 0; i < FLEET_NODES; i++)); do printf '%s"%s-node-%s"' "$sep" "$name" "$i"; sep=', '; done
        printf '] '
      else
        printf ' '
      fi
      printf '}' 
    done
    printf '\n  ]\n}\n'
  } >"$ENV_DIR/env.json.tmp"
  mv -f "$ENV_DIR/env.json.tmp" "$ENV_DIR/env.json"
}

cmd_status() {
  local ok=0 name port pid
  if pid="$(pid_if_ours "$ENV_DIR/etcd/pid" etcd)"; then
    echo "etcd      running (pid $pid) http://127.0.0.1:$(cat "$ENV_DIR/etcd/port")"
  else
    echo "etcd      stopped"
    ok=1
  fi
  for name in "${SERVERS[@]}"; do
    if pid="$(pid_if_ours "$ENV_DIR/$name/pid" kube-apiserver)"; then
      port="$(cat "$ENV_DIR/$name/port")"
      if is_ready "$name" "$port"; then
        printf '%-9s ready   (pid %s) https://127.0.0.1:%s kubeconfig=%s\n' "$name" "$pid" "$port" "$ENV_DIR/$name/kubeconfig"
        if [[ "$(cat "$ENV_DIR/fleet" 2>/dev/null)" == kwok ]]; then
          local c cpid
          for c in $(fleet_components "$name"); do
            if cpid="$(pid_if_ours "$ENV_DIR/$name/$c.pid" "$(component_binary "$c")")"; then
              printf '  %-18s running (pid %s)\n' "$c" "$cpid"
            else
              printf '  %-18s stopped; see %s\n' "$c" "$ENV_DIR/$name/$c.log"
              ok=1
            fi
          done
        fi
      else
        printf '%-9s running but not ready (pid %s); see %s\n' "$name" "$pid" "$ENV_DIR/$name/apiserver.log"
        ok=1
      fi
    else
      printf '%-9s stopped\n' "$name"
      ok=1
    fi
  done
  return $ok
}

case "${1:-}" in
  start) cmd_start ;;
  stop)
    t0=$SECONDS
    cmd_stop
    log "stopped in $((SECONDS - t0))s"
    ;;
  status) cmd_status ;;
  *)
    echo "usage: $0 start|stop|status" >&2
    exit 2
    ;;
esac
