#!/usr/bin/env bash
# Builds the local control plane (etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
# kubectl, kwok and kwok's stage configs) from the pinned tools modules into bin/.
#
# Each module is rebuilt only when its pins change: a stamp in bin/.stamps records the hash of the
# module's go.mod and go.sum and of this script; a matching stamp with all outputs present skips it.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tools="$root/tests/tools"
bin="$root/bin"
stamps="$bin/.stamps"
mkdir -p "$stamps"

# module_hash MODULE: the hash that decides whether MODULE's outputs are current.
module_hash() {
  cat "$tools/$1/go.mod" "$tools/$1/go.sum" "${BASH_SOURCE[0]}" | sha256sum | cut -d' ' -f1
}

# up_to_date MODULE OUTPUT...: true when the stamp matches and every output exists.
up_to_date() {
  local module=$1; shift
  [[ -f "$stamps/$module" && "$(cat "$stamps/$module")" == "$(module_hash "$module")" ]] || return 1
  local out
  for out in "$@"; do [[ -e "$bin/$out" ]] || return 1; done
}

# build MODULE NAME=PACKAGE...: builds each package of MODULE into bin/NAME.
build() {
  local module=$1; shift
  local names=() spec
  for spec in "$@"; do names+=("${spec%%=*}"); done
  if [[ $module == kwok ]]; then names+=(kwok-stages.yaml); fi
  if up_to_date "$module" "${names[@]}"; then
    echo "tools: $module is up to date (${names[*]})"
    return
  fi
  local started=$SECONDS
  echo "tools: building $module (${names[*]}) ..."
  for spec in "$@"; do
    (cd "$tools/$module" && go build -trimpath -o "$bin/${spec%%=*}" "${spec#*=}")
  done
  if [[ $module == kwok ]]; then kwok_stages; fi
  module_hash "$module" > "$stamps/$module"
  echo "tools: built $module in $((SECONDS - started))s"
}

# kwok_stages writes kwok's own node ("fast" and "heartbeat-with-lease") and pod ("fast") stages,
# taken from the pinned kwok module so that they always match the binary.
kwok_stages() {
  local src
  src=$(cd "$tools/kwok" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
  {
    echo "# kwok's node and pod stages, copied from sigs.k8s.io/kwok $(cd "$tools/kwok" && go list -m -f '{{.Version}}' sigs.k8s.io/kwok) by tests/tools/build.sh"
    local f
    for f in node/fast/node-initialize.yaml node/heartbeat-with-lease/node-heartbeat-with-lease.yaml \
             pod/fast/pod-ready.yaml pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
      echo "---"
      cat "$src/kustomize/stage/$f"
    done
  } > "$bin/kwok-stages.yaml"
}

build etcd etcd=go.etcd.io/etcd/server/v3
build kubernetes \
  kube-apiserver=k8s.io/kubernetes/cmd/kube-apiserver \
  kube-controller-manager=k8s.io/kubernetes/cmd/kube-controller-manager \
  kube-scheduler=k8s.io/kubernetes/cmd/kube-scheduler \
  kubectl=k8s.io/kubernetes/cmd/kubectl
build kwok kwok=sigs.k8s.io/kwok/cmd/kwok
