package machinecontrollermanager

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/components/internal/shootaccess"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for a shoot's machine-controller-manager, which
// turns the machine.sapcloud.io objects of the shoot's control-plane namespace into virtual
// machines (Gardener's "Worker" docs/extensions/resources/worker.md, "Architecture"
// docs/concepts/architecture.md).
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "machine_controller_manager",
		Description: "The machine-controller-manager of a shoot control plane: a Deployment in the shoot's namespace of the seed that creates, " +
			"replaces and deletes the virtual machines behind the shoot's nodes from MachineDeployments, MachineSets and Machines " +
			"(machine.sapcloud.io). The provider extension adds its provider sidecar and writes the MachineClasses; the seed holds the CRDs.",
		Body: schema.Body{Attributes: []schema.Attribute{
			attr.Reference("cluster", schema.RefCluster, "The seed the shoot's control plane runs in."),
			{Name: "namespace", Type: cty.String, Required: true, Checks: attr.Checks(schema.DNSLabel()), Description: "The shoot's control-plane namespace, shoot--<project>--<shoot>."},
			{Name: "images", Type: cty.Map(cty.String), Description: "Overrides of image vector entries (machine-controller-manager) by name: repository:tag, repository@sha256:digest or a bare tag."},
			{Name: "replicas", Type: cty.Number, Default: cty.NumberIntVal(1), Checks: attr.Checks(schema.NonNegative()), Description: "Replicas of the controller: 1, or 0 while the shoot is hibernated."},
			{Name: "generic_kubeconfig_secret_name", Type: cty.String, Default: cty.StringVal(shootaccess.GenericKubeconfigSecretName), Checks: attr.Checks(schema.ObjectName()), Description: "Secret with the shoot's generic token kubeconfig (key kubeconfig)."},
			{Name: "access_secret_name", Type: cty.String, Default: cty.StringVal(shootaccess.SecretName(Name)), Checks: attr.Checks(schema.ObjectName()), Description: "The token-requestor Secret through which the controller gets its token for the shoot."},
			{Name: "priority_class_name", Type: cty.String, Default: cty.StringVal(priorityclasses.System300), Checks: attr.Checks(schema.ObjectName()), Description: "PriorityClass of the pods; shoot control planes use gardener-system-300 for the controller."},
		}},
	}
}
