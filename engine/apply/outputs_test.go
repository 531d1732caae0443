package apply

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/state"
	"github.com/declarative-gardener/gardener/tests/landscapetest"
)

// An apply records the landscape's outputs in the state, a sensitive one without its value, and
// an output added later is recorded by the next apply although no object changes.
func TestApplyRecordsOutputs(t *testing.T) {
	cfg, cs := ownershipCluster(t)
	const ns = "outputs-recorded"
	deleteNamespaceAtEnd(t, cs, ns)
	files := ownedLandscape(ns, ns, generatedCA(ns), configMapsOf("config", ns, "a"))
	files["outputs.hcl"] = `
variable "password" {
  default   = "pa55-outputs-recorded"
  sensitive = true
}

output "namespace" { value = "outputs-recorded" }
output "ca_secret" { value = component.generated_secret.ca.secret_name }
output "password" {
  value     = var.password
  sensitive = true
}
`
	dir := landscapetest.Dir(t, files)
	mustRun(t, cfg, dir, true, nil)
	st := storedState(t, dir)
	assert.Equal(t, map[string]*state.Output{
		"namespace": {Value: "outputs-recorded"},
		"ca_secret": {Value: "ca"},
		"password":  {Sensitive: true},
	}, st.Outputs)
	raw, err := os.ReadFile(filepath.Join(dir, state.DefaultLocalPath))
	require.NoError(t, err)
	assert.NotContains(t, string(raw), "pa55-outputs-recorded", "sensitive values never reach the state")

	landscapetest.Write(t, dir, map[string]string{"more.hcl": `output "configs" { value = ["a"] }`})
	pl := mustRun(t, cfg, dir, true, nil)
	assert.False(t, pl.HasChanges(), "no object changes")
	after := storedState(t, dir)
	assert.Equal(t, []any{"a"}, after.Outputs["configs"].Value)
	assert.Equal(t, st.Serial+1, after.Serial, "one write records the outputs")

	again := mustRun(t, cfg, dir, true, nil)
	assert.False(t, again.HasChanges())
	assert.Equal(t, after.Serial, storedState(t, dir).Serial, "outputs that did not change are not written again")
}
