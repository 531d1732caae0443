package networkpolicies

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

func namespaceObject(cluster, name string, labels map[string]string) render.Object {
	return kube.On(cluster, "", kube.Custom("v1", "Namespace", "", name, labels, nil))[0]
}

// clusterObject is an extensions Cluster embedding a shoot with networking and status.
func clusterObject(cluster, name string, networking, status map[string]any) render.Object {
	shoot := map[string]any{"spec": map[string]any{}}
	if networking != nil {
		shoot["spec"] = map[string]any{"networking": networking}
	}
	if status != nil {
		shoot["status"] = map[string]any{"networking": status}
	}
	return kube.On(cluster, "", kube.Custom("extensions.gardener.cloud/v1alpha1", "Cluster", "", name, nil,
		map[string]any{"spec": map[string]any{"shoot": shoot}}))[0]
}

func TestNamespacesOf(t *testing.T) {
	parts := []render.Component{
		{Name: "garden_namespace", Objects: []render.Object{namespaceObject("seed", "garden", map[string]string{"high-availability-config.resources.gardener.cloud/consider": "true"})}},
		{Name: "istio", Objects: []render.Object{
			namespaceObject("seed", "istio-system", map[string]string{LabelRole: RoleIstioSystem}),
			namespaceObject("seed", "istio-ingress", nil), // no role: no policy selects it
			namespaceObject("other", "istio-ingress--zone--a", map[string]string{LabelRole: RoleIstioIngress}),
		}},
		{Name: "shoot_namespace", Objects: []render.Object{namespaceObject("seed", "shoot--dev--a", map[string]string{LabelRole: RoleShoot})}},
		{Name: "cluster", Objects: []render.Object{clusterObject("seed", "shoot--dev--a",
			map[string]any{"nodes": "172.16.64.0/18", "pods": "10.150.0.0/16", "services": "192.168.128.0/17", "ipFamilies": []any{"IPv4"}},
			map[string]any{"pods": []any{"10.150.0.0/16", "10.151.0.0/16"}, "nodes": []any{"172.16.64.0/18"}})}},
		{Name: "ca", Secret: &render.SecretSpec{Name: "ca"}},
		{Name: "second_garden", Objects: []render.Object{namespaceObject("seed", "garden", nil)}},
	}
	namespaces, owners := NamespacesOf("seed", parts)
	assert.Equal(t, []Namespace{
		{Name: "garden", Labels: map[string]string{"high-availability-config.resources.gardener.cloud/consider": "true"}},
		{Name: "istio-system", Labels: map[string]string{LabelRole: RoleIstioSystem}},
		{Name: "shoot--dev--a", Labels: map[string]string{LabelRole: RoleShoot}, Shoot: &ShootNetworks{
			CIDRs: []string{"172.16.64.0/18", "10.150.0.0/16", "192.168.128.0/17", "10.151.0.0/16"}, IPFamilies: []string{"IPv4"},
		}},
	}, namespaces, "the selected namespaces in the cluster, once each, a shoot's with the networks of its Cluster: spec first, then status")
	assert.Equal(t, []string{"garden_namespace", "istio", "shoot_namespace", "second_garden"}, owners,
		"the parts rendering them, which the policies come after")

	none, _ := NamespacesOf("seed", []render.Component{{Name: "cluster", Objects: []render.Object{clusterObject("seed", "shoot--dev--a", nil, nil)}}})
	assert.Empty(t, none)
	ns, _ := NamespacesOf("seed", []render.Component{
		{Name: "ns", Objects: []render.Object{namespaceObject("seed", "shoot--dev--a", map[string]string{LabelRole: RoleShoot})}},
		{Name: "cluster", Objects: []render.Object{clusterObject("seed", "shoot--dev--a", nil, nil)}},
	})
	require.Len(t, ns, 1)
	assert.Nil(t, ns[0].Shoot, "a shoot without .spec.networking has no networks to leave out")
}

func TestPart(t *testing.T) {
	in := listing(t, kubernetesSlice(true))
	parts := []render.Component{
		{Name: "garden_namespace", Objects: []render.Object{namespaceObject("seed", "garden", nil)}},
		{Name: "istio", Objects: []render.Object{namespaceObject("seed", "istio-ingress", map[string]string{LabelRole: RoleIstioIngress})}},
	}
	p, err := Part(in, "seed", seedNetworks, parts)
	require.NoError(t, err)
	require.NotNil(t, p)
	assert.Equal(t, "network_policies", p.Name)
	assert.Equal(t, "network_policies", p.Type)
	assert.Equal(t, []string{"garden_namespace", "istio"}, p.DependsOn)
	var names []string
	for _, o := range p.Objects {
		names = append(names, o.Object.GetNamespace()+"/"+o.Object.GetName())
	}
	assert.Equal(t, []string{
		"garden/deny-all", "garden/allow-to-runtime-apiserver", "garden/allow-to-public-networks", "garden/allow-to-private-networks",
		"garden/allow-to-blocked-cidrs", "garden/allow-to-dns",
		"istio-ingress/deny-all", "istio-ingress/allow-to-runtime-apiserver", "istio-ingress/allow-to-dns",
	}, names)
	egress, _, _ := unstructured.NestedSlice(p.Objects[1].Object.Object, "spec", "egress")
	assert.Len(t, egress, 1, "the API server endpoints are read from the composite's input")

	p, err = Part(in, "seed", seedNetworks, []render.Component{{Name: "istio", Objects: []render.Object{namespaceObject("seed", "istio-ingress", nil)}}})
	require.NoError(t, err)
	assert.Nil(t, p, "no part where no policy goes into any namespace")
}

func TestFor(t *testing.T) {
	objs, err := For(listing(t), "seed", seedNetworks, []render.Object{
		namespaceObject("seed", "extension-x", map[string]string{LabelRole: RoleExtension}),
		namespaceObject("other", "extension-y", map[string]string{LabelRole: RoleExtension}),
	})
	require.NoError(t, err)
	require.Len(t, objs, 6, "every policy of an extension's namespace, only in the cluster asked for")
	for _, o := range objs {
		assert.Equal(t, "extension-x", o.Object.GetNamespace())
	}
	objs, err = For(listing(t), "seed", seedNetworks, []render.Object{namespaceObject("seed", "apps", nil)})
	require.NoError(t, err)
	assert.Empty(t, objs)
}

func TestSeedNetworks(t *testing.T) {
	n, ok := SeedNetworks(map[string]any{"networks": map[string]any{
		"pods": "10.1.0.0/16", "services": "10.2.0.0/16", "nodes": "10.0.0.0/16", "blockCIDRs": []any{"10.9.0.0/16"}, "ipFamilies": []any{"IPv6"},
	}})
	assert.True(t, ok)
	assert.Equal(t, Networks{Pods: "10.1.0.0/16", Services: "10.2.0.0/16", Nodes: "10.0.0.0/16", BlockCIDRs: []string{"10.9.0.0/16"}, IPFamilies: []string{IPv6}}, n)
	n, ok = SeedNetworks(map[string]any{"networks": map[string]any{"pods": "10.1.0.0/16", "services": "10.2.0.0/16"}})
	assert.True(t, ok)
	assert.Equal(t, []string{IPv4}, n.IPFamilies, "the Seed API's default")
	_, ok = SeedNetworks(nil)
	assert.False(t, ok, "no service network, no DNS policy")
}
