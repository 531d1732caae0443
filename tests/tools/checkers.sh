#!/usr/bin/env bash
# Builds the checkers into bin/ from their pinned modules: gosec (tests/tools/gosec, run by
# make lint) and govulncheck (tests/tools/govulncheck, run by make vuln). Arguments name the
# checkers to build; without any, both.
#
# As in build.sh, a checker is rebuilt only when its pins change: a stamp in bin/.stamps records
# the hash of its module's go.mod and go.sum and of this script. (A script of its own, so that
# adding a checker does not change build.sh's hash, which would rebuild the control plane.)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tools="$root/tests/tools"
bin="$root/bin"
stamps="$bin/.stamps"
mkdir -p "$stamps"

# package_of CHECKER: the command package the checker's module pins with a tool directive.
package_of() {
  case $1 in
    gosec) echo github.com/securego/gosec/v2/cmd/gosec ;;
    govulncheck) echo golang.org/x/vuln/cmd/govulncheck ;;
    *) echo "checkers: unknown checker $1 (gosec, govulncheck)" >&2; exit 2 ;;
  esac
}

# stamp_of CHECKER: the hash that decides whether the built checker is current.
stamp_of() {
  cat "$tools/$1/go.mod" "$tools/$1/go.sum" "${BASH_SOURCE[0]}" | sha256sum | cut -d' ' -f1
}

if [[ $# -eq 0 ]]; then set -- gosec govulncheck; fi
for name in "$@"; do
  pkg=$(package_of "$name")
  # -s: a build interrupted while copying left an empty file once, which ran as an empty script
  # and passed every check.
  if [[ -x "$bin/$name" && -s "$bin/$name" && -f "$stamps/$name" && "$(cat "$stamps/$name")" == "$(stamp_of "$name")" ]]; then
    continue
  fi
  started=$SECONDS
  echo "checkers: building $name ($(cd "$tools/$name" && go list -m -f '{{.Version}}' "${pkg%%/cmd/*}")) ..."
  # Built beside and renamed: a checker in bin/ is whole or absent.
  (cd "$tools/$name" && go build -trimpath -o "$bin/.$name.new" "$pkg")
  mv "$bin/.$name.new" "$bin/$name"
  stamp_of "$name" > "$stamps/$name"
  echo "checkers: built $name in $((SECONDS - started))s"
done
