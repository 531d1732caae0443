// Command crdgen writes the generated CustomResourceDefinitions of components/crds (see
// internal/crdgen) and builds the controller-gen it runs into bin/. `make crds` runs it;
// `make tools` runs it with -tool-only.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/declarative-gardener/gardener/internal/atomicfile"
	"github.com/declarative-gardener/gardener/internal/crdgen"
)

func main() {
	root := flag.String("root", ".", "the repository root")
	out := flag.String("out", "components/crds", "the directory to write the CRDs to")
	bin := flag.String("bin", "bin", "the directory controller-gen is built into")
	toolOnly := flag.Bool("tool-only", false, "only build controller-gen")
	flag.Parse()
	if err := run(context.Background(), *root, *out, *bin, *toolOnly); err != nil {
		fmt.Fprintf(os.Stderr, "crdgen: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, root, out, bin string, toolOnly bool) error {
	source, err := crdgen.GardenerSource(root)
	if err != nil {
		return err
	}
	controllerGen, err := crdgen.EnsureControllerGen(ctx, source, bin)
	if err != nil {
		return err
	}
	if toolOnly {
		fmt.Printf("crdgen: %s is up to date\n", controllerGen)
		return nil
	}
	files, err := crdgen.Generate(ctx, crdgen.Options{GardenerSource: source, ControllerGen: controllerGen})
	if err != nil {
		return err
	}
	stale, err := staleFiles(out, files)
	if err != nil {
		return err
	}
	for _, name := range stale {
		if err := os.Remove(filepath.Join(out, name)); err != nil {
			return err
		}
		fmt.Printf("crdgen: removed %s\n", name)
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := atomicfile.Write(filepath.Join(out, name), files[name], 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("crdgen: wrote %d CRDs to %s\n", len(names), out)
	return nil
}

// staleFiles lists the generated files in dir that the sources no longer produce; hand-written
// files stay.
func staleFiles(dir string, files map[string][]byte) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var stale []string
	for _, e := range entries {
		if _, ok := files[e.Name()]; ok || filepath.Ext(e.Name()) != ".yaml" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		if bytes.HasPrefix(data, []byte(crdgen.GeneratedMarker)) {
			stale = append(stale, e.Name())
		}
	}
	return stale, nil
}
