package catalog

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/schema"
)

// catalogTypes are the component types of the catalog, sorted.
var catalogTypes = []string{
	"cloud_profile", "cluster_autoscaler", "controller_deployment", "controller_registration", "credentials_binding", "dependency_watchdog", "etcd", "etcd_druid",
	"exposure_class", "extension", "gardener_admission_controller", "gardener_apiserver", "gardener_controller_manager",
	"gardener_resource_manager", "gardener_scheduler", "gardenlet", "generated_secret", "helm_release", "istio",
	"kube_apiserver", "kube_controller_manager", "kube_scheduler", "landscape_daemon", "machine_controller_manager", "managed_resource", "manifests", "namespace", "network_policies", "nginx_ingress", "observability", "priority_classes",
	"project", "quota", "reserve_excess_capacity", "secret_binding", "vpa", "vpn_seed_server",
}

func TestRegistryBuilds(t *testing.T) {
	r := Schemas()
	assert.NotNil(t, r.Lookup(schema.KindGarden, "garden"))
	assert.NotNil(t, r.Lookup(schema.KindSeed, "seed"))
	assert.NotNil(t, r.Lookup(schema.KindShoot, "shoot"))
	assert.Equal(t, catalogTypes, r.Types(schema.KindComponent))
	assert.Len(t, r.All(), len(catalogTypes)+3, "the component types and the garden, seed and shoot blocks")
	for _, s := range r.All() {
		assert.NoError(t, s.Validate(), s.Type)
	}
}

func TestRegistryReturnsIndependentCopies(t *testing.T) {
	a := Schemas().Lookup(schema.KindShoot, "shoot")
	a.Description = "changed"
	assert.NotEqual(t, "changed", Schemas().Lookup(schema.KindShoot, "shoot").Description)
}

// walk calls fn for every attribute and block of a body, depth first, with its dotted path.
func walk(b *schema.Body, path string, attr func(string, *schema.Attribute), block func(string, *schema.Block)) {
	for i := range b.Attributes {
		attr(path+"."+b.Attributes[i].Name, &b.Attributes[i])
	}
	for i := range b.Blocks {
		p := path + "." + b.Blocks[i].Name
		block(p, &b.Blocks[i])
		walk(&b.Blocks[i].Body, p, attr, block)
	}
}

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// sentence is what every description must look like: one or more sentences, capitalised and
// ending with a full stop.
func assertSentence(t *testing.T, where, s string) {
	t.Helper()
	if !assert.NotEmpty(t, s, "%s needs a description", where) {
		return
	}
	assert.True(t, s[0] >= 'A' && s[0] <= 'Z', "%s: description starts with a capital: %q", where, s)
	assert.True(t, strings.HasSuffix(s, "."), "%s: description ends with a full stop: %q", where, s)
	assert.Equal(t, strings.TrimSpace(s), s, "%s: description has no surrounding space", where)
}

func TestEverythingIsDescribedAndSnakeCase(t *testing.T) {
	for _, s := range Schemas().All() {
		assertSentence(t, s.Type, s.Description)
		walk(&s.Body, s.Type, func(p string, a *schema.Attribute) {
			assertSentence(t, p, a.Description)
			assert.Regexp(t, snakeCase, a.Name, p)
			for _, c := range a.Checks {
				assert.NotNil(t, c.Func, "%s: check %s has a function", p, c.Name)
			}
		}, func(p string, b *schema.Block) {
			assertSentence(t, p, b.Description)
			assert.Regexp(t, snakeCase, b.Name, p)
			for _, l := range b.Labels {
				assert.Regexp(t, snakeCase, l, p)
			}
		})
		for _, o := range s.Outputs {
			assertSentence(t, s.Type+" output "+o.Name, o.Description)
			assert.Regexp(t, snakeCase, o.Name)
		}
	}
}

func TestReferencesAndSecrets(t *testing.T) {
	r := Schemas()
	refs := map[string]string{}
	for _, s := range r.All() {
		walk(&s.Body, s.Type, func(p string, a *schema.Attribute) {
			if a.References != "" {
				refs[p] = a.References
			}
		}, func(string, *schema.Block) {})
	}
	want := map[string]string{
		"garden.cluster":        "cluster",
		"garden.virtual_garden": "cluster",
		"seed.garden":           "garden",
		"seed.cluster":          "cluster",
		"shoot.seed":            "seed",
	}
	for _, typ := range catalogTypes {
		if typ != "extension" { // an extension names the virtual garden and its seeds' clusters
			want[typ+".cluster"] = "cluster" // every other component is applied to a cluster it names
		}
	}
	for _, virtual := range []string{"gardener_apiserver", "gardener_admission_controller", "gardener_controller_manager", "gardener_scheduler", "extension"} {
		if slices.Contains(catalogTypes, virtual) {
			want[virtual+".virtual_cluster"] = "cluster"
		}
	}
	assert.Equal(t, want, refs)

	sensitive := map[string]bool{}
	for _, s := range r.All() {
		for _, o := range s.Outputs {
			if o.Sensitive {
				sensitive[s.Type+"."+o.Name] = true
			}
		}
	}
	assert.Equal(t, map[string]bool{"garden.virtual_kubeconfig": true}, sensitive)
}

// evalContext offers the top-level blocks a snippet references, as objects with a name, the way
// the loader will.
func evalContext() *hcl.EvalContext {
	named := func(names ...string) cty.Value {
		m := map[string]cty.Value{}
		for _, n := range names {
			m[n] = cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal(n)})
		}
		return cty.ObjectVal(m)
	}
	return &hcl.EvalContext{Variables: map[string]cty.Value{
		"cluster": named("runtime", "seed1"),
		"garden":  named("local"),
		"seed":    named("local"),
		"var":     cty.ObjectVal(map[string]cty.Value{"kubernetes_version": cty.StringVal("1.31.1")}),
	}}
}

// decodeSnippet parses src as the body of a block of the given schema and decodes it with the schema's
// spec.
func decodeSnippet(t *testing.T, s *schema.Schema, src string) (cty.Value, hcl.Diagnostics) {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(src), s.Type+".hcl", hcl.InitialPos)
	require.False(t, diags.HasErrors(), diags.Error())
	return hcldec.Decode(f.Body, s.Body.Spec(), evalContext())
}

// runChecks applies every check of the schema to the decoded value and returns the messages, as
// the loader will; it proves the snippets are not only well-typed but valid.
func runChecks(s *schema.Schema, v cty.Value) []string {
	var out []string
	var body func(b *schema.Body, v cty.Value, path string)
	body = func(b *schema.Body, v cty.Value, path string) {
		if v.IsNull() || !v.IsKnown() {
			return
		}
		for _, a := range b.Attributes {
			av := v.GetAttr(a.Name)
			if av.IsNull() || !av.IsWhollyKnown() {
				continue
			}
			if a.Type == cty.String && len(a.AllowedValues) > 0 && !contains(a.AllowedValues, av.AsString()) {
				out = append(out, path+"."+a.Name+": not an allowed value")
			}
			for _, c := range a.Checks {
				if msg := c.Func(av); msg != "" {
					out = append(out, path+"."+a.Name+": "+msg)
				}
			}
		}
		for i := range b.Blocks {
			blk := &b.Blocks[i]
			bv := v.GetAttr(blk.Name)
			if blk.Nesting == schema.NestingList {
				if bv.IsNull() {
					continue
				}
				for it := bv.ElementIterator(); it.Next(); {
					_, e := it.Element()
					body(&blk.Body, e, path+"."+blk.Name)
				}
				continue
			}
			body(&blk.Body, bv, path+"."+blk.Name)
		}
	}
	body(&s.Body, v, s.Type)
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

const gardenSnippet = `
cluster = cluster.runtime

runtime_cluster {
  networking {
    pods     = "10.1.0.0/16"
    services = "10.2.0.0/16"
    nodes    = "172.18.0.0/16"
  }
  provider {
    region = "local"
    zones  = ["0"]
  }
  ingress {
    domains = ["ingress.runtime-garden.local.gardener.cloud"]
  }
  settings {
    topology_aware_routing_enabled = true
    load_balancer_services {
      annotations = { "service.beta.kubernetes.io/lb-type" = "nlb" }
    }
  }
}

virtual_cluster {
  dns_domains       = ["virtual-garden.local.gardener.cloud"]
  high_availability = false
  networking { services = "100.64.0.0/13" }
  kubernetes {
    version = var.kubernetes_version
    kube_api_server { event_ttl = "1h" }
  }
  etcd {
    main {
      storage_capacity = "25Gi"
      backup {
        provider   = "local"
        secret_ref = "virtual-garden-etcd-main-backup"
      }
    }
    events { storage_capacity = "10Gi" }
  }
  maintenance {
    time_window_begin = "220000+0100"
    time_window_end   = "230000+0100"
  }
  gardener {
    cluster_identity = "garden-local"
    admission_controller { resource_size_mode = "log" }
    dashboard { enabled = true }
  }
}

dns_provider "local" {
  type       = "local"
  secret_ref = "dns-local"
}
`

const seedSnippet = `
garden  = garden.local
cluster = cluster.seed1
extensions = ["provider-local", "networking-calico"]

provider {
  type   = "local"
  region = "local"
  zones  = ["0", "1", "2"]
}
networks {
  nodes    = "172.18.0.0/16"
  pods     = "10.1.0.0/16"
  services = "10.2.0.0/16"
  shoot_defaults {
    pods     = "10.3.0.0/16"
    services = "10.4.0.0/16"
  }
}
ingress {
  domain = "ingress.local.seed.local.gardener.cloud"
}
dns {
  provider {
    type       = "local"
    secret_ref = "internal-domain-local"
  }
}
backup {
  provider   = "local"
  secret_ref = "backup-local"
}
taints "seed.gardener.cloud/protected" {}
settings {
  scheduling_visible = true
  load_balancer_services {
    external_traffic_policy = "Local"
    zones "0" { annotations = { a = "b" } }
  }
  dependency_watchdog { prober_enabled = false }
}
`

const shootSnippet = `
project       = "dev"
seed          = seed.local
cloud_profile = "local"
region        = "local"
credentials_binding = "local"
purpose       = "development"

kubernetes {
  version = "1.31.1"
  kube_api_server {
    audit_policy_config_map = "audit-policy"
    admission_plugins "PodNodeSelector" {
      config = { podNodeSelectorPluginConfig = { clusterDefaultNodeSelector = "role=worker" } }
    }
  }
  kube_controller_manager { node_cidr_mask_size = 24 }
  kube_scheduler { profile = "bin-packing" }
}
networking {
  type     = "calico"
  pods     = "10.3.0.0/16"
  nodes    = "10.10.0.0/16"
  services = "10.4.0.0/16"
}
provider {
  type = "local"
}
workers "pool" {
  machine_type = "local"
  minimum      = 1
  maximum      = 3
  max_surge    = 1
  zones        = ["0"]
  machine_image {
    name    = "local"
    version = "1.0.0"
  }
  volume { size = "20Gi" }
  taints "dedicated" {
    value  = "gpu"
    effect = "NoSchedule"
  }
}
workers "system" {
  machine_type    = "local"
  minimum         = 0
  maximum         = 2
  max_unavailable = "25%"
  labels = { role = "system" }
}
maintenance {
  auto_update { machine_image_version = false }
  time_window {
    begin = "220000+0100"
    end   = "230000+0100"
  }
}
hibernation {
  schedules {
    start    = "0 20 * * 1-5"
    end      = "0 7 * * 1-5"
    location = "Europe/Berlin"
  }
}
control_plane {
  high_availability { failure_tolerance = "zone" }
}
extensions "shoot-dns-service" {
  provider_config = { apiVersion = "service.dns.extensions.gardener.cloud/v1alpha1", kind = "DNSConfig" }
}
tolerations "seed.gardener.cloud/protected" {}
`

const helmReleaseSnippet = `
cluster   = cluster.runtime
chart     = "oci://registry.example.com/charts/cert-manager"
version   = "1.15.0"
namespace = "cert-manager"
values = {
  installCRDs  = true
  replicaCount = 2
  extraArgs    = ["--enable-certificate-owner-ref"]
}
sensitive_values = { webhook = { token = "s3cr3t" } }
`

const manifestsSnippet = `
cluster = cluster.runtime
objects = [
  { apiVersion = "v1", kind = "Namespace", metadata = { name = "demo" } },
  { apiVersion = "v1", kind = "ConfigMap", metadata = { name = "settings", namespace = "demo" }, data = { mode = "fast" } },
]
files = ["manifests/rbac.yaml"]
`

func TestSnippetsDecode(t *testing.T) {
	r := Schemas()
	for _, tc := range []struct {
		kind schema.Kind
		typ  string
		src  string
		// assert inspects the decoded value.
		assert func(t *testing.T, v cty.Value)
	}{
		{schema.KindGarden, "garden", gardenSnippet, func(t *testing.T, v cty.Value) {
			assert.Equal(t, "runtime", v.GetAttr("cluster").GetAttr("name").AsString())
			rc := v.GetAttr("runtime_cluster")
			assert.Equal(t, "nginx", rc.GetAttr("ingress").GetAttr("controller_kind").AsString(), "default applies")
			assert.True(t, rc.GetAttr("settings").GetAttr("vertical_pod_autoscaler_enabled").True(), "default applies")
			vc := v.GetAttr("virtual_cluster")
			assert.Equal(t, "1.31.1", vc.GetAttr("kubernetes").GetAttr("version").AsString())
			g := vc.GetAttr("gardener")
			assert.True(t, g.GetAttr("scheduler").IsNull(), "an absent single block is null")
			assert.Equal(t, "info", g.GetAttr("admission_controller").GetAttr("log_level").AsString(), "default applies")
			dns := v.GetAttr("dns_provider")
			require.Equal(t, 1, dns.LengthInt())
			assert.Equal(t, "local", dns.Index(cty.NumberIntVal(0)).GetAttr("name").AsString(), "the label becomes name")
		}},
		{schema.KindSeed, "seed", seedSnippet, func(t *testing.T, v cty.Value) {
			assert.Equal(t, "local", v.GetAttr("garden").GetAttr("name").AsString())
			nets := v.GetAttr("networks")
			assert.Equal(t, []cty.Value{cty.StringVal("IPv4")}, nets.GetAttr("ip_families").AsValueSlice())
			assert.Equal(t, "nginx", v.GetAttr("ingress").GetAttr("controller_kind").AsString())
			taints := v.GetAttr("taints")
			assert.Equal(t, "seed.gardener.cloud/protected", taints.Index(cty.NumberIntVal(0)).GetAttr("key").AsString())
			lb := v.GetAttr("settings").GetAttr("load_balancer_services")
			assert.Equal(t, "Local", lb.GetAttr("external_traffic_policy").AsString())
			assert.Equal(t, "0", lb.GetAttr("zones").Index(cty.NumberIntVal(0)).GetAttr("name").AsString())
			assert.True(t, v.GetAttr("settings").GetAttr("dependency_watchdog").GetAttr("weeder_enabled").True())
		}},
		{schema.KindShoot, "shoot", shootSnippet, func(t *testing.T, v cty.Value) {
			assert.Equal(t, "CloudProfile", v.GetAttr("cloud_profile_kind").AsString())
			workers := v.GetAttr("workers")
			require.Equal(t, 2, workers.LengthInt())
			pool := workers.Index(cty.NumberIntVal(0))
			assert.Equal(t, "pool", pool.GetAttr("name").AsString())
			assert.Equal(t, "1", pool.GetAttr("max_surge").AsString(), "a number converts to the string form")
			assert.Equal(t, "amd64", pool.GetAttr("architecture").AsString(), "default applies")
			assert.True(t, pool.GetAttr("cri").IsNull())
			assert.Equal(t, "NoSchedule", pool.GetAttr("taints").Index(cty.NumberIntVal(0)).GetAttr("effect").AsString())
			assert.Equal(t, "shoot-dns-service", v.GetAttr("extensions").Index(cty.NumberIntVal(0)).GetAttr("type").AsString())
		}},
		{schema.KindComponent, "helm_release", helmReleaseSnippet, func(t *testing.T, v cty.Value) {
			assert.True(t, v.GetAttr("create_namespace").True())
			assert.True(t, v.GetAttr("release_name").IsNull())
		}},
		{schema.KindComponent, "manifests", manifestsSnippet, func(t *testing.T, v cty.Value) {
			assert.Equal(t, 2, v.GetAttr("objects").LengthInt())
		}},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			s := r.Lookup(tc.kind, tc.typ)
			require.NotNil(t, s)
			v, diags := decodeSnippet(t, s, tc.src)
			require.False(t, diags.HasErrors(), diags.Error())
			assert.True(t, v.Type().Equals(s.Body.ImpliedType()) || s.Body.ImpliedType().HasDynamicTypes(), "the value has the implied type")
			assert.Empty(t, runChecks(s, v))
			tc.assert(t, v)
		})
	}
}

func TestUnknownArgumentIsRejected(t *testing.T) {
	r := Schemas()
	for _, tc := range []struct {
		kind schema.Kind
		typ  string
		src  string
	}{
		{schema.KindGarden, "garden", gardenSnippet + "\nreplicas = 3\n"},
		{schema.KindSeed, "seed", seedSnippet + "\nreplicas = 3\n"},
		{schema.KindShoot, "shoot", strings.Replace(shootSnippet, "machine_type = \"local\"\n  minimum      = 1", "machine_type = \"local\"\n  replicas = 3\n  minimum      = 1", 1)},
		{schema.KindComponent, "helm_release", helmReleaseSnippet + "\nreplicas = 3\n"},
		{schema.KindComponent, "manifests", manifestsSnippet + "\nreplicas = 3\n"},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			_, diags := decodeSnippet(t, r.Lookup(tc.kind, tc.typ), tc.src)
			require.True(t, diags.HasErrors())
			assert.Contains(t, diags.Error(), `An argument named "replicas" is not expected here.`)
		})
	}
}

func TestMissingRequiredIsRejected(t *testing.T) {
	r := Schemas()
	_, diags := decodeSnippet(t, r.Lookup(schema.KindShoot, "shoot"), `
project       = "dev"
cloud_profile = "local"
region        = "local"
provider { type = "local" }
workers "pool" { machine_type = "local" }
`)
	require.True(t, diags.HasErrors())
	var all []string
	for _, d := range diags {
		all = append(all, d.Summary+": "+d.Detail)
	}
	msg := strings.Join(all, "\n")
	assert.Contains(t, msg, `Missing kubernetes block`)
	assert.Contains(t, msg, `The argument "minimum" is required`)
}

func TestChecksCatchMistakes(t *testing.T) {
	r := Schemas()
	s := r.Lookup(schema.KindSeed, "seed")
	src := strings.Replace(seedSnippet, `pods     = "10.1.0.0/16"`, `pods     = "10.1.0.1/16"`, 1)
	src = strings.Replace(src, `domain = "ingress.local.seed.local.gardener.cloud"`, `domain = "Ingress.local"`, 1)
	v, diags := decodeSnippet(t, s, src)
	require.False(t, diags.HasErrors(), diags.Error())
	msgs := strings.Join(runChecks(s, v), "\n")
	assert.Contains(t, msgs, "seed.networks.pods: ")
	assert.Contains(t, msgs, "did you mean 10.1.0.0/16?")
	assert.Contains(t, msgs, "seed.ingress.domain: ")
}

func TestAllowedValuesAreEnforcedByTheLoaderNotHCL(t *testing.T) {
	// hcldec does not know allowed values; this documents that the loader must check them.
	s := Schemas().Lookup(schema.KindShoot, "shoot")
	v, diags := decodeSnippet(t, s, strings.Replace(shootSnippet, `purpose       = "development"`, `purpose = "fun"`, 1))
	require.False(t, diags.HasErrors(), diags.Error())
	assert.Contains(t, runChecks(s, v), "shoot.purpose: not an allowed value")
}

func TestImmutableAttributesCiteGardener(t *testing.T) {
	immutable := map[string]bool{}
	for _, s := range Schemas().All() {
		walk(&s.Body, s.Type, func(p string, a *schema.Attribute) {
			if a.Immutable {
				immutable[p] = true
			}
		}, func(string, *schema.Block) {})
	}
	for _, p := range []string{
		"garden.runtime_cluster.networking.pods",
		"garden.runtime_cluster.networking.services",
		"garden.virtual_cluster.networking.services",
		"garden.virtual_cluster.gardener.cluster_identity",
		"garden.virtual_cluster.etcd.main.backup.provider",
		"seed.networks.pods",
		"seed.networks.services",
		"seed.networks.ip_families",
		"seed.ingress.domain",
		"seed.backup.provider",
		"shoot.region",
		"shoot.secret_binding",
		"shoot.provider.type",
		"shoot.networking.type",
		"shoot.networking.pods",
		"shoot.networking.services",
		"shoot.networking.ip_families",
		"shoot.kubernetes.kube_controller_manager.node_cidr_mask_size",
	} {
		assert.True(t, immutable[p], "%s is immutable", p)
	}
	assert.False(t, immutable["shoot.networking.nodes"], "the shoot node network may grow")
}

func TestDerivedArtefacts(t *testing.T) {
	r := Schemas()
	out, err := schema.JSON(r)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(out, &doc))
	assert.Equal(t, "1.0", doc["format_version"])
	assert.Len(t, doc["schemas"], len(catalogTypes)+3)
	again, err := schema.JSON(Schemas())
	require.NoError(t, err)
	assert.Equal(t, string(out), string(again))

	for _, s := range r.All() {
		md := string(schema.Markdown(s))
		assert.Contains(t, md, strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(s.Description), "Markdown escapes angle brackets")
		assert.Equal(t, md, string(schema.Markdown(s)))
	}
	md := string(schema.Markdown(r.Lookup(schema.KindGarden, "garden")))
	assert.Contains(t, md, "## Block `virtual_cluster.kubernetes`")
	assert.Contains(t, md, "| `cluster` | reference to a cluster | required |")
}

// Two extensions blocks whose provider_config objects differ in shape are normal; they decode
// because schema.Body.Spec uses a tuple for repeated blocks with dynamic attributes (a list needs
// one element type, and unifying the shapes would lose data or fail).
func TestRepeatedBlocksWithDynamicAttributes(t *testing.T) {
	s := Schemas().Lookup(schema.KindShoot, "shoot")
	_, isTuple := s.Body.Spec().(hcldec.ObjectSpec)["extensions"].(*hcldec.BlockTupleSpec)
	require.True(t, isTuple)
	v, diags := decodeSnippet(t, s, shootSnippet+`
extensions "other" {
  provider_config = { replicas = 2, nested = { on = true } }
}
`)
	require.False(t, diags.HasErrors(), diags.Error())
	exts := v.GetAttr("extensions").AsValueSlice()
	require.Len(t, exts, 2)
	assert.True(t, exts[1].GetAttr("provider_config").GetAttr("replicas").RawEquals(cty.NumberIntVal(2)), "values keep their types")
}
