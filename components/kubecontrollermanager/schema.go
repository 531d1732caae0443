package kubecontrollermanager

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/etcd"
	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/components/internal/shootaccess"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for the virtual garden's kube-controller-manager
// (virtual-garden-kube-controller-manager, Gardener's "Gardener Operator"
// docs/concepts/operator.md), which runs the controllers of a cluster without workers and never the
// serviceaccount-token controller (newKubeControllerManager in
// pkg/operator/controller/garden/garden/components.go at Gardener v1.120.0).
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "kube_controller_manager",
		Description: "A kube-controller-manager as a Deployment in the runtime cluster, by default the virtual garden's " +
			"virtual-garden-kube-controller-manager, with the command line Gardener v1.120.0 gives it: every default controller and the " +
			"bootstrap token controllers except those of nodes, volumes and endpoints, which a cluster without workers has no use for, and " +
			"never the serviceaccount-token controller, so clients use the TokenRequest API. One replica, two with high availability.",
		Body: schema.Body{Attributes: []schema.Attribute{
			attr.Reference("cluster", schema.RefCluster, "The runtime cluster the controller manager runs in."),
			{Name: "namespace", Type: cty.String, Default: cty.StringVal(etcd.DefaultNamespace), Checks: attr.Checks(schema.DNSLabel()), Description: "The namespace of the controller manager's objects."},
			{Name: "name_prefix", Type: cty.String, Default: cty.StringVal(etcd.DefaultNamePrefix), Immutable: true, Description: "Prefix of kube-controller-manager and of the API server's name: virtual-garden- for the virtual garden, empty for a shoot control plane."},
			{Name: "images", Type: cty.Map(cty.String), Description: "Overrides of image vector entries (kube-controller-manager) by name: repository:tag, repository@sha256:digest or a bare tag."},
			{Name: "kubernetes_version", Type: cty.String, Required: true, Checks: attr.Checks(schema.KubernetesVersion()), Description: "The Kubernetes version; it tags the image."},
			{Name: "high_availability", Type: cty.Bool, Default: cty.False, Description: "Whether two replicas with leader election run instead of one."},
			attr.SecretName("generic_kubeconfig_secret_name", shootaccess.GenericKubeconfigSecretName, "Secret with the generic token kubeconfig (key kubeconfig) for the API server the controller manager acts on, which reads its token from a file next to it."),
			attr.SecretName("access_secret_name", shootaccess.SecretName("kube-controller-manager"), "The token-requestor Secret through which the controller manager gets the token of its ServiceAccount kube-system/kube-controller-manager."),
			attr.SecretName("ca_secret_name", "ca", "Secret with the cluster CA certificate (ca.crt) published to every namespace as kube-root-ca.crt."),
			attr.SecretName("client_ca_secret_name", "ca-client", "Secret with the client CA (ca.crt, ca.key) that signs certificates requested by CSRs."),
			attr.SecretName("service_account_key_secret_name", "service-account-key", "Secret with the ServiceAccount signing key (key.pem)."),
			attr.SecretName("server_tls_secret_name", "kube-controller-manager-server", "Secret with the serving certificate (tls.crt, tls.key) of the secure port, signed by the cluster CA."),
			{Name: "service_network", Type: cty.String, Description: "The Service network of the cluster the controller manager acts on (--service-cluster-ip-range); left out when unset."},
			{Name: "certificate_signing_duration", Type: cty.String, Default: cty.StringVal("720h"), Checks: attr.Checks(schema.Duration()), Description: "The longest validity of certificates signed for CSRs, such as gardenlet client certificates."},
			attr.FeatureGates("the kube-controller-manager"),
			{Name: "priority_class_name", Type: cty.String, Default: cty.StringVal(priorityclasses.GardenSystem300), Checks: attr.Checks(schema.ObjectName()), Description: "PriorityClass of the pods; gardener-system-300 for shoot control planes."},
			{Name: "scrape_targets_alias", Type: cty.String, Default: cty.StringVal("all-garden-scrape-targets"), Description: "Alias of the Prometheus allowed to scrape the metrics: all-garden-scrape-targets in a garden, all-seed-scrape-targets or all-scrape-targets in a seed."},
		}},
	}
}
