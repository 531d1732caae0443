package shoot

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/render"
)

// asGardenerHoldsIt is the Shoot as gardener-apiserver holds it once a client wrote shoot: the
// defaulting of SetObjectDefaults_Shoot (pkg/apis/core/v1beta1/defaults_shoot.go at Gardener
// v1.120.0) and the kubelet reservation of ShootResourceReservation
// (plugin/pkg/shoot/resourcereservation/admission.go) applied to its JSON, with durations and
// IntOrStrings as the API serialises them, and window as the maintenance time window Gardener
// picks at random for a Shoot without one. It works on the JSON, apart from withAPIDefaults,
// which works on the shoot block's values.
func asGardenerHoldsIt(t *testing.T, shoot *unstructured.Unstructured, window [2]string) *unstructured.Unstructured {
	t.Helper()
	live := shoot.DeepCopy()
	spec := live.Object["spec"].(map[string]any)
	sub := func(m map[string]any, key string) map[string]any {
		if s, ok := m[key].(map[string]any); ok {
			return s
		}
		s := map[string]any{}
		m[key] = s
		return s
	}
	def := func(m map[string]any, key string, v any) {
		if _, ok := m[key]; !ok {
			m[key] = v
		}
	}
	duration := func(m map[string]any, key string, d time.Duration) {
		s, ok := m[key].(string)
		if !ok {
			if d != 0 {
				m[key] = d.String()
			}
			return
		}
		parsed, err := time.ParseDuration(s)
		require.NoError(t, err)
		m[key] = parsed.String()
	}
	workers, _ := sub(spec, "provider")["workers"].([]any)
	kubernetes := sub(spec, "kubernetes")
	api := sub(kubernetes, "kubeAPIServer")
	def(spec, "purpose", "evaluation")
	if live.GetNamespace() == "garden" {
		tolerations, _ := spec["tolerations"].([]any)
		spec["tolerations"] = append(tolerations, map[string]any{"key": "seed.gardener.cloud/protected"})
	}
	maintenance := sub(spec, "maintenance")
	def(sub(maintenance, "autoUpdate"), "kubernetesVersion", true)
	def(maintenance, "timeWindow", map[string]any{"begin": window[0], "end": window[1]})
	networking := sub(spec, "networking")
	def(networking, "ipFamilies", []any{"IPv4"})
	for _, w := range workers {
		worker := w.(map[string]any)
		def(sub(worker, "machine"), "architecture", "amd64")
		def(worker, "cri", map[string]any{"name": "containerd"})
		def(worker, "maxSurge", int64(1))
		def(worker, "maxUnavailable", int64(0))
		def(worker, "systemComponents", map[string]any{"allow": true})
		def(worker, "updateStrategy", "AutoRollingUpdate")
	}
	if len(workers) > 0 {
		def(api, "defaultNotReadyTolerationSeconds", int64(300))
		def(api, "defaultUnreachableTolerationSeconds", int64(300))
		kcm := sub(kubernetes, "kubeControllerManager")
		mask := int64(24)
		if f, _ := networking["ipFamilies"].([]any); len(f) == 1 && f[0] == "IPv6" {
			mask = 64
		}
		def(kcm, "nodeCIDRMaskSize", mask)
		duration(kcm, "nodeMonitorGracePeriod", 40*time.Second)
		def(sub(kubernetes, "kubeScheduler"), "profile", "balanced")
		proxy := sub(kubernetes, "kubeProxy")
		def(proxy, "mode", "IPTables")
		def(proxy, "enabled", true)
		def(sub(sub(spec, "addons"), "kubernetesDashboard"), "authenticationMode", "token")
		kubelet := sub(kubernetes, "kubelet")
		def(kubelet, "failSwapOn", true)
		def(kubelet, "imageMinimumGCAge", "2m0s")
		def(kubelet, "imageMaximumGCAge", "0s")
		def(kubelet, "imageGCHighThresholdPercent", int64(50))
		def(kubelet, "imageGCLowThresholdPercent", int64(40))
		def(kubelet, "serializeImagePulls", true)
		def(kubelet, "kubeReserved", map[string]any{"cpu": "80m", "memory": "1Gi", "pid": "20k"})
		def(sub(maintenance, "autoUpdate"), "machineImageVersion", true)
		def(sub(sub(sub(spec, "provider"), "workersSettings"), "sshAccess"), "enabled", true)
		autoscaling := sub(sub(sub(spec, "systemComponents"), "coreDNS"), "autoscaling")
		if m := autoscaling["mode"]; m != "horizontal" && m != "cluster-proportional" {
			autoscaling["mode"] = "horizontal"
		}
	}
	if addons, ok := spec["addons"].(map[string]any); ok {
		if n, ok := addons["nginxIngress"].(map[string]any); ok {
			def(n, "externalTrafficPolicy", "Cluster")
		}
	}
	// SetDefaults_KubeAPIServerConfig
	def(api, "requests", map[string]any{"maxNonMutatingInflight": int64(400), "maxMutatingInflight": int64(200)})
	def(api, "enableAnonymousAuthentication", false)
	duration(api, "eventTTL", time.Hour)
	def(api, "logging", map[string]any{"verbosity": int64(2)})
	if sa, ok := api["serviceAccountConfig"].(map[string]any); ok {
		duration(sa, "maxTokenExpiration", 0)
	}
	def(spec, "schedulerName", "default-scheduler")
	live.SetUID("4b5c8f3e-0000-4000-8000-000000000001")
	live.SetAnnotations(nil)
	return live
}

// randomWindow stands for the maintenance time window gardener-apiserver picks for a Shoot
// without one.
var randomWindow = [2]string{"130000+0000", "140000+0000"}

// TestControlPlaneFromTheDefaultedShoot: a shoot block's control plane is the one rendered from
// its Shoot as gardener-apiserver holds it, with the defaults it filled in for what the landscape
// left out, before the Shoot exists (Parts, no live Shoot) and after (the block's render with the
// live Shoot); only the Shoot is the block's alone, and it carries none of the defaults.
func TestControlPlaneFromTheDefaultedShoot(t *testing.T) {
	cases := map[string]func(*Values){
		"workers":    withDNS,
		"workerless": func(v *Values) { withDNS(v); workerless(v) },
		"hibernated and highly available": func(v *Values) {
			withDNS(v)
			hibernated(v)
			ha(FailureToleranceNode)(v)
		},
		"in the garden project": func(v *Values) { v.Project = "garden" },
		"settings in other forms than the API's": func(v *Values) {
			v.Kubernetes.KubeAPIServer = &KubeAPIServer{EventTTL: "90m", MaxTokenExpiration: "720h"}
			v.Kubernetes.KubeControllerManager = &struct {
				NodeCIDRMaskSize       *int32          `json:"node_cidr_mask_size"`
				NodeMonitorGracePeriod string          `json:"node_monitor_grace_period"`
				FeatureGates           map[string]bool `json:"feature_gates"`
			}{NodeMonitorGracePeriod: "1m"}
			v.Kubernetes.KubeProxy = &KubeProxy{Enabled: true, Mode: "IPVS"}
			v.Addons = &Addons{NginxIngress: &struct {
				Enabled                  bool              `json:"enabled"`
				LoadBalancerSourceRanges []string          `json:"load_balancer_source_ranges"`
				Config                   map[string]string `json:"config"`
				ExternalTrafficPolicy    string            `json:"external_traffic_policy"`
			}{Enabled: true}}
			v.SystemComponents = &SystemComponents{NodeLocalDNSEnabled: true}
			v.Workers[0].MaxSurge = "25%"
		},
		"declared window and auto updates": func(v *Values) {
			v.Maintenance = &Maintenance{AutoUpdate: &AutoUpdate{KubernetesVersion: false, MachineImageVersion: true}}
			v.Maintenance.TimeWindow = &struct {
				Begin string `json:"begin"`
				End   string `json:"end"`
			}{Begin: "220000+0000", End: "230000+0000"}
		},
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			v := values(mutate)
			before := byName(t, newParts(t, v))
			written := find(t, before["shoot"], "Shoot", "dev")
			live := asGardenerHoldsIt(t, written, randomWindow)
			observe := observingApplied(live)
			in := render.Input{Name: "dev", Now: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC), Observe: observe}
			after, err := Type.Render(in, v)
			require.NoError(t, err)
			fromAPI, err := RenderFromAPI(in, live, APIContext{
				Project: v.Project, Seed: *v.Seed, InternalDomain: v.InternalDomain, DefaultDomain: v.DefaultDomain,
				ExtensionLifecycles: v.ExtensionLifecycles,
			})
			require.NoError(t, err)
			api := map[string]render.Component{}
			for _, p := range fromAPI.Components {
				api[p.Name] = p
			}
			declared := map[string]render.Component{}
			for _, p := range after.Components {
				declared[p.Name] = p
			}

			// The Shoot: the landscape's values alone, before and after.
			assert.Equal(t, written.Object["spec"], find(t, declared["shoot"], "Shoot", "dev").Object["spec"])
			spec := written.Object["spec"].(map[string]any)
			kas, _ := spec["kubernetes"].(map[string]any)["kubeAPIServer"].(map[string]any)
			assert.NotContains(t, kas, "enableAnonymousAuthentication", "the engine does not send what gardener-apiserver defaults")
			if v.Kubernetes.KubeAPIServer != nil {
				assert.Equal(t, v.Kubernetes.KubeAPIServer.EventTTL, kas["eventTTL"], "the landscape's form")
			}
			if v.Maintenance == nil {
				assert.NotContains(t, spec, "maintenance")
			}
			pools, _ := spec["provider"].(map[string]any)["workers"].([]any)
			for _, w := range pools {
				assert.NotContains(t, w, "cri")
			}
			delete(before, "shoot")
			delete(declared, "shoot")

			require.ElementsMatch(t, keys(declared), keys(api))
			require.ElementsMatch(t, keys(before), keys(api))
			for part, want := range api {
				assert.Equal(t, want.Objects, declared[part].Objects, "%s: after the Shoot exists", part)
				assert.Equal(t, want.Secret, declared[part].Secret, part)
				assert.Equal(t, want.Copy, declared[part].Copy, part)
				// Before the Shoot exists, the window Gardener will pick is a marker the plan or
				// apply fills in from the Shoot, and what its uid decides is rendered once it exists.
				assert.Equal(t, resolved(t, want.Objects, observe), resolved(t, awaitedObjects(t, before[part], in), observe), "%s: before the Shoot exists", part)
			}
		})
	}
}

// resolved are objects with their render.LiveValue markers filled in from lookup.
func resolved(t *testing.T, objects []render.Object, lookup render.LiveLookup) []render.Object {
	t.Helper()
	if objects == nil {
		return nil
	}
	out := make([]render.Object, len(objects))
	for i, o := range objects {
		obj, _, err := render.ResolveLiveObject(o.Object.Object, lookup)
		require.NoError(t, err)
		o.Object = &unstructured.Unstructured{Object: obj}
		out[i] = o
	}
	return out
}

// TestWithAPIDefaults: the values of a Shoot read from the API have every default already, and
// the defaults never change the values they were taken from.
func TestWithAPIDefaults(t *testing.T) {
	for name, mutate := range map[string]func(*Values){"workers": nil, "workerless": workerless, "garden project": func(v *Values) { v.Project = "garden" }} {
		t.Run(name, func(t *testing.T) {
			v := values(mutate)
			keep := cloneValues(v)
			defaulted := withAPIDefaults(v, ProjectNamespace(v.Project))
			assert.Equal(t, keep, v, "the landscape's values stay as they are")
			live := asGardenerHoldsIt(t, find(t, parts(t, v)["shoot"], "Shoot", "dev"), randomWindow)
			read, err := ValuesFromShoot(live)
			require.NoError(t, err)
			assert.Equal(t, read, withAPIDefaults(read, live.GetNamespace()), "a Shoot from the API has its defaults")
			assert.Equal(t, "1h0m0s", defaulted.Kubernetes.KubeAPIServer.EventTTL)
			if len(v.Workers) > 0 {
				assert.Equal(t, "40s", defaulted.Kubernetes.KubeControllerManager.NodeMonitorGracePeriod)
				assert.Equal(t, int32(24), *defaulted.Kubernetes.KubeControllerManager.NodeCIDRMaskSize)
			} else {
				assert.Nil(t, defaulted.Kubernetes.KubeControllerManager, "a workerless Shoot's controller manager has no defaults")
			}
		})
	}
	ipv6 := values(func(v *Values) { v.Networking.IPFamilies = []string{"IPv6"} })
	assert.Equal(t, int32(64), *withAPIDefaults(ipv6, "garden-local").Kubernetes.KubeControllerManager.NodeCIDRMaskSize)
}
