package kubescheduler

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for a shoot control plane's kube-scheduler, a Deployment
// in the shoot namespace of the seed (Gardener's "ControlPlane Webhooks"
// docs/extensions/controlplane-webhooks.md, "Priority Classes"
// docs/development/priority-classes.md).
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "kube_scheduler",
		Description: "A shoot control plane's kube-scheduler in its shoot namespace of the seed: the Deployment kube-scheduler " +
			"(gardener-system-300; one replica, two with high availability), its KubeSchedulerConfiguration with the balanced or " +
			"bin-packing profile, a metrics Service, and the token-requestor Secret shoot-access-kube-scheduler whose kubeconfig the " +
			"shoot's gardener-resource-manager completes with a token.",
		Body: schema.Body{Attributes: []schema.Attribute{
			attr.Reference("cluster", schema.RefCluster, "The seed cluster the control plane runs in."),
			{Name: "namespace", Type: cty.String, Required: true, Checks: attr.Checks(schema.DNSLabel()), Description: "The shoot namespace in the seed, shoot--<project>--<name>."},
			{Name: "images", Type: cty.Map(cty.String), Description: "Overrides of image vector entries (kube-scheduler) by name: repository:tag, repository@sha256:digest or a bare tag."},
			{Name: "kubernetes_version", Type: cty.String, Required: true, Checks: attr.Checks(schema.KubernetesVersion()), Description: "The shoot's Kubernetes version (1.25 or newer); it tags the image."},
			{Name: "high_availability", Type: cty.Bool, Default: cty.False, Description: "Whether two leader-electing replicas run, spread over nodes and zones, instead of one: for control planes with failure tolerance node or zone."},
			// Gardener's KubeSchedulerConfig in docs/api-reference/core.md profile default balanced
			{Name: "profile", Type: cty.String, Default: cty.StringVal(ProfileBalanced), AllowedValues: []string{ProfileBalanced, ProfileBinPacking}, Description: "Whether pods are spread over nodes (balanced) or packed onto as few as possible (bin-packing, scheduler name bin-packing-scheduler)."},
			attr.FeatureGates("the kube-scheduler"),
			{Name: "access_secret_name", Type: cty.String, Default: cty.StringVal(DefaultAccessSecretName), Checks: attr.Checks(schema.ObjectName()), Description: "Name of the token-requestor Secret rendered with the scheduler's kubeconfig."},
			{Name: "ca_secret_name", Type: cty.String, Default: cty.StringVal(DefaultCASecretName), Checks: attr.Checks(schema.ObjectName()), Description: "Secret in the namespace with the shoot's cluster CA (ca.crt), which the kubeconfig trusts; unused when ca_bundle is set."},
			{Name: "ca_bundle", Type: cty.String, Description: "The shoot's cluster CA certificate (PEM) for the kubeconfig, instead of ca_secret_name."},
			{Name: "server_tls_secret_name", Type: cty.String, Checks: attr.Checks(schema.ObjectName()), Description: "A kubernetes.io/tls Secret the secure port serves with; kube-scheduler's self-signed certificate when unset."},
		}},
	}
}
