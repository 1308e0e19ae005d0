#!/usr/bin/env bash
# A throwaway Kubernetes control plane for tests: one etcd and three kube-apiservers (host, member1, member2)
# on 127.0.0.1, sharing the etcd under separate --etcd-prefix values. No controller-manager, scheduler or
# kubelet runs, so objects are stored, validated and defaulted, but nothing reconciles them.
#
#   bash scripts/k8s/env.sh start    # (re)start from a clean state, wait for /readyz, write env.json
#   bash scripts/k8s/env.sh status   # exit 0 only if every server is running and ready
#   bash scripts/k8s/env.sh stop     # stop what the pid files name; nothing else is touched
#
# State lives in ${KARMADA_LITE_ENV_DIR:-/tmp/karmada-lite-env}: <name>/kubeconfig, <name>/pki, pid files,
# logs, and env.json describing each server for the test harness. The host also has the aggregation layer:
# host/pki/front-proxy-{ca,client}.{crt,key} and a serving certificate for karmada-lite's aggregated
# apiserver, host/pki/aggregated-serving.{crt,key} (signed by host/pki/ca.crt).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=versions.sh
. "$here/versions.sh"

ENV_DIR="${KARMADA_LITE_ENV_DIR:-/tmp/karmada-lite-env}"
ETCD_BIN="${KARMADA_LITE_ETCD_BIN:-$ETCD_BIN}"
KUBE_APISERVER_BIN="${KARMADA_LITE_KUBE_APISERVER_BIN:-$KUBE_APISERVER_BIN}"
READY_TIMEOUT="${KARMADA_LITE_ENV_TIMEOUT:-180}"
STOP_GRACE="${KARMADA_LITE_ENV_STOP_GRACE:-15}"
SERVERS=(host member1 member2)

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
  # apiservers first: stopping etcd under them only produces a storm of reconnect errors
  local pids=() name
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

# The host's aggregation layer: a front-proxy CA of its own (as kubeadm makes it) and the client certificate
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

wait_ready() { # deadline
  local deadline=$1 pending=("${SERVERS[@]}") still name port
  while ((${#pending[@]})); do
    still=()
    for name in "${pending[@]}"; do
      port="$(cat "$ENV_DIR/$name/port")"
      if ! pid_if_ours "$ENV_DIR/$name/pid" kube-apiserver >/dev/null; then
        log "kube-apiserver $name exited during startup; last lines of $ENV_DIR/$name/apiserver.log:"
        tail -n 25 "$ENV_DIR/$name/apiserver.log" >&2 || true
        return 1
      fi
      if is_ready "$name" "$port"; then
        log "kube-apiserver $name ready at https://127.0.0.1:$port"
      else
        still+=("$name")
      fi
    done
    pending=("${still[@]}")
    ((${#pending[@]})) || break
    if ((SECONDS >= deadline)); then
      for name in "${pending[@]}"; do
        log "kube-apiserver $name not ready after ${READY_TIMEOUT}s; see $ENV_DIR/$name/apiserver.log; last lines:"
        tail -n 15 "$ENV_DIR/$name/apiserver.log" >&2 || true
      done
      return 1
    fi
    sleep 0.5
  done
}

# --- start ------------------------------------------------------------------------------------------------

cmd_start() {
  [[ -x "$ETCD_BIN" ]] || die "etcd not found at $ETCD_BIN; run: bash scripts/k8s/build.sh"
  [[ -x "$KUBE_APISERVER_BIN" ]] || die "kube-apiserver not found at $KUBE_APISERVER_BIN; run: bash scripts/k8s/build.sh"
  command -v openssl >/dev/null || die "openssl is required to generate certificates"
  command -v curl >/dev/null || die "curl is required to probe /readyz"

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
    [[ "$name" != host ]] || gen_front_proxy "$ENV_DIR/$name/pki"
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
    # The host has the aggregation layer (front-proxy client certificate, request-header CA and names).
    # An APIService reaches a server on loopback through an ExternalName Service (externalName localhost,
    # port = the server's port): the aggregator resolves ExternalName to that host and port, while
    # Endpoints refuse loopback addresses and a ClusterIP needs a kube-proxy nobody runs here.
    local aggregation=()
    if [[ "$name" == host ]]; then
      aggregation=(--requestheader-client-ca-file "$d/front-proxy-ca.crt" --requestheader-allowed-names front-proxy-client
        --requestheader-username-headers X-Remote-User --requestheader-group-headers X-Remote-Group
        --requestheader-extra-headers-prefix X-Remote-Extra- --proxy-client-cert-file "$d/front-proxy-client.crt"
        --proxy-client-key-file "$d/front-proxy-client.key")
    fi
    # ServiceAccount admission is off because no controller-manager creates the `default` service account,
    # which would make every Pod create fail. Priority-and-fairness is off because its config controllers
    # add load and nothing here needs request isolation.
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
      "${aggregation[@]}" \
      </dev/null >"$ENV_DIR/$name/apiserver.log" 2>&1 &
    echo $! >"$ENV_DIR/$name/pid"
  done

  if ! wait_ready "$deadline"; then
    log "startup failed; stopping what was started"
    cmd_stop
    exit 1
  fi
  write_env_json "$etcd_port"
  log "environment ready in $((SECONDS - t0))s; description in $ENV_DIR/env.json"
}

write_env_json() { # etcd-port
  local name port first=1
  # the etcd actually running, which differs from the pin when Debian's fallback or an override is used
  local etcd_version
  etcd_version="v$("$ETCD_BIN" --version 2>/dev/null | sed -n 's/^etcd Version: //p')"
  {
    printf '{\n  "kubernetesVersion": "%s",\n  "etcdVersion": "%s",\n  "dir": "%s",\n' "$K8S_VERSION" "$etcd_version" "$ENV_DIR"
    printf '  "etcd": { "url": "http://127.0.0.1:%s", "pidFile": "%s" },\n' "$1" "$ENV_DIR/etcd/pid"
    printf '  "clusters": [\n'
    for name in "${SERVERS[@]}"; do
      port="$(cat "$ENV_DIR/$name/port")"
      ((first)) || printf ',\n'
      first=0
      printf '    { "name": "%s", "server": "https://127.0.0.1:%s", "port": %s, "kubeconfig": "%s", "etcdPrefix": "/karmada-lite/%s", "pidFile": "%s", "log": "%s" }' \
        "$name" "$port" "$port" "$ENV_DIR/$name/kubeconfig" "$name" "$ENV_DIR/$name/pid" "$ENV_DIR/$name/apiserver.log"
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
