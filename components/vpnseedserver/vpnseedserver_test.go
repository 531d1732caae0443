package vpnseedserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/golden"
)

// values are the type's defaults with what v sets, as a composite builds them.
func values(v Values) Values { return rendertest.Overlay(Type.Defaults(), v) }

func minimal() Values {
	return values(Values{
		Cluster:        decode.Cluster{Name: "seed"},
		Namespace:      "shoot--dev--a",
		ShootNetworks:  Networks{Pods: "100.96.0.0/11", Services: "100.64.0.0/13", Nodes: "10.250.0.0/16"},
		SeedPodNetwork: "10.1.0.0/16",
	})
}

func cases() map[string]Values {
	ha := minimal()
	ha.HighAvailability = true
	ha.VPNNetwork = "192.168.124.0/24"
	ha.Images = map[string]string{"vpn-server": "0.32.0"}
	noNodes := minimal()
	noNodes.ShootNetworks.Nodes = ""
	return map[string]Values{"default": minimal(), "ha": ha, "no-nodes": noNodes}
}

func TestObjectsGolden(t *testing.T) {
	for name, v := range cases() {
		t.Run(name, func(t *testing.T) {
			objs, err := Objects(v)
			require.NoError(t, err)
			golden.Assert(t, name, objs)
		})
	}
}

func into(t *testing.T, u *unstructured.Unstructured, out any) {
	t.Helper()
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out))
}

func TestDocumentedFacts(t *testing.T) {
	for _, tc := range []struct {
		name     string
		ha       bool
		kind     string
		replicas int32
		services []string
	}{
		// Gardener's "Reversed VPN Tunnel" docs/development/reversed-vpn-tunnel.md: two servers behind
		// vpn-seed-server-0/1, with endpoints in pods of the same name; a single server otherwise.
		{"single", false, "Deployment", 1, []string{"vpn-seed-server"}},
		{"ha", true, "StatefulSet", 2, []string{"vpn-seed-server-0", "vpn-seed-server-1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := minimal()
			v.HighAvailability = tc.ha
			objs, err := Objects(v)
			require.NoError(t, err)
			assert.Equal(t, tc.kind, WorkloadKind(tc.ha))
			w := rendertest.MustFind(t, objs, tc.kind, "vpn-seed-server")
			assert.Equal(t, "shoot--dev--a", w.GetNamespace())
			var tmpl corev1.PodTemplateSpec
			var replicas int32
			var selector map[string]string
			if tc.ha {
				var s appsv1.StatefulSet
				into(t, w, &s)
				tmpl, replicas, selector = s.Spec.Template, *s.Spec.Replicas, s.Spec.Selector.MatchLabels
				rendertest.MustFind(t, objs, "PodDisruptionBudget", "vpn-seed-server")
			} else {
				var d appsv1.Deployment
				into(t, w, &d)
				tmpl, replicas, selector = d.Spec.Template, *d.Spec.Replicas, d.Spec.Selector.MatchLabels
				assert.Nil(t, rendertest.Find(objs, "PodDisruptionBudget", "vpn-seed-server"))
			}
			assert.Equal(t, tc.replicas, replicas)
			for k, val := range selector {
				assert.Equal(t, val, tmpl.Labels[k], k)
			}
			// Gardener's "Priority Classes" docs/development/priority-classes.md: vpn-seed-server is a
			// gardener-system-300 component.
			assert.Equal(t, "gardener-system-300", tmpl.Spec.PriorityClassName)
			c := tmpl.Spec.Containers[0]
			assert.Equal(t, "europe-docker.pkg.dev/gardener-project/releases/gardener/vpn-server:0.38.0", c.Image)
			// Gardener's docs/development/reversed-vpn-tunnel.md: the HTTP proxy sidecar exists only without
			// high availability; with it, an exporter reads the servers' status.
			require.Len(t, tmpl.Spec.Containers, 2)
			assert.Equal(t, map[bool]string{false: "envoy-proxy", true: "openvpn-exporter"}[tc.ha], tmpl.Spec.Containers[1].Name)
			assert.Equal(t, tc.services, ServiceNames(tc.ha))
			for _, name := range tc.services {
				var s corev1.Service
				into(t, rendertest.MustFind(t, objs, "Service", name), &s)
				assert.Equal(t, int32(TunnelPort), s.Spec.Ports[0].Port)
				if tc.ha {
					assert.Equal(t, map[string]string{"statefulset.kubernetes.io/pod-name": name}, s.Spec.Selector)
				}
			}
		})
	}
}

// TestHibernation checks that a hibernated server has no replicas, in the Deployment or the
// StatefulSet, whichever it renders (Gardener's "Shoot Hibernation"
// docs/usage/shoot/shoot_hibernate.md, "Component Checklist"
// docs/development/component-checklist.md).
func TestHibernation(t *testing.T) {
	for _, tc := range []struct {
		name       string
		ha, asleep bool
		replicas   int32
	}{
		{"awake", false, false, 1},
		{"awake HA", true, false, 2},
		{"hibernated", false, true, 0},
		{"hibernated HA", true, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := minimal()
			v.HighAvailability, v.Hibernated = tc.ha, tc.asleep
			objs, err := Objects(v)
			require.NoError(t, err)
			w := rendertest.MustFind(t, objs, WorkloadKind(tc.ha), Name)
			got, ok, err := unstructured.NestedInt64(w.Object, "spec", "replicas")
			require.NoError(t, err)
			require.True(t, ok, "replicas are always explicit")
			assert.Equal(t, int64(tc.replicas), got)
		})
	}
}

// The proxy listens for CONNECT requests on 9443 and serves its statistics on 15000, on IPv4 and
// IPv6, with a dual-stack DNS cache (pkg/component/networking/vpn/seedserver/templates/envoy.yaml.tpl
// at Gardener v1.120.0).
func TestEnvoyConfig(t *testing.T) {
	var m struct {
		StaticResources struct {
			Listeners []struct {
				Name    string `json:"name"`
				Address struct {
					SocketAddress struct {
						Address   string `json:"address"`
						PortValue int    `json:"port_value"`
					} `json:"socket_address"`
				} `json:"address"`
				AdditionalAddresses []struct {
					Address struct {
						SocketAddress struct {
							Address string `json:"address"`
						} `json:"socket_address"`
					} `json:"address"`
				} `json:"additional_addresses"`
			} `json:"listeners"`
			Clusters []struct {
				Name        string `json:"name"`
				ClusterType struct {
					TypedConfig struct {
						DNSCacheConfig struct {
							Family   string `json:"dns_lookup_family"`
							MaxHosts int    `json:"max_hosts"`
						} `json:"dns_cache_config"`
					} `json:"typed_config"`
				} `json:"cluster_type"`
			} `json:"clusters"`
		} `json:"static_resources"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(envoyConfig()), &m))
	require.Len(t, m.StaticResources.Listeners, 2)
	for i, want := range []struct {
		name string
		port int
	}{{"listener_0", ProxyPort}, {"metrics_listener", MetricsPort}} {
		l := m.StaticResources.Listeners[i]
		assert.Equal(t, want.name, l.Name)
		assert.Equal(t, "0.0.0.0", l.Address.SocketAddress.Address)
		assert.Equal(t, want.port, l.Address.SocketAddress.PortValue)
		require.Len(t, l.AdditionalAddresses, 1)
		assert.Equal(t, "::", l.AdditionalAddresses[0].Address.SocketAddress.Address)
	}
	assert.Equal(t, "dynamic_forward_proxy_cluster", m.StaticResources.Clusters[0].Name)
	assert.Equal(t, "ALL", m.StaticResources.Clusters[0].ClusterType.TypedConfig.DNSCacheConfig.Family)
	assert.Equal(t, 8192, m.StaticResources.Clusters[0].ClusterType.TypedConfig.DNSCacheConfig.MaxHosts)
}

func TestErrors(t *testing.T) {
	for name, mutate := range map[string]func(*Values){
		"no namespace":   func(v *Values) { v.Namespace = "" },
		"no pods":        func(v *Values) { v.ShootNetworks.Pods = "" },
		"no services":    func(v *Values) { v.ShootNetworks.Services = "" },
		"bad nodes cidr": func(v *Values) { v.ShootNetworks.Nodes = "10.250.0.0" },
		"bad vpn cidr":   func(v *Values) { v.VPNNetwork = "nope" },
		"bad seed pods":  func(v *Values) { v.SeedPodNetwork = "10.1.0.0" },
		"unknown image":  func(v *Values) { v.Images = map[string]string{"vpn": "x"} },
	} {
		t.Run(name, func(t *testing.T) {
			v := minimal()
			mutate(&v)
			_, err := Objects(v)
			assert.Error(t, err)
		})
	}
}

func TestRender(t *testing.T) {
	out, err := Type.RenderConfig(render.Input{Config: rendertest.FromJSON(t, `{
		"cluster": {"name": "seed"}, "namespace": "shoot--dev--a", "high_availability": true,
		"shoot_networks": {"pods": "100.96.0.0/11", "services": "100.64.0.0/13", "nodes": null}
	}`)})
	require.NoError(t, err)
	assert.Len(t, out.Objects, 6, "StatefulSet, PodDisruptionBudget, two Services and their DestinationRules")
	_, err = Type.RenderConfig(render.Input{Config: rendertest.FromJSON(t, `{"cluster": {"name": "seed"}, "bogus": 1}`)})
	assert.Error(t, err)
}

// envOf maps a container's environment to values, and ValueFrom field paths as "fieldRef:<path>".
func envOf(c corev1.Container) map[string]string {
	out := map[string]string{}
	for _, e := range c.Env {
		out[e.Name] = e.Value
		if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil {
			out[e.Name] = "fieldRef:" + e.ValueFrom.FieldRef.FieldPath
		}
	}
	return out
}

func containerNamed(t *testing.T, cs []corev1.Container, name string) corev1.Container {
	t.Helper()
	for _, c := range cs {
		if c.Name == name {
			return c
		}
	}
	require.Failf(t, "no container", "%s", name)
	return corev1.Container{}
}

// The single server's objects field for field as Gardener v1.120.0 renders them
// (pkg/component/networking/vpn/seedserver/seedserver.go and seedserver_test.go).
func TestSingleServerAsGardener(t *testing.T) {
	objs, err := Objects(minimal())
	require.NoError(t, err)
	var d appsv1.Deployment
	into(t, rendertest.MustFind(t, objs, "Deployment", Name), &d)

	assert.Equal(t, map[string]string{
		"app": "vpn-seed-server", "gardener.cloud/role": "controlplane",
		"provider.extensions.gardener.cloud/mutated-by-controlplane-webhook": "true",
	}, d.Labels)
	assert.Equal(t, map[string]string{"app": "vpn-seed-server"}, d.Spec.Selector.MatchLabels)
	assert.Equal(t, appsv1.RollingUpdateDeploymentStrategyType, d.Spec.Strategy.Type)
	assert.Equal(t, "100", d.Spec.Strategy.RollingUpdate.MaxSurge.String())
	assert.Equal(t, "0", d.Spec.Strategy.RollingUpdate.MaxUnavailable.String())
	assert.Equal(t, int32(2), *d.Spec.RevisionHistoryLimit)

	pod := d.Spec.Template
	assert.Equal(t, map[string]string{
		"app": "vpn-seed-server", "gardener.cloud/role": "controlplane",
		"networking.gardener.cloud/to-dns":                              "allowed",
		"networking.gardener.cloud/to-private-networks":                 "allowed",
		"networking.resources.gardener.cloud/to-kube-apiserver-tcp-443": "allowed",
	}, pod.Labels)
	assert.Equal(t, corev1.DNSDefault, pod.Spec.DNSPolicy, "the node's resolver, not the cluster DNS")
	require.Len(t, pod.Spec.InitContainers, 1)
	setup := pod.Spec.InitContainers[0]
	assert.Equal(t, "setup", setup.Name)
	assert.Equal(t, []string{"/bin/vpn-server", "setup"}, setup.Command)
	assert.True(t, *setup.SecurityContext.Privileged)

	server := containerNamed(t, pod.Spec.Containers, "vpn-seed-server")
	assert.Equal(t, map[string]string{
		"IP_FAMILIES": "IPv4", "SERVICE_NETWORK": "100.64.0.0/13", "POD_NETWORK": "100.96.0.0/11", "NODE_NETWORK": "10.250.0.0/16",
		"SERVICE_NETWORKS": "100.64.0.0/13", "POD_NETWORKS": "100.96.0.0/11", "NODE_NETWORKS": "10.250.0.0/16",
		"SEED_POD_NETWORK": "10.1.0.0/16", "LOCAL_NODE_IP": "fieldRef:status.hostIP",
	}, envOf(server))
	assert.False(t, *server.SecurityContext.AllowPrivilegeEscalation)
	assert.Nil(t, server.SecurityContext.Privileged)
	assert.Equal(t, []corev1.Capability{"NET_ADMIN", "NET_RAW"}, server.SecurityContext.Capabilities.Add)
	assert.Equal(t, "10m", server.Resources.Requests.Cpu().String())
	assert.Equal(t, "7500k", server.Resources.Requests.Memory().String())

	envoy := containerNamed(t, pod.Spec.Containers, "envoy-proxy")
	assert.Equal(t, "europe-docker.pkg.dev/gardener-project/releases/3rd/envoyproxy/envoy-distroless:v1.34.1", envoy.Image)
	assert.Equal(t, int64(65532), *envoy.SecurityContext.RunAsUser)
	assert.Equal(t, []corev1.Capability{"all"}, envoy.SecurityContext.Capabilities.Drop)
	assert.Equal(t, "25M", envoy.Resources.Requests.Memory().String())

	var svc corev1.Service
	into(t, rendertest.MustFind(t, objs, "Service", Name), &svc)
	assert.Equal(t, map[string]string{
		"networking.istio.io/exportTo":                                              "*",
		"networking.resources.gardener.cloud/namespace-selectors":                   `[{"matchLabels":{"gardener.cloud/role":"istio-ingress"}},{"matchExpressions":[{"key":"handler.exposureclass.gardener.cloud/name","operator":"Exists"}]}]`,
		"networking.resources.gardener.cloud/pod-label-selector-namespace-alias":    "all-shoots",
		"networking.resources.gardener.cloud/from-all-scrape-targets-allowed-ports": `[{"protocol":"TCP","port":15000}]`,
	}, svc.Annotations)
	var ports []string
	for _, p := range svc.Spec.Ports {
		ports = append(ports, p.Name+"/"+p.TargetPort.String())
	}
	assert.Equal(t, []string{"vpn-seed-server/1194", "http-proxy/9443", "metrics/15000"}, ports)
	assert.Equal(t, map[string]string{"app": "vpn-seed-server"}, svc.Spec.Selector)

	dr := rendertest.MustFind(t, objs, "DestinationRule", Name)
	host, _, _ := unstructured.NestedString(dr.Object, "spec", "host")
	assert.Equal(t, "vpn-seed-server.shoot--dev--a.svc.cluster.local", host)
	failover, _, _ := unstructured.NestedStringSlice(dr.Object, "spec", "trafficPolicy", "loadBalancer", "localityLbSetting", "failoverPriority")
	assert.Equal(t, []string{"topology.kubernetes.io/zone"}, failover)
	mode, _, _ := unstructured.NestedString(dr.Object, "spec", "trafficPolicy", "tls", "mode")
	assert.Equal(t, "DISABLE", mode)
	maxConns, _, _ := unstructured.NestedInt64(dr.Object, "spec", "trafficPolicy", "connectionPool", "tcp", "maxConnections")
	assert.Equal(t, int64(5000), maxConns)
}

// The two servers with high availability as Gardener v1.120.0 renders them: a StatefulSet without
// the webhook label, the status file the exporter reads, per-pod Services and DestinationRules.
func TestHighAvailabilityAsGardener(t *testing.T) {
	v := minimal()
	v.HighAvailability = true
	objs, err := Objects(v)
	require.NoError(t, err)
	var s appsv1.StatefulSet
	into(t, rendertest.MustFind(t, objs, "StatefulSet", Name), &s)
	assert.Equal(t, map[string]string{"app": "vpn-seed-server", "gardener.cloud/role": "controlplane"}, s.Labels)
	assert.Equal(t, appsv1.ParallelPodManagement, s.Spec.PodManagementPolicy)
	assert.Equal(t, int32(1), *s.Spec.RevisionHistoryLimit)
	assert.Empty(t, s.Spec.ServiceName, "Gardener names no governing Service")
	assert.Empty(t, s.Spec.Template.Spec.TopologySpreadConstraints)

	server := containerNamed(t, s.Spec.Template.Spec.Containers, "vpn-seed-server")
	env := envOf(server)
	assert.Equal(t, "/srv/status/openvpn.status", env["OPENVPN_STATUS_PATH"])
	assert.Equal(t, "fieldRef:metadata.name", env["POD_NAME"])
	assert.Equal(t, "true", env["IS_HA"])
	assert.Equal(t, "2", env["HA_VPN_CLIENTS"])
	exporter := containerNamed(t, s.Spec.Template.Spec.Containers, "openvpn-exporter")
	assert.Equal(t, []string{"/bin/vpn-server", "exporter"}, exporter.Command)
	assert.Equal(t, int32(15000), exporter.Ports[0].ContainerPort)
	for _, name := range []string{"vpn-seed-server-0", "vpn-seed-server-1"} {
		rendertest.MustFind(t, objs, "DestinationRule", name)
	}
	assert.Nil(t, rendertest.Find(objs, "Service", Name))
}
