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
# gardener-controller-manager and gardener-scheduler run beside the engine (localcluster's default):
# they create the project's namespace and the seed's ControllerInstallations, whose extensions the
# engine deploys.
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

step "Validate the local landscape (landscapes/local: a garden, a seed, three shoots)"
"$bin/gardener" validate "$root/landscapes/local"

step "The component graph: the order plan and apply walk"
"$bin/gardener" graph "$root/landscapes/local"

step "Plan the local landscape against the live clusters (one LIST per kind, local SSA diff)"
# Exit code 2 means "changes"; the garden, the seed and the shoots render to their parts.
# The full plan lists every object (several thousand lines); the demo shows its first and last lines.
"$bin/gardener" plan "$root/landscapes/local" --detailed-exitcode --out "$dir/demo.plan" >"$dir/demo-plan.txt" || [[ $? == 2 ]]
head -n 12 "$dir/demo-plan.txt"; echo "    ..."; tail -n 8 "$dir/demo-plan.txt"

step "The saved plan as CI reads it (gardener show --json): its summary"
"$bin/gardener" show --json "$dir/demo.plan" | sed -n '/"summary"/,/}/p'

step "Apply the saved plan (state: Secrets and a Lease in kube-system of the runtime cluster)"
"$bin/gardener" apply "$dir/demo.plan"

step "Plan again: nothing to do"
"$bin/gardener" plan "$root/landscapes/local" 2>/dev/null | grep 'No changes' 
"$bin/gardener" state list "$root/landscapes/local"

step "Drift: someone scales the dev shoot's kube-controller-manager down by hand"
kubectl --context runtime -n shoot--local--dev scale deployment kube-controller-manager --replicas=0
"$bin/gardener" plan "$root/landscapes/local" --detailed-exitcode 2>/dev/null | grep -A3 -E '^(# shoot.dev.kube_controller_manager|Plan:)' || [[ $? == 2 ]]

step "Repair it: a plain apply takes the field back from the hand edit (drift by kubectl) and waits until it is ready"
"$bin/gardener" apply "$root/landscapes/local" --auto-approve 2>&1 | tail -n 3
kubectl --context runtime -n shoot--local--dev get deployment kube-controller-manager
"$bin/gardener" plan "$root/landscapes/local" 2>/dev/null | grep 'No changes'

step "Record what the plan read, and plan again offline from the recording"
"$bin/gardener" snapshot "$root/landscapes/local" --output "$dir/demo-snapshot.json" 2>/dev/null
"$bin/gardener" plan "$root/landscapes/local" --observed "$dir/demo-snapshot.json" 2>/dev/null | tail -n 4

step "Contexts: one per control plane"
kubectl config get-contexts

step "The garden runtime cluster has a Ready (kwok) node"
kubectl --context runtime get nodes

step "The garden on the runtime cluster: every Deployment available, the virtual garden's etcds ready (kwok plays etcd-druid)"
kubectl --context runtime -n garden get deployments,etcds
kubectl --context runtime get priorityclasses -l declarative-gardener.io/landscape=local

step "The shoots' control planes in the seed: one namespace each, etcds and Deployments (dev is highly available, ops is workerless)"
kubectl --context runtime get namespaces -l gardener.cloud/role=shoot -L high-availability-config.resources.gardener.cloud/failure-tolerance-type
kubectl --context runtime -n shoot--local--dev get etcds,deployments
kubectl --context runtime -n shoot--local--ops get etcds,deployments

step "The virtual garden: the real Gardener API (gardener-apiserver, aggregated), the landscape's project and the control plane's RBAC"
kubectl --context virtual-garden get apiservices v1beta1.core.gardener.cloud v1alpha1.security.gardener.cloud v1alpha1.seedmanagement.gardener.cloud
kubectl --context virtual-garden get projects,cloudprofiles,seeds
kubectl --context virtual-garden -n garden-local get shoots
kubectl --context virtual-garden get clusterroles -l declarative-gardener.io/landscape=local

step "Done"
echo "landscapes/local is applied and ready: the garden, the seed and three shoots."
echo "Look around with: export KUBECONFIG=$KUBECONFIG; kubectl --context runtime get ns; kubectl --context virtual-garden -n garden-local get shoots"
echo "Hibernate qa: gardener apply landscapes/local --var hibernate_qa=true (KEEP=1 make demo keeps the control plane running)."
echo "The engine is the seed's gardenlet only while it runs: an apply reports the Seed's and Shoots' status and renews"
echo "the seed's heartbeat Lease once. Between applies the daemon keeps them current (gardener daemon --landscape landscapes/local,"
echo "docs/daemon.md); without it gardener-controller-manager marks the seed Unknown after its monitor period and the"
echo "scheduler stops picking it."
