package seed

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/kube"
)

// registration: the Seed object of a seed the engine manages, applied once the seed's system
// components are up, as gardenlet registers its seed after them; the engine reports its status
// as gardenlet (report.go). The seed-<name> namespace in the virtual garden and
// the copies of the garden's Secrets in it are gardener-controller-manager's, which makes them once
// the Seed exists (seedNamespace and seedSecrets predict them).
func (b *builder) registration() error {
	seed := &unstructured.Unstructured{Object: Object(b.name, b.v)}
	b.add("seed", "seed", kube.On(b.virtual, "", seed), b.waitFor()...)
	return nil
}

// Object is the Seed as the seed block registers it, which the extensions Cluster of each of its
// shoots embeds (the seed's output object).
func Object(name string, v Values) map[string]any {
	b := &builder{name: name, v: v}
	return kube.Custom("core.gardener.cloud/v1beta1", "Seed", "", name, nil, map[string]any{"spec": b.spec()}).Object
}

// waitFor are the parts the Seed comes after: every system component.
func (b *builder) waitFor() []string {
	var out []string
	for _, p := range b.parts {
		if !p.Detached {
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
