package config_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/catalog"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// ruleLandscape has a shoot with nested, repeated and labelled blocks, an expanded shoot, a
// binding whose namespace is a project's output, and a cloud profile with an invalid value.
const ruleLandscape = `landscape "rules" {}

cluster "garden" {}

component "project" "dev" {
  cluster = cluster.garden
  owner {
    name = "admin@example.com"
  }
}

component "credentials_binding" "dev" {
  cluster       = cluster.garden
  namespace     = component.project.dev.namespace
  provider_type = "local"
  credentials_ref {
    name = "x"
  }
}

component "cloud_profile" "broken" {
  cluster = cluster.garden
  type    = "local"
  kubernetes_version "1.31.1" {}
  machine_image "local" {
    version "1.0.0" {}
  }
  machine_type "local" {
    cpu    = "lots"
    memory = "4Gi"
  }
  region "local" {}
}

shoot "dev" {
  project       = component.project.dev.name
  cloud_profile = "local"
  region        = "local"

  kubernetes {
    version = "1.31.1"
  }
  provider {
    type = "local"
  }
  workers "a" {
    machine_type = "local"
    minimum      = 1
    maximum      = 2
  }
  workers "b" {
    machine_type = "local"
    minimum      = 1
    maximum      = 2
    zones        = ["0", "1"]
  }
}

shoot "team" {
  for_each      = toset(["a", "b", "c", "d", "e"])
  project       = "team"
  cloud_profile = "local"
  region        = "local"

  kubernetes {
    version = "1.31.1"
  }
  provider {
    type = each.key == "e" ? "other" : "local"
  }
}
`

// loadWithRules loads ruleLandscape with the catalog's schemas and the given landscape rules.
func loadWithRules(t *testing.T, rules ...schema.LandscapeRule) hcl.Diagnostics {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "main.hcl")
	require.NoError(t, os.WriteFile(file, []byte(ruleLandscape), 0o644))
	reg := catalog.Schemas()
	require.NoError(t, reg.AddLandscapeRules(rules...))
	_, diags := config.LoadWith(dir, reg, config.InputSources{}, config.Hooks{Now: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)})
	return diags
}

// at renders a diagnostic as LINE:COL: SUMMARY (or DETAIL when the summary is "detail").
func at(d *hcl.Diagnostic) string {
	if d.Subject == nil {
		return "-: " + d.Summary
	}
	return fmt.Sprintf("%d:%d: %s", d.Subject.Start.Line, d.Subject.Start.Column, d.Summary)
}

func findingAt(instance string, path cty.Path, summary string) schema.Finding {
	return schema.Finding{Instance: instance, Path: path, Severity: schema.SeverityError, Summary: summary, Detail: "Detail."}
}

// Findings point at the narrowest range written: an attribute's expression, a nested block's
// attribute, a repeated block by index, a label, an element of a list, or else the nearest
// enclosing block, and the block header when nothing on the path is written.
func TestLandscapeRuleFindingsPointAtTheSource(t *testing.T) {
	p := cty.GetAttrPath
	rule := schema.LandscapeRule{Name: "ranges", Func: func(*schema.LandscapeView) []schema.Finding {
		return []schema.Finding{
			findingAt("shoot.dev", p("region"), "attribute"),
			findingAt("shoot.dev", p("kubernetes").GetAttr("version"), "nested attribute"),
			findingAt("shoot.dev", p("workers").IndexInt(1).GetAttr("machine_type"), "repeated block"),
			findingAt("shoot.dev", p("workers").IndexInt(1).GetAttr("name"), "label"),
			findingAt("shoot.dev", p("workers").IndexInt(1).GetAttr("zones").IndexInt(1), "list element"),
			findingAt("shoot.dev", p("workers").IndexInt(0).GetAttr("zones"), "unset attribute"),
			findingAt("shoot.dev", p("workers").IndexInt(0), "block"),
			findingAt("shoot.dev", p("networking").GetAttr("type"), "unset block"),
			findingAt("shoot.dev", p("workers").IndexInt(7).GetAttr("machine_type"), "no such block"),
			{Instance: "shoot.dev", Path: p("purpose"), Severity: schema.SeverityWarning, Summary: "warning"},
		}
	}}
	diags := loadWithRules(t, rule)
	var got []string
	for _, d := range diags {
		if d.Summary != "Invalid value for cpu" {
			got = append(got, at(d))
		}
	}
	assert.Equal(t, []string{
		"38:19: attribute",
		"41:15: nested attribute",
		"52:20: repeated block",
		"51:11: label",
		"55:26: list element",
		"46:3: unset attribute",
		"46:3: block",
		"35:1: unset block",
		"35:1: no such block",
		"35:1: warning",
	}, got)
	assert.Equal(t, hcl.DiagWarning, diags[len(diags)-1].Severity)
}

// Identical findings of the instances of one expanded block are one diagnostic naming them;
// findings about failed instances are dropped; the rule sees failed blocks marked, Origin and Now.
func TestLandscapeRuleView(t *testing.T) {
	var seen *schema.LandscapeView
	rule := schema.LandscapeRule{Name: "view", Func: func(v *schema.LandscapeView) []schema.Finding {
		seen = v
		var out []schema.Finding
		for _, inst := range v.Of(schema.KindShoot, "shoot") {
			provider, _ := cty.GetAttrPath("provider").GetAttr("type").Apply(inst.Config)
			out = append(out, findingAt(inst.Addr, cty.GetAttrPath("provider").GetAttr("type"), "provider "+provider.AsString()))
		}
		for _, inst := range v.Of(schema.KindComponent, "cloud_profile") {
			out = append(out, findingAt(inst.Addr, cty.GetAttrPath("type"), "about a failed block"))
		}
		return out
	}}
	diags := loadWithRules(t, rule)
	var details []string
	for _, d := range diags {
		if d.Summary == "provider local" || d.Summary == "provider other" {
			details = append(details, at(d)+": "+d.Detail)
		}
		assert.NotEqual(t, "about a failed block", d.Summary)
	}
	assert.Equal(t, []string{
		"44:12: provider local: Detail.",
		`69:12: provider local: In shoot.team["a"], shoot.team["b"], shoot.team["c"] and 1 more: Detail.`,
		`69:12: provider other: In shoot.team["e"]: Detail.`,
	}, details)

	require.NotNil(t, seen)
	assert.Equal(t, time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC), seen.Now)
	profile := seen.Instance("component.cloud_profile.broken")
	require.NotNil(t, profile)
	assert.True(t, profile.Failed, "a block with errors is marked failed")
	binding := seen.Instance("component.credentials_binding.dev")
	require.NotNil(t, binding)
	assert.False(t, binding.Config.GetAttr("namespace").IsKnown(), "an output of another block is known after apply")
	target, output, ok := binding.Origin(cty.GetAttrPath("namespace"))
	assert.True(t, ok)
	assert.Equal(t, "component.project.dev", target)
	assert.Equal(t, "namespace", output)
	_, _, ok = binding.Origin(cty.GetAttrPath("provider_type"))
	assert.False(t, ok, "a literal has no origin")
	assert.Nil(t, seen.Instance("shoot.nothing"))
	assert.Len(t, seen.Of(schema.KindShoot, "shoot"), 6)
}

func TestLandscapeRulesRegistration(t *testing.T) {
	reg := catalog.Schemas()
	noop := func(*schema.LandscapeView) []schema.Finding { return nil }
	require.NoError(t, reg.AddLandscapeRules(schema.LandscapeRule{Name: "a", Func: noop}))
	assert.ErrorContains(t, reg.AddLandscapeRules(schema.LandscapeRule{Name: "a", Func: noop}), "registered twice")
	assert.ErrorContains(t, reg.AddLandscapeRules(schema.LandscapeRule{Name: "b"}), "needs a name and a function")
	assert.Len(t, reg.LandscapeRules(), 1)
}
