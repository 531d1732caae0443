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
	"github.com/declarative-gardener/gardener/engine/landscapefs"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/golden"
)

// twoSeeds are a seed whose shoots (declared in the landscape) use the local infrastructure and
// one without shoots.
const twoSeeds = `[
	{"name": "local", "cluster": {"name": "runtime"}, "labels": {"env": "dev"}, "has_shoots": true,
	 "shoot_types": ["Infrastructure/local", "Network/calico"], "provider": "local", "region": "local"},
	{"name": "spare", "cluster": {"name": "spare"}, "labels": {"env": "prod"}, "has_shoots": false, "provider": "aws", "region": "eu-west-1"}]`

// resource is a resource block with its defaults and what r sets.
func resource(r controllerregistration.Resource) controllerregistration.Resource {
	return rendertest.Overlay(controllerregistration.ResourceDefaults(), r)
}

// goldenCase is an extension's configuration rendered against a fake virtual garden.
type goldenCase struct {
	config string
	garden fakeGarden
}

func assertGolden(t *testing.T, name, dir string, cases map[string]goldenCase) {
	t.Helper()
	for file, c := range cases {
		t.Run(file, func(t *testing.T) {
			in := c.garden.input(name, dir)
			in.Config = rendertest.JSONConfigOf(t, Type, c.config)
			out, err := Type.RenderConfig(in)
			require.NoError(t, err)
			golden.AssertBytes(t, file+".txt", renderedText(t, out, in))
		})
	}
}

func TestRenderGolden(t *testing.T) {
	assertGolden(t, "test", "testdata", map[string]goldenCase{
		// OnDemand (Gardener's "ControllerRegistration" docs/extensions/registration.md): the seed
		// whose declared shoots use Infrastructure/local gets it once gardener-controller-manager
		// creates the installation; the other one does not.
		"on-demand": {config: `{"virtual_cluster": {"name": "virtual"}, "chart": "chart", "garden_cluster_identity": "local",
			"values": {"replicas": 2}, "gardener_version": "v1.120.0",
			"resource": [{"kind": "Infrastructure", "type": "local"}, {"kind": "ControlPlane", "type": "local"}],
			"seeds": ` + twoSeeds + `}`},
		// AlwaysExceptNoShoots (Gardener's docs/extensions/registration.md): only the seed with
		// shoots, whose installation exists and is deployed, its conditions reported from its
		// ManagedResource.
		"always-except-no-shoots": {config: `{"virtual_cluster": {"name": "virtual"}, "name": "networking-calico", "chart": "chart",
			"garden_cluster_identity": "local", "policy": "AlwaysExceptNoShoots", "pod_security_enforce": "baseline",
			"resource": [{"kind": "Network", "type": "calico"}], "seeds": ` + twoSeeds + `}`,
			garden: fakeGarden{
				liveInstallationOf("networking-calico-x7k2p", "networking-calico", "local"),
				{"apiVersion": "resources.gardener.cloud/v1alpha1", "kind": "ManagedResource",
					"metadata": map[string]any{"name": "networking-calico-x7k2p", "namespace": "garden", "generation": int64(2)},
					"status": map[string]any{"observedGeneration": int64(2), "conditions": []any{
						map[string]any{"type": "ResourcesApplied", "status": "True"},
						map[string]any{"type": "ResourcesHealthy", "status": "False", "message": "Deployment is unhealthy"},
						map[string]any{"type": "ResourcesProgressing", "status": "False"}}}},
				{"apiVersion": "extensions.gardener.cloud/v1alpha1", "kind": "Network",
					"metadata": map[string]any{"name": "dev", "namespace": "shoot--local--dev"}, "spec": map[string]any{"type": "calico"}},
			}},
		// A secondary controller with a seed selector (Gardener's docs/extensions/registration.md),
		// installed Always where it matches; its installation on the other seed goes.
		"seed-selector": {config: `{"virtual_cluster": {"name": "virtual"}, "name": "shoot-audit", "chart": "chart",
			"garden_cluster_identity": "local", "policy": "Always", "seed_selector": {"env": "prod"},
			"generic_kubeconfig_secret_name": "generic-garden-kubeconfig", "gardenlet_feature_gates": {"Foo": true},
			"resource": [{"kind": "Extension", "type": "shoot-audit", "primary": false}], "seeds": ` + twoSeeds + `}`,
			garden: fakeGarden{liveInstallationOf("shoot-audit-a1b2c", "shoot-audit", "local")}},
	})
}

// TestProviderLocalGolden renders the local landscape's provider-local chart through the
// component, the way landscapes/local installs it on its seed once gardener-controller-manager
// has created its installation.
func TestProviderLocalGolden(t *testing.T) {
	assertGolden(t, "provider_local", "../../landscapes/local", map[string]goldenCase{
		"provider-local": {config: `{"virtual_cluster": {"name": "virtual_garden"}, "name": "provider-local", "chart": "charts/provider-local",
			"garden_cluster_identity": "local", "pod_security_enforce": "restricted", "policy": "Always",
			"resource": [{"kind": "BackupBucket", "type": "local"}, {"kind": "BackupEntry", "type": "local"},
				{"kind": "ControlPlane", "type": "local"}, {"kind": "DNSRecord", "type": "local"},
				{"kind": "Infrastructure", "type": "local"}, {"kind": "OperatingSystemConfig", "type": "local"},
				{"kind": "Worker", "type": "local"}],
			"seeds": [{"name": "local", "cluster": {"name": "runtime"}, "labels": {"base": "kind"}, "has_shoots": true,
				"shoot_types": ["Infrastructure/local"], "dns_provider": "local",
				"spec": {"provider": {"type": "local", "region": "local", "zones": ["0"]},
					"networks": {"pods": "10.1.0.0/16", "services": "10.2.0.0/16"},
					"ingress": {"domain": "ingress.local.seed.local.gardener.cloud"}}}]}`,
			garden: fakeGarden{liveInstallationOf("provider-local-9tq4v", "provider-local", "local")}},
	})
}

// TestNetworkingCalicoGolden renders the local landscape's networking-calico chart through the
// component, the way landscapes/local installs it on its seed: on demand, for its shoots' Calico,
// once a Shoot that needs it exists and gardener-controller-manager has created the installation.
func TestNetworkingCalicoGolden(t *testing.T) {
	assertGolden(t, "networking_calico", "../../landscapes/local", map[string]goldenCase{
		"networking-calico": {config: `{"virtual_cluster": {"name": "virtual_garden"}, "name": "networking-calico", "chart": "charts/networking-calico",
			"garden_cluster_identity": "local", "pod_security_enforce": "baseline",
			"resource": [{"kind": "Network", "type": "calico"}],
			"seeds": [{"name": "local", "cluster": {"name": "runtime"}, "has_shoots": true, "shoot_types": ["Network/calico"],
				"provider": "local", "region": "local"}]}`},
	})
}

// values are an extension's values built as a composite builds them, with policy unless it is "".
func values(policy string, seeds ...Seed) Values {
	return rendertest.Overlay(Type.Defaults(), Values{
		VirtualCluster: decode.Cluster{Name: "virtual"}, Name: "provider-local", Chart: "chart", Paths: landscapefs.New("testdata", landscapefs.Policy{}),
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

// decide renders what gardener-controller-manager decides for the extension's one seed.
func decide(t *testing.T, v Values, g fakeGarden) Installation {
	t.Helper()
	read, err := readGarden(g.input("x", "testdata"), v)
	require.NoError(t, err)
	got := Installations(v, read)
	require.Len(t, got, 1)
	return got[0]
}

func TestInstallations(t *testing.T) {
	withShoots := func(s *Seed) { s.HasShoots = true }
	usesLocal := func(s *Seed) { s.HasShoots, s.ShootTypes = true, []string{"Infrastructure/local"} }
	localShoot := liveShootOf("garden-dev", "user", "a", map[string]any{
		"provider": map[string]any{"type": "local", "workers": []any{map[string]any{"name": "w", "machine": map[string]any{"image": map[string]any{"name": "gardenlinux"}}}}},
	})
	tests := []struct {
		name   string
		v      Values
		garden fakeGarden
		wanted bool
		reason string
	}{
		{"on demand, declared shoots use it", values("", seed("a", usesLocal)), nil, true,
			"policy OnDemand and Infrastructure/local is required by the shoots the landscape declares on the seed"},
		{"on demand, a live shoot uses it", values("", seed("a", nil)), fakeGarden{localShoot}, true,
			"policy OnDemand and Infrastructure/local is required by shoot garden-dev/user"},
		{"on demand, unused", values("OnDemand", seed("a", withShoots)), nil, false,
			"policy OnDemand and none of the registration's kinds and types is required on the seed"},
		{"always", values("Always", seed("a", nil)), nil, true, "policy Always installs it on every selected seed"},
		{"always except no shoots, declared shoots", values("AlwaysExceptNoShoots", seed("a", withShoots)), nil, true,
			"policy AlwaysExceptNoShoots and a shoot the landscape declares is on the seed"},
		{"always except no shoots, none", values("AlwaysExceptNoShoots", seed("a", nil)), nil, false,
			"policy AlwaysExceptNoShoots and no shoots are on the seed"},
		{"seed selector", func() Values {
			v := values("Always", seed("a", func(s *Seed) { s.Labels = map[string]string{"env": "dev"} }))
			v.SeedSelector = map[string]string{"env": "prod", "zone": "x"}
			return v
		}(), nil, false, "the seed's labels do not match the seed selector (env, zone)"},
		{"the seed's provider", values("", seed("a", func(s *Seed) { s.Provider = "local" })), nil, true,
			"policy OnDemand and Infrastructure/local is required by the seed itself"},
		{"a secondary resource counts too", func() Values {
			v := values("", seed("a", func(s *Seed) { s.DNSProvider = "local" }))
			secondary := resource(controllerregistration.Resource{Kind: "DNSRecord", Type: "local"})
			secondary.Primary = false
			v.Resources = []controllerregistration.Resource{secondary}
			return v
		}(), nil, true, "policy OnDemand and DNSRecord/local is required by the seed itself"},
		{"a live BackupBucket on the seed", func() Values {
			v := values("", seed("a", nil))
			v.Resources = []controllerregistration.Resource{resource(controllerregistration.Resource{Kind: "BackupBucket", Type: "local"})}
			return v
		}(), fakeGarden{{"apiVersion": "core.gardener.cloud/v1beta1", "kind": "BackupBucket", "metadata": map[string]any{"name": "bucket"},
			"spec": map[string]any{"seedName": "a", "provider": map[string]any{"type": "local"}}}}, true,
			"policy OnDemand and BackupBucket/local is required by BackupBucket bucket"},
		{"automatically enabled extension", func() Values {
			v := values("", seed("a", nil))
			v.Resources = []controllerregistration.Resource{resource(controllerregistration.Resource{Kind: "Extension", Type: "audit", GloballyEnabled: ptr(true)})}
			return v
		}(), fakeGarden{localShoot}, true, "policy OnDemand and Extension/audit is required by shoot garden-dev/user"},
		{"an installation that reports Required stays", values("", seed("a", nil)), fakeGarden{
			liveInstallationOf("provider-local-q8w2e", "provider-local", "a", map[string]any{"type": "Required", "status": "True"}),
		}, true, "its ControllerInstallation reports Required: extension resources on the seed still use it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decide(t, tt.v, tt.garden)
			assert.NoError(t, got.Blocked)
			assert.Equal(t, tt.wanted, got.Wanted)
			assert.Equal(t, tt.reason, got.Reason)
		})
	}
}

// A shoot whose kind and type no registration serves stops gardener-controller-manager from
// changing any installation of its seed: the plan says so, and predicts nothing for the seed.
func TestBlockedSeed(t *testing.T) {
	v := values("", seed("a", func(s *Seed) { s.Provider, s.ShootTypes = "local", []string{"Network/cilium"} }))
	for _, kind := range []string{"ControlPlane", "Worker"} {
		v.Resources = append(v.Resources, resource(controllerregistration.Resource{Kind: kind, Type: "local"}))
	}
	live := fakeGarden{{"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Seed", "metadata": map[string]any{"name": "a"}}}
	got := decide(t, v, nil)
	assert.NoError(t, got.Blocked, "before the Seed exists, the landscape may register Network/cilium in the same apply")
	assert.True(t, got.Wanted)
	got = decide(t, v, live)
	require.Error(t, got.Blocked)
	prs, notice := predict(v, got)
	assert.Empty(t, prs)
	assert.Equal(t, `gardener-controller-manager changes no ControllerInstallation of seed a while need to install an extension controller for "Network/cilium" but no appropriate ControllerRegistration found`, notice)
}

// The installation's part follows what makes gardener-controller-manager create it: the Seed,
// and the Shoots that need an OnDemand extension the seed does not need itself.
func TestAfter(t *testing.T) {
	seedObj := func(name string) map[string]any {
		return map[string]any{"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Seed", "metadata": map[string]any{"name": name}}
	}
	calicoShoot := liveShootOf("garden-local", "dev", "a", map[string]any{"provider": map[string]any{"type": "local",
		"workers": []any{map[string]any{"name": "w"}}}, "networking": map[string]any{"type": "calico"}})
	otherShoot := liveShootOf("garden-local", "other", "b", map[string]any{"provider": map[string]any{"type": "local",
		"workers": []any{map[string]any{"name": "w"}}}, "networking": map[string]any{"type": "calico"}})
	calico := values("", seed("a", nil))
	calico.Name = "networking-calico"
	calico.Resources = []controllerregistration.Resource{resource(controllerregistration.Resource{Kind: "Network", Type: "calico"})}
	always := values("Always", seed("a", nil))

	after := func(v Values, obj map[string]any) string {
		x := &installer{v: v, seed: v.Seeds[0], gcm: seedOf(v.Seeds[0], nil), registrations: []gcmRegistration{ownRegistration(v)}, policy: policyOf(v)}
		u := fakeGarden{obj}
		items, err := u.matching(resources[obj["kind"].(string)], "", "")
		require.NoError(t, err)
		return x.after("virtual", &items[0])
	}
	assert.Equal(t, "gardener-controller-manager creates the ControllerInstallation of networking-calico for seed a once the Seed exists", after(calico, seedObj("a")))
	assert.Empty(t, after(calico, seedObj("b")))
	assert.Equal(t, "gardener-controller-manager creates the ControllerInstallation of networking-calico for seed a once Shoot garden-local/dev, which needs it, exists", after(calico, calicoShoot))
	assert.Empty(t, after(calico, otherShoot), "a shoot on another seed")
	assert.Empty(t, after(always, calicoShoot), "policy Always: the Seed alone")
}

// The deployment of an installation, as gardenlet makes it: the namespace, the chart with the
// mix-ins and SEED_NAME, the ManagedResource, named after the installation.
func TestDeployment(t *testing.T) {
	v := values("Always", seed("local", func(s *Seed) {
		s.Labels = map[string]string{"env": "dev"}
		s.Annotations = map[string]string{"note": "x"}
		s.Spec = map[string]any{
			"provider": map[string]any{"type": "local", "region": "r1", "zones": []any{"a", "b"}},
			"ingress":  map[string]any{"domain": "ingress.example.com"},
			"networks": map[string]any{"pods": "10.1.0.0/16", "blockCIDRs": []any{"169.254.169.254/32"}},
			"taints":   []any{map[string]any{"key": ProtectedTaint}},
			"volume":   map[string]any{"providers": []any{map[string]any{"name": "local-path", "purpose": "etcd-main"}}},
			"settings": map[string]any{"scheduling": map[string]any{"visible": false}},
		}
	}))
	v.PodSecurityEnforce = "baseline"
	v.HelmValues = map[string]any{"greeting": "hi", "gardener": map[string]any{"version": "overridden", "extra": "kept"}}
	reg, err := renderRegistration(v)
	require.NoError(t, err)
	x := &installer{v: v, seed: v.Seeds[0], values: reg.Values}
	ci := fakeGarden{liveInstallationOf("provider-local-x7k2p", "provider-local", "local")}
	items, err := ci.matching("controllerinstallations", "", "")
	require.NoError(t, err)
	items[0].SetAnnotations(map[string]string{controllerregistration.AnnotationPodSecurityEnforce: "privileged"})
	objs, err := x.deployment(&items[0])
	require.NoError(t, err)

	// The namespace extension-<installation> in the seed, with the pod security the installation
	// carries (gardener-controller-manager copies the registration's) and the seed's zones.
	ns := rendertest.MustFind(t, objs, "Namespace", "extension-provider-local-x7k2p")
	assert.Equal(t, map[string]string{"gardener.cloud/role": "extension", "controllerregistration.core.gardener.cloud/name": "provider-local",
		"high-availability-config.resources.gardener.cloud/consider": "true", "pod-security.kubernetes.io/enforce": "privileged"}, ns.GetLabels())
	assert.Equal(t, map[string]string{"high-availability-config.resources.gardener.cloud/zones": "a,b"}, ns.GetAnnotations())

	// The ManagedResource garden/<installation> of class seed, labelled with the installation.
	mr := rendertest.MustFind(t, objs, "ManagedResource", "provider-local-x7k2p")
	assert.Equal(t, "garden", mr.GetNamespace())
	assert.Equal(t, map[string]string{"controllerinstallation-name": "provider-local-x7k2p"}, mr.GetLabels())
	assert.Equal(t, "seed", mr.Object["spec"].(map[string]any)["class"])
	for _, o := range objs {
		assert.Equal(t, "local-cluster", o.Cluster, "%s %s is in the seed", o.Object.GetKind(), o.Object.GetName())
	}

	// The chart, installed into the installation's namespace with the mix-ins.
	// The Secret the ManagedResource refers to, named after its contents.
	secret := rendertest.PackedSecret(t, objs, "provider-local-x7k2p")
	assert.Regexp(t, "^"+managedresource.SecretName("provider-local-x7k2p")+"-[0-9a-f]{8}$", secret.GetName())
	data := secret.Object["stringData"].(map[string]any)
	var cm struct {
		Data map[string]string `json:"data"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(data["configmap__extension-provider-local-x7k2p__provider-local-values.yaml"].(string)), &cm))
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

	// Every container gets SEED_NAME, once, replacing the chart's own.
	var deployment struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Env []map[string]string `json:"env"`
					} `json:"containers"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(data["deployment__extension-provider-local-x7k2p__provider-local.yaml"].(string)), &deployment))
	assert.Equal(t, []map[string]string{{"name": "SEED_NAME", "value": "local"}}, deployment.Spec.Template.Spec.Containers[0].Env)
}

// The registration part renders only the virtual garden's objects.
func TestRegistrationPart(t *testing.T) {
	reg, err := renderRegistration(values("", seed("a", nil)))
	require.NoError(t, err)
	require.Len(t, reg.Objects, 2)
	assert.Equal(t, "ControllerDeployment", reg.Objects[0].Object.GetKind())
	assert.Equal(t, "ControllerRegistration", reg.Objects[1].Object.GetKind())
	// The registration's deployment is the one rendered with it.
	spec := reg.Objects[1].Object.Object["spec"].(map[string]any)
	assert.Equal(t, []any{map[string]any{"name": "provider-local"}}, spec["deployment"].(map[string]any)["deploymentRefs"])
}

func TestRawChartIsStable(t *testing.T) {
	a, err := rawChart(landscapefs.New("testdata", landscapefs.Policy{}), "chart")
	require.NoError(t, err)
	b, err := rawChart(landscapefs.New("testdata", landscapefs.Policy{}), "chart")
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
		{"seeds with one part", func(v *Values) { v.Seeds = []Seed{seed("a-b", nil), seed("a.b", nil)} }, "seeds a-b and a.b would both be installed by part installation_a_b"},
		{"seed without cluster", func(v *Values) { v.Seeds = []Seed{{Name: "a"}} }, "seed a: the cluster is required"},
		{"bad shoot type", func(v *Values) { v.Seeds = []Seed{seed("a", func(s *Seed) { s.ShootTypes = []string{"local"} })} }, `shoot type "local" is not kind/type`},
		{"namespace too long", func(v *Values) { v.Name = "a-very-long-registration-name-that-does-not-fit-into-a-label" },
			`installation namespace "extension-a-very-long-registration-name-that-does-not-fit-into-a-label-xxxxx" is invalid`},
		{"no chart", func(v *Values) { v.Chart = "" }, "chart is required"},
		{"missing chart", func(v *Values) { v.Chart = "nope" }, "chart nope:"},
		{"oci chart", func(v *Values) { v.Chart = "oci://example.com/chart" }, "OCI charts are not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := values("", seed("a", nil))
			tt.mod(&v)
			_, err := renderRegistration(v)
			assert.ErrorContains(t, err, tt.err)
		})
	}

	// A chart that fails to render fails the installation's part, once there is an installation.
	v := values("Always", seed("a", nil))
	v.Chart = "broken"
	reg, err := renderRegistration(v)
	require.NoError(t, err)
	x := &installer{v: v, seed: v.Seeds[0], values: reg.Values}
	_, err = x.render(fakeGarden{liveInstallationOf("provider-local-x7k2p", "provider-local", "a")}.input("x", "testdata"))
	assert.ErrorContains(t, err, "seed a: rendering the chart: chart broken: rendering: ")
}
