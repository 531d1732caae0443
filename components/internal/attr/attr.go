// Package attr holds the pieces the schemas of several component types share, so that each
// type's schema (schema.go in its package) stays declarative, plain data, and the same attribute
// reads the same everywhere.
package attr

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/schema"
)

// StringList is the type of list(string) attributes.
var StringList = cty.List(cty.String)

// ClusterRef is the type of an output that can stand wherever a block expects a cluster
// reference.
var ClusterRef = cty.Object(map[string]cty.Type{"name": cty.String})

// Reference is a required attribute that must point at another top-level block of kind.
func Reference(name, kind, description string) schema.Attribute {
	return schema.Attribute{Name: name, Type: cty.DynamicPseudoType, References: kind, Required: true, Description: description}
}

// Checks makes a check list read like a list of names at the use site.
func Checks(cs ...schema.Check) []schema.Check { return cs }

// ListOf is a list(string) literal for defaults.
func ListOf(values ...string) cty.Value {
	if len(values) == 0 {
		return cty.ListValEmpty(cty.String)
	}
	out := make([]cty.Value, len(values))
	for i, v := range values {
		out[i] = cty.StringVal(v)
	}
	return cty.ListVal(out)
}

// SecretRef names a Secret holding provider credentials; the name is not itself secret, so the
// attribute is not sensitive.
func SecretRef(description string) schema.Attribute {
	return schema.Attribute{Name: "secret_ref", Type: cty.String, Required: true, Checks: Checks(schema.ObjectName()), Description: description}
}

// SecretName names a Secret a component mounts or reads, named def unless the landscape names
// another.
func SecretName(name, def, description string) schema.Attribute {
	return schema.Attribute{Name: name, Type: cty.String, Default: cty.StringVal(def), Checks: Checks(schema.ObjectName()), Description: description}
}

// ProviderConfig is the free-form, provider-specific configuration many Gardener objects carry.
func ProviderConfig(description string) schema.Attribute {
	return schema.Attribute{Name: "provider_config", Type: cty.DynamicPseudoType, Description: description}
}

// FeatureGates toggles Kubernetes-style feature gates of one component.
func FeatureGates(component string) schema.Attribute {
	return schema.Attribute{Name: "feature_gates", Type: cty.Map(cty.Bool), Description: "Feature gates of " + component + " to switch on (true) or off (false), by gate name."}
}

// ObservabilityStorage are the volume sizes of an observability stack's Prometheus and Vali.
func ObservabilityStorage(valiDefault string) []schema.Attribute {
	return []schema.Attribute{
		{Name: "prometheus_storage", Type: cty.String, Checks: Checks(schema.Quantity()), Description: "Volume size of each Prometheus; 10Gi when unset."},
		{Name: "vali_storage", Type: cty.String, Checks: Checks(schema.Quantity()), Description: "Volume size of Vali; " + valiDefault + " when unset."},
	}
}

// Enabled is the common on/off switch of an optional feature.
func Enabled(def bool, description string) schema.Attribute {
	return schema.Attribute{Name: "enabled", Type: cty.Bool, Default: cty.BoolVal(def), Description: description}
}

// IPFamilies is the networks' IP protocol list, shared by seeds and shoots.
func IPFamilies(description string) schema.Attribute {
	return schema.Attribute{
		Name: "ip_families", Type: StringList, Default: ListOf("IPv4"), Immutable: true,
		Checks: Checks(schema.NotEmpty(), schema.OneOf("IPv4", "IPv6")), Description: description,
	}
}

// ExternalTrafficPolicy is a Service's .spec.externalTrafficPolicy, a closed set in Kubernetes.
func ExternalTrafficPolicy(description string) schema.Attribute {
	return schema.Attribute{Name: "external_traffic_policy", Type: cty.String, Default: cty.StringVal("Cluster"), AllowedValues: []string{"Cluster", "Local"}, Description: description}
}

// ExtensionLifecycle is when an Extension type is reconciled, deleted and migrated
// (ControllerRegistration .spec.resources[].lifecycle, Gardener's ControllerResource in
// docs/api-reference/core.md), and whether it is enabled for every shoot, workerless ones only
// where supported (Gardener's "Extension" docs/extensions/resources/extension.md); both false when
// left out.
var ExtensionLifecycle = cty.ObjectWithOptionalAttrs(map[string]cty.Type{
	"reconcile": cty.String, "delete": cty.String, "migrate": cty.String,
	"globally_enabled": cty.Bool, "workerless_supported": cty.Bool,
}, []string{"globally_enabled", "workerless_supported"})
