package etcd

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func metadataAnnotations(t *testing.T, v Values) map[string]string {
	t.Helper()
	objs, err := Objects(v)
	require.NoError(t, err)
	return objs[0].Object.GetAnnotations()
}

// TestGardenerFacts: each field of the Etcd as Gardener's etcd component writes it for an
// important (main) and a normal (events) etcd (pkg/component/etcd/etcd/etcd.go and its
// etcd_test.go at Gardener v1.120.0).
func TestGardenerFacts(t *testing.T) {
	for _, tc := range []struct {
		name                      string
		v                         Values
		metrics                   string
		etcdRequests, brRequests  map[string]any
		safeToEvict, allowEvicted bool
	}{
		{"shoot main", shootValues(Values{Role: RoleMain}), "extensive",
			map[string]any{"cpu": "150m", "memory": "500M"}, map[string]any{"cpu": "20m", "memory": "80Mi"}, true, false},
		{"shoot main HA", shootValues(Values{Role: RoleMain, HighAvailability: true}), "extensive",
			map[string]any{"cpu": "150m", "memory": "500M"}, map[string]any{"cpu": "20m", "memory": "80Mi"}, false, false},
		{"shoot events", shootValues(Values{Role: RoleEvents}), "basic",
			map[string]any{"cpu": "30m", "memory": "150M"}, map[string]any{"cpu": "10m", "memory": "40Mi"}, false, true},
		{"garden main", values(Values{Role: RoleMain}), "extensive",
			map[string]any{"cpu": "150m", "memory": "500M"}, map[string]any{"cpu": "20m", "memory": "80Mi"}, true, false},
		{"garden events HA", values(Values{Role: RoleEvents, HighAvailability: true}), "basic",
			map[string]any{"cpu": "30m", "memory": "150M"}, map[string]any{"cpu": "10m", "memory": "40Mi"}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := spec(t, tc.v)
			e := s["etcd"].(map[string]any)
			b := s["backup"].(map[string]any)
			assert.Equal(t, tc.metrics, e["metrics"])
			assert.Equal(t, "8Gi", e["quota"])
			assert.Equal(t, map[string]any{"requests": tc.etcdRequests}, e["resources"])
			assert.Equal(t, map[string]any{"requests": tc.brRequests}, b["resources"])
			assert.Equal(t, map[string]any{"requests": map[string]any{"cpu": "600m", "memory": "3Gi"}}, b["compactionResources"])
			assert.Equal(t, int64(2380), e["serverPort"])
			assert.Equal(t, int64(2379), e["clientPort"])
			assert.Equal(t, int64(8080), b["port"])
			// The backup-restore server is served with etcd's own client TLS.
			assert.Equal(t, e["clientUrlTls"], b["tls"])

			if tc.safeToEvict {
				assert.Equal(t, map[string]any{"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"}, s["annotations"])
			} else {
				assert.NotContains(t, s, "annotations")
			}
			if tc.allowEvicted {
				assert.Equal(t, map[string]string{"resources.druid.gardener.cloud/allow-unhealthy-pod-eviction": ""}, metadataAnnotations(t, tc.v))
			} else {
				assert.Empty(t, metadataAnnotations(t, tc.v))
			}

			labels := s["labels"].(map[string]any)
			for _, l := range []string{"to-dns", "to-public-networks", "to-private-networks", "to-runtime-apiserver"} {
				assert.Equal(t, "allowed", labels["networking.gardener.cloud/"+l], l)
			}
			peer := PeerLabels(tc.v.NamePrefix, tc.v.Role)
			for k := range peer {
				if tc.v.HighAvailability {
					assert.Equal(t, "allowed", labels[k], k)
				} else {
					assert.NotContains(t, labels, k)
				}
			}

			// Gardener leaves the images to etcd-druid's image vector and sets no compaction or
			// scheduling settings: gardener-resource-manager's high-availability webhook spreads
			// the members.
			assert.NotContains(t, e, "image")
			assert.NotContains(t, b, "image")
			assert.NotContains(t, s, "sharedConfig")
			assert.NotContains(t, s, "schedulingConstraints")
		})
	}
}

// TestPeerLabels: the members of a multi-member etcd reach each other's client, peer and
// backup-restore ports (NetworkPolicyLabel of the client Service in
// pkg/utils/gardener/networkpolicy.go at Gardener v1.120.0).
func TestPeerLabels(t *testing.T) {
	assert.Equal(t, map[string]string{
		"networking.resources.gardener.cloud/to-etcd-main-client-tcp-2379": "allowed",
		"networking.resources.gardener.cloud/to-etcd-main-client-tcp-2380": "allowed",
		"networking.resources.gardener.cloud/to-etcd-main-client-tcp-8080": "allowed",
	}, PeerLabels("", RoleMain))
	assert.Contains(t, PeerLabels(DefaultNamePrefix, RoleEvents), "networking.resources.gardener.cloud/to-virtual-garden-etcd-events-client-tcp-2380")
}

// TestClientServiceAnnotations: the client Service lets the scrape targets' Prometheus in on the
// client and backup-restore ports; a shoot's also lets the garden namespace and every shoot's
// Prometheus in (pkg/component/etcd/etcd/etcd.go and etcd_test.go at Gardener v1.120.0).
func TestClientServiceAnnotations(t *testing.T) {
	ports := `[{"protocol":"TCP","port":2379},{"protocol":"TCP","port":8080}]`
	shoot := spec(t, shootValues(Values{Role: RoleMain}))["etcd"].(map[string]any)["clientService"]
	assert.Equal(t, map[string]any{"annotations": map[string]any{
		"networking.resources.gardener.cloud/from-all-scrape-targets-allowed-ports": ports,
		"networking.resources.gardener.cloud/namespace-selectors":                   `[{"matchLabels":{"kubernetes.io/metadata.name":"garden"}}]`,
		"networking.resources.gardener.cloud/pod-label-selector-namespace-alias":    "all-shoots",
	}}, shoot)
	garden := spec(t, values(Values{Role: RoleMain}))["etcd"].(map[string]any)["clientService"]
	assert.Equal(t, map[string]any{"annotations": map[string]any{
		"networking.resources.gardener.cloud/from-all-garden-scrape-targets-allowed-ports": ports,
	}}, garden)
}

// TestTopologyAwareRouting: the client Service asks for zone-local routing in the form the
// runtime cluster's version understands (ReconcileTopologyAwareRoutingSettings in
// pkg/utils/gardener/topology_aware_routing.go at Gardener v1.120.0).
func TestTopologyAwareRouting(t *testing.T) {
	hints := map[string]any{"endpoint-slice-hints.resources.gardener.cloud/consider": "true"}
	for _, tc := range []struct {
		version      string
		distribution any
		labels       any
		topologyMode any
	}{
		{"", nil, hints, "auto"},
		{"1.30.4", nil, hints, "auto"},
		{"1.31.0", "PreferClose", hints, nil},
		{"v1.32.1", "PreferClose", nil, nil},
		{"1.33.0", "PreferClose", nil, nil},
	} {
		t.Run(tc.version, func(t *testing.T) {
			s := spec(t, shootValues(Values{Role: RoleEvents, TopologyAwareRouting: true, RuntimeKubernetesVersion: tc.version}))
			cs := s["etcd"].(map[string]any)["clientService"].(map[string]any)
			assert.Equal(t, tc.distribution, cs["trafficDistribution"])
			assert.Equal(t, tc.labels, cs["labels"])
			assert.Equal(t, tc.topologyMode, cs["annotations"].(map[string]any)["service.kubernetes.io/topology-mode"])
		})
	}
	_, err := Objects(shootValues(Values{Role: RoleMain, TopologyAwareRouting: true, RuntimeKubernetesVersion: "latest"}))
	assert.ErrorContains(t, err, `runtime_kubernetes_version "latest" is not a Kubernetes 1.x version`)
}

// TestImageOverrides: only an image the landscape overrides is named in the Etcd.
func TestImageOverrides(t *testing.T) {
	s := spec(t, values(Values{Role: RoleMain, Images: map[string]string{"etcd-wrapper": "registry.example/etcd-wrapper:v0.5.1"}}))
	assert.Equal(t, "registry.example/etcd-wrapper:v0.5.1", s["etcd"].(map[string]any)["image"])
	assert.NotContains(t, s["backup"], "image")
}

// TestSchedule: Gardener's placement of the etcd schedules (pkg/utils/timewindow/schedule.go at
// Gardener v1.120.0) and its own example in schedule_test.go: for the uid "uid" and the window
// 14:00-22:00 UTC, 15:10 inside the window and 12:55 in the hour before it.
func TestSchedule(t *testing.T) {
	created := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	for _, tc := range []struct {
		name, format, begin, end string
		placement                Placement
		want                     string
	}{
		{"inside the window", "%d %d", "140000+0000", "220000+0000", InWindow, "10 15"},
		{"before the window", "%d %d", "140000+0000", "220000+0000", HourBeforeWindow, "55 12"},
		{"a window in another zone is read in UTC", "%d %d", "150000+0100", "230000+0100", InWindow, "10 15"},
		{"defragmentation of a shoot", EveryThirdDay, "140000+0000", "220000+0000", InWindow, "10 15 */3 * *"},
		{"full snapshot", Daily, "140000+0000", "220000+0000", HourBeforeWindow, "55 12 * * *"},
		// The uid's checksum is 70 modulo the 480 minutes above, so 70 modulo 120 here.
		{"a window across midnight", "%d %d", "230000+0000", "010000+0000", InWindow, "10 0"},
		{"no window: the creation time", "%d %d", "", "", InWindow, "6 5"},
		{"the window always open: the creation time", "%d %d", "000000+0000", "235959+0000", InWindow, "6 5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Schedule(tc.format, tc.begin, tc.end, "uid", created, tc.placement)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	_, err := Schedule(Daily, "25:00", "220000+0000", "uid", created, InWindow)
	assert.ErrorContains(t, err, `maintenance window begin "25:00" is not HHMMSS+HHMM`)
}

func vpaOf(t *testing.T, v Values) *unstructured.Unstructured {
	t.Helper()
	objs, err := Objects(v)
	require.NoError(t, err)
	require.Len(t, objs, 2)
	require.Equal(t, "VerticalPodAutoscaler", objs[1].Object.GetKind())
	return objs[1].Object
}

// TestVerticalPodAutoscaler: each etcd has a VPA of its own name that scales the etcd container's
// requests from a class-dependent minimum and leaves backup-restore alone, with the eviction
// requirement gardener-resource-manager enforces (reconcileVerticalPodAutoscaler in
// pkg/component/etcd/etcd/etcd.go and etcd_test.go at Gardener v1.120.0; the virtual garden's
// requirements from pkg/operator/controller/garden/garden/components.go).
func TestVerticalPodAutoscaler(t *testing.T) {
	window := func(v Values) Values {
		v.MaintenanceWindowBegin, v.MaintenanceWindowEnd = "140000+0000", "150000+0000"
		return v
	}
	for _, tc := range []struct {
		name        string
		v           Values
		vpaName     string
		minMemory   string
		labels      map[string]string
		annotations map[string]string
	}{
		{"garden main: never", values(Values{Role: RoleMain}), "virtual-garden-etcd-main", "300M",
			map[string]string{"role": "etcd-vpa-main", "autoscaling.gardener.cloud/eviction-requirements": "managed-by-controller"},
			map[string]string{"eviction-requirements.autoscaling.gardener.cloud/downscale-restriction": "never"}},
		{"garden events: in the window", window(values(Values{Role: RoleEvents})), "virtual-garden-etcd-events", "60M",
			map[string]string{"role": "etcd-vpa-events", "autoscaling.gardener.cloud/eviction-requirements": "managed-by-controller"},
			map[string]string{
				"eviction-requirements.autoscaling.gardener.cloud/downscale-restriction": "in-maintenance-window-only",
				"shoot.gardener.cloud/maintenance-window":                                "140000+0000,150000+0000",
			}},
		{"in the window, but without one: no requirement", values(Values{Role: RoleEvents}), "virtual-garden-etcd-events", "60M",
			map[string]string{"role": "etcd-vpa-events"}, nil},
		{"shoot main of a production shoot", shootValues(Values{Role: RoleMain, EvictionRequirement: EvictionNever}), "etcd-main", "300M",
			map[string]string{"role": "etcd-vpa-main", "autoscaling.gardener.cloud/eviction-requirements": "managed-by-controller"},
			map[string]string{"eviction-requirements.autoscaling.gardener.cloud/downscale-restriction": "never"}},
		{"shoot main of an evaluation shoot", window(shootValues(Values{Role: RoleMain, EvictionRequirement: EvictionInMaintenanceWindowOnly})), "etcd-main", "300M",
			map[string]string{"role": "etcd-vpa-main", "autoscaling.gardener.cloud/eviction-requirements": "managed-by-controller"},
			map[string]string{
				"eviction-requirements.autoscaling.gardener.cloud/downscale-restriction": "in-maintenance-window-only",
				"shoot.gardener.cloud/maintenance-window":                                "140000+0000,150000+0000",
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vpa := vpaOf(t, tc.v)
			assert.Equal(t, tc.vpaName, vpa.GetName())
			assert.Equal(t, tc.v.Namespace, vpa.GetNamespace())
			assert.Equal(t, tc.labels, vpa.GetLabels())
			assert.Equal(t, tc.annotations, vpa.GetAnnotations())
			spec, _, _ := unstructured.NestedMap(vpa.Object, "spec")
			assert.Equal(t, map[string]any{
				"targetRef":    map[string]any{"apiVersion": "druid.gardener.cloud/v1alpha1", "kind": "Etcd", "name": tc.vpaName},
				"updatePolicy": map[string]any{"updateMode": "Auto"},
				"resourcePolicy": map[string]any{"containerPolicies": []any{
					map[string]any{"containerName": "etcd", "minAllowed": map[string]any{"memory": tc.minMemory}, "controlledValues": "RequestsOnly", "mode": "Auto"},
					map[string]any{"containerName": "backup-restore", "mode": "Off", "controlledValues": "RequestsOnly"},
				}},
			}, spec)
		})
	}
	_, err := Objects(shootValues(Values{Role: RoleMain, EvictionRequirement: "always"}))
	assert.ErrorContains(t, err, `eviction requirement "always" is not one of never, in-maintenance-window-only`)
}
