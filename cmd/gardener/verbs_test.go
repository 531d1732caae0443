package main

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// verbsLandscape is a landscape whose ConfigMap component is named name, with a moved block
// when moved is set, and outputs of which one is sensitive.
func verbsLandscape(name, moved string) string {
	return `landscape "verbs" {}

variable "kubeconfig" { type = string }
variable "token" {
  default   = "t0ken-of-verbs"
  sensitive = true
}

cluster "runtime" {
  kubeconfig = var.kubeconfig
  context    = "runtime"
}

component "manifests" "namespace" {
  cluster = cluster.runtime
  objects = [{ apiVersion = "v1", kind = "Namespace", metadata = { name = "verbs" } }]
}

component "manifests" "` + name + `" {
  cluster    = cluster.runtime
  namespace  = "verbs"
  objects    = [{ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "settings" }, data = { k = "v" } }]
  depends_on = [component.manifests.namespace]
}

output "namespace" { value = "verbs" }
output "token" {
  value     = var.token
  sensitive = true
}
` + moved
}

// The verbs on the command line against a real API server: apply records the outputs and
// output prints them (the sensitive one only when named with --raw); a block renamed with a moved
// block plans no deletion and apply keeps the object; state mv does the same without a plan.
func TestVerbsOnTheCommandLine(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a local control plane")
	}
	lc := localcluster.Start(t, localcluster.PlaneOptions{Name: localcluster.RuntimePlane})
	cs, err := kubernetes.NewForConfig(lc.Plane(localcluster.RuntimePlane).RESTConfig())
	require.NoError(t, err)
	kubeconfig := "kubeconfig=" + lc.Kubeconfig()
	run := func(args ...string) string {
		t.Helper()
		out, errOut, err := runState(t, "", append(args, "--var", kubeconfig)...)
		require.NoError(t, err, "gardener %s: %s", strings.Join(args, " "), errOut)
		return out
	}
	uid := func() string {
		cm, err := cs.CoreV1().ConfigMaps("verbs").Get(context.Background(), "settings", metav1.GetOptions{})
		require.NoError(t, err)
		return string(cm.UID)
	}
	stateDir(t, map[string]string{"main.hcl": verbsLandscape("config", "")}, "", nil)

	run("apply", "--auto-approve", ".")
	assert.Equal(t, "namespace = \"verbs\"\ntoken = (sensitive value)\n", run("output", "."))
	assert.Equal(t, "t0ken-of-verbs", run("output", "token", ".", "--raw"))
	before := uid()

	// Renamed with a moved block: nothing is deleted, nothing created.
	require.NoError(t, os.WriteFile("main.hcl", []byte(verbsLandscape("settings", `
moved {
  from = component.manifests.config
  to   = component.manifests.settings
}
`)), 0o644))
	var pl plan.Plan
	require.NoError(t, json.Unmarshal([]byte(run("plan", ".", "--json")), &pl))
	assert.Equal(t, []plan.Move{{From: "component.manifests.config", To: "component.manifests.settings"}}, pl.Moved)
	assert.Zero(t, pl.Summary.Destroy)
	assert.Zero(t, pl.Summary.Add)
	out := run("apply", "--auto-approve", ".")
	assert.Contains(t, out, "component.manifests.config has moved to component.manifests.settings")
	assert.Contains(t, out, "0 destroyed")
	assert.Equal(t, before, uid(), "the ConfigMap is the same object")

	// Renamed again, this time with state mv: the plan then only rewrites the annotation.
	require.NoError(t, os.WriteFile("main.hcl", []byte(verbsLandscape("final", "")), 0o644))
	assert.Regexp(t, `^Moved component.manifests.settings to component.manifests.final \(1 object\)\nMoved 1 record in the state \(serial \d+\); nothing in the clusters changed.\n$`,
		run("state", "mv", ".", "component.manifests.settings", "component.manifests.final"))
	require.NoError(t, json.Unmarshal([]byte(run("plan", ".", "--json")), &pl))
	assert.Zero(t, pl.Summary.Destroy)
	assert.Zero(t, pl.Summary.Add)
	require.Len(t, pl.Components, 2)
	final := pl.Components[1]
	assert.Equal(t, "component.manifests.final", final.Address)
	require.Len(t, final.Objects, 1)
	assert.Equal(t, plan.Reason{Kind: plan.ReasonMoved, Detail: "component.manifests.settings"}, final.Objects[0].Reason)
	run("apply", "--auto-approve", ".")
	assert.Equal(t, before, uid())
	assert.Equal(t, "component.manifests.final      1 object\ncomponent.manifests.namespace  1 object\n", run("state", "list", "."))
}
