package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/diag"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// testRegistry is a small catalog independent of the real schemas, so that these tests pin the
// loader's behaviour and not the catalog's.
func testRegistry(t *testing.T) *schema.Registry {
	t.Helper()
	ref := func(name, kind string, required bool) schema.Attribute {
		return schema.Attribute{Name: name, Type: cty.DynamicPseudoType, References: kind, Required: required}
	}
	outputs := []schema.Output{
		{Name: "name", Type: cty.String},
		{Name: "token", Type: cty.String, Sensitive: true},
		{Name: "virtual_cluster", Type: cty.Object(map[string]cty.Type{"name": cty.String})},
	}
	reg, err := schema.NewRegistry(
		&schema.Schema{Kind: schema.KindGarden, Type: "garden", Outputs: outputs, Body: schema.Body{
			Attributes: []schema.Attribute{ref("cluster", schema.RefCluster, true), {Name: "replicas", Type: cty.Number, Default: cty.NumberIntVal(1)}},
			Blocks: []schema.Block{{Name: "virtual_cluster", Body: schema.Body{Attributes: []schema.Attribute{
				{Name: "dns_domains", Type: cty.List(cty.String), Required: true},
				{Name: "mode", Type: cty.String, AllowedValues: []string{"single", "ha"}},
			}}}},
		}},
		&schema.Schema{Kind: schema.KindSeed, Type: "seed", Outputs: outputs, Body: schema.Body{
			Attributes: []schema.Attribute{ref("garden", schema.RefGarden, true), ref("cluster", schema.RefCluster, false), {Name: "region", Type: cty.String}},
		}},
		&schema.Schema{Kind: schema.KindShoot, Type: "shoot", Outputs: outputs, Body: schema.Body{
			Attributes: []schema.Attribute{ref("seed", schema.RefSeed, false), {Name: "project", Type: cty.String, Required: true}},
			Blocks: []schema.Block{{Name: "workers", Nesting: schema.NestingList, Labels: []string{"name"}, Body: schema.Body{Attributes: []schema.Attribute{
				{Name: "maximum", Type: cty.Number, Checks: []schema.Check{{Name: "positive", Func: func(v cty.Value) string {
					if v.LessThanOrEqualTo(cty.Zero).True() {
						return "The maximum must be positive."
					}
					return ""
				}}}},
			}}}},
		}},
		&schema.Schema{Kind: schema.KindComponent, Type: "thing", Outputs: outputs, Body: schema.Body{
			Attributes: []schema.Attribute{ref("cluster", schema.RefCluster, true), {Name: "value", Type: cty.String}, {Name: "password", Type: cty.String, Sensitive: true}},
		}},
	)
	require.NoError(t, err)
	return reg
}

func writeLandscape(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	return dir
}

const base = `
landscape "test" {
  state {
    backend = "kubernetes"
    cluster = cluster.runtime
  }
}
cluster "runtime" { context = "runtime" }
`

func load(t *testing.T, reg *schema.Registry, body string, src InputSources) (*Result, hcl.Diagnostics) {
	t.Helper()
	dir := writeLandscape(t, map[string]string{"main.hcl": base + body})
	return Load(dir, reg, src)
}

func summaries(diags hcl.Diagnostics) []string {
	var out []string
	for _, d := range diags {
		out = append(out, d.Summary)
	}
	return out
}

func TestReferencesBecomeEdges(t *testing.T) {
	res, diags := load(t, testRegistry(t), `
variable "domain" { default = "garden.local" }
locals { domains = [var.domain] }
garden "g" {
  cluster = cluster.runtime
  virtual_cluster { dns_domains = local.domains }
}
seed "s" {
  garden = garden.g
  cluster = cluster.runtime
}
component "thing" "t" {
  cluster    = cluster.runtime
  value      = seed.s.name
  depends_on = [garden.g]
}
output "seed_name" { value = seed.s.name }
`, InputSources{})
	require.False(t, diags.HasErrors(), diags.Error())
	edges := map[string]bool{}
	for _, r := range res.Landscape.References {
		edges[string(r.From)+" -> "+string(r.To)] = true
	}
	for _, want := range []string{
		"local.domains -> var.domain",
		"garden.g -> cluster.runtime",
		"garden.g -> local.domains",
		"seed.s -> garden.g",
		"component.thing.t -> seed.s",
		"component.thing.t -> garden.g",
		"output.seed_name -> seed.s",
	} {
		assert.True(t, edges[want], "missing edge %s in %v", want, edges)
	}
	ev := res.Evaluated
	assert.Equal(t, "s", ev.Instances["component.thing.t"].Config.GetAttr("value").AsString(), "a block's name output is known before apply")
	assert.Equal(t, cty.NumberIntVal(1), ev.Instances["garden.g"].Config.GetAttr("replicas"), "defaults apply")
	assert.Equal(t, "s", ev.Outputs["seed_name"].AsString())
	assert.Equal(t, "runtime", ev.Clusters["runtime"].GetAttr("context").AsString())
}

func TestForEachAndCountExpandInstances(t *testing.T) {
	res, diags := load(t, testRegistry(t), `
shoot "dev" {
  for_each = toset(["b", "a"])
  project  = "p-${each.key}"
  workers "pool" { maximum = 2 }
}
component "thing" "c" {
  count   = 2
  cluster = cluster.runtime
  value   = "n${count.index}"
}
output "names" { value = [for s in shoot.dev : s.name] }
`, InputSources{})
	require.False(t, diags.HasErrors(), diags.Error())
	ev := res.Evaluated
	require.Contains(t, ev.Instances, InstanceAddress(`shoot.dev["a"]`))
	assert.Equal(t, "dev-a", ev.Instances[`shoot.dev["a"]`].Name)
	assert.Equal(t, "p-b", ev.Instances[`shoot.dev["b"]`].Config.GetAttr("project").AsString())
	workers := ev.Instances[`shoot.dev["a"]`].Config.GetAttr("workers").AsValueSlice()
	require.Len(t, workers, 1)
	assert.Equal(t, "pool", workers[0].GetAttr("name").AsString(), "a block label becomes an attribute")
	assert.Equal(t, "n1", ev.Instances["component.thing.c[1]"].Config.GetAttr("value").AsString())
	assert.Equal(t, cty.TupleVal([]cty.Value{cty.StringVal("dev-a"), cty.StringVal("dev-b")}), ev.Outputs["names"])
}

func TestVariablePrecedenceAndConversion(t *testing.T) {
	dir := writeLandscape(t, map[string]string{
		"main.hcl": base + `
variable "zones" { type = list(string) }
variable "replicas" {
  type    = number
  default = 1
}
variable "mode" { default = "single" }
garden "g" {
  cluster  = cluster.runtime
  replicas = var.replicas
  virtual_cluster {
    dns_domains = var.zones
    mode        = var.mode
  }
}
`,
		"prod.vars": "replicas = 3\nmode = \"ha\"\n",
	})
	res, diags := Load(dir, testRegistry(t), InputSources{
		Environ:  []string{"GARDENER_VAR_replicas=2", "GARDENER_VAR_zones=[\"env\"]", "UNRELATED=1"},
		VarFiles: []string{filepath.Join(dir, "prod.vars")},
		Vars:     []string{`zones=["a","b"]`},
	})
	require.False(t, diags.HasErrors(), diags.Error())
	ev := res.Evaluated
	assert.True(t, ev.Variables["replicas"].Equals(cty.NumberIntVal(3)).True(), "a var file beats the environment: %#v", ev.Variables["replicas"])
	assert.Equal(t, cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")}), ev.Variables["zones"], "--var beats everything")
	assert.Equal(t, "ha", ev.Variables["mode"].AsString())
}

func TestSensitiveValuesAreMarkedAndGuarded(t *testing.T) {
	reg := testRegistry(t)
	body := `
variable "password" {
  sensitive = true
  validation {
    condition     = length(var.password) > 8
    error_message = "too short: ${var.password}"
  }
}
output "leak" { value = var.password }
`
	_, diags := load(t, reg, body, InputSources{Vars: []string{"password=s3cr3t"}})
	require.True(t, diags.HasErrors())
	for _, d := range diags {
		assert.NotContains(t, d.Detail, "s3cr3t")
	}
	assert.Contains(t, summaries(diags), "Invalid value for variable")

	_, diags = load(t, reg, body, InputSources{Vars: []string{"password=long-enough-s3cr3t"}})
	assert.Equal(t, []string{"Output refers to sensitive values"}, summaries(diags))

	res, diags := load(t, reg, strings.Replace(body, `output "leak" { value = var.password }`, `output "ok" {
  value     = var.password
  sensitive = true
}`, 1), InputSources{Vars: []string{"password=long-enough-s3cr3t"}})
	require.False(t, diags.HasErrors(), diags.Error())
	assert.True(t, res.Evaluated.Variables["password"].HasMark(SensitiveMark))
	assert.True(t, res.Evaluated.Outputs["ok"].HasMark(SensitiveMark))
}

func TestCycleNamesEveryMember(t *testing.T) {
	_, diags := load(t, testRegistry(t), `
garden "g" {
  cluster = cluster.runtime
  replicas = length(component.thing.t.name)
}
seed "s" { garden = garden.g }
component "thing" "t" {
  cluster = cluster.runtime
  value   = seed.s.name
}
`, InputSources{})
	require.Len(t, diags, 1)
	d := diags[0]
	assert.Equal(t, "Reference cycle", d.Summary)
	for _, member := range []string{"component.thing.t", "garden.g", "seed.s"} {
		assert.Contains(t, d.Detail, member)
	}
	require.NotNil(t, d.Subject)
}

func TestDidYouMean(t *testing.T) {
	_, diags := load(t, testRegistry(t), `
variable "kubernetes_version" { default = "1.31.1" }
component "thnig" "t" { cluster = cluster.runtime }
component "thing" "u" {
  cluster = cluster.runtme
  value   = var.kubernetes_versoin
}
`, InputSources{})
	details := strings.Join(func() []string {
		var out []string
		for _, d := range diags {
			out = append(out, d.Detail)
		}
		return out
	}(), "\n")
	assert.Contains(t, details, `Did you mean "thing"?`)
	assert.Contains(t, details, `Did you mean "runtime"?`)
	assert.Contains(t, details, `Did you mean "kubernetes_version"?`)
	assert.Len(t, diags, 3, "all problems are reported in one run")
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{{"", "", 0}, {"abc", "abc", 0}, {"abc", "abd", 1}, {"runtme", "runtime", 1}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"thnig", "thing", 1},
		{"ab", "ba", 1}, {"thnigs", "thnig", 1}, {"helm_chart", "namespace", 8}, {"äöü", "öäü", 1}, {"abcd", "badc", 3}}
	for _, tt := range tests {
		assert.Equal(t, tt.want, diag.EditDistance(tt.a, tt.b), "%s/%s", tt.a, tt.b)
	}
}

func TestDidYouMeanOnlySuggestsPlausibleTypos(t *testing.T) {
	tests := []struct {
		given      string
		candidates []string
		want       string
	}{
		{"thnig", []string{"thing", "other"}, ` Did you mean "thing"?`},
		{"minimun", []string{"minimum", "maximum"}, ` Did you mean "minimum"?`},
		{"kubernetes_versoin", []string{"kubernetes_version"}, ` Did you mean "kubernetes_version"?`},
		{"staging", []string{"testing", "production"}, ""},
		{"nope", []string{"name"}, ""},
		{"path", []string{"each", "var"}, ""},
		{"zzzzzz", []string{"garden"}, ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, diag.DidYouMean(tt.given, tt.candidates), tt.given)
	}
}

func TestReferenceAttributesMustNameABlockOfTheirKind(t *testing.T) {
	reg := testRegistry(t)
	garden := `
garden "g" {
  cluster = cluster.runtime
  virtual_cluster { dns_domains = ["a"] }
}
seed "s" { garden = garden.g }
`
	tests := []struct {
		cluster string
		ok      bool
	}{
		{"cluster.runtime", true},
		{"garden.g.virtual_cluster", true},
		{"seed.s.name", false},
		{"cluster.runtime.context", false},
		{`"runtime"`, false},
		{"seed.s", false},
	}
	for _, tt := range tests {
		t.Run(tt.cluster, func(t *testing.T) {
			_, diags := load(t, reg, garden+`component "thing" "t" { cluster = `+tt.cluster+` }`, InputSources{})
			if tt.ok {
				assert.False(t, diags.HasErrors(), diags.Error())
			} else {
				assert.Equal(t, []string{"Invalid reference"}, summaries(diags))
			}
		})
	}
	_, diags := load(t, reg, garden+`seed "t" { garden = seed.s }`, InputSources{})
	assert.Equal(t, []string{"Invalid reference"}, summaries(diags))
}

func TestForEachNeedsKnownKeysOnly(t *testing.T) {
	res, diags := load(t, testRegistry(t), `
garden "g" {
  cluster = cluster.runtime
  virtual_cluster { dns_domains = ["a"] }
}
component "thing" "t" {
  for_each = { primary = garden.g.virtual_cluster }
  cluster  = each.value
}
`, InputSources{})
	require.False(t, diags.HasErrors(), diags.Error())
	assert.Contains(t, res.Evaluated.Instances, InstanceAddress(`component.thing.t["primary"]`))
}

func TestOnlyRootCausesAreReported(t *testing.T) {
	reg := testRegistry(t)
	tests := []struct {
		name string
		body string
		src  InputSources
		want []string
	}{
		{"invalid default", `
variable "a" { default = upper("x") }
output "o" { value = var.a }`, InputSources{}, []string{"Function calls not allowed"}},
		{"validation referring to another variable", `
variable "a" { default = "x" }
variable "b" {
  default = "y"
  validation {
    condition     = var.a == "x"
    error_message = "no"
  }
}`, InputSources{}, []string{"Invalid reference in variable validation"}},
		{"a value failing validation is not used further", `
variable "v" {
  default = "1.31.1"
  validation {
    condition     = var.v != "bad"
    error_message = "bad version"
  }
}
component "thing" "t" {
  count   = var.v == "bad" ? 1 : 1
  cluster = cluster.runtime
  value   = var.v
}`, InputSources{Vars: []string{"v=bad"}}, []string{"Invalid value for variable"}},
		{"bare root", `output "o" { value = local }`, InputSources{}, []string{"Invalid reference"}},
		{"depends_on a variable", `
variable "v" { default = "x" }
component "thing" "t" {
  cluster    = cluster.runtime
  depends_on = [var.v]
}`, InputSources{}, []string{"Invalid depends_on reference"}},
		{"ignore_changes is refused", `
component "thing" "t" {
  cluster = cluster.runtime
  lifecycle { ignore_changes = [nonsense] }
}`, InputSources{}, []string{"Unsupported lifecycle argument"}},
		{"sensitive count", `
variable "n" {
  default   = 1
  sensitive = true
}
component "thing" "t" {
  count   = var.n
  cluster = cluster.runtime
}`, InputSources{}, []string{"Invalid count argument"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := load(t, reg, tt.body, tt.src)
			assert.Equal(t, tt.want, summaries(diags), diags.Error())
		})
	}
}

func TestSchemaSensitiveAttributesAreMarked(t *testing.T) {
	res, diags := load(t, testRegistry(t), `
component "thing" "t" {
  cluster  = cluster.runtime
  password = "plain-in-source"
}`, InputSources{})
	require.False(t, diags.HasErrors(), diags.Error())
	cfg := res.Evaluated.Instances["component.thing.t"].Config
	assert.True(t, cfg.GetAttr("password").HasMark(SensitiveMark))
	assert.False(t, cfg.GetAttr("value").HasMark(SensitiveMark))
}

// strict_conflicts is a constant bool of the landscape block; without it people's changes are
// drift (the plan's rule), with it they stay conflicts.
func TestLandscapeStrictConflicts(t *testing.T) {
	tests := []struct {
		name, attr string
		want       bool
		diags      []string
	}{
		{"absent", "", false, nil},
		{"true", "strict_conflicts = true", true, nil},
		{"false", "strict_conflicts = false", false, nil},
		{"not a bool", `strict_conflicts = "yes please"`, false, []string{"Invalid value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeLandscape(t, map[string]string{"main.hcl": "landscape \"test\" {\n  " + tt.attr + "\n}\ncluster \"runtime\" { context = \"runtime\" }\n"})
			res, diags := Load(dir, testRegistry(t), InputSources{})
			assert.Equal(t, tt.diags, summaries(diags), diags.Error())
			if tt.diags == nil {
				assert.Equal(t, tt.want, res.Landscape.StrictConflicts)
			}
		})
	}
}
