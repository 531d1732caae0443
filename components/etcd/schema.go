package etcd

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for one etcd cluster managed by etcd-druid through an Etcd resource:
// the virtual garden's virtual-garden-etcd-main and virtual-garden-etcd-events (Gardener's
// "Gardener Operator" docs/concepts/operator.md), and the etcds of shoot control planes in seeds,
// which the shoot composite renders through Objects.
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "etcd",
		Description: "One etcd cluster as an etcd-druid Etcd resource and its VerticalPodAutoscaler; etcd-druid builds a StatefulSet, its client Service " +
			"<prefix>etcd-<role>-client and the volumes. The main etcd stores every resource and is backed up; the events etcd " +
			"stores Kubernetes events only. With high availability it runs three members, which gardener-resource-manager spreads over nodes and zones. " +
			"etcd-druid must run in the cluster and reconcile Etcd specs on change.",
		Body: schema.Body{
			Attributes: []schema.Attribute{
				attr.Reference("cluster", schema.RefCluster, "The runtime cluster the etcd runs in."),
				{Name: "namespace", Type: cty.String, Default: cty.StringVal(DefaultNamespace), Checks: attr.Checks(schema.DNSLabel()), Description: "The namespace of the Etcd resource and its pods."},
				{Name: "name_prefix", Type: cty.String, Default: cty.StringVal(DefaultNamePrefix), Immutable: true, Description: "Prefix of etcd-<role>: virtual-garden- for the virtual garden, empty for a shoot control plane."},
				{Name: "role", Type: cty.String, Required: true, Immutable: true, AllowedValues: []string{"main", "events"}, Description: "Which etcd: main (all resources, backed up) or events (Kubernetes events)."},
				{Name: "high_availability", Type: cty.Bool, Default: cty.False, Description: "Whether the etcd runs three members instead of one; peers then talk TLS with certificates of their own."},
				{Name: "images", Type: cty.Map(cty.String), Description: "Overrides of image vector entries (etcd-wrapper, etcd-backup-restore) by name: repository:tag, repository@sha256:digest or a bare tag. Without an override the Etcd names no image and etcd-druid takes its own."},
				{Name: "storage_capacity", Type: cty.String, Checks: attr.Checks(schema.Quantity()), Description: "Size of each member's volume; 25Gi for main and 10Gi for events when unset."},
				{Name: "storage_class", Type: cty.String, Description: "Storage class of the volumes; the cluster's default class when unset."},
				{Name: "volume_claim_template", Type: cty.String, Immutable: true, Checks: attr.Checks(schema.ObjectName()), Description: "Name the PVCs are derived from; main-<prefix>etcd for main and the etcd's name for events when unset, as gardener-operator names them."},
				{Name: "priority_class_name", Type: cty.String, Default: cty.StringVal(priorityclasses.GardenSystem500), Checks: attr.Checks(schema.ObjectName()), Description: "PriorityClass of the etcd pods; gardener-system-500 for shoot control planes."},
				{Name: "ca_secret_name", Type: cty.String, Default: cty.StringVal("ca-etcd"), Checks: attr.Checks(schema.ObjectName()), Description: "Secret with the CA certificate (ca.crt) that signs the etcd's server and client certificates."},
				{Name: "server_tls_secret_name", Type: cty.String, Checks: attr.Checks(schema.ObjectName()), Description: "Secret with the etcd server certificate (tls.crt, tls.key); etcd-server-<role> when unset."},
				{Name: "client_tls_secret_name", Type: cty.String, Default: cty.StringVal("etcd-client"), Checks: attr.Checks(schema.ObjectName()), Description: "Secret with the client certificate (tls.crt, tls.key) the backup-restore sidecar uses."},
				{Name: "peer_ca_secret_name", Type: cty.String, Default: cty.StringVal("ca-etcd-peer"), Checks: attr.Checks(schema.ObjectName()), Description: "Secret with the CA certificate (ca.crt) of the peer certificates, used with high availability."},
				{Name: "peer_tls_secret_name", Type: cty.String, Checks: attr.Checks(schema.ObjectName()), Description: "Secret with the members' peer certificate (tls.crt, tls.key), used with high availability; etcd-peer-server-<role> when unset."},
				{Name: "defragmentation_schedule", Type: cty.String, Description: "Cron schedule (UTC) of database defragmentation; daily at 01:00 for main and 01:30 for events when unset. A shoot's etcds defragment every third day at a minute of its maintenance window."},
				{Name: "topology_aware_routing", Type: cty.Bool, Default: cty.False, Description: "Whether the client Service prefers members in the caller's zone."},
				{Name: "eviction_requirement", Type: cty.String, AllowedValues: []string{"never", "in-maintenance-window-only"}, Description: "When the VerticalPodAutoscaler may evict members to scale them down; never for main and in the maintenance window for events when unset."},
				{Name: "maintenance_window_begin", Type: cty.String, Checks: attr.Checks(schema.TimeWindow()), Description: "Start of the owner's daily maintenance window (HHMMSS+HHMM), in which an in-window eviction requirement lets the VerticalPodAutoscaler evict."},
				{Name: "maintenance_window_end", Type: cty.String, Checks: attr.Checks(schema.TimeWindow()), Description: "End of the owner's daily maintenance window (HHMMSS+HHMM)."},
				{Name: "runtime_kubernetes_version", Type: cty.String, Description: "Kubernetes version of the cluster the etcd runs in, which decides how the client Service asks for topology-aware routing: traffic distribution from 1.31 on, the topology-mode annotation before (and when unset)."},
			},
			Blocks: []schema.Block{{
				Name:        "backup",
				Description: "Where the main etcd's snapshots go: a full snapshot daily, deltas every 5 minutes and exponential garbage collection, as Gardener configures it. The bucket must exist.",
				Body: schema.Body{Attributes: []schema.Attribute{
					{Name: "provider", Type: cty.String, Required: true, Immutable: true, Checks: attr.Checks(schema.NotEmpty()), Description: "The object store provider type, such as aws, gcp or local."},
					{Name: "bucket_name", Type: cty.String, Required: true, Immutable: true, Checks: attr.Checks(schema.NotEmpty()), Description: "The existing bucket the snapshots are written to."},
					attr.SecretRef("Name of the Secret in the etcd's namespace with credentials for the object store."),
					{Name: "prefix", Type: cty.String, Immutable: true, Description: "Folder in the bucket that belongs to the etcd's owner; the snapshots go to <prefix>/etcd-<role>. The etcd's name when unset."},
					{Name: "full_snapshot_schedule", Type: cty.String, Default: cty.StringVal("0 0 * * *"), Description: "Cron schedule (UTC) of the daily full snapshot; a shoot's is in the hour before its maintenance window."},
					{Name: "delta_snapshot_period", Type: cty.String, Default: cty.StringVal("5m"), Checks: attr.Checks(schema.Duration()), Description: "Interval of delta snapshots."},
					{Name: "delta_snapshot_memory_limit", Type: cty.String, Default: cty.StringVal("100Mi"), Checks: attr.Checks(schema.Quantity()), Description: "Size of accumulated changes after which a delta snapshot is taken early."},
					{Name: "garbage_collection_period", Type: cty.String, Default: cty.StringVal("12h"), Checks: attr.Checks(schema.Duration()), Description: "How often snapshots beyond the exponential retention are deleted."},
				}},
			}},
		},
		Outputs: []schema.Output{
			{Name: "name", Type: cty.String, Description: "The name of the Etcd resource and its StatefulSet."},
			{Name: "client_service", Type: cty.String, Description: "The name of the client Service etcd-druid creates."},
			{Name: "endpoint", Type: cty.String, Description: "The URL API servers reach the etcd at, https://<client service>.<namespace>.svc:2379."},
		},
	}
}
