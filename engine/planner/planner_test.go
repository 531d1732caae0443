package planner

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/catalog"
	"github.com/declarative-gardener/gardener/components/manifests"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/rendering"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// localWith copies landscapes/local (whose shoots' outputs are known only after apply) and adds
// a file.
func localWith(t *testing.T, name, content string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "landscapes", "local")))) // with its charts
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	return dir
}

func TestObjectsWhoseIdentityIsUnknownAreRenderedDuringApply(t *testing.T) {
	dir := localWith(t, "later.hcl", `
component "manifests" "named_later" {
  cluster   = cluster.runtime
  namespace = "default"
  objects   = [{ apiVersion = "v1", kind = "ConfigMap", metadata = { name = shoot.dev.technical_id } }]
}

component "manifests" "file_later" {
  cluster = cluster.runtime
  files   = ["${shoot.dev.technical_id}.yaml"]
}
`)
	out, diags := Prepare(Options{Dir: dir, Schemas: catalog.Schemas(), Renderers: render.Registry{"manifests": manifests.Type.RenderConfig}})
	require.False(t, diags.HasErrors(), diags.Error())
	assert.Equal(t, []string{"the identity of object 1"}, out.Rendered[config.InstanceAddress("component.manifests.named_later")].Deferred)
	assert.Equal(t, []string{"the path of files[0] depends on values known only after apply"}, out.Rendered[config.InstanceAddress("component.manifests.file_later")].Deferred)
	addons := out.Rendered[config.InstanceAddress("component.manifests.local_addons")]
	assert.Empty(t, addons.Deferred, "an unknown value inside an object only makes that field unknown")
	assert.Len(t, addons.Objects, 2)
	assert.True(t, out.Rendered[config.InstanceAddress("garden.local")].NoRenderer)
}

func TestDestroyTargetIncludesDependents(t *testing.T) {
	dir := localWith(t, "extra.hcl", `
component "manifests" "after_shoots" {
  cluster    = cluster.runtime
  depends_on = [shoot.dev]
  objects    = [{ apiVersion = "v1", kind = "Namespace", metadata = { name = "after" } }]
}
`)
	for _, tt := range []struct {
		destroy bool
		want    []config.InstanceAddress
	}{
		{false, []config.InstanceAddress{"garden.local", "component.cloud_profile.local", "component.manifests.dns_credentials", "seed.local", "component.project.local", "component.manifests.local_credentials", "component.credentials_binding.local", "shoot.dev"}},
		{true, []config.InstanceAddress{"shoot.dev", "component.manifests.after_shoots"}},
	} {
		out, diags := Prepare(Options{Dir: dir, Schemas: catalog.Schemas(), Renderers: render.Registry{"manifests": manifests.Type.RenderConfig},
			Targets: []string{"shoot.dev"}, Destroy: tt.destroy})
		require.False(t, diags.HasErrors(), diags.Error())
		assert.Equal(t, tt.want, out.Graph.Order(), "destroy %v", tt.destroy)
	}
}

// The derived conditions of every instance, one line each, by instance address.
func TestOutcomeConditions(t *testing.T) {
	out := &Outcome{Rendered: map[config.InstanceAddress]*rendering.Rendered{
		"seed.b":                {Conditions: []render.Condition{{Type: "ExtensionsReady", Status: "True", Reason: "AllExtensionsReady", Message: "fine."}}},
		"seed.a":                {Conditions: []render.Condition{{Type: "BackupBucketsReady", Status: "False"}, {Type: "ExtensionsReady", Status: "Unknown"}}},
		"component.manifests.x": {},
	}}
	assert.Equal(t, []string{
		"seed.a: BackupBucketsReady False", "seed.a: ExtensionsReady Unknown", "seed.b: ExtensionsReady True (AllExtensionsReady): fine.",
	}, out.Conditions())
}

// A plan runs the landscape rules of its schema registry, after rendering, at the plan's time.
func TestPlanRunsLandscapeRules(t *testing.T) {
	dir := localWith(t, "extra.hcl", "")
	reg := catalog.Schemas()
	var now time.Time
	require.NoError(t, reg.AddLandscapeRules(schema.LandscapeRule{Name: "test", Func: func(v *schema.LandscapeView) []schema.Finding {
		now = v.Now
		return []schema.Finding{{Instance: "shoot.qa", Path: cty.GetAttrPath("region"), Summary: "Refused", Detail: "Admission refuses it."}}
	}}))
	at := time.Date(2026, 11, 22, 22, 30, 0, 0, time.UTC)
	_, diags := Prepare(Options{Dir: dir, Schemas: reg, Renderers: render.Registry{"manifests": manifests.Type.RenderConfig}, Now: at})
	require.True(t, diags.HasErrors())
	var found *hcl.Diagnostic
	for _, d := range diags {
		if d.Summary == "Refused" {
			found = d
		}
	}
	require.NotNil(t, found, diags.Error())
	assert.Equal(t, "shoots.hcl", filepath.Base(found.Subject.Filename))
	assert.Equal(t, at, now)
}
