package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// complete asks the command line for completions as the shell scripts of `gardener completion`
// do, and returns the candidates (without descriptions) and the directive line.
func complete(t *testing.T, args ...string) ([]string, string) {
	t.Helper()
	out, errOut, err := run(t, append([]string{"__complete"}, args...)...)
	require.NoError(t, err, errOut)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	var candidates []string
	for _, l := range lines[:len(lines)-1] {
		c, _, _ := strings.Cut(l, "\t")
		candidates = append(candidates, c)
	}
	return candidates, lines[len(lines)-1]
}

func TestDynamicCompletion(t *testing.T) {
	local := filepath.Join("..", "..", "landscapes", "local")
	const noFiles, dirsOnly = ":4", ":16"
	tests := []struct {
		name      string
		args      []string
		contains  []string
		exactly   []string
		directive string
	}{
		{name: "component types", args: []string{"components", ""}, contains: []string{"garden", "seed", "shoot", "manifests", "helm_release"}, directive: noFiles},
		{name: "component types by prefix", args: []string{"components", "helm"}, contains: []string{"helm_release"}, directive: noFiles},
		{name: "--target of plan", args: []string{"plan", local, "--target", ""}, contains: []string{"garden.local", "seed.local", "shoot.dev", "component.manifests.local_addons"}, directive: noFiles},
		{name: "--target names instances too", args: []string{"plan", filepath.Join("testdata", "graph", "components"), "--target", ""}, contains: []string{"component.helm_release.prometheus", "component.helm_release.prometheus[0]", "component.helm_release.prometheus[1]"}, directive: noFiles},
		{name: "--target in the working directory", args: []string{"render", "--target", ""}, exactly: []string{}, directive: noFiles},
		{name: "--allow-destroy of destroy", args: []string{"destroy", local, "--allow-destroy", ""}, contains: []string{"garden.local"}, directive: noFiles},
		{name: "--rotate", args: []string{"apply", "--rotate", ""}, exactly: []string{"ca", "server-cert", "client-cert", "rsa-key", "token", "password", "encryption-config", "vpn-tlsauth", "bootstrap-token"}, directive: noFiles},
		{name: "graph --format", args: []string{"graph", "--format", ""}, exactly: []string{"text", "dot", "mermaid", "json", "html"}, directive: noFiles},
		{name: "daemon --policy", args: []string{"daemon", "--policy", ""}, exactly: []string{"auto", "approve-destructive", "plan-only"}, directive: noFiles},
		{name: "--log-level", args: []string{"version", "--log-level", ""}, exactly: []string{"debug", "info", "warn", "error"}, directive: noFiles},
		{name: "DIR", args: []string{"plan", ""}, exactly: []string{}, directive: dirsOnly},
		{name: "kubeconfig TARGET", args: []string{"kubeconfig", local, ""}, exactly: []string{"garden", "garden.local", "shoot.dev", "shoot.ops", "shoot.qa"}, directive: noFiles},
		{name: "state show ADDRESS", args: []string{"state", "show", local, ""}, contains: []string{"garden.local", "component.manifests.local_addons"}, directive: noFiles},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "--target in the working directory" {
				t.Chdir(t.TempDir()) // no landscape here: nothing to offer, and no error
			}
			got, directive := complete(t, tt.args...)
			assert.Equal(t, tt.directive, directive)
			if tt.exactly != nil {
				assert.ElementsMatch(t, tt.exactly, got)
			}
			for _, want := range tt.contains {
				assert.Contains(t, got, want)
			}
		})
	}
}
