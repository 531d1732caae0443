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
		Cluster:       decode.Cluster{Name: "seed"},
		Namespace:     "shoot--dev--a",
		ShootNetworks: Networks{Pods: "100.96.0.0/11", Services: "100.64.0.0/13", Nodes: "10.250.0.0/16"},
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
			assert.Equal(t, "europe-docker.pkg.dev/gardener-project/releases/gardener/vpn-server:0.31.0", c.Image)
			envs := map[string]string{}
			for _, e := range c.Env {
				envs[e.Name] = e.Value
			}
			assert.Equal(t, "100.96.0.0/11", envs["POD_NETWORK"])
			assert.Equal(t, "100.64.0.0/13", envs["SERVICE_NETWORK"])
			assert.Equal(t, "10.250.0.0/16", envs["NODE_NETWORK"])
			assert.Equal(t, DefaultVPNNetwork, envs["VPN_NETWORK"])
			// Gardener's docs/development/reversed-vpn-tunnel.md: the HTTP proxy sidecar exists only without
			// high availability.
			assert.Len(t, tmpl.Spec.Containers, map[bool]int{false: 2, true: 1}[tc.ha])
			assert.Equal(t, tc.services, ServiceNames(tc.ha))
			for _, name := range tc.services {
				var s corev1.Service
				into(t, rendertest.MustFind(t, objs, "Service", name), &s)
				assert.Equal(t, int32(TunnelPort), s.Spec.Ports[0].Port)
				if tc.ha {
					assert.Equal(t, name, s.Spec.Selector["statefulset.kubernetes.io/pod-name"])
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

func TestEnvoyConfigIsYAML(t *testing.T) {
	for _, family := range []string{"IPv4", "IPv6"} {
		var m map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(envoyConfig(family)), &m))
		assert.Contains(t, m, "static_resources")
	}
}

func TestErrors(t *testing.T) {
	for name, mutate := range map[string]func(*Values){
		"no namespace":   func(v *Values) { v.Namespace = "" },
		"no pods":        func(v *Values) { v.ShootNetworks.Pods = "" },
		"no services":    func(v *Values) { v.ShootNetworks.Services = "" },
		"bad nodes cidr": func(v *Values) { v.ShootNetworks.Nodes = "10.250.0.0" },
		"bad vpn cidr":   func(v *Values) { v.VPNNetwork = "nope" },
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
	assert.Len(t, out.Objects, 4)
	_, err = Type.RenderConfig(render.Input{Config: rendertest.FromJSON(t, `{"cluster": {"name": "seed"}, "bogus": 1}`)})
	assert.Error(t, err)
}
