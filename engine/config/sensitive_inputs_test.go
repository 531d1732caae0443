package config

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
)

// A value from GARDENER_SENSITIVE_VAR_<name> (the daemon's variables from a Secret) is sensitive
// although its variable does not say so, wins over GARDENER_VAR_<name>, and is never shown in a
// diagnostic; GARDENER_VAR_ values stay as they were.
func TestSensitiveEnvironmentVariables(t *testing.T) {
	reg := testRegistry(t)
	body := `
variable "token" {}
variable "port" { type = number }
variable "zones" { type = list(string) }
variable "plain" {}
`
	res, diags := load(t, reg, body, InputSources{Environ: []string{
		"GARDENER_SENSITIVE_VAR_token=t0k3n", "GARDENER_VAR_token=overridden",
		"GARDENER_SENSITIVE_VAR_port=8443",
		`GARDENER_SENSITIVE_VAR_zones=["a","b"]`,
		"GARDENER_VAR_plain=visible",
	}})
	require.False(t, diags.HasErrors(), diags.Error())
	vars := res.Evaluated.Variables
	for name, want := range map[string]cty.Value{
		"token": cty.StringVal("t0k3n"),
		"port":  cty.NumberIntVal(8443),
		"zones": cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")}),
	} {
		assert.True(t, vars[name].HasMark(SensitiveMark), "%s is sensitive", name)
		got, _ := vars[name].Unmark()
		assert.True(t, want.RawEquals(got), "%s: %#v", name, got)
	}
	assert.False(t, vars["plain"].HasMark(SensitiveMark))
	assert.Equal(t, "visible", vars["plain"].AsString())

	// A value that does not convert, or fails a validation rule, is reported without itself.
	_, diags = load(t, reg, `
variable "port" { type = number }
variable "token" {
  validation {
    condition     = length(var.token) > 20
    error_message = "too short: ${var.token}"
  }
}
`, InputSources{Environ: []string{"GARDENER_SENSITIVE_VAR_port=n0t-a-numb3r", "GARDENER_SENSITIVE_VAR_token=sh0rt-s3cr3t"}})
	require.True(t, diags.HasErrors())
	assert.ElementsMatch(t, []string{"Invalid value for input variable", "Invalid value for variable"}, summaries(diags))
	for _, d := range diags {
		for _, secret := range []string{"n0t-a-numb3r", "sh0rt-s3cr3t"} {
			assert.NotContains(t, d.Summary+d.Detail, secret)
		}
		assert.True(t, strings.Contains(d.Detail, "GARDENER_SENSITIVE_VAR_port") || strings.Contains(d.Detail, "not shown"), d.Detail)
	}
}
