package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/engine/plan"
)

// sensitiveLandscape is the update scenario with two more values that are secrets although no
// variable declares them so: one passed through sensitive(), one read from
// GARDENER_SENSITIVE_VAR_api_token; both land in the data of a ConfigMap, whose values plans
// show.
func sensitiveLandscape(t *testing.T) (dir, snapshot string) {
	t.Helper()
	after, snap := scenario("update")
	src, err := os.ReadFile(filepath.Join(after, "main.hcl"))
	require.NoError(t, err)
	extra := `
variable "api_token" {
  type = string
}

locals {
  webhook = sensitive("hunter2-webhook-url")
}
`
	main := strings.Replace(string(src), `level = "debug"`, `level = "debug"
        webhook = local.webhook
        api     = "Bearer ${var.api_token}"`, 1)
	require.NotEqual(t, string(src), main)
	dir = t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(main+extra), 0o644))
	return dir, snap
}

// sensitive() and GARDENER_SENSITIVE_VAR_ values never appear in a plan: not in its text, its
// JSON, a saved plan or the saved plan shown again; what is not sensitive still does.
func TestSensitiveValuesAreRedactedInPlans(t *testing.T) {
	t.Setenv("GARDENER_SENSITIVE_VAR_api_token", "t0k3n-from-a-secret")
	dir, snap := sensitiveLandscape(t)
	planFile := filepath.Join(t.TempDir(), "plan.bin")
	text, errOut, err := run(t, "plan", dir, "--observed", snap, "--out", planFile)
	require.NoError(t, err, errOut)
	asJSON, errOut, err := run(t, "plan", dir, "--observed", snap, "--json")
	require.NoError(t, err, errOut)
	shown, errOut, err := run(t, "show", planFile)
	require.NoError(t, err, errOut)
	f, err := plan.ReadFile(planFile)
	require.NoError(t, err)
	saved, err := json.Marshal(f)
	require.NoError(t, err)

	assert.Contains(t, text, `+ .data[level] = "debug"`, "values that are not sensitive are shown")
	assert.Equal(t, plan.Variable{Sensitive: true}, f.Variables["api_token"], "saved without its value, to be given again")
	assert.Contains(t, text, ".data[webhook] = (sensitive value)")
	assert.Contains(t, text, ".data[api] = (sensitive value)")
	for name, out := range map[string]string{"text": text, "json": asJSON, "shown": shown, "saved plan": string(saved), "stderr": errOut} {
		for _, secret := range []string{"hunter2-webhook-url", "t0k3n-from-a-secret"} {
			assert.False(t, strings.Contains(out, secret), "%s shows %s", name, secret)
		}
	}
}
