package gardenlet

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/tests/upgradetest"
)

// TestUpgradeFromTheEarlierRendering checks what a plan does to a gardenlet applied with the
// rendering before issue 27 (testdata/before-issue-27/default.yaml): the decisions of
// docs/fidelity/gardenlet.md ("Upgrading a landscape applied with the earlier rendering").
func TestUpgradeFromTheEarlierRendering(t *testing.T) {
	out, err := Type.RenderConfig(render.Input{Name: "gardenlet", Config: rendertest.Config(defaults, nil)})
	require.NoError(t, err)
	// The Deployment keeps its selector and changes in place; the leader-election Role gives way to
	// the chart's ClusterRole, the ConfigMap to its content-addressed successor, and the bootstrap
	// Secret is renamed.
	assert.Equal(t, map[string]string{
		"ConfigMap/gardenlet-configmap":                               "superseded",
		"Role/gardener.cloud:system:gardenlet:leader-election":        "delete",
		"RoleBinding/gardener.cloud:system:gardenlet:leader-election": "delete",
		"Secret/gardenlet-bootstrap-kubeconfig":                       "delete",
	}, upgradetest.Actions(t, "testdata/before-issue-27/default.yaml", out.Objects))
}
