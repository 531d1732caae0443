// Package layers holds the import rules that keep gardener's layers apart, checked with
// `go list` over the module's packages (their non-test imports, followed transitively):
//
//   - bin/gardener compiles no test code and no other command: cmd/gardener and what it imports
//     reach no package under tests/ or cmd/ but cmd/gardener itself.
//   - The library trees (engine/, components/, schemas/, state/, internal/) import nothing under
//     tests/ or cmd/ and hold no main package: programs that need a local control plane, such as
//     the generator of the embedded OpenAPI documents (tests/openapigen), live under tests/.
//   - The engine imports no component and no component schema: cmd/gardener wires the catalog
//     (components/ and schemas/) into the engine.
//   - Components and schemas import only the engine packages below the render contract: the
//     render contract (engine/render), the landscape language their schemas and rules are written
//     in (engine/schema, engine/diag, engine/address), the object model (engine/object,
//     engine/kinds, engine/inventory), and how the files a landscape names are read
//     (engine/landscapefs: only regular files, confined to the landscape directory in confined
//     mode). The loader (engine/config) is above it: what a component needs of the language,
//     such as the environment prefix of input variables, is declared in engine/schema.
//     Planning, diffing, observing, applying, readiness, cluster access, generated secrets and
//     the daemon are above it: a render function is pure and hands its objects to the engine.
//   - state keeps states for the engine and reads no landscape: it imports only the object model
//     (engine/object), the inventory (engine/inventory), the atomic file writer
//     (internal/atomicfile) and the terminal escaping of lock holders (internal/termsafe). The
//     state block of a landscape is read by engine/planner.
//   - The per-kind rules (engine/kinds) and the object model (engine/object) are leaves that
//     every package may read: kinds imports only engine/object, and engine/object nothing of the
//     module.
package layers

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/declarative-gardener/gardener"

// pkg is a package of the module as `go list` describes it, with the module prefix cut from its
// path and its imports (only the module's own).
type pkg struct {
	path    string
	main    bool
	imports []string
}

// modulePackages lists every package of the module, with their non-test imports.
func modulePackages(t *testing.T) map[string]pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Name,Imports", "./...")
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath string
			Name       string
			Imports    []string
		}
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		own := pkg{path: local(p.ImportPath), main: p.Name == "main"}
		for _, imp := range p.Imports {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				own.imports = append(own.imports, local(imp))
			}
		}
		pkgs[own.path] = own
	}
	require.NotEmpty(t, pkgs)
	return pkgs
}

// local cuts the module path from an import path: "engine/plan"; the module's root package is ".".
func local(importPath string) string {
	if importPath == module {
		return "."
	}
	return strings.TrimPrefix(importPath, module+"/")
}

// under reports whether a package path is one of the trees (or packages) named.
func under(path string, trees ...string) bool {
	for _, tree := range trees {
		if path == tree || strings.HasPrefix(path, tree+"/") {
			return true
		}
	}
	return false
}

// chain is the import chain from a package to one of its dependencies: "a -> b -> c".
type chain []string

func (c chain) String() string { return strings.Join(c, " -> ") }

// deps returns every module package that from imports, directly or not, with the shortest
// import chain to each.
func deps(pkgs map[string]pkg, from string) map[string]chain {
	out := map[string]chain{}
	queue := []chain{{from}}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		imports := slices.Clone(pkgs[c[len(c)-1]].imports)
		slices.Sort(imports)
		for _, imp := range imports {
			if _, seen := out[imp]; seen || imp == from {
				continue
			}
			next := append(slices.Clone(c), imp)
			out[imp] = next
			queue = append(queue, next)
		}
	}
	return out
}

func TestLayers(t *testing.T) {
	pkgs := modulePackages(t)
	library := []string{"engine", "components", "schemas", "state", "internal"}
	// The engine packages components and schemas may reach (see the package comment).
	belowRenderContract := []string{
		"engine/render",
		"engine/schema", "engine/diag", "engine/address",
		"engine/object", "engine/kinds", "engine/inventory",
		"engine/landscapefs",
	}
	rules := []struct {
		name string
		// from selects the packages the rule is about.
		from func(path string) bool
		// allowed says whether they may depend on a module package, directly or not.
		allowed func(dep string) bool
	}{
		{
			name:    "bin/gardener compiles no tests and no other command",
			from:    func(p string) bool { return p == "cmd/gardener" },
			allowed: func(d string) bool { return !under(d, "tests", "cmd") },
		},
		{
			name:    "the library imports no tests and no command",
			from:    func(p string) bool { return under(p, library...) },
			allowed: func(d string) bool { return !under(d, "tests", "cmd") },
		},
		{
			name:    "the engine imports no component and no component schema",
			from:    func(p string) bool { return under(p, "engine") },
			allowed: func(d string) bool { return !under(d, "components", "schemas") },
		},
		{
			name:    "components and schemas import only the engine below the render contract",
			from:    func(p string) bool { return under(p, "components", "schemas") },
			allowed: func(d string) bool { return !under(d, "engine") || slices.Contains(belowRenderContract, d) },
		},
		{
			name: "state imports only the object model and the inventory",
			from: func(p string) bool { return under(p, "state") },
			allowed: func(d string) bool {
				return under(d, "state", "engine/object", "engine/inventory", "internal/atomicfile", "internal/termsafe", "internal/formatversion")
			},
		},
		{
			name:    "the per-kind rules import only the object model",
			from:    func(p string) bool { return p == "engine/kinds" },
			allowed: func(d string) bool { return d == "engine/object" },
		},
		{
			name:    "how landscape files are read imports nothing of the module",
			from:    func(p string) bool { return p == "engine/landscapefs" },
			allowed: func(string) bool { return false },
		},
		{
			name:    "the object model imports nothing of the module",
			from:    func(p string) bool { return p == "engine/object" },
			allowed: func(string) bool { return false },
		},
	}
	paths := make([]string, 0, len(pkgs))
	for p := range pkgs {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			checked := 0
			for _, p := range paths {
				if !r.from(p) {
					continue
				}
				checked++
				reached := deps(pkgs, p)
				names := make([]string, 0, len(reached))
				for d := range reached {
					names = append(names, d)
				}
				slices.Sort(names)
				for _, d := range names {
					assert.True(t, r.allowed(d), "%s", reached[d])
				}
			}
			assert.NotZero(t, checked, "the rule selects no package")
		})
	}
}

// TestNoProgramsInTheLibrary: commands live under cmd/ (the binary) or tests/ (the local control
// plane, benchmarks and the generators that need a control plane), never in the library trees.
func TestNoProgramsInTheLibrary(t *testing.T) {
	var programs []string
	for p, info := range modulePackages(t) {
		if info.main && !under(p, "cmd", "tests") {
			programs = append(programs, p)
		}
	}
	slices.Sort(programs)
	assert.Empty(t, programs, "main packages outside cmd/ and tests/")
}

// TestArchitectureNamesEveryEnginePackage keeps docs/architecture.md a map a newcomer can trust:
// every package of the engine appears there, written as `engine/<path>`, so that a package added
// without saying what it does fails here.
func TestArchitectureNamesEveryEnginePackage(t *testing.T) {
	doc, err := os.ReadFile("../../docs/architecture.md")
	require.NoError(t, err)
	for path := range modulePackages(t) {
		if under(path, "engine") {
			assert.Contains(t, string(doc), "`"+path+"`", "docs/architecture.md does not name %s", path)
		}
	}
}
