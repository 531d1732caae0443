package gardenercontrolplane

import (
	"slices"

	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// Attributes are the schema attributes the four Gardener control plane components
// (gardener_apiserver, gardener_admission_controller, gardener_controller_manager,
// gardener_scheduler) share: where they run, the virtual garden they serve and how they reach it.
// They decode into Common.
func Attributes(component string) []schema.Attribute {
	return []schema.Attribute{
		attr.Reference("cluster", schema.RefCluster, "The garden runtime cluster "+component+" runs in."),
		attr.Reference("virtual_cluster", schema.RefCluster, "The virtual garden cluster "+component+" serves; its RBAC (and webhook configurations or APIServices) are created there."),
		{Name: "namespace", Type: cty.String, Default: cty.StringVal(DefaultNamespace), Checks: attr.Checks(schema.DNSLabel()), Description: "The runtime cluster namespace of " + component + "."},
		{Name: "images", Type: cty.Map(cty.String), Description: "Overrides of image vector entries by image name: \"repository:tag\", \"repository@sha256:...\" or a bare tag."},
		{Name: "high_availability", Type: cty.Bool, Default: cty.False, Description: "Whether the virtual garden is highly available: more replicas of " + component + ", spread over zones as well as nodes."},
		{Name: "log_level", Type: cty.String, Default: cty.StringVal(DefaultLogLevel), AllowedValues: slices.Clone(LogLevels), Description: "The log level of " + component + "."},
		attr.FeatureGates(component),
		{Name: "generic_kubeconfig_secret_name", Type: cty.String, Default: cty.StringVal(GenericKubeconfigSecretName), Checks: attr.Checks(schema.ObjectName()), Description: "The runtime Secret (key kubeconfig) with the generic token kubeconfig for the virtual garden, which reads its token from a file next to it; gardener-operator names it in the Garden's generic-token-kubeconfig.secret.gardener.cloud/name annotation."},
		{Name: "access_secret_name", Type: cty.String, Checks: attr.Checks(schema.ObjectName()), Description: "The token-requestor Secret the component creates for its ServiceAccount kube-system/" + component + " in the virtual garden; the virtual garden's gardener-resource-manager fills in its token. shoot-access-" + component + " when unset."},
	}
}
