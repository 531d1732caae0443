package extension

import (
	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/kube"
)

// ProtectedTaint is the taint key that marks a seed as protected; gardener.seed.protected says
// whether the seed carries it.
const ProtectedTaint = "seed.gardener.cloud/protected"

// mixins are the values gardenlet mixes into the root of every extension chart's values
// (Gardener's "ControllerRegistration" docs/extensions/registration.md, "gardenlet"
// docs/concepts/gardenlet.md): the Gardener version, the garden's identity, the gardenlet's feature
// gates and what the chart may want to know about the seed. Keys whose source is unset are left out
// rather than rendered empty, except visible and protected, which always have a value.
func mixins(v Values, s Seed) map[string]any {
	version := v.GardenerVersion
	if version == "" {
		version = images.GardenerVersion
	}
	garden := map[string]any{"clusterIdentity": v.GardenClusterIdentity}
	if v.GenericKubeconfigSecretName != "" {
		garden["genericKubeconfigSecretName"] = v.GenericKubeconfigSecretName
	}
	gates := map[string]any{}
	for k, on := range v.GardenletFeatureGates {
		gates[k] = on
	}
	return map[string]any{"gardener": map[string]any{
		"version":   version,
		"garden":    garden,
		"gardenlet": map[string]any{"featureGates": gates},
		"seed":      seedMixins(s),
	}}
}

// seedMixins are the gardener.seed values (Gardener's docs/extensions/registration.md).
func seedMixins(s Seed) map[string]any {
	identity := s.ClusterIdentity
	if identity == "" {
		// Our choice: a seed that names no identity is identified by its name, which is unique
		// in the garden.
		identity = s.Name
	}
	out := map[string]any{
		"name":            s.Name,
		"clusterIdentity": identity,
		"visible":         visible(s),
		"protected":       protected(s),
	}
	set := func(key string, value any, ok bool) {
		if ok {
			out[key] = value
		}
	}
	set("labels", kube.AnyMap(s.Labels), len(s.Labels) > 0)
	set("annotations", kube.AnyMap(s.Annotations), len(s.Annotations) > 0)
	set("provider", provider(s), provider(s) != "")
	set("region", region(s), region(s) != "")
	set("ingressDomain", ingressDomain(s), ingressDomain(s) != "")
	taints, ok := dig(s.Spec, "taints").([]any)
	set("taints", taints, ok)
	networks, ok := dig(s.Spec, "networks").(map[string]any)
	set("networks", networks, ok)
	blocks, ok := dig(s.Spec, "networks", "blockCIDRs").([]any)
	set("blockCIDRs", blocks, ok)
	volumes, ok := dig(s.Spec, "volume", "providers").([]any)
	set("volumeProviders", volumes, ok && len(volumes) > 0)
	if ok && len(volumes) > 0 {
		first, _ := dig(volumes[0], "name").(string)
		set("volumeProvider", first, first != "")
	}
	set("spec", s.Spec, len(s.Spec) > 0)
	return out
}

// provider is the seed's provider type, given or from its spec.
func provider(s Seed) string { return orSpec(s.Provider, s.Spec, "provider", "type") }

// region is the seed's region, given or from its spec.
func region(s Seed) string { return orSpec(s.Region, s.Spec, "provider", "region") }

// ingressDomain is the seed's ingress domain, given or from its spec.
func ingressDomain(s Seed) string { return orSpec(s.IngressDomain, s.Spec, "ingress", "domain") }

// visible is .spec.settings.scheduling.visible, true unless the spec says otherwise
// (Gardener's "Seed Settings" docs/operations/seed_settings.md).
func visible(s Seed) bool {
	if b, ok := dig(s.Spec, "settings", "scheduling", "visible").(bool); ok {
		return b
	}
	return true
}

// protected says whether the seed carries the protected taint.
func protected(s Seed) bool {
	taints, _ := dig(s.Spec, "taints").([]any)
	for _, t := range taints {
		if dig(t, "key") == ProtectedTaint {
			return true
		}
	}
	return false
}

// orSpec returns given, or the string at path in spec.
func orSpec(given string, spec map[string]any, path ...string) string {
	if given != "" {
		return given
	}
	s, _ := dig(spec, path...).(string)
	return s
}

// dig returns the value at path in nested maps, or nil.
func dig(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

// merge returns base with over merged into it recursively, over winning; maps are copied, the
// arguments stay untouched.
func merge(base, over map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		bm, bok := out[k].(map[string]any)
		om, ook := v.(map[string]any)
		if bok && ook {
			out[k] = merge(bm, om)
			continue
		}
		out[k] = v
	}
	return out
}
