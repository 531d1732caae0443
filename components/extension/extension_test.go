package extension

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/controllerregistration"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/components/managedresource"
	"github.com/declarative-gardener/gardener/engine/render"
)

// twoSeeds are a seed whose shoots use the local infrastructure and one without shoots.
const twoSeeds = `[
	{"name": "local", "cluster": {"name": "runtime"}, "labels": {"env": "dev"}, "has_shoots": true,
	 "shoot_types": ["Infrastructure/local", "Network/calico"], "provider": "local", "region": "local"},
	{"name": "spare", "cluster": {"name": "spare"}, "labels": {"env": "prod"}, "has_shoots": false, "provider": "aws", "region": "eu-west-1"}]`

// resource is a resource block with its defaults and what r sets.
func resource(r controllerregistration.Resource) controllerregistration.Resource {
	return rendertest.Overlay(controllerregistration.ResourceDefaults(), r)
}

func TestRenderGolden(t *testing.T) {
	rendertest.GoldenJSONOf(t, Type, render.Input{Name: "test", Dir: "testdata"}, map[string]string{
		// OnDemand (Gardener's "ControllerRegistration" docs/extensions/registration.md): only the seed
		// whose shoots use Infrastructure/local gets it.
		"on-demand": `{"virtual_cluster": {"name": "virtual"}, "chart": "chart", "garden_cluster_identity": "local",
			"values": {"replicas": 2}, "gardener_version": "v1.120.0",
			"resource": [{"kind": "Infrastructure", "type": "local"}, {"kind": "ControlPlane", "type": "local"}],
			"seeds": ` + twoSeeds + `}`,
		// AlwaysExceptNoShoots (Gardener's docs/extensions/registration.md): only the seed with shoots.
		"always-except-no-shoots": `{"virtual_cluster": {"name": "virtual"}, "name": "networking-calico", "chart": "chart",
			"garden_cluster_identity": "local", "policy": "AlwaysExceptNoShoots", "pod_security_enforce": "baseline",
			"resource": [{"kind": "Network", "type": "calico"}], "seeds": ` + twoSeeds + `}`,
		// A secondary controller with a seed selector (Gardener's docs/extensions/registration.md),
		// installed Always where it matches.
		"seed-selector": `{"virtual_cluster": {"name": "virtual"}, "name": "shoot-audit", "chart": "chart",
			"garden_cluster_identity": "local", "policy": "Always", "seed_selector": {"env": "prod"},
			"generic_kubeconfig_secret_name": "generic-garden-kubeconfig", "gardenlet_feature_gates": {"Foo": true},
			"resource": [{"kind": "Extension", "type": "shoot-audit", "primary": false}], "seeds": ` + twoSeeds + `}`,
	})
}

// TestProviderLocalGolden renders the local landscape's provider-local chart through the
// component, the way landscapes/local installs it on its seed.
func TestProviderLocalGolden(t *testing.T) {
	rendertest.GoldenJSONOf(t, Type, render.Input{Name: "provider_local", Dir: "../../landscapes/local"}, map[string]string{
		"provider-local": `{"virtual_cluster": {"name": "virtual_garden"}, "name": "provider-local", "chart": "charts/provider-local",
			"garden_cluster_identity": "local", "pod_security_enforce": "restricted",
			"resource": [{"kind": "BackupBucket", "type": "local"}, {"kind": "BackupEntry", "type": "local"},
				{"kind": "ControlPlane", "type": "local"}, {"kind": "DNSRecord", "type": "local"},
				{"kind": "Infrastructure", "type": "local"}, {"kind": "OperatingSystemConfig", "type": "local"},
				{"kind": "Worker", "type": "local"}],
			"seeds": [{"name": "local", "cluster": {"name": "runtime"}, "labels": {"base": "kind"}, "has_shoots": true,
				"shoot_types": ["Infrastructure/local"], "dns_provider": "local",
				"spec": {"provider": {"type": "local", "region": "local", "zones": ["0"]},
					"networks": {"pods": "10.1.0.0/16", "services": "10.2.0.0/16"},
					"ingress": {"domain": "ingress.local.seed.local.gardener.cloud"}}}]}`,
	})
}

// TestNetworkingCalicoGolden renders the local landscape's networking-calico chart through the
// component, the way landscapes/local installs it on its seed: on demand, for its shoots' Calico.
func TestNetworkingCalicoGolden(t *testing.T) {
	rendertest.GoldenJSONOf(t, Type, render.Input{Name: "networking_calico", Dir: "../../landscapes/local"}, map[string]string{
		"networking-calico": `{"virtual_cluster": {"name": "virtual_garden"}, "name": "networking-calico", "chart": "charts/networking-calico",
			"garden_cluster_identity": "local", "pod_security_enforce": "baseline",
			"resource": [{"kind": "Network", "type": "calico"}],
			"seeds": [{"name": "local", "cluster": {"name": "runtime"}, "has_shoots": true, "shoot_types": ["Network/calico"],
				"provider": "local", "region": "local"}]}`,
	})
}

// values builds Values for the fact tests: one resource, the test chart.
// values are an extension's values built as a composite builds them, with policy unless it is "".
func values(policy string, seeds ...Seed) Values {
	return rendertest.Overlay(Type.Defaults(), Values{
		VirtualCluster: decode.Cluster{Name: "virtual"}, Name: "provider-local", Chart: "chart", Dir: "testdata",
		Policy: policy, GardenClusterIdentity: "garden-id", GardenerVersion: "v1.2.3",
		Resources: []controllerregistration.Resource{resource(controllerregistration.Resource{Kind: "Infrastructure", Type: "local"})},
		Seeds:     seeds,
	})
}

func seed(name string, mod func(*Seed)) Seed {
	s := Seed{Name: name, Cluster: decode.Cluster{Name: name + "-cluster"}}
	if mod != nil {
		mod(&s)
	}
	return s
}

func ptr[T any](v T) *T { return &v }

func TestInstallations(t *testing.T) {
	withShoots := func(s *Seed) { s.HasShoots = true }
	usesLocal := func(s *Seed) { s.HasShoots, s.ShootTypes = true, []string{"Infrastructure/local"} }
	tests := []struct {
		name      string
		v         Values
		installed bool
		reason    string
	}{
		{"on demand, used by shoots", values("", seed("a", usesLocal)), true, "policy OnDemand and Infrastructure/local is used by shoots on the seed"},
		{"on demand, unused", values("OnDemand", seed("a", withShoots)), false, "policy OnDemand and none of the registration's kinds and types is used on the seed"},
		{"always", values("Always", seed("a", nil)), true, "policy Always installs it on every selected seed"},
		{"always except no shoots, shoots", values("AlwaysExceptNoShoots", seed("a", withShoots)), true, "policy AlwaysExceptNoShoots and shoots run on the seed"},
		{"always except no shoots, none", values("AlwaysExceptNoShoots", seed("a", nil)), false, "policy AlwaysExceptNoShoots and no shoots run on the seed"},
		{"seed selector", func() Values {
			v := values("Always", seed("a", func(s *Seed) { s.Labels = map[string]string{"env": "dev"} }))
			v.SeedSelector = map[string]string{"env": "prod", "zone": "x"}
			return v
		}(), false, "the seed's labels do not match the seed selector (env, zone)"},
		{"seed-level kind of the seed's provider", func() Values {
			v := values("", seed("a", func(s *Seed) { s.Spec = map[string]any{"provider": map[string]any{"type": "local"}} }))
			v.Resources = []controllerregistration.Resource{resource(controllerregistration.Resource{Kind: "ControlPlane", Type: "local"})}
			return v
		}(), true, "policy OnDemand and ControlPlane/local is used by the seed itself"},
		{"seed-level kind needs a primary resource", func() Values {
			v := values("", seed("a", func(s *Seed) { s.DNSProvider = "local" }))
			secondary := resource(controllerregistration.Resource{Kind: "DNSRecord", Type: "local"})
			secondary.Primary = false
			v.Resources = []controllerregistration.Resource{secondary}
			return v
		}(), false, "policy OnDemand and none of the registration's kinds and types is used on the seed"},
		{"backup provider", func() Values {
			v := values("", seed("a", func(s *Seed) { s.BackupProvider = "local" }))
			v.Resources = []controllerregistration.Resource{resource(controllerregistration.Resource{Kind: "BackupEntry", Type: "local"})}
			return v
		}(), true, "policy OnDemand and BackupEntry/local is used by the seed itself"},
		{"globally enabled extension", func() Values {
			v := values("", seed("a", withShoots))
			v.Resources = []controllerregistration.Resource{resource(controllerregistration.Resource{Kind: "Extension", Type: "audit", GloballyEnabled: ptr(true)})}
			return v
		}(), true, "policy OnDemand and Extension/audit is globally enabled and shoots run on the seed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Installations(tt.v)
			require.Len(t, got, 1)
			assert.Equal(t, Installation{
				Seed: "a", Cluster: "a-cluster", Name: "provider-local-a", Namespace: "extension-provider-local-a",
				Installed: tt.installed, Reason: tt.reason,
			}, got[0])
		})
	}
}

func TestSeedObjects(t *testing.T) {
	v := values("Always", seed("local", func(s *Seed) {
		s.Labels = map[string]string{"env": "dev"}
		s.Annotations = map[string]string{"note": "x"}
		s.Spec = map[string]any{
			"provider": map[string]any{"type": "local", "region": "r1"},
			"ingress":  map[string]any{"domain": "ingress.example.com"},
			"networks": map[string]any{"pods": "10.1.0.0/16", "blockCIDRs": []any{"169.254.169.254/32"}},
			"taints":   []any{map[string]any{"key": ProtectedTaint}},
			"volume":   map[string]any{"providers": []any{map[string]any{"name": "local-path", "purpose": "etcd-main"}}},
			"settings": map[string]any{"scheduling": map[string]any{"visible": false}},
		}
	}))
	v.PodSecurityEnforce = "baseline"
	v.HelmValues = map[string]any{"greeting": "hi", "gardener": map[string]any{"version": "overridden", "extra": "kept"}}
	objs, err := Objects(v)
	require.NoError(t, err)

	// Gardener's docs/extensions/registration.md: the ControllerInstallation refers to registration,
	// deployment and seed.
	ci := rendertest.MustFind(t, objs, "ControllerInstallation", "provider-local-local")
	assert.Equal(t, "core.gardener.cloud/v1beta1", ci.GetAPIVersion())
	assert.Equal(t, map[string]any{
		"registrationRef": map[string]any{"name": "provider-local"},
		"deploymentRef":   map[string]any{"name": "provider-local"},
		"seedRef":         map[string]any{"name": "local"},
	}, ci.Object["spec"])

	// Gardener's "gardenlet" docs/concepts/gardenlet.md: the namespace extension-<installation>, in
	// the seed cluster; Gardener's "Conventions" docs/extensions/conventions.md its pod security.
	ns := rendertest.MustFind(t, objs, "Namespace", "extension-provider-local-local")
	assert.Equal(t, "baseline", ns.GetLabels()["pod-security.kubernetes.io/enforce"])
	assert.Equal(t, "provider-local", ns.GetLabels()["controllerregistration.core.gardener.cloud/name"])

	// Gardener's docs/concepts/gardenlet.md: the ManagedResource in the seed's garden namespace,
	// labelled with the installation.
	mr := rendertest.MustFind(t, objs, "ManagedResource", "provider-local-local")
	assert.Equal(t, "garden", mr.GetNamespace())
	assert.Equal(t, map[string]string{"controllerinstallation-name": "provider-local-local"}, mr.GetLabels())
	assert.Equal(t, "seed", mr.Object["spec"].(map[string]any)["class"])
	clusters := map[string]string{}
	for _, o := range objs {
		clusters[o.Object.GetKind()] = o.Cluster
	}
	assert.Equal(t, map[string]string{
		"ControllerDeployment": "virtual", "ControllerRegistration": "virtual", "ControllerInstallation": "virtual",
		"Namespace": "local-cluster", "Secret": "local-cluster", "ManagedResource": "local-cluster",
	}, clusters)

	// The chart is installed into the installation's namespace with the mix-ins (Gardener's
	// docs/extensions/registration.md).
	secret := rendertest.MustFind(t, objs, "Secret", managedresource.SecretName("provider-local-local"))
	data := secret.Object["stringData"].(map[string]any)
	require.Contains(t, data, "configmap__extension-provider-local-local__provider-local-values.yaml")
	require.Contains(t, data, "deployment__extension-provider-local-local__provider-local.yaml")
	var cm struct {
		Data map[string]string `json:"data"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(data["configmap__extension-provider-local-local__provider-local-values.yaml"].(string)), &cm))
	var seen map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(cm.Data["values.yaml"]), &seen))
	assert.Equal(t, "hi", seen["greeting"])
	assert.Equal(t, map[string]any{
		"version":   "v1.2.3", // the mix-in wins over the static value
		"extra":     "kept",
		"garden":    map[string]any{"clusterIdentity": "garden-id"},
		"gardenlet": map[string]any{"featureGates": map[string]any{}},
		"seed": map[string]any{
			"name": "local", "clusterIdentity": "local", "visible": false, "protected": true,
			"labels": map[string]any{"env": "dev"}, "annotations": map[string]any{"note": "x"},
			"provider": "local", "region": "r1", "ingressDomain": "ingress.example.com",
			"taints":          []any{map[string]any{"key": ProtectedTaint}},
			"networks":        map[string]any{"pods": "10.1.0.0/16", "blockCIDRs": []any{"169.254.169.254/32"}},
			"blockCIDRs":      []any{"169.254.169.254/32"},
			"volumeProviders": []any{map[string]any{"name": "local-path", "purpose": "etcd-main"}},
			"volumeProvider":  "local-path",
			"spec":            v.Seeds[0].Spec,
		},
	}, seen["gardener"])
}

func TestNotInstalledRendersOnlyTheGardenObjects(t *testing.T) {
	objs, err := Objects(values("", seed("a", nil)))
	require.NoError(t, err)
	require.Len(t, objs, 2)
	assert.Equal(t, "ControllerDeployment", objs[0].Object.GetKind())
	assert.Equal(t, "ControllerRegistration", objs[1].Object.GetKind())
	// The registration's deployment is the one rendered with it.
	spec := objs[1].Object.Object["spec"].(map[string]any)
	assert.Equal(t, []any{map[string]any{"name": "provider-local"}}, spec["deployment"].(map[string]any)["deploymentRefs"])
}

func TestRawChartIsStable(t *testing.T) {
	a, err := rawChart("testdata", "chart")
	require.NoError(t, err)
	b, err := rawChart("testdata", "chart")
	require.NoError(t, err)
	assert.Equal(t, a, b)
	assert.True(t, len(a) > 0)
}

func TestRenderOutputs(t *testing.T) {
	out, err := Type.RenderConfig(render.Input{Name: "provider_local", Dir: "testdata", Config: rendertest.JSONConfigOf(t, Type, `{
		"virtual_cluster": {"name": "virtual"}, "name": "provider-local", "chart": "chart", "garden_cluster_identity": "g",
		"resource": [{"kind": "Infrastructure", "type": "local"}], "seeds": `+twoSeeds+`}`)})
	require.NoError(t, err)
	assert.Equal(t, map[string]cty.Value{
		"name":                 cty.StringVal("provider-local"),
		"seeds":                cty.ListVal([]cty.Value{cty.StringVal("local")}),
		"extension_lifecycles": cty.MapValEmpty(controllerregistration.LifecycleType),
	}, out.Outputs)

	out, err = Type.RenderConfig(render.Input{Name: "x", Dir: "testdata", Config: rendertest.JSONConfigOf(t, Type, `{
		"virtual_cluster": {"name": "virtual"}, "chart": "chart", "garden_cluster_identity": "g",
		"resource": [{"kind": "Infrastructure", "type": "local"}]}`)})
	require.NoError(t, err)
	assert.Equal(t, cty.ListValEmpty(cty.String), out.Outputs["seeds"])

	// The lifecycles of its Extension types, Gardener's defaults filled in (Gardener's
	// ControllerResource in docs/api-reference/core.md).
	out, err = Type.RenderConfig(render.Input{Name: "x", Dir: "testdata", Config: rendertest.JSONConfigOf(t, Type, `{
		"virtual_cluster": {"name": "virtual"}, "chart": "chart", "garden_cluster_identity": "g",
		"resource": [{"kind": "Extension", "type": "early", "lifecycle": {"reconcile": "BeforeKubeAPIServer"}}, {"kind": "Extension", "type": "plain"}, {"kind": "Network", "type": "calico"}]}`)})
	require.NoError(t, err)
	lifecycles := out.Outputs["extension_lifecycles"].AsValueMap()
	require.Len(t, lifecycles, 2)
	assert.Equal(t, "BeforeKubeAPIServer", lifecycles["early"].GetAttr("reconcile").AsString())
	assert.Equal(t, "BeforeKubeAPIServer", lifecycles["early"].GetAttr("delete").AsString())
	assert.Equal(t, "AfterKubeAPIServer", lifecycles["plain"].GetAttr("reconcile").AsString())
}

func TestRenderDefers(t *testing.T) {
	_, err := Type.RenderConfig(render.Input{Name: "x", Dir: "testdata", Config: rendertest.JSONConfigOf(t, Type, `{
		"virtual_cluster": {"name": "virtual"}, "chart": "chart", "garden_cluster_identity": "g",
		"resource": [{"kind": "Infrastructure", "type": "local"}],
		"seeds": [{"name": "`+render.UnknownString+`", "cluster": {"name": "c"}}]}`)})
	assert.ErrorIs(t, err, render.ErrDeferred)
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*Values)
		err  string
	}{
		{"no virtual cluster", func(v *Values) { v.VirtualCluster.Name = "" }, "extension provider-local: the virtual cluster is required"},
		{"no garden identity", func(v *Values) { v.GardenClusterIdentity = "" }, "the garden cluster identity is required"},
		{"bad policy", func(v *Values) { v.Policy = "Never" }, `policy "Never" is not one of OnDemand, Always, AlwaysExceptNoShoots`},
		{"selector on a primary", func(v *Values) { v.SeedSelector = map[string]string{"a": "b"} }, "a seed selector is only allowed when every resource has primary = false"},
		{"no resources", func(v *Values) { v.Resources = nil }, "at least one resource is required"},
		{"seed without name", func(v *Values) { v.Seeds = []Seed{{Cluster: decode.Cluster{Name: "c"}}} }, "a seed needs a name"},
		{"seed twice", func(v *Values) { v.Seeds = []Seed{seed("a", nil), seed("a", nil)} }, "seed a is given twice"},
		{"seed without cluster", func(v *Values) { v.Seeds = []Seed{{Name: "a"}} }, "seed a: the cluster is required"},
		{"bad shoot type", func(v *Values) { v.Seeds = []Seed{seed("a", func(s *Seed) { s.ShootTypes = []string{"local"} })} }, `shoot type "local" is not kind/type`},
		{"namespace too long", func(v *Values) {
			v.Seeds = []Seed{seed("a-very-long-seed-name-that-does-not-fit-into-a-label", nil)}
		}, "installation namespace \"extension-provider-local-a-very-long-seed-name-that-does-not-fit-into-a-label\" is invalid"},
		{"no chart", func(v *Values) { v.Chart = "" }, "chart is required"},
		{"missing chart", func(v *Values) { v.Chart = "nope" }, "chart nope:"},
		{"oci chart", func(v *Values) { v.Chart = "oci://example.com/chart" }, "OCI charts are not supported"},
		{"chart fails to render", func(v *Values) {
			v.Policy, v.Chart = "Always", "broken"
		}, "extension provider-local: seed a: rendering the chart: chart broken: rendering: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := values("", seed("a", nil))
			tt.mod(&v)
			_, err := Objects(v)
			assert.ErrorContains(t, err, tt.err)
		})
	}
}
