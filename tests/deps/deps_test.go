// Package deps guards the dependency rules of the project: one k8s.io version line in the main
// module, and a local control plane whose Kubernetes staging modules match its Kubernetes pin and
// whose minor version matches the client libraries.
package deps

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type modFile struct {
	Require []struct {
		Path    string
		Version string
	}
	Replace []struct {
		Old struct{ Path string }
		New struct{ Path, Version string }
	}
}

// readModFile parses a go.mod through `go mod edit -json`, the go command's own parser.
func readModFile(t *testing.T, path string) modFile {
	t.Helper()
	// Reading the file in this process makes go test's result cache depend on it; the cache does
	// not see what the go subprocess reads.
	_, err := os.ReadFile(path)
	require.NoError(t, err)
	out, err := exec.Command("go", "mod", "edit", "-json", path).Output()
	require.NoError(t, err, path)
	var m modFile
	require.NoError(t, json.Unmarshal(out, &m))
	return m
}

// stagingVersion matches the versions of Kubernetes' published staging modules.
var stagingVersion = regexp.MustCompile(`^v0\.([0-9]+)\.([0-9]+)$`)

func TestMainModuleHasOneKubernetesLine(t *testing.T) {
	m := readModFile(t, filepath.Join("..", "..", "go.mod"))
	versions := map[string][]string{}
	for _, r := range m.Require {
		// k8s.io/utils, kube-openapi and klog are versioned on their own, not with Kubernetes.
		if strings.HasPrefix(r.Path, "k8s.io/") && stagingVersion.MatchString(r.Version) {
			versions[r.Version] = append(versions[r.Version], r.Path)
		}
	}
	require.NotEmpty(t, versions, "the main module depends on k8s.io modules")
	assert.Len(t, versions, 1, "every k8s.io staging module must share one version: %v", versions)
}

func TestLocalControlPlaneMatchesItsPinAndTheClients(t *testing.T) {
	tools := readModFile(t, filepath.Join("..", "tools", "kubernetes", "go.mod"))
	var kubernetes string
	for _, r := range tools.Require {
		if r.Path == "k8s.io/kubernetes" {
			kubernetes = r.Version
		}
	}
	require.NotEmpty(t, kubernetes, "tests/tools/kubernetes pins k8s.io/kubernetes")
	want := "v0." + strings.TrimPrefix(kubernetes, "v1.")
	require.NotEmpty(t, tools.Replace)
	for _, r := range tools.Replace {
		assert.Equal(t, r.Old.Path, r.New.Path, "staging modules are replaced by their published versions")
		assert.Equal(t, want, r.New.Version, r.Old.Path)
	}

	main := readModFile(t, filepath.Join("..", "..", "go.mod"))
	for _, r := range main.Require {
		if r.Path == "k8s.io/client-go" {
			clientMinor := stagingVersion.FindStringSubmatch(r.Version)
			serverMinor := stagingVersion.FindStringSubmatch(want)
			require.NotNil(t, clientMinor)
			assert.Equal(t, serverMinor[1], clientMinor[1], "client-go %s and the local control plane %s share a minor version", r.Version, kubernetes)
		}
	}
}
