#!/usr/bin/env bash
# The Helm chart (deploy/helm/labflow) checked without a cluster, as CI does (scripts/test.sh):
#   helm lint, with the default values and with the production example;
#   helm template with each, the rendered manifests validated by kubeconform -strict against the
#   Kubernetes schemas of LABFLOW_KUBERNETES_VERSION.
# Helm and kubeconform are built once with `go install` from the Go module proxy into
# $LABFLOW_CACHE_DIR/bin, beside the Temporal binaries; the schemas are made once from that
# Kubernetes version's OpenAPI document (k8s.io/kubernetes, also from the proxy) by
# scripts/kubernetes-schemas.mjs. The CRD kinds (ServiceMonitor) have no schema there and are
# only checked by helm lint.
#   bash scripts/helm-check.sh            checks, prints kubeconform's summary per values file
#   bash scripts/helm-check.sh --render   also prints the production example's manifests
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=scripts/temporal-server.sh
source "$LABFLOW_ROOT/scripts/temporal-server.sh"

LABFLOW_HELM_VERSION=v3.22.0
LABFLOW_KUBECONFORM_VERSION=v0.8.0
LABFLOW_KUBERNETES_VERSION=v1.31.4
CHART="$LABFLOW_ROOT/deploy/helm/labflow"
SCHEMAS="$LABFLOW_CACHE_DIR/kubernetes-schemas/$LABFLOW_KUBERNETES_VERSION"

go_install_as helm "helm.sh/helm/v3/cmd/helm@$LABFLOW_HELM_VERSION" ||
  fail "building helm failed (see $LABFLOW_CACHE_DIR/helm-build.log)" "GOBIN=/tmp go install helm.sh/helm/v3/cmd/helm@$LABFLOW_HELM_VERSION"
go_install_as kubeconform "github.com/yannh/kubeconform/cmd/kubeconform@$LABFLOW_KUBECONFORM_VERSION" ||
  fail "building kubeconform failed (see $LABFLOW_CACHE_DIR/kubeconform-build.log)" "GOBIN=/tmp go install github.com/yannh/kubeconform/cmd/kubeconform@$LABFLOW_KUBECONFORM_VERSION"
HELM="$LABFLOW_CACHE_DIR/bin/helm"
KUBECONFORM="$LABFLOW_CACHE_DIR/bin/kubeconform"

if [[ ! -f "$SCHEMAS/deployment-apps-v1.json" ]]; then
  module_dir=$(temporal_go mod download -json "k8s.io/kubernetes@$LABFLOW_KUBERNETES_VERSION" | node -e \
    'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>process.stdout.write(JSON.parse(s).Dir))') ||
    fail "could not fetch the Kubernetes $LABFLOW_KUBERNETES_VERSION OpenAPI document" "go mod download k8s.io/kubernetes@$LABFLOW_KUBERNETES_VERSION"
  tmp="$SCHEMAS.tmp.$$"
  node "$LABFLOW_ROOT/scripts/kubernetes-schemas.mjs" "$module_dir/api/openapi-spec/swagger.json" "$tmp"
  rm -rf "$SCHEMAS" && mv "$tmp" "$SCHEMAS"
fi

# Helm keeps its caches and config here, not in the user's home.
export HELM_CACHE_HOME="$LABFLOW_CACHE_DIR/helm/cache" HELM_CONFIG_HOME="$LABFLOW_CACHE_DIR/helm/config" HELM_DATA_HOME="$LABFLOW_CACHE_DIR/helm/data"

# The default values need the four settings a cluster must give (the chart fails without them).
DEFAULTS=(--set database.url=postgres://labflow@postgres:5432/labflow --set redis.url=redis://redis:6379/0
  --set temporal.address=temporal-frontend:7233 --set publicApiUrl=https://labflow.example.com)
PRODUCTION=(-f "$CHART/examples/production.yaml")

# Helm built by go install carries no version of Kubernetes to assume (it would say 1.20): name it.
KUBE=(--kube-version "${LABFLOW_KUBERNETES_VERSION#v}")

check() {
  local title=$1 manifests summary
  shift
  say "helm chart, $title: helm lint --strict"
  "$HELM" lint --strict "${KUBE[@]}" "$CHART" "$@" >/dev/null || { "$HELM" lint --strict "${KUBE[@]}" "$CHART" "$@"; fail "helm lint failed ($title)"; }
  say "helm chart, $title: helm template | kubeconform -strict (Kubernetes $LABFLOW_KUBERNETES_VERSION)"
  manifests=$("$HELM" template labflow "$CHART" --namespace labflow "${KUBE[@]}" "$@") || fail "helm template failed ($title)"
  summary=$("$KUBECONFORM" -strict -summary -skip ServiceMonitor \
    -schema-location "$SCHEMAS/{{ .ResourceKind }}{{ .KindSuffix }}.json" <<<"$manifests") || { printf '%s\n' "$summary" >&2; fail "kubeconform found invalid manifests ($title)"; }
  printf '%s\n' "$summary" >&2
  # A template that rendered nothing would pass kubeconform too.
  [[ "$summary" =~ Valid:\ ([0-9]+) ]] && ((BASH_REMATCH[1] >= 10)) || fail "kubeconform validated fewer manifests than the chart makes ($title)"
}

check "default values" "${DEFAULTS[@]}"
check "production example" "${PRODUCTION[@]}"
# Without the settings a cluster must give, the chart refuses to render, naming the first missing one.
if out=$("$HELM" template labflow "$CHART" "${KUBE[@]}" 2>&1); then fail "the chart rendered without database.url, redis.url, temporal.address and publicApiUrl"; fi
grep -q "database.url" <<<"$out" || fail "the chart's refusal did not name database.url: $out"
say "helm chart: refuses to render without its required values ($(grep -o 'database.url[^:]*' <<<"$out" | head -1))"

if [[ "${1:-}" == --render ]]; then "$HELM" template labflow "$CHART" --namespace labflow "${KUBE[@]}" "${PRODUCTION[@]}"; fi
