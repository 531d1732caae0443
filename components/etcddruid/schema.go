package etcddruid

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for etcd-druid, the operator behind the Etcd resources of the
// virtual garden and of shoot control planes (Gardener's "etcd" docs/concepts/etcd.md, "Gardener
// Operator" docs/concepts/operator.md).
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "etcd_druid",
		Description: "The etcd-druid operator, which runs etcd clusters for druid.gardener.cloud/v1alpha1 Etcd resources: the Etcd CRD, its " +
			"ServiceAccount and RBAC, the Deployment and metrics Service, and the etcd-druid-imagevector-overwrite ConfigMap that hands the " +
			"etcd-wrapper and etcd-backup-restore images of the image vector (with any overrides) to the etcd pods druid creates.",
		Body: schema.Body{Attributes: []schema.Attribute{
			attr.Reference("cluster", schema.RefCluster, "The runtime cluster etcd-druid runs in and manages Etcds of."),
			{Name: "namespace", Type: cty.String, Default: cty.StringVal(DefaultNamespace), Checks: attr.Checks(schema.DNSLabel()), Description: "The namespace of etcd-druid."},
			{Name: "images", Type: cty.Map(cty.String), Description: "Overrides of image vector entries (etcd-druid, etcd-wrapper, etcd-backup-restore) by image name: \"repository:tag\", \"repository@sha256:...\" or a bare tag."},
			{Name: "high_availability", Type: cty.Bool, Default: cty.False, Description: "Run 2 leader-electing replicas spread over nodes and zones, with a PodDisruptionBudget, instead of 1."},
			{Name: "workers", Type: cty.Number, Default: cty.NumberIntVal(DefaultWorkers), Checks: attr.Checks(schema.Positive()), Description: "How many Etcd resources etcd-druid reconciles concurrently."},
			attr.FeatureGates("etcd-druid"),
		}},
	}
}
