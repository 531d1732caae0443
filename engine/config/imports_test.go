package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/engine/object"
)

func TestImportBlocksAreChecked(t *testing.T) {
	for _, tc := range []struct {
		name, block string
		// summary is the expected error's; empty for none.
		summary string
		line    int
	}{
		{name: "a namespaced object", block: `import {
  to = component.thing.new
  id = "runtime/Secret/garden/ca"
}`},
		{name: "a cluster-scoped object of a group", block: `import {
  to = shoot.dev["a"]
  id = "runtime/ClusterRole.rbac.authorization.k8s.io/viewer"
}`},
		{name: "undeclared block", block: `import {
  to = component.thing.gone
  id = "runtime/Secret/garden/ca"
}`, summary: "Import into an undeclared block", line: 2},
		{name: "undeclared cluster", block: `import {
  to = component.thing.new
  id = "virtual/Secret/garden/ca"
}`, summary: "Import from an undeclared cluster", line: 3},
		{name: "an ID without a cluster", block: `import {
  to = component.thing.new
  id = "Secret/ca"
}`, summary: "Invalid import ID", line: 3},
		{name: "a kind in lower case", block: `import {
  to = component.thing.new
  id = "runtime/secret/garden/ca"
}`, summary: "Invalid import ID", line: 3},
		{name: "twice", block: `import {
  to = component.thing.new
  id = "runtime/Secret/garden/ca"
}
import {
  to = component.thing.new
  id = "runtime/Secret/garden/ca"
}`, summary: "Imported twice", line: 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeLandscape(t, map[string]string{"main.hcl": base + movedBlocks, "import.hcl": tc.block})
			res, diags := Load(dir, testRegistry(t), InputSources{})
			if tc.summary == "" {
				require.False(t, diags.HasErrors(), diags.Error())
				require.Len(t, res.Landscape.Imports, 1)
				imp := res.Landscape.Imports[0]
				cluster, ref, err := ParseImportID(imp.ID)
				require.NoError(t, err)
				assert.Equal(t, "runtime", cluster)
				assert.Equal(t, ref, imp.Ref)
				assert.Same(t, imp, res.Landscape.ImportOf("runtime", ref))
				return
			}
			require.True(t, diags.HasErrors())
			assert.Equal(t, tc.summary, diags[0].Summary, diags.Error())
			require.NotNil(t, diags[0].Subject)
			assert.Equal(t, tc.line, diags[0].Subject.Start.Line)
		})
	}
}

func TestParseImportID(t *testing.T) {
	for _, tc := range []struct {
		id, cluster string
		ref         object.Ref
	}{
		{"runtime/Secret/garden/ca", "runtime", object.Ref{Kind: "Secret", Namespace: "garden", Name: "ca"}},
		{"runtime/Deployment.apps/garden/etcd-druid", "runtime", object.Ref{Group: "apps", Kind: "Deployment", Namespace: "garden", Name: "etcd-druid"}},
		{"virtual/Shoot.core.gardener.cloud/garden-dev/a", "virtual", object.Ref{Group: "core.gardener.cloud", Kind: "Shoot", Namespace: "garden-dev", Name: "a"}},
		{"runtime/Namespace/garden", "runtime", object.Ref{Kind: "Namespace", Name: "garden"}},
	} {
		cluster, ref, err := ParseImportID(tc.id)
		require.NoError(t, err, tc.id)
		assert.Equal(t, tc.cluster, cluster, tc.id)
		assert.Equal(t, tc.ref, ref, tc.id)
	}
	for _, bad := range []string{"", "runtime", "runtime/Secret", "runtime//garden/ca", "runtime/Secret/a/b/c", "runtime/.apps/x"} {
		_, _, err := ParseImportID(bad)
		assert.Error(t, err, bad)
	}
}
