#!/usr/bin/env bash
# Builds the local control plane (etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
# kubectl, kwok and kwok's stage configs) from the pinned tools modules, and Gardener's own control
# plane (gardener-apiserver, gardener-admission-controller, gardener-controller-manager,
# gardener-scheduler) at the release in tests/tools/gardener/VERSION, into bin/.
#
# Each module is rebuilt only when its pins change: a stamp in bin/.stamps records the hash of the
# module's go.mod and go.sum (Gardener: its VERSION) and of this script; a matching stamp with all
# outputs present skips it.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tools="$root/tests/tools"
bin="$root/bin"
stamps="$bin/.stamps"
mkdir -p "$stamps"

# module_hash MODULE: the hash that decides whether MODULE's outputs are current: its pins (a Go
# module's go.mod and go.sum; Gardener's VERSION) and this script.
module_hash() {
  local pins=("$tools/$1/go.mod" "$tools/$1/go.sum")
  if [[ $1 == gardener ]]; then pins=("$tools/gardener/VERSION"); fi
  cat "${pins[@]}" "${BASH_SOURCE[0]}" | sha256sum | cut -d' ' -f1
}

# up_to_date MODULE OUTPUT...: true when the stamp matches and every output exists.
up_to_date() {
  local module=$1; shift
  [[ -f "$stamps/$module" && "$(cat "$stamps/$module")" == "$(module_hash "$module")" ]] || return 1
  local out
  for out in "$@"; do [[ -e "$bin/$out" ]] || return 1; done
}

# version_ldflags PACKAGE_PREFIX VERSION: the -X flags that make a binary report VERSION instead of
# v0.0.0-master (component-base for servers and client-go for clients, as Kubernetes' own
# hack/lib/version.sh sets them). gardener-controller-manager refuses a garden whose
# kube-apiserver reports no version, kubectl version cannot parse one, and Helm takes its
# capabilities from it.
version_ldflags() {
  local version=$1 major minor
  [[ $version =~ ^v([0-9]+)\.([0-9]+)\. ]] || { echo "tools: not a release version: $version" >&2; exit 1; }
  major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]}
  local pkg flags=()
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=("-X $pkg.gitVersion=$version" "-X $pkg.gitMajor=$major" "-X $pkg.gitMinor=$minor"
            "-X $pkg.gitTreeState=clean" "-X $pkg.buildDate=1970-01-01T00:00:00Z")
  done
  echo "${flags[*]}"
}

# pinned_version MODULE PATH: the version MODULE's go.mod requires of PATH.
pinned_version() {
  sed -nE "s#^\s*$2 (v[^ ]+).*#\1#p" "$tools/$1/go.mod" | head -n1
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
  local ldflags=""
  if [[ $module == kubernetes ]]; then ldflags=$(version_ldflags "$(pinned_version kubernetes k8s.io/kubernetes)"); fi
  for spec in "$@"; do
    (cd "$tools/$module" && go build -trimpath -ldflags "$ldflags" -o "$bin/${spec%%=*}" "${spec#*=}")
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

# build_gardener: Gardener's control plane at tests/tools/gardener/VERSION. The module proxy does not
# serve github.com/gardener/gardener in this workplace, so a source copy of that release beside the
# project (../shared/gardener-<version>, or $GARDENER_SOURCE) is built when there is one; anywhere
# else `go install` fetches the release (its go.mod has no replace directives).
build_gardener() {
  local version names=(gardener-apiserver gardener-admission-controller gardener-controller-manager gardener-scheduler)
  version=$(tr -d '[:space:]' < "$tools/gardener/VERSION")
  if up_to_date gardener "${names[@]}"; then
    echo "tools: gardener $version is up to date (${names[*]})"
    return
  fi
  local started=$SECONDS ldflags source=${GARDENER_SOURCE:-$root/../shared/gardener-$version}
  ldflags=$(version_ldflags "$version")
  local name
  if [[ -f "$source/go.mod" ]] && [[ "$(tr -d '[:space:]' < "$source/VERSION" 2>/dev/null)" == "$version" ]]; then
    echo "tools: building gardener $version from $source (${names[*]}) ..."
    for name in "${names[@]}"; do
      (cd "$source" && go build -trimpath -ldflags "$ldflags" -o "$bin/$name" "./cmd/$name")
    done
  else
    echo "tools: installing gardener $version with go install (${names[*]}) ..."
    local pkgs=()
    for name in "${names[@]}"; do pkgs+=("github.com/gardener/gardener/cmd/$name@$version"); done
    GOBIN="$bin" go install -trimpath -ldflags "$ldflags" "${pkgs[@]}"
  fi
  module_hash gardener > "$stamps/gardener"
  echo "tools: built gardener $version in $((SECONDS - started))s"
}
build_gardener
