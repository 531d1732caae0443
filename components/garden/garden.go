// Package garden renders the garden composite block: what gardener-operator deploys for a
// Garden (Gardener's docs/concepts/operator.md), as parts the engine plans, applies and waits for
// one by one in the documented order:
//
//  1. the garden namespace, the well-known PriorityClasses and the runtime certificates;
//  2. gardener-resource-manager, "deployed first since its ManagedResource controller will be
//     used to bring up the remainders" (Gardener's "Gardener Operator" docs/concepts/operator.md);
//  3. the system components VPA, etcd-druid, Istio with the virtual garden's ingress gateway and
//     nginx-ingress (Gardener's docs/concepts/operator.md);
//  4. "as soon as all system components are up", the virtual garden: its etcds main and events,
//     kube-apiserver exposed through Istio, kube-controller-manager (Gardener's
//     docs/concepts/operator.md, "Topology Aware Routing"
//     docs/operations/topology_aware_routing.md);
//  5. the Gardener control plane: gardener-apiserver (reusing the virtual garden's main etcd),
//     then gardener-admission-controller, gardener-controller-manager and gardener-scheduler
//     (Gardener's docs/concepts/operator.md, "Scoped API Access for gardenlets and Extensions"
//     docs/deployment/gardenlet_api_access.md).
//
// Beside them, the part network_policies holds the NetworkPolicies gardener-operator's
// NetworkPolicy controller keeps in the namespaces the garden creates in the runtime cluster
// (components/networkpolicies).
//
// Certificates, keys and encryption configurations are parts of their own that the engine
// generates (render.SecretSpec): rendering stays pure, and a second plan reuses them.
package garden

import (
	"fmt"
	"strings"

	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/gardenercontrollermanager"
	"github.com/declarative-gardener/gardener/components/gardenercontrolplane"
	"github.com/declarative-gardener/gardener/components/internal/projectcontroller"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Namespace is the runtime cluster's namespace of the garden's components (Gardener's
// docs/concepts/operator.md).
const Namespace = "garden"

// prefix is the name prefix of the virtual garden's control plane (Gardener's
// docs/concepts/operator.md).
const prefix = "virtual-garden-"

// GenericKubeconfigSecretName is the Secret with the generic token kubeconfig garden components
// combine with their access tokens (Gardener's docs/concepts/operator.md).
const GenericKubeconfigSecretName = gardenercontrolplane.GenericKubeconfigSecretName

// Type is the garden block as the catalog registers it: its schema (schema.go) and its render
// function.
var Type = component.Define(typeSchema, renderValues)

// renderValues renders one garden instance into its parts and outputs.
func renderValues(in render.Input, v Values) (*render.Output, error) {
	g, err := newBuilder(in.Name, v)
	if err != nil {
		return nil, err
	}
	if err := g.build(); err != nil {
		return nil, err
	}
	if err := g.networkPolicies(in); err != nil {
		return nil, fmt.Errorf("garden %s: %w", in.Name, err)
	}
	reports, err := orphanReports(in, g.virtual)
	if err != nil {
		return nil, fmt.Errorf("garden %s: %w", in.Name, err)
	}
	return &render.Output{Components: g.parts, Outputs: g.outputs(), Reports: reports}, nil
}

// Parts renders the garden's parts for values built in Go: all but the part network_policies,
// which the garden's render function adds, since its allow-to-runtime-apiserver lists the
// endpoints of the runtime cluster's API server as they are.
func Parts(name string, v Values) ([]render.Component, error) {
	g, err := newBuilder(name, v)
	if err != nil {
		return nil, err
	}
	if err := g.build(); err != nil {
		return nil, err
	}
	return g.parts, nil
}

// builder collects the parts of one garden.
type builder struct {
	name    string
	v       Values
	runtime string
	virtual string
	parts   []render.Component
	// systemParts are the system components the virtual garden waits for (Gardener's
	// docs/concepts/operator.md).
	systemParts []string
}

func newBuilder(name string, v Values) (*builder, error) {
	if v.Cluster.Name == "" {
		return nil, fmt.Errorf("garden %s: cluster is required", name)
	}
	if v.VirtualGarden == nil || v.VirtualGarden.Name == "" {
		return nil, fmt.Errorf("garden %s: virtual_garden is not set; the Gardener control plane writes its RBAC, APIServices and webhooks to the virtual garden, so the engine needs a cluster block to reach it", name)
	}
	if len(v.VirtualCluster.DNSDomains) == 0 {
		return nil, fmt.Errorf("garden %s: virtual_cluster.dns_domains needs at least one domain", name)
	}
	if v.VirtualCluster.Gardener == nil {
		v.VirtualCluster.Gardener = &Gardener{}
	}
	if d := v.VirtualCluster.Gardener.Dashboard; d != nil && d.Enabled {
		return nil, fmt.Errorf("garden %s: the Gardener dashboard is not in the component catalog yet; declare it with a helm_release component and turn virtual_cluster.gardener.dashboard.enabled off", name)
	}
	return &builder{name: name, v: v, runtime: v.Cluster.Name, virtual: v.VirtualGarden.Name}, nil
}

// add appends a part of objects.
func (g *builder) add(name, typ string, objects []render.Object, deps ...string) {
	g.parts = append(g.parts, render.Component{Name: name, Type: typ, DependsOn: deps, Objects: objects})
}

// secret appends a generated-secret part in the runtime cluster's garden namespace; a
// certificate's part depends on its CA's part.
func (g *builder) secret(part string, spec render.SecretSpec, caPart string) {
	g.parts = append(g.parts, render.SecretPart(part, g.runtime, Namespace, spec, caPart))
}

// images are the image vector overrides: the landscape's, with the Gardener version as the tag
// of Gardener's own images unless an override names them.
func (g *builder) images() map[string]string {
	out := map[string]string{}
	if ver := g.v.VirtualCluster.Gardener.Version; ver != "" {
		for _, name := range []string{"gardener-apiserver", "gardener-admission-controller", "gardener-controller-manager", "gardener-scheduler", "gardener-resource-manager"} {
			out[name] = ver
		}
	}
	for k, val := range g.v.Images {
		out[k] = val
	}
	return out
}

func (g *builder) build() error {
	steps := []func() error{g.runtimeBase, g.systemComponents, g.virtualGarden, g.gardenerControlPlane}
	for _, step := range steps {
		if err := step(); err != nil {
			return fmt.Errorf("garden %s: %w", g.name, err)
		}
	}
	return nil
}

// outputs are the garden's outputs: what seeds and shoots refer to.
func (g *builder) outputs() map[string]cty.Value {
	out := map[string]cty.Value{
		"name":                           cty.StringVal(g.name),
		"virtual_endpoint":               cty.StringVal("https://api." + g.v.VirtualCluster.DNSDomains[0]),
		"ca_bundle":                      cty.StringVal(render.GeneratedRef(Namespace, secretCA, "ca.crt", false)),
		"generic_kubeconfig_secret_name": cty.StringVal(GenericKubeconfigSecretName),
		"virtual_cluster":                cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal(g.virtual)}),
		"runtime_cluster":                cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal(g.runtime)}),
		"observability_enabled":          cty.BoolVal(g.observability().Enabled),
		projectcontroller.OutputName:     gardenercontrollermanager.Outputs(g.controllerManager())[projectcontroller.OutputName],
		"gardener_controller_manager":    g.controllerManager().ShootLoops().Value(),
	}
	if d := g.v.RuntimeCluster.Ingress.Domains; len(d) > 0 {
		out["ingress_domain"] = cty.StringVal(d[0])
	}
	return out
}

// loadBalancerAnnotations are the runtime settings' annotations for LoadBalancer Services.
func (g *builder) loadBalancerAnnotations() map[string]string {
	if s := g.v.RuntimeCluster.Settings; s != nil && s.LoadBalancerServices != nil {
		return s.LoadBalancerServices.Annotations
	}
	return nil
}

// vpaEnabled says whether the garden deploys its own VPA (Gardener's docs/concepts/operator.md).
func (g *builder) vpaEnabled() bool { return g.settings().VerticalPodAutoscalerEnabled }

func (g *builder) topologyAwareRouting() bool { return g.settings().TopologyAwareRoutingEnabled }

// settings are the runtime cluster's settings, or the settings block's defaults when it has none.
func (g *builder) settings() RuntimeSettings {
	if s := g.v.RuntimeCluster.Settings; s != nil {
		return *s
	}
	return settingsDefaults()
}

var settingsDefaults = component.BlockDefaults[RuntimeSettings](typeSchema, "runtime_cluster", "settings")

// lower is s in lower case; log levels are written as the schema allows them.
func lower(s string) string { return strings.ToLower(s) }
