#!/usr/bin/env bash
# Pins the local control plane to another Kubernetes release:
#   tests/tools/bump-kubernetes.sh v1.37.1
# k8s.io/kubernetes replaces every k8s.io/<staging> module with a local directory, which a module
# that depends on it cannot use; this script rewrites the replace block so that each staging module
# points at its published v0.<minor>.<patch> instead, then updates the tool requirements.
set -euo pipefail

version=${1:?usage: $0 vX.Y.Z}
[[ $version =~ ^v1\.([0-9]+)\.([0-9]+)$ ]] || { echo "expected a release like v1.37.1, got $version" >&2; exit 1; }
staging="v0.${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"
module_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/kubernetes" && pwd)
cd "$module_dir"

# The module proxy does not serve every release's zip (v1.37.2 was refused); fail early and clearly.
gomod=$(go mod download -json "k8s.io/kubernetes@$version" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
[[ -n $gomod ]] || { echo "k8s.io/kubernetes@$version is not available from the module proxy" >&2; exit 1; }

{
  echo "// Module kubernetes pins the Kubernetes control plane binaries the local control plane runs."
  echo "module github.com/declarative-gardener/gardener/tests/tools/kubernetes"
  echo
  echo "go $(sed -n 's/^go //p' "$gomod")"
  echo
  echo "replace ("
  sed -n '/^replace (/,/^)/p' "$gomod" | sed -nE "s#^\s*(k8s\.io/[a-z0-9-]+) => \./staging/.*#\t\1 => \1 $staging#p"
  echo ")"
} > go.mod
rm -f go.sum
go get -tool \
  "k8s.io/kubernetes/cmd/kube-apiserver@$version" \
  "k8s.io/kubernetes/cmd/kube-controller-manager@$version" \
  "k8s.io/kubernetes/cmd/kube-scheduler@$version" \
  "k8s.io/kubernetes/cmd/kubectl@$version"
go mod tidy
echo "pinned Kubernetes $version (staging modules $staging); run 'make tools' to build it"
