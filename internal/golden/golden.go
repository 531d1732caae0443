// Package golden compares rendered objects with golden YAML files under testdata/, the render
// tests of every component package. Run a package's tests with -update to rewrite its files.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/engine/render"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// YAML renders objects as one multi-document YAML stream: each document is preceded by a
// comment naming the object's cluster (and default namespace, if any), keys sorted, so the
// output is deterministic.
func YAML(objects []render.Object) ([]byte, error) {
	var b bytes.Buffer
	for i, o := range objects {
		if i > 0 {
			b.WriteString("---\n")
		}
		fmt.Fprintf(&b, "# cluster: %s", o.Cluster)
		if o.DefaultNamespace != "" {
			fmt.Fprintf(&b, ", default namespace: %s", o.DefaultNamespace)
		}
		b.WriteString("\n")
		data, err := yaml.Marshal(o.Object.Object)
		if err != nil {
			return nil, fmt.Errorf("object %d (%s %s): %w", i+1, o.Object.GetKind(), o.Object.GetName(), err)
		}
		b.Write(data)
	}
	return b.Bytes(), nil
}

// Assert compares objects with testdata/<name>.yaml, or rewrites the file with -update.
func Assert(t *testing.T, name string, objects []render.Object) {
	t.Helper()
	got, err := YAML(objects)
	require.NoError(t, err)
	AssertBytes(t, name+".yaml", got)
}

// AssertBytes compares data with testdata/<file>, or rewrites the file with -update.
func AssertBytes(t *testing.T, file string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", file)
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "golden file missing; run the test with -update to create it")
	assert.Equal(t, string(want), string(got), "rendered objects differ from %s; rerun with -update if the change is intended", path)
}
