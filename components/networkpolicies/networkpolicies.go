// Package networkpolicies renders the NetworkPolicies Gardener's NetworkPolicy controller keeps
// in the namespaces of a seed (gardenlet's instance) and of the garden runtime cluster
// (gardener-operator's instance; gardenlet leaves the controller out where its seed is the garden
// runtime cluster): pkg/controller/networkpolicy, pkg/gardenlet/controller/networkpolicy/add.go
// and pkg/operator/controller/add.go in gardener/gardener v1.120.0, and Gardener's "Network
// Policies" docs/operations/network_policies.md. The engine plays both, so it renders them.
//
// There are six policies, each in the namespaces whose labels one of its selectors matches:
// deny-all (the garden namespace and the namespaces of roles shoot, istio-system, istio-ingress,
// extension and of ExposureClass handlers), allow-to-runtime-apiserver (garden, istio-system,
// istio-ingress, shoot, extension), allow-to-public-networks, allow-to-private-networks and
// allow-to-blocked-cidrs (garden, shoot, extension), allow-to-dns (all of deny-all's). Each but
// deny-all opens egress for the pods labelled networking.gardener.cloud/to-<target>=allowed. The
// policies gardener-resource-manager derives from Services' networking.resources.gardener.cloud
// annotations are not rendered here: the resource manager the engine deploys runs that
// controller itself.
//
// How the policies follow the namespaces. The controller watches namespaces and puts the policies
// into every one its selectors match. The engine renders them where the namespace is rendered: a
// composite block (seed, garden) derives its part network_policies from the Namespace objects its
// other parts render in its cluster, from their labels as those parts set them, and for a shoot's
// control-plane namespace from the extensions Cluster rendered beside it, as the controller reads
// the shoot's networks from the Cluster (Part); a part that creates a namespace on its own (an
// extension's installation, rendered once its ControllerInstallation exists) renders them beside
// it (For). Every namespace has one renderer, so every policy
// has one writer; the render functions stay pure, reading the live cluster only through their
// input; the policies are applied after their namespaces and deleted before them, and a label a
// component adds to or removes from its namespace adds or removes the policies in the same plan.
// One component rendering the policies for the namespaces it lists live would instead leave the
// namespaces an apply creates (a new shoot's) without policies until the next plan, and a seed's
// part cannot wait for the shoots that depend on the seed. For namespaces a landscape declares
// itself, the component type network_policies renders the policies for the namespaces it names.
//
// allow-to-runtime-apiserver opens the endpoints of the cluster's own API server, which the
// controller reads from the `kubernetes` Endpoints in `default`: the engine reads the EndpointSlice
// of the same name (ReadAPIServer). The local control plane keeps none (its API servers run on
// loopback without the endpoint reconciler), so there the policy opens nothing.
package networkpolicies

import (
	"cmp"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Values are the component's typed inputs.
type Values struct {
	// Cluster is the cluster the namespaces are in.
	Cluster decode.Cluster `json:"cluster"`
	// Networks are the cluster's networks.
	Networks Networks `json:"networks"`
	// Namespaces are the namespaces to render the policies for; those no policy selects get none.
	Namespaces []Namespace `json:"namespace"`
}

// Type is the network_policies component type as the catalog registers it: its schema
// (schema.go) and its render function.
var Type = component.Define(typeSchema, renderValues)

// renderValues renders the policies of one instance with its cluster's API server endpoints.
func renderValues(in render.Input, v Values) (*render.Output, error) {
	api, err := ReadAPIServer(in, v.Cluster.Name)
	if err != nil {
		return nil, err
	}
	objs, err := Objects(v, api)
	if err != nil {
		return nil, err
	}
	return &render.Output{Objects: objs}, nil
}

// Objects renders the policies of every namespace, namespaces in name order, each namespace's
// policies in the controller's order.
func Objects(v Values, api APIServer) ([]render.Object, error) {
	if v.Cluster.Name == "" {
		return nil, fmt.Errorf("network policies: cluster is required")
	}
	namespaces := slices.SortedFunc(slices.Values(v.Namespaces), func(a, b Namespace) int { return cmp.Compare(a.Name, b.Name) })
	r := &renderer{networks: v.Networks, apiServer: api}
	var typed []runtime.Object
	for i, ns := range namespaces {
		if ns.Name == "" {
			return nil, fmt.Errorf("network policies: a namespace has no name")
		}
		if i > 0 && namespaces[i-1].Name == ns.Name {
			return nil, fmt.Errorf("network policies: namespace %s is named twice", ns.Name)
		}
		ps, err := r.policiesFor(ns)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			typed = append(typed, p)
		}
	}
	return kube.Typed(v.Cluster.Name, typed...)
}
