// Package landscapetest helps integration tests plan and apply landscapes against the local
// control plane with the same wiring as the CLI.
package landscapetest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"

	"github.com/declarative-gardener/gardener/components/catalog"
	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/diag"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/planner"
)

// Options are planner options as the CLI builds them, with the renderers wired in.
func Options(dir string, connect planner.Connector) planner.Options {
	return planner.Options{
		Dir: dir, Schemas: catalog.Schemas(),
		Renderers: catalog.Renderers(),
		Inputs:    config.InputSources{},
		Connect:   connect,
		Differs:   planner.LocalDiffers(""),
		// As the command does: plans list the kinds the state records while rendering.
		Prefetch: true,
	}
}

// Connector connects every cluster block to one rest.Config, with options such as a
// request-counting transport; discovery is not cached on disk.
func Connector(cfg *rest.Config, opts cluster.Options) planner.Connector {
	return func(string, cluster.Access) (observe.Cluster, error) {
		opts.NoDiskCache = true
		return cluster.ConnectConfig(rest.CopyConfig(cfg), opts)
	}
}

// Plan plans and fails the test on diagnostics or errors.
func Plan(t testing.TB, opts planner.Options) *planner.Outcome {
	t.Helper()
	out, diags, err := planner.Plan(context.Background(), opts)
	RequireNoDiags(t, diags, out)
	require.NoError(t, err)
	return out
}

// RequireNoDiags fails the test with the diagnostics' text when there are errors.
func RequireNoDiags(t testing.TB, diags hcl.Diagnostics, out *planner.Outcome) {
	t.Helper()
	if !diags.HasErrors() {
		return
	}
	var files map[string]*hcl.File
	if out != nil && out.Load != nil {
		files = out.Load.Files
	}
	var b strings.Builder
	_ = diag.WriteText(&b, diags, files, diag.TextOptions{})
	t.Fatalf("landscape has errors:\n%s", b.String())
}

// Dir writes a landscape's files into a new directory.
func Dir(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	Write(t, dir, files)
	return dir
}

// Write replaces a landscape's files (nil content removes a file).
func Write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if content == "" {
			_ = os.Remove(path)
			continue
		}
		// Written aside and renamed into place: a daemon watching dir never reads a file half
		// written (an empty main.hcl is a landscape without a landscape block).
		tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
		require.NoError(t, os.WriteFile(tmp, []byte(content), 0o644))
		require.NoError(t, os.Rename(tmp, path))
	}
}
