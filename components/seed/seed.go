// Package seed renders the seed composite block: the Seed in the virtual garden and the seed
// system components gardenlet's Seed reconciler deploys into the seed cluster (pkg/gardenlet/controller/seed/seed/reconciler_reconcile.go,
// §2.3; Gardener's "gardenlet" docs/concepts/gardenlet.md), as parts applied in this order:
//
//  1. the seed's PriorityClasses (Gardener's "Priority Classes"
//     docs/development/priority-classes.md), its garden namespace, the extension CRDs
//     (extensions.gardener.cloud) and the seed's certificates;
//  2. gardener-resource-manager (class seed), then etcd-druid, VPA, Istio (istiod, the default
//     ingress gateway in istio-ingress spanning all zones and one gateway per zone,
//     Gardener's "Istio" docs/operations/istio.md) and nginx-ingress, dependency-watchdog prober
//     and weeder, reserve-excess-capacity and the observability stack (Gardener's "Logging And
//     Monitoring" docs/extensions/logging-and-monitoring.md), and the NetworkPolicies gardenlet's
//     NetworkPolicy controller keeps in the namespaces these create (components/networkpolicies);
//  3. the Seed object in the virtual garden, whose status the engine reports as gardenlet
//     (GardenletReady, SeedSystemComponentsHealthy, the heartbeat Lease);
//     gardener-controller-manager then makes the seed-<name> namespace and the copies of the
//     garden's Secrets in it, which the seed predicts;
//  4. after the Seed, without holding it up: the BackupBucket (with backup) and the ingress
//     domain's wildcard DNSRecord, whose extensions are installed once the Seed is registered.
//
// That is a seed the engine manages (managed_by "engine", the default): the engine is its
// gardenlet, and no gardenlet runs. A seed handed to gardenlet (managed_by "gardenlet") renders
// only gardenlet, its PriorityClass and its bootstrap token, as Gardener's "Deploy a gardenlet
// Manually" docs/deployment/deploy_gardenlet_manually.md installs it; gardenlet then registers the
// Seed from its seed configuration and does all of the above itself.
//
// A seed in the garden runtime cluster leaves out what the garden already runs there:
// gardener-resource-manager, VPA, etcd-druid, istiod and nginx-ingress (Gardener's "Gardener
// Operator" docs/concepts/operator.md).
package seed

import (
	"fmt"
	"time"

	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/gardenercontrollermanager"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/engine/render"
)

// GardenNamespace is the seed cluster's namespace of its system components.
const GardenNamespace = "garden"

// Who reconciles a seed (the block's managed_by): the engine as its gardenlet, or a gardenlet the
// engine deploys. Never both, since both would reconcile the same objects.
const (
	ManagedByEngine    = "engine"
	ManagedByGardenlet = "gardenlet"
)

// Type is the seed block as the catalog registers it: its schema (schema.go) and its render
// function.
var Type = component.Define(typeSchema, renderValues)

// renderValues renders one seed instance into its parts and outputs.
func renderValues(in render.Input, v Values) (*render.Output, error) {
	parts, err := Parts(in.Name, v)
	if err != nil {
		return nil, err
	}
	if v.ManagedBy == ManagedByGardenlet {
		// gardenlet registers the Seed, reconciles it and reports about it, and
		// gardener-controller-manager's seed controllers act on the Seed it registered: the
		// engine predicts nothing and reports nothing. What the engine deployed while it managed
		// the seed, gardenlet deploys now under the same names: it is released to gardenlet, not
		// deleted (the Seed with its shoots, the system components they run on).
		// (A configuration the engine could not deploy itself has nothing of the engine's.)
		engine := v
		engine.ManagedBy = ManagedByEngine
		out := &render.Output{Components: parts, Outputs: Outputs(in.Name, v)}
		if before, err := Parts(in.Name, engine); err == nil {
			if before, err = withNetworkPolicies(in, engine, before); err == nil {
				out.HandedOver = render.HandOver(before, "gardenlet")
			}
		}
		return out, nil
	}
	if parts, err = withNetworkPolicies(in, v, parts); err != nil {
		return nil, fmt.Errorf("seed %s: %w", in.Name, err)
	}
	var threshold time.Duration
	if v.Backup != nil && v.Backup.ConditionThreshold != "" {
		if threshold, err = time.ParseDuration(v.Backup.ConditionThreshold); err != nil {
			return nil, fmt.Errorf("seed %s: backup condition_threshold: %w", in.Name, err)
		}
	}
	conds, revisit, err := conditions(in, in.Name, v.Garden.VirtualCluster, threshold)
	if err != nil {
		return nil, err
	}
	predictions, handedOver, err := seedNamespaceControllerOutput(in, in.Name, v.Garden.VirtualCluster)
	if err != nil {
		return nil, err
	}
	return &render.Output{Components: parts, Outputs: Outputs(in.Name, v), Conditions: conds, Revisit: revisit,
		Reports: []render.Report{report(in.Name, v, parts)}, Predictions: predictions, HandedOver: handedOver}, nil
}

// Outputs are what shoots read of their seed: where its control planes run, the seed's
// provider, zones and networks (shoot networks must not overlap them, Gardener's "Gardener
// Scheduler" docs/concepts/scheduler.md) and whether it has backup (a shoot's BackupEntry needs it,
// Gardener's docs/concepts/gardenlet.md).
func Outputs(name string, v Values) map[string]cty.Value {
	str := func(s string) cty.Value { return cty.StringVal(s) }
	strList := func(list []string) cty.Value {
		if len(list) == 0 {
			return cty.ListValEmpty(cty.String)
		}
		var vs []cty.Value
		for _, s := range list {
			vs = append(vs, str(s))
		}
		return cty.ListVal(vs)
	}
	zones := strList(v.Provider.Zones)
	// The networks the shoots' control-plane namespaces get their NetworkPolicies with.
	policy := PolicyNetworks(v)
	var shootPods, shootServices string
	if d := v.Networks.ShootDefaults; d != nil {
		shootPods, shootServices = d.Pods, d.Services
	}
	var backupProvider, backupRegion string
	if b := v.Backup; b != nil {
		backupProvider, backupRegion = b.Provider, b.Region
		if backupRegion == "" {
			backupRegion = v.Provider.Region
		}
	}
	return map[string]cty.Value{
		"name":            str(name),
		"managed_by":      str(v.ManagedBy),
		"namespace":       str(Namespace(name)),
		"cluster":         cty.ObjectVal(map[string]cty.Value{"name": str(v.Cluster.Name)}),
		"virtual_cluster": cty.ObjectVal(map[string]cty.Value{"name": str(v.Garden.VirtualCluster)}),
		"provider_type":   str(v.Provider.Type),
		"region":          str(v.Provider.Region),
		"zones":           zones,
		"ingress_domain":  str(v.Ingress.Domain),
		"networks": cty.ObjectVal(map[string]cty.Value{
			"pods": str(v.Networks.Pods), "services": str(v.Networks.Services), "nodes": str(v.Networks.Nodes),
			"shoot_pods": str(shootPods), "shoot_services": str(shootServices),
			"block_cidrs": strList(policy.BlockCIDRs), "ip_families": strList(policy.IPFamilies),
		}),
		"backup_provider":         str(backupProvider),
		"backup_region":           str(backupRegion),
		"exposure_class_handlers": exposureClassHandlerOutputs(v.ExposureClassHandlers),
		"observability": cty.ObjectVal(map[string]cty.Value{
			"enabled": cty.BoolVal(v.observabilityOn()), "logging_enabled": cty.BoolVal(v.loggingOn()),
		}),
		"gardener_controller_manager": v.shootLoops().Value(),
		"object":                      objectValue(name, v),
	}
}

// objectValue is the Seed as the block registers it, for the extensions Cluster of the seed's
// shoots; null in the unlikely case that its JSON has no cty type.
func objectValue(name string, v Values) cty.Value {
	obj, err := decode.Value(Object(name, v))
	if err != nil {
		return cty.NullVal(cty.DynamicPseudoType)
	}
	return obj
}

// exposureClassHandlerOutputs are the namespace and labels of each handler's gateway by handler
// name, for shoots of an ExposureClass with that handler (Gardener's "ExposureClasses"
// docs/usage/networking/exposureclasses.md).
func exposureClassHandlerOutputs(handlers []ExposureClassHandler) cty.Value {
	ty := cty.Object(map[string]cty.Type{"namespace": cty.String, "labels": cty.Map(cty.String)})
	if len(handlers) == 0 {
		return cty.MapValEmpty(ty)
	}
	out := map[string]cty.Value{}
	for _, h := range handlers {
		labels := map[string]cty.Value{}
		for k, v := range h.Labels() {
			labels[k] = cty.StringVal(v)
		}
		out[h.Name] = cty.ObjectVal(map[string]cty.Value{"namespace": cty.StringVal(h.Namespace()), "labels": cty.MapVal(labels)})
	}
	return cty.MapVal(out)
}

// Namespace is the seed's namespace in the virtual garden, seed-<name> (Gardener's "Gardener
// Controller Manager" docs/concepts/controller-manager.md).
func Namespace(seed string) string { return "seed-" + seed }

// Parts renders the parts of one seed that follow from its values alone: all but the part
// network_policies, which the seed's render function adds (withNetworkPolicies), since its
// allow-to-runtime-apiserver lists the endpoints of the seed cluster's API server as they are.
func Parts(name string, v Values) ([]render.Component, error) {
	b := &builder{name: name, v: v, cluster: v.Cluster.Name, virtual: v.Garden.VirtualCluster}
	if b.cluster == "" {
		return nil, fmt.Errorf("seed %s: cluster is required", name)
	}
	if b.virtual == "" {
		return nil, fmt.Errorf("seed %s: its garden has no virtual garden cluster to register the Seed in", name)
	}
	b.runtimeAsSeed = v.Garden.RuntimeCluster != "" && v.Garden.RuntimeCluster == b.cluster
	steps := []func() error{b.base, b.systemComponents, b.observabilityStack, b.backup, b.registration, b.ingressDNS}
	switch v.ManagedBy {
	case ManagedByEngine, "":
	case ManagedByGardenlet:
		steps = []func() error{b.gardenletNamespace, b.gardenlet}
	default:
		return nil, fmt.Errorf("seed %s: managed_by %q is not one of %s, %s", name, v.ManagedBy, ManagedByEngine, ManagedByGardenlet)
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, fmt.Errorf("seed %s: %w", name, err)
		}
	}
	return b.parts, nil
}

// builder collects the parts of one seed.
type builder struct {
	name, cluster, virtual string
	v                      Values
	// runtimeAsSeed is set when the seed is the garden's runtime cluster.
	runtimeAsSeed bool
	parts         []render.Component
}

func (b *builder) add(name, typ string, objects []render.Object, deps ...string) {
	b.parts = append(b.parts, render.Component{Name: name, Type: typ, DependsOn: deps, Objects: objects})
}

// secret appends a generated-secret part in the seed's garden namespace.
func (b *builder) secret(part string, spec render.SecretSpec, caPart string) {
	b.parts = append(b.parts, render.SecretPart(part, b.cluster, GardenNamespace, spec, caPart))
}

func (b *builder) settings() Settings {
	if b.v.Settings != nil {
		return *b.v.Settings
	}
	return settingsDefaults()
}

// settingsDefaults are the settings of a seed block without a settings block: the block's
// defaults.
var settingsDefaults = component.BlockDefaults[Settings](typeSchema, "settings")

// shootLoops are the garden's gardener-controller-manager shoot loop settings, which the seed's
// shoots predict its loops with; the component's defaults for a seed built in Go without them.
func (v Values) shootLoops() gardenercontrollermanager.ShootLoops {
	if v.Garden.ShootLoops == (gardenercontrollermanager.ShootLoops{}) {
		return gardenercontrollermanager.DefaultShootLoops()
	}
	return v.Garden.ShootLoops
}
