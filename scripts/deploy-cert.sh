#!/usr/bin/env bash
# Gives the admission webhook a serving certificate and registers it with the API server:
#   1. a CA (kept in $OUT and reused on later runs, so the caBundle stays the same when the certificate is
#      renewed) and a serving certificate for the Service's DNS names;
#   2. the Secret karmada-lite-webhook-cert (deploy/webhook/secret.yaml) in $NAMESPACE;
#   3. deploy/webhook/validating.yaml and mutating.yaml with the CA bundle patched in, pointing at the Service
#      (or at $WEBHOOK_URL when set, for a webhook outside the cluster).
# Re-running renews the certificate; the webhook picks up the new files without a restart.
#
#   scripts/deploy-cert.sh                 # create or renew, and kubectl apply everything
#   scripts/deploy-cert.sh --print         # print the manifests instead of applying them
#
# Environment: NAMESPACE (karmada-system), SERVICE (karmada-lite-webhook), PORT (443, the Service port),
# OUT (${XDG_STATE_HOME:-~/.local/state}/karmada-lite/webhook-pki/<namespace>.<service>: outside the checkout,
# so the CA key is never one `git add -A` away from a commit; a folder inside the checkout is refused),
# DAYS (365), WEBHOOK_URL (unset: the Service), EXTRA_SANS (e.g. "IP:127.0.0.1,DNS:webhook.example.com"),
# KUBECTL (kubectl).
set -euo pipefail

NAMESPACE=${NAMESPACE:-karmada-system}
SERVICE=${SERVICE:-karmada-lite-webhook}
PORT=${PORT:-443}
OUT=${OUT:-${XDG_STATE_HOME:-$HOME/.local/state}/karmada-lite/webhook-pki/$NAMESPACE.$SERVICE}
DAYS=${DAYS:-365}
KUBECTL=${KUBECTL:-kubectl}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEPLOY="$HERE/deploy/webhook"

print=false
case "${1:-}" in
  --print) print=true ;;
  "") ;;
  -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "deploy-cert.sh: unknown argument $1 (use --print or nothing; see --help)" >&2; exit 2 ;;
esac
command -v openssl >/dev/null || { echo "deploy-cert.sh: openssl is needed to make the certificate" >&2; exit 2; }

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd -P)
case "$OUT/" in
  "$(cd "$HERE" && pwd -P)/"*)
    echo "deploy-cert.sh: OUT=$OUT is inside the checkout $HERE; a CA key there is easily committed. Choose a folder outside it (the default is \${XDG_STATE_HOME:-~/.local/state}/karmada-lite/webhook-pki/...)" >&2
    exit 2 ;;
esac
chmod 700 "$OUT"
# Quiet openssl unless it fails: its progress output would end up in --print's manifests otherwise.
ssl() { local log; log=$(openssl "$@" 2>&1) || { echo "$log" >&2; exit 1; }; }
if [[ ! -s "$OUT/ca.key" || ! -s "$OUT/ca.crt" ]]; then
  ssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 \
    -keyout "$OUT/ca.key" -out "$OUT/ca.crt" -subj /CN=karmada-lite-webhook-ca
fi
sans="DNS:$SERVICE.$NAMESPACE.svc,DNS:$SERVICE.$NAMESPACE.svc.cluster.local${EXTRA_SANS:+,$EXTRA_SANS}"
printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\n' "$sans" > "$OUT/san.ext"
ssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$OUT/tls.key" -out "$OUT/tls.csr" -subj "/CN=$SERVICE.$NAMESPACE.svc"
ssl x509 -req -in "$OUT/tls.csr" -CA "$OUT/ca.crt" -CAkey "$OUT/ca.key" -set_serial "$(date +%s)" \
  -days "$DAYS" -extfile "$OUT/san.ext" -out "$OUT/tls.crt"

b64() { base64 < "$1" | tr -d '\n'; }
TLS_CRT=$(b64 "$OUT/tls.crt")
TLS_KEY=$(b64 "$OUT/tls.key")
CA_CRT=$(b64 "$OUT/ca.crt")

render() {
  {
    sed -e "s|\${TLS_CRT}|$TLS_CRT|" -e "s|\${TLS_KEY}|$TLS_KEY|" -e "s|\${CA_CRT}|$CA_CRT|" \
      -e "s|namespace: karmada-system|namespace: $NAMESPACE|" "$DEPLOY/secret.yaml"
    for f in validating.yaml mutating.yaml; do
      echo '---'
      if [[ -n "${WEBHOOK_URL:-}" ]]; then
        sed -e "s|\${WEBHOOK_URL}|${WEBHOOK_URL%/}|" -e "s|\${CA_BUNDLE}|$CA_CRT|" "$DEPLOY/$f"
      else
        # In the cluster the API server reaches the webhook through its Service: url becomes a service reference.
        sed -e "s|^\( *\)url: \${WEBHOOK_URL}\(/[^ ]*\)\$|\1service: {namespace: $NAMESPACE, name: $SERVICE, port: $PORT, path: \"\2\"}|" \
          -e "s|\${CA_BUNDLE}|$CA_CRT|" "$DEPLOY/$f"
      fi
    done
  }
}

if $print; then
  render
else
  render | "$KUBECTL" apply -f -
  echo "deploy-cert.sh: Secret $NAMESPACE/karmada-lite-webhook-cert and the webhook configurations applied; CA in $OUT/ca.crt" >&2
fi
