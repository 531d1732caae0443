package kubescheduler

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/components/internal/shootaccess"
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
		Description: "A shoot control plane's kube-scheduler in its shoot namespace of the seed, as gardenlet deploys it: the Deployment " +
			"kube-scheduler (gardener-system-300; one replica, two with high availability) with its PodDisruptionBudget and VPA, its " +
			"KubeSchedulerConfiguration with the balanced or bin-packing profile in a unique ConfigMap, a metrics Service, the " +
			"token-requestor Secret shoot-access-kube-scheduler read through the generic token kubeconfig, and the ManagedResource " +
			"shoot-core-kube-scheduler with the scheduler's ClusterRoleBindings in the shoot.",
		Body: schema.Body{Attributes: []schema.Attribute{
			attr.Reference("cluster", schema.RefCluster, "The seed cluster the control plane runs in."),
			{Name: "namespace", Type: cty.String, Required: true, Checks: attr.Checks(schema.DNSLabel()), Description: "The shoot namespace in the seed, shoot--<project>--<name>."},
			{Name: "images", Type: cty.Map(cty.String), Description: "Overrides of image vector entries (kube-scheduler) by name: repository:tag, repository@sha256:digest or a bare tag."},
			{Name: "kubernetes_version", Type: cty.String, Required: true, Checks: attr.Checks(schema.KubernetesVersion()), Description: "The shoot's Kubernetes version (1.25 or newer); it tags the image."},
			{Name: "high_availability", Type: cty.Bool, Default: cty.False, Description: "Whether two leader-electing replicas run, spread over nodes and zones, instead of one: for control planes with failure tolerance node or zone."},
			// Gardener's KubeSchedulerConfig in docs/api-reference/core.md profile default balanced
			{Name: "profile", Type: cty.String, Default: cty.StringVal(ProfileBalanced), AllowedValues: []string{ProfileBalanced, ProfileBinPacking}, Description: "Whether pods are spread over nodes (balanced) or packed onto as few as possible (bin-packing, scheduler name bin-packing-scheduler)."},
			attr.FeatureGates("the kube-scheduler"),
			{Name: "kube_max_pd_vols", Type: cty.String, Description: "The most volumes the scheduler places on one node (environment variable KUBE_MAX_PD_VOLS); the scheduler's default when unset."},
			attr.SecretName("generic_kubeconfig_secret_name", shootaccess.GenericKubeconfigSecretName, "Secret with the shoot's generic token kubeconfig (key kubeconfig), which the scheduler reads with its token next to it."),
			attr.SecretName("access_secret_name", DefaultAccessSecretName, "The token-requestor Secret rendered for the scheduler's ServiceAccount kube-system/kube-scheduler in the shoot."),
			attr.SecretName("client_ca_secret_name", DefaultClientCASecretName, "Secret with the shoot's client CA (ca.crt), which the secure port trusts for client certificates."),
			attr.SecretName("server_tls_secret_name", DefaultServerTLSSecretName, "Secret with the secure port's serving certificate (tls.crt, tls.key), signed by the shoot's cluster CA."),
		}},
	}
}
