package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/declarative-gardener/gardener/state"
)

// outputLandscape declares the outputs outputState records; password is sensitive and comes
// from a sensitive variable, so that its value can be rendered without a cluster.
const outputLandscape = `landscape "land" {}
cluster "runtime" {}

variable "password" {
  default   = "s3cret"
  sensitive = true
}

output "namespace" { value = "apps" }
output "replicas" { value = 3 }
output "zones" { value = { a = "eu-1a" } }
output "address" { value = "later" }
output "password" {
  value     = var.password
  sensitive = true
}
`

// outputState is a state as an apply of outputLandscape recorded it, with the address not known
// at the time.
func outputState() *state.State {
	s := sampleState()
	s.Outputs = map[string]*state.Output{
		"namespace": {Value: "apps"},
		"replicas":  {Value: float64(3)},
		"zones":     {Value: map[string]any{"a": "eu-1a"}},
		"address":   {Unknown: true},
		"password":  {Sensitive: true},
	}
	return s
}

func TestOutput(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		out    string
		errOut string
	}{
		{
			name: "every output, sensitive ones hidden", args: []string{"."},
			out: "address = (known after apply)\n" +
				"namespace = \"apps\"\n" +
				"password = (sensitive value)\n" +
				"replicas = 3\n" +
				"zones = {\n  \"a\": \"eu-1a\"\n}\n",
		},
		{name: "one output", args: []string{".", "namespace"}, out: "\"apps\"\n"},
		{name: "NAME before DIR", args: []string{"namespace", "."}, out: "\"apps\"\n"},
		{name: "NAME alone, the landscape in the current directory", args: []string{"namespace"}, out: "\"apps\"\n"},
		{name: "raw string", args: []string{".", "namespace", "--raw"}, out: "apps"},
		{name: "raw number", args: []string{".", "replicas", "--raw"}, out: "3"},
		{name: "raw map", args: []string{".", "zones", "--raw"}, errOut: "Error: output \"zones\" is not a string, number or bool; print it with --json\n"},
		{name: "json value", args: []string{".", "zones", "--json"}, out: "{\n  \"a\": \"eu-1a\"\n}\n"},
		{name: "a sensitive output named alone stays hidden", args: []string{".", "password"}, out: "(sensitive value)\n"},
		{name: "a sensitive output named with --raw is shown", args: []string{".", "password", "--raw"}, out: "s3cret"},
		{name: "a sensitive output named with --json is shown", args: []string{"password", "--json"}, out: "\"s3cret\"\n"},
		{
			name: "every output as JSON, sensitive ones without their value", args: []string{".", "--json"},
			out: `{
  "format_version": "1.0",
  "outputs": {
    "address": {
      "unknown": true
    },
    "namespace": {
      "value": "apps"
    },
    "password": {
      "sensitive": true
    },
    "replicas": {
      "value": 3
    },
    "zones": {
      "value": {
        "a": "eu-1a"
      }
    }
  }
}
`,
		},
		{
			name: "show sensitive", args: []string{".", "--show-sensitive"},
			out: "address = (known after apply)\n" +
				"namespace = \"apps\"\n" +
				"password = \"s3cret\"\n" +
				"replicas = 3\n" +
				"zones = {\n  \"a\": \"eu-1a\"\n}\n",
		},
		{name: "unknown output", args: []string{".", "nope"}, errOut: "Error: the state records no output \"nope\"; it records address, namespace, password, replicas, zones\n"},
		{name: "an output not known at the last apply", args: []string{".", "address", "--raw"}, errOut: "Error: the value of output \"address\" was not known when the landscape was last applied\n"},
		{name: "raw needs a name", args: []string{".", "--raw"}, errOut: "Error: --raw prints one output: name it (gardener output DIR NAME --raw).\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stateDir(t, map[string]string{"main.hcl": outputLandscape}, state.DefaultLocalPath, outputState())
			out, errOut, err := runState(t, "", append([]string{"output"}, tt.args...)...)
			if tt.errOut != "" {
				assert.Equal(t, exitCode(1), err)
			} else {
				assert.NoError(t, err)
			}
			assert.Equal(t, tt.out, out)
			assert.Equal(t, tt.errOut, errOut)
		})
	}
}

// A landscape applied before its outputs were recorded has none to show.
func TestOutputWithoutRecordedOutputs(t *testing.T) {
	stateDir(t, map[string]string{"main.hcl": outputLandscape}, state.DefaultLocalPath, sampleState())
	out, errOut, err := runState(t, "", "output", ".")
	assert.NoError(t, err)
	assert.Empty(t, out)
	assert.Equal(t, "No outputs: the landscape has no output blocks, or was not applied since they were added (gardener apply records them).\n", errOut)

	_, errOut, err = runState(t, "", "output", ".", "namespace")
	assert.Equal(t, exitCode(1), err)
	assert.Equal(t, "Error: no output \"namespace\": the state records no outputs: the landscape has no output blocks, or was not applied since they were added (gardener apply records them)\n", errOut)
}
