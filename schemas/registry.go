package schemas

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/schema"
)

// Registry returns the catalog of every composite block (garden, seed, shoot) and component type.
// It builds fresh schemas on every call so that no caller can alter another's copy. It panics only
// if a schema here is invalid, which schemas_test.go rules out; a panic would be a bug in this
// package, not a user error.
func Registry() *schema.Registry {
	r, err := schema.NewRegistry(
		garden(),
		seed(),
		shoot(),
		helmRelease(),
		manifests(),
		generatedSecret(),
		priorityClasses(),
		namespaceSchema(),
		gardenerResourceManager(),
		istio(),
		nginxIngress(),
		etcd(),
		kubeAPIServer(),
		kubeControllerManager(),
		gardenerAPIServer(),
		gardenerAdmissionController(),
		gardenerControllerManager(),
		gardenerScheduler(),
		project(),
		cloudProfile(),
		secretBinding(),
		credentialsBinding(),
		quota(),
		controllerRegistration(),
		controllerDeployment(),
		exposureClass(),
		observability(),
		extension(),
		managedResource(),
		gardenlet(),
		dependencyWatchdog(),
		reserveExcessCapacity(),
		kubeScheduler(),
		vpnSeedServer(),
		machineControllerManager(),
		clusterAutoscaler(),
		vpa(),
		etcdDruid(),
		landscapeDaemon(),
	)
	if err != nil {
		panic("schemas: invalid built-in schema: " + err.Error())
	}
	return r
}

// The helpers below keep the schema files declarative; each returns plain data.

var stringList = cty.List(cty.String)

// reference is a required attribute that must point at another top-level block of kind.
func reference(name, kind, description string) schema.Attribute {
	return schema.Attribute{Name: name, Type: cty.DynamicPseudoType, References: kind, Required: true, Description: description}
}

// checks makes a check list read like a list of names at the use site.
func checks(cs ...schema.Check) []schema.Check { return cs }

// listOf is a list(string) literal for defaults.
func listOf(values ...string) cty.Value {
	if len(values) == 0 {
		return cty.ListValEmpty(cty.String)
	}
	out := make([]cty.Value, len(values))
	for i, v := range values {
		out[i] = cty.StringVal(v)
	}
	return cty.ListVal(out)
}

// secretRef names a Secret holding provider credentials; the name is not itself secret, so the
// attribute is not sensitive.
func secretRef(description string) schema.Attribute {
	return schema.Attribute{Name: "secret_ref", Type: cty.String, Required: true, Checks: checks(schema.ObjectName()), Description: description}
}

// providerConfig is the free-form, provider-specific configuration many Gardener objects carry.
func providerConfig(description string) schema.Attribute {
	return schema.Attribute{Name: "provider_config", Type: cty.DynamicPseudoType, Description: description}
}

// featureGates toggles Kubernetes-style feature gates of one component.
func featureGates(component string) schema.Attribute {
	return schema.Attribute{Name: "feature_gates", Type: cty.Map(cty.Bool), Description: "Feature gates of " + component + " to switch on (true) or off (false), by gate name."}
}

// observabilityStorage are the volume sizes of an observability stack's Prometheus and Vali.
func observabilityStorage(valiDefault string) []schema.Attribute {
	return []schema.Attribute{
		{Name: "prometheus_storage", Type: cty.String, Checks: checks(schema.Quantity()), Description: "Volume size of each Prometheus; 10Gi when unset."},
		{Name: "vali_storage", Type: cty.String, Checks: checks(schema.Quantity()), Description: "Volume size of Vali; " + valiDefault + " when unset."},
	}
}

// enabled is the common on/off switch of an optional feature.
func enabled(def bool, description string) schema.Attribute {
	return schema.Attribute{Name: "enabled", Type: cty.Bool, Default: cty.BoolVal(def), Description: description}
}
