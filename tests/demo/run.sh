#!/usr/bin/env bash
# make demo: validates the local landscape, brings up the local control plane (unless one runs
# already), shows what landscapes will be deployed onto (a garden runtime cluster with Ready nodes, a virtual garden serving the
# Gardener API, Gardener custom resources that report ready) and stops what it started.
# KEEP=1 leaves a control plane it started running for exploration.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin="$root/bin"
dir="$root/.local"
export KUBECONFIG="$dir/kubeconfig"
kubectl() { "$bin/kubectl" "$@"; }
if [[ -t 1 && -z "${NO_COLOR:-}" ]]; then bold=$'\033[1m' plain=$'\033[0m'; else bold="" plain=""; fi
step() { printf '\n%s==> %s%s\n' "$bold" "$*" "$plain"; }

started=false
if "$bin/localcluster" up --dir "$dir" | tee /dev/stderr | grep -q "already running"; then
  echo "(using the control plane that is already running)"
else
  started=true
fi
cleanup() {
  if $started && [[ "${KEEP:-}" != 1 ]]; then
    step "Stopping the local control plane"
    "$bin/localcluster" down --dir "$dir"
  fi
}
trap cleanup EXIT

step "gardener version"
"$bin/gardener" version

step "Validate the local landscape (landscapes/local: a garden, a seed, two shoots)"
"$bin/gardener" validate "$root/landscapes/local"

step "The component graph: the order plan and apply walk"
"$bin/gardener" graph "$root/landscapes/local"

step "Plan the local landscape against the live clusters (one LIST per kind, local SSA diff)"
# Exit code 2 means "changes"; garden, seed and shoot blocks render with the catalog issues.
"$bin/gardener" plan "$root/landscapes/local" --detailed-exitcode --out "$dir/demo.plan" || [[ $? == 2 ]]

step "The saved plan as CI reads it (gardener show --json): its summary"
"$bin/gardener" show --json "$dir/demo.plan" | sed -n '/"summary"/,/}/p'

step "Apply the saved plan (state: Secrets and a Lease in kube-system of the runtime cluster)"
"$bin/gardener" apply "$dir/demo.plan"

step "Plan again: nothing to do"
"$bin/gardener" plan "$root/landscapes/local" 2>/dev/null | grep 'No changes' 
"$bin/gardener" state list "$root/landscapes/local"

step "Record what the plan read, and plan again offline from the recording"
"$bin/gardener" snapshot "$root/landscapes/local" --output "$dir/demo-snapshot.json" 2>/dev/null
"$bin/gardener" plan "$root/landscapes/local" --observed "$dir/demo-snapshot.json" 2>/dev/null | tail -n 4

step "Contexts: one per control plane"
kubectl config get-contexts

step "The garden runtime cluster has a Ready (kwok) node"
kubectl --context runtime get nodes

step "The virtual garden serves the Gardener API (the local stand-in for gardener-apiserver)"
kubectl --context virtual-garden get crds -l app.kubernetes.io/part-of=gardener-local-stand-in
kubectl --context virtual-garden apply -f - <<'YAML'
apiVersion: core.gardener.cloud/v1beta1
kind: Project
metadata:
  name: demo
spec:
  namespace: garden-demo
  description: created by make demo
YAML
kubectl --context virtual-garden get projects

step "A Deployment rolls out on the runtime cluster"
kubectl --context runtime create deployment demo --image=registry.invalid/demo:1 --replicas=2 \
  --dry-run=client -o yaml | kubectl --context runtime apply -f -
kubectl --context runtime rollout status deployment/demo --timeout=90s

step "An etcd-druid Etcd reports ready (kwok plays etcd-druid)"
kubectl --context runtime apply --server-side -f "$root/components/crds/druid.gardener.cloud_etcds.yaml"
kubectl --context runtime wait --for=condition=Established crd/etcds.druid.gardener.cloud --timeout=60s
kubectl --context runtime apply -f - <<'YAML'
apiVersion: druid.gardener.cloud/v1alpha1
kind: Etcd
metadata:
  name: virtual-garden-etcd-main
  namespace: default
spec:
  replicas: 3
  labels: {app: virtual-garden-etcd-main}
  selector: {matchLabels: {app: virtual-garden-etcd-main}}
  etcd: {}
  backup: {}
YAML
kubectl --context runtime wait --for=jsonpath='{.status.ready}'=true etcd/virtual-garden-etcd-main --timeout=90s
kubectl --context runtime get etcd virtual-garden-etcd-main \
  -o custom-columns=NAME:.metadata.name,READY:.status.ready,REPLICAS:.status.readyReplicas,GENERATION:.status.observedGeneration

step "Done"
echo "The garden, seed and shoot blocks of landscapes/local render with the component catalog issues."
