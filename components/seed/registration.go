package seed

import (
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/namespace"
	"github.com/declarative-gardener/gardener/engine/render"
)

// registration: the seed-<name> namespace Gardener keeps per seed in the virtual garden (Gardener's
// "Gardener Controller Manager" docs/concepts/controller-manager.md) and the Seed object, applied
// once the seed's system components and gardenlet are up; it is ready when gardenlet reports the
// seed (Gardener's "Getting Started Locally" docs/deployment/getting_started_locally.md).
func (b *builder) registration() error {
	nsVals := namespace.Type.Defaults()
	nsVals.Cluster, nsVals.Name = decode.Cluster{Name: b.virtual}, Namespace(b.name)
	nsVals.Labels = map[string]string{"gardener.cloud/role": "seed"}
	ns, err := namespace.Objects(nsVals)
	if err != nil {
		return err
	}
	b.add("seed_namespace", "namespace", ns)
	// The garden's shared Secrets (the domains' DNS credentials, alerting) replicated into
	// seed-<name> by their gardener.cloud/role label, as gardener-controller-manager's Seed
	// controller does (Gardener's docs/concepts/controller-manager.md): what gardenlet may read of the
	// garden.
	b.parts = append(b.parts, render.Component{Name: "seed_secrets", Type: "secret_copy", DependsOn: []string{"seed_namespace"}, Copy: &render.CopySpec{
		Cluster: b.virtual, Namespace: Namespace(b.name), FromCluster: b.virtual, FromNamespace: GardenNamespace, FromSelector: SharedSecretSelector,
	}})
	seed := kube.Custom("core.gardener.cloud/v1beta1", "Seed", "", b.name, nil, map[string]any{"spec": b.spec()})
	b.add("seed", "seed", kube.On(b.virtual, "", seed), append([]string{"seed_namespace"}, b.waitFor()...)...)
	return nil
}

// SharedSecretSelector selects the garden namespace's Secrets that every seed namespace gets a
// copy of (Gardener's docs/concepts/controller-manager.md: Secret, garden, gardener.cloud/role);
// the label's presence is what counts, whatever the role.
const SharedSecretSelector = "gardener.cloud/role"

// waitFor are the parts the Seed comes after: every system component and gardenlet.
func (b *builder) waitFor() []string {
	var out []string
	for _, p := range b.parts {
		if p.Name != "seed_namespace" && p.Name != "seed_secrets" && !p.Detached {
			out = append(out, p.Name)
		}
	}
	return out
}

// spec is the Seed's spec as the block declares it (Gardener's Seed in docs/api-reference/core.md).
func (b *builder) spec() map[string]any {
	v := b.v
	provider := map[string]any{"type": v.Provider.Type, "region": v.Provider.Region}
	if len(v.Provider.Zones) > 0 {
		provider["zones"] = kube.AnyList(v.Provider.Zones)
	}
	if v.Provider.ProviderConfig != nil {
		provider["providerConfig"] = v.Provider.ProviderConfig
	}
	networks := map[string]any{"pods": v.Networks.Pods, "services": v.Networks.Services}
	if v.Networks.Nodes != "" {
		networks["nodes"] = v.Networks.Nodes
	}
	if len(v.Networks.BlockCIDRs) > 0 {
		networks["blockCIDRs"] = kube.AnyList(v.Networks.BlockCIDRs)
	}
	if len(v.Networks.IPFamilies) > 0 {
		networks["ipFamilies"] = kube.AnyList(v.Networks.IPFamilies)
	}
	if d := v.Networks.ShootDefaults; d != nil {
		defaults := map[string]any{}
		if d.Pods != "" {
			defaults["pods"] = d.Pods
		}
		if d.Services != "" {
			defaults["services"] = d.Services
		}
		if len(defaults) > 0 {
			networks["shootDefaults"] = defaults
		}
	}
	controller := map[string]any{"kind": v.Ingress.ControllerKind}
	if v.Ingress.ProviderConfig != nil {
		controller["providerConfig"] = v.Ingress.ProviderConfig
	}
	spec := map[string]any{
		"provider": provider,
		"networks": networks,
		"ingress":  map[string]any{"domain": v.Ingress.Domain, "controller": controller},
		// The DNS and backup credentials live in the virtual garden's garden namespace.
		"dns": map[string]any{"provider": map[string]any{"type": v.DNS.Provider.Type,
			"secretRef": map[string]any{"name": v.DNS.Provider.SecretRef, "namespace": GardenNamespace}}},
		"settings": b.settingsSpec(),
	}
	if bk := v.Backup; bk != nil {
		backup := map[string]any{"provider": bk.Provider, "secretRef": map[string]any{"name": bk.SecretRef, "namespace": GardenNamespace}}
		if bk.Region != "" {
			backup["region"] = bk.Region
		}
		if bk.ProviderConfig != nil {
			backup["providerConfig"] = bk.ProviderConfig
		}
		spec["backup"] = backup
	}
	if len(v.Taints) > 0 {
		var taints []any
		for _, t := range v.Taints {
			taint := map[string]any{"key": t.Key}
			if t.Value != "" {
				taint["value"] = t.Value
			}
			taints = append(taints, taint)
		}
		spec["taints"] = taints
	}
	return spec
}

func (b *builder) settingsSpec() map[string]any {
	s := b.settings()
	out := map[string]any{
		"excessCapacityReservation": map[string]any{"enabled": s.ExcessCapacityReservationEnabled},
		"scheduling":                map[string]any{"visible": s.SchedulingVisible},
		"verticalPodAutoscaler":     map[string]any{"enabled": s.VerticalPodAutoscalerEnabled},
		"topologyAwareRouting":      map[string]any{"enabled": s.TopologyAwareRoutingEnabled},
	}
	if d := s.DependencyWatchdog; d != nil {
		out["dependencyWatchdog"] = map[string]any{"weeder": map[string]any{"enabled": d.WeederEnabled}, "prober": map[string]any{"enabled": d.ProberEnabled}}
	}
	if l := s.LoadBalancerServices; l != nil {
		lb := map[string]any{"proxyProtocol": map[string]any{"allowed": l.ProxyProtocolAllowed}}
		if len(l.Annotations) > 0 {
			lb["annotations"] = kube.AnyMap(l.Annotations)
		}
		if l.ExternalTrafficPolicy != "" {
			lb["externalTrafficPolicy"] = l.ExternalTrafficPolicy
		}
		var zones []any
		for _, z := range l.Zones {
			zone := map[string]any{"name": z.Name}
			if len(z.Annotations) > 0 {
				zone["annotations"] = kube.AnyMap(z.Annotations)
			}
			if z.ExternalTrafficPolicy != "" {
				zone["externalTrafficPolicy"] = z.ExternalTrafficPolicy
			}
			zones = append(zones, zone)
		}
		if len(zones) > 0 {
			lb["zones"] = zones
		}
		out["loadBalancerServices"] = lb
	}
	return out
}
