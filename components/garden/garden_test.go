package garden

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/gardenercontrollermanager"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/projectcontroller"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/golden"
)

func values(mutate func(*Values)) Values {
	v := Values{Cluster: decode.Cluster{Name: "runtime"}, VirtualGarden: &decode.Cluster{Name: "virtual_garden"}, AdmissionWebhooks: true}
	v.RuntimeCluster.Ingress.Domains = []string{"ingress.garden.example.com"}
	v.VirtualCluster.DNSDomains = []string{"virtual-garden.example.com"}
	v.VirtualCluster.Networking.Services = "100.64.0.0/13"
	v.VirtualCluster.Kubernetes.Version = "1.31.1"
	v.RuntimeCluster.Settings = &RuntimeSettings{VerticalPodAutoscalerEnabled: true}
	v.VirtualCluster.Gardener = &Gardener{}
	v.VirtualCluster.Gardener.APIServer = &struct {
		AuditPolicyConfigMap  string          `json:"audit_policy_config_map"`
		EncryptedResources    []string        `json:"encrypted_resources"`
		WatchCacheDefaultSize *int            `json:"watch_cache_default_size"`
		RegisterAPIServices   bool            `json:"register_api_services"`
		FeatureGates          map[string]bool `json:"feature_gates"`
	}{RegisterAPIServices: true}
	if mutate != nil {
		mutate(&v)
	}
	return v
}

func partsOf(t *testing.T, v Values) map[string]render.Component {
	parts, err := Parts("local", v)
	require.NoError(t, err)
	out := map[string]render.Component{}
	for _, p := range parts {
		out[p.Name] = p
	}
	return out
}

func TestGardenGolden(t *testing.T) {
	for name, v := range map[string]Values{
		"default": values(nil),
		"high-availability": values(func(v *Values) {
			v.VirtualCluster.HighAvailability = true
			v.Images = map[string]string{"gardener-apiserver": "mirror.example.com/gardener/apiserver:v1.121.0"}
			v.VirtualCluster.Gardener.Version = "v1.120.2"
		}),
	} {
		t.Run(name, func(t *testing.T) {
			parts, err := Parts("local", v)
			require.NoError(t, err)
			golden.AssertBytes(t, name+".txt", rendertest.Parts(t, parts))
		})
	}
}

// The documented order of gardener-operator's Garden flow (Gardener's "Gardener Operator"
// docs/concepts/operator.md, "Scoped API Access for gardenlets and Extensions"
// docs/deployment/gardenlet_api_access.md, "Topology Aware Routing"
// docs/operations/topology_aware_routing.md).
func TestGardenOrder(t *testing.T) {
	parts := partsOf(t, values(nil))
	deps := func(name string) []string { return parts[name].DependsOn }
	assert.Subset(t, deps("gardener_resource_manager"), []string{"priority_classes", "garden_namespace"}, "the GRM runs with the garden's priority classes")
	for _, system := range []string{"vpa", "etcd_druid", "istio", "nginx_ingress"} {
		assert.Contains(t, deps(system), "gardener_resource_manager", "%s comes after the GRM, which is deployed first (Gardener's docs/concepts/operator.md)", system)
		for _, etcdPart := range []string{"virtual_garden_etcd_main", "virtual_garden_etcd_events"} {
			assert.Contains(t, deps(etcdPart), system, "the virtual garden comes after all system components (Gardener's docs/concepts/operator.md)")
		}
	}
	assert.Subset(t, deps("virtual_garden_kube_apiserver"), []string{"virtual_garden_etcd_main", "virtual_garden_etcd_events", "istio"})
	assert.Contains(t, deps("virtual_garden_kube_controller_manager"), "virtual_garden_kube_apiserver")
	assert.Subset(t, deps("gardener_apiserver"), []string{"virtual_garden_kube_apiserver", "virtual_garden_etcd_main"}, "gardener-apiserver reuses the main etcd (Gardener's docs/operations/topology_aware_routing.md)")
	for _, p := range []string{"gardener_admission_controller", "gardener_controller_manager", "gardener_scheduler"} {
		assert.Contains(t, deps(p), "gardener_apiserver", "%s starts after gardener-apiserver (Gardener's docs/deployment/gardenlet_api_access.md)", p)
	}
	assert.Equal(t, []string{"ca_etcd"}, deps("etcd_client_tls"), "certificates come after their CA")
}

func objectsOf(p render.Component, kind string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range p.Objects {
		if o.Object.GetKind() == kind {
			out = append(out, o.Object)
		}
	}
	return out
}

func TestGardenHighAvailability(t *testing.T) {
	for _, ha := range []bool{false, true} {
		parts := partsOf(t, values(func(v *Values) { v.VirtualCluster.HighAvailability = ha }))
		want := int64(1)
		if ha {
			want = 3 // Gardener's docs/concepts/operator.md
		}
		for _, part := range []string{"virtual_garden_etcd_main", "virtual_garden_etcd_events"} {
			etcds := objectsOf(parts[part], "Etcd")
			require.Len(t, etcds, 1)
			replicas, _, _ := unstructured.NestedInt64(etcds[0].Object, "spec", "replicas")
			assert.Equal(t, want, replicas, "%s with high availability %v", part, ha)
		}
		_, peer := parts["ca_etcd_peer"]
		assert.Equal(t, ha, peer, "peers talk TLS with their own CA only with several members")
	}
}

func TestGardenSwitches(t *testing.T) {
	local := partsOf(t, values(func(v *Values) {
		v.AdmissionWebhooks = false
		v.VirtualCluster.Gardener.APIServer.RegisterAPIServices = false
		v.RuntimeCluster.Settings.VerticalPodAutoscalerEnabled = false
	}))
	for name, p := range local {
		assert.Empty(t, objectsOf(p, "APIService"), name)
		assert.Empty(t, objectsOf(p, "MutatingWebhookConfiguration"), name)
		assert.Empty(t, objectsOf(p, "ValidatingWebhookConfiguration"), name)
	}
	assert.NotContains(t, local, "vpa", "the VPA is left to the runtime cluster when disabled (Gardener's docs/concepts/operator.md)")
	assert.Contains(t, local, "observability", "observability is on unless switched off")
	assert.Equal(t, []string{"gardener_resource_manager", "nginx_ingress", "plutono_admin"}, local["observability"].DependsOn)
	off := partsOf(t, values(func(v *Values) { v.Observability = &Observability{} }))
	assert.NotContains(t, off, "observability")
	assert.NotContains(t, off, "plutono_admin")

	full := partsOf(t, values(nil))
	services := objectsOf(full["gardener_apiserver"], "APIService")
	require.NotEmpty(t, services)
	for _, o := range full["gardener_apiserver"].Objects {
		if o.Object.GetKind() == "APIService" {
			assert.Equal(t, "virtual_garden", o.Cluster, "APIServices are registered in the virtual garden")
			bundle, _, _ := unstructured.NestedString(o.Object.Object, "spec", "caBundle")
			assert.Equal(t, render.GeneratedRef(Namespace, secretGardenerCA, "ca.crt", true), bundle, "the engine fills in the generated CA")
		}
	}
	assert.NotEmpty(t, objectsOf(full["gardener_resource_manager"], "MutatingWebhookConfiguration"))
}

// The project controllers' settings of the garden's controller_manager block reach
// gardener-controller-manager's configuration and the garden's output project_controller, which
// projects read for their predictions: one definition for both.
func TestGardenProjectControllerSettings(t *testing.T) {
	v := values(func(v *Values) {
		cm := &ControllerManager{Values: gardenercontrollermanager.Type.Defaults().Values}
		cm.StaleExpirationTimeDays = 7
		cm.Quotas = []projectcontroller.Quota{{Hard: map[string]string{"count/secrets": "800"}}}
		v.VirtualCluster.Gardener.ControllerManager = cm
	})
	cfgMap := objectsOf(partsOf(t, v)["gardener_controller_manager"], "ConfigMap")
	require.Len(t, cfgMap, 1)
	data, _, _ := unstructured.NestedString(cfgMap[0].Object, "data", "config.yaml")
	var cfg map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(data), &cfg))
	project, _, _ := unstructured.NestedMap(cfg, "controllers", "project")
	assert.Equal(t, float64(7), project["staleExpirationTimeDays"])
	assert.Len(t, project["quotas"], 1)

	g, err := newBuilder("local", v)
	require.NoError(t, err)
	out := g.outputs()[projectcontroller.OutputName]
	assert.Equal(t, "7", out.GetAttr("stale_expiration_time_days").AsBigFloat().String())
	assert.Equal(t, "800", out.GetAttr("quotas").Index(cty.NumberIntVal(0)).GetAttr("hard").Index(cty.StringVal("count/secrets")).AsString())

	// Without the block, gardener-controller-manager's defaults.
	g, err = newBuilder("local", values(nil))
	require.NoError(t, err)
	assert.Equal(t, "90", g.outputs()[projectcontroller.OutputName].GetAttr("stale_expiration_time_days").AsBigFloat().String())
}

func TestGardenErrors(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Values)
		want   string
	}{
		{"no virtual garden", func(v *Values) { v.VirtualGarden = nil }, "virtual_garden is not set"},
		{"no domain", func(v *Values) { v.VirtualCluster.DNSDomains = nil }, "dns_domains needs at least one domain"},
		{"dashboard", func(v *Values) {
			v.VirtualCluster.Gardener.Dashboard = &struct {
				Enabled          bool   `json:"enabled"`
				EnableTokenLogin bool   `json:"enable_token_login"`
				LogLevel         string `json:"log_level"`
			}{Enabled: true}
		}, "dashboard is not in the component catalog yet"},
		{"old kubernetes with custom resources encrypted", func(v *Values) {
			v.VirtualCluster.Kubernetes.Version = "1.25.3"
			v.VirtualCluster.Kubernetes.KubeAPIServer = &struct {
				AuditPolicyConfigMap string          `json:"audit_policy_config_map"`
				EventTTL             string          `json:"event_ttl"`
				EncryptedResources   []string        `json:"encrypted_resources"`
				FeatureGates         map[string]bool `json:"feature_gates"`
			}{EncryptedResources: []string{"shoots.core.gardener.cloud"}}
		}, "encrypted_resources"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parts("local", values(tt.mutate))
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

// The controller_manager block's shoot loop settings configure gardener-controller-manager, and
// the garden hands the same values to its seeds (output gardener_controller_manager); what the
// block leaves out is the component's default.
func TestControllerManagerShootLoops(t *testing.T) {
	restart := false
	v := values(func(v *Values) {
		v.VirtualCluster.Gardener.ControllerManager = &ControllerManager{ShootRetryPeriod: "3m", ShootMaintenanceRestartControlPlane: &restart}
	})
	g, err := newBuilder("local", v)
	require.NoError(t, err)
	require.NoError(t, g.build())
	loops := g.outputs()["gardener_controller_manager"].AsValueMap()
	assert.Equal(t, "3m", loops["retry_period"].AsString())
	assert.Equal(t, "5m", loops["retry_jitter_period"].AsString(), "the component's default")
	assert.Equal(t, "2h", loops["hibernation_trigger_deadline"].AsString(), "the component's default")
	assert.False(t, loops["maintenance_restart_control_plane"].True())
	var gcm render.Component
	for _, p := range g.parts {
		if p.Name == "gardener_controller_manager" {
			gcm = p
		}
	}
	cfg, _, _ := unstructured.NestedString(rendertest.MustFind(t, gcm.Objects, "ConfigMap", "gardener-controller-manager-config").Object, "data", "config.yaml")
	assert.Contains(t, cfg, "retryPeriod: 3m")
	assert.Contains(t, cfg, "enableShootControlPlaneRestarter: false")
}
