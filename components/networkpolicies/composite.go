package networkpolicies

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/engine/render"
)

// PartName is the name of the part in which a composite renders the policies of its namespaces.
const PartName = TypeName

// Part renders the part network_policies of a composite block: the policies of the namespaces
// the composite's parts render in cluster, which comes after the parts rendering those
// namespaces. It returns nil when no policy goes into any of them.
func Part(in render.Input, cluster string, networks Networks, parts []render.Component) (*render.Component, error) {
	namespaces, owners := NamespacesOf(cluster, parts)
	if len(namespaces) == 0 {
		return nil, nil
	}
	api, err := ReadAPIServer(in, cluster)
	if err != nil {
		return nil, err
	}
	objs, err := Objects(Values{Cluster: decode.Cluster{Name: cluster}, Networks: networks, Namespaces: namespaces}, api)
	if err != nil {
		return nil, err
	}
	return &render.Component{Name: PartName, Type: TypeName, DependsOn: owners, Objects: objs}, nil
}

// NamespacesOf returns the namespaces that parts render in cluster and that a policy goes into,
// with their labels and, for a shoot's control-plane namespace, the networks of the shoot as the
// extensions Cluster of the same name among the parts names them; and the names of the parts
// rendering them, in the parts' order.
func NamespacesOf(cluster string, parts []render.Component) ([]Namespace, []string) {
	var namespaces []Namespace
	var owners []string
	clusters := map[string]*unstructured.Unstructured{}
	for _, p := range parts {
		for _, o := range p.Objects {
			u := o.Object
			if o.Cluster != cluster || u == nil || render.Unknown(u.GetName()) {
				continue
			}
			switch gvk := u.GroupVersionKind(); {
			case gvk.Group == "" && gvk.Kind == "Namespace":
				ns := Namespace{Name: u.GetName(), Labels: u.GetLabels()}
				if !Selected(labelsOf(ns)) {
					continue
				}
				if !slices.ContainsFunc(namespaces, func(n Namespace) bool { return n.Name == ns.Name }) {
					namespaces = append(namespaces, ns)
				}
				if !slices.Contains(owners, p.Name) {
					owners = append(owners, p.Name)
				}
			case gvk.Group == "extensions.gardener.cloud" && gvk.Kind == "Cluster":
				clusters[u.GetName()] = u
			}
		}
	}
	for i, ns := range namespaces {
		if c, ok := clusters[ns.Name]; ok && strings.HasPrefix(ns.Name, ShootNamespacePrefix) {
			namespaces[i].Shoot = shootNetworksOf(c)
		}
	}
	return namespaces, owners
}

// shootNetworksOf reads the networks of the shoot an extensions Cluster embeds: its node, pod and
// service networks from .spec.networking, then those of .status.networking not among them, and
// its IP families. A shoot without .spec.networking has none, as for the controller.
func shootNetworksOf(cluster *unstructured.Unstructured) *ShootNetworks {
	spec, found, _ := unstructured.NestedMap(cluster.Object, "spec", "shoot", "spec", "networking")
	if !found {
		return nil
	}
	out := &ShootNetworks{}
	add := func(cidr string) {
		if cidr != "" && !slices.Contains(out.CIDRs, cidr) {
			out.CIDRs = append(out.CIDRs, cidr)
		}
	}
	for _, key := range []string{"nodes", "pods", "services"} {
		s, _, _ := unstructured.NestedString(spec, key)
		add(s)
	}
	out.IPFamilies, _, _ = unstructured.NestedStringSlice(spec, "ipFamilies")
	for _, key := range []string{"nodes", "pods", "services"} {
		list, _, _ := unstructured.NestedStringSlice(cluster.Object, "spec", "shoot", "status", "networking", key)
		for _, c := range list {
			add(c)
		}
	}
	return out
}

// For renders the policies of the namespaces among objects in cluster, for a part that creates a
// namespace and holds its policies itself: an extension's installation, which gardenlet deploys
// into extension-<installation> once gardener-controller-manager has created the
// ControllerInstallation, and which the engine renders only then.
func For(in render.Input, cluster string, networks Networks, objects []render.Object) ([]render.Object, error) {
	p, err := Part(in, cluster, networks, []render.Component{{Name: "objects", Objects: objects}})
	if err != nil || p == nil {
		return nil, err
	}
	return p.Objects, nil
}

// SeedNetworks are the networks a Seed's .spec.networks names (Gardener's SeedNetworks in
// docs/api-reference/core.md), with which gardenlet runs the controller; IPv4 where it names no
// IP family, as the Seed API defaults. It reports false for a spec without a service network.
func SeedNetworks(spec map[string]any) (Networks, bool) {
	networks, _, _ := unstructured.NestedMap(spec, "networks")
	str := func(key string) string { s, _, _ := unstructured.NestedString(networks, key); return s }
	list := func(key string) []string { l, _, _ := unstructured.NestedStringSlice(networks, key); return l }
	n := Networks{Pods: str("pods"), Services: str("services"), Nodes: str("nodes"), BlockCIDRs: list("blockCIDRs"), IPFamilies: list("ipFamilies")}
	if len(n.IPFamilies) == 0 {
		n.IPFamilies = []string{IPv4}
	}
	return n, n.Services != ""
}
