// Package etcd renders the etcd component: one druid.gardener.cloud/v1alpha1 Etcd resource, from
// which etcd-druid builds the StatefulSet, Services and PodDisruptionBudget of one etcd cluster
// (Gardener's "etcd" docs/concepts/etcd.md). Gardener runs two per control plane, main and events
// (Gardener's docs/concepts/etcd.md); the virtual garden's are virtual-garden-etcd-main and
// virtual-garden-etcd-events (Gardener's "Gardener Operator" docs/concepts/operator.md).
package etcd

import (
	"fmt"

	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/replicas"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Values are the component's typed inputs. Zero values mean the documented defaults, so that the
// garden composite only sets what differs.
type Values struct {
	// Cluster is the runtime cluster the Etcd resource is created in.
	Cluster decode.Cluster `json:"cluster"`
	// Namespace of the Etcd.
	Namespace string `json:"namespace"`
	// NamePrefix is put before etcd-<role>: DefaultNamePrefix for the virtual garden, "" for the
	// control planes of shoots.
	NamePrefix string `json:"name_prefix"`
	// Role is main or events.
	Role string `json:"role"`
	// HighAvailability runs three members instead of one (Gardener's docs/concepts/operator.md).
	HighAvailability bool `json:"high_availability"`
	// Images overrides image vector entries (etcd-wrapper, etcd-backup-restore) by name.
	Images map[string]string `json:"images"`
	// StorageCapacity is the size of each member's volume; "" means 25Gi for main, 10Gi for events.
	StorageCapacity string `json:"storage_capacity"`
	// StorageClass of the volumes; "" means the cluster's default class.
	StorageClass string `json:"storage_class"`
	// VolumeClaimTemplate names the PVCs; "" means VolumeClaimTemplateName(prefix, role).
	VolumeClaimTemplate string `json:"volume_claim_template"`
	// PriorityClassName of the etcd pods (Gardener's "Priority Classes"
	// docs/development/priority-classes.md).
	PriorityClassName string `json:"priority_class_name"`
	// CASecretName is the Secret with the CA (ca.crt) that signed the client and server
	// certificates.
	CASecretName string `json:"ca_secret_name"`
	// ServerTLSSecretName is the etcd server certificate (tls.crt, tls.key); "" means
	// "etcd-server-<role>".
	ServerTLSSecretName string `json:"server_tls_secret_name"`
	// ClientTLSSecretName is the client certificate the backup-restore sidecar uses to talk to etcd.
	ClientTLSSecretName string `json:"client_tls_secret_name"`
	// PeerCASecretName is the CA (ca.crt) of the peer certificates, used only with high
	// availability.
	PeerCASecretName string `json:"peer_ca_secret_name"`
	// PeerTLSSecretName is the members' peer certificate, used only with high availability; ""
	// means "etcd-peer-server-<role>".
	PeerTLSSecretName string `json:"peer_tls_secret_name"`
	// DefragmentationSchedule is a cron schedule (UTC) for defragmenting the database; "" means a
	// daily one at 01:00 for main and 01:30 for events.
	DefragmentationSchedule string `json:"defragmentation_schedule"`
	// TopologyAwareRouting makes the client Service prefer members in the caller's zone
	// (Gardener's "Topology Aware Routing" docs/operations/topology_aware_routing.md).
	TopologyAwareRouting bool `json:"topology_aware_routing"`
	// Backup configures snapshots to an object store; only the main etcd is backed up
	// (Gardener's docs/concepts/etcd.md). Nil means no backup.
	Backup *Backup `json:"backup"`
	// Hibernated scales the component to zero replicas: Gardener scales every control-plane
	// component in the shoot namespace to zero when a shoot hibernates, keeping etcd's volumes
	// (Gardener's "Shoot Hibernation" docs/usage/shoot/shoot_hibernate.md, "Component Checklist"
	// docs/development/component-checklist.md). Only spec.replicas changes; etcd-druid keeps the PVCs,
	// so the data is there again when the shoot wakes up.
	Hibernated bool `json:"-"`
}

// Backup is where and how the main etcd's backup-restore sidecar stores snapshots. The bucket must
// exist beforehand for a garden (Gardener's docs/concepts/etcd.md, docs/concepts/operator.md).
type Backup struct {
	// Provider is the object store type as extensions name it (aws, azure, gcp, openstack, local...).
	Provider string `json:"provider"`
	// BucketName is the existing bucket (druid's store container).
	BucketName string `json:"bucket_name"`
	// SecretRef is the Secret in the etcd's namespace with the object store credentials.
	SecretRef string `json:"secret_ref"`
	// Prefix is the folder inside the bucket; "" means the Etcd's name.
	Prefix string `json:"prefix"`
	// FullSnapshotSchedule is a daily cron schedule (UTC). Gardener picks the
	// time inside the maintenance window at random (Gardener's "Backup and Restore"
	// docs/concepts/backup-restore.md); a declarative landscape must render the same every time, so it
	// is an explicit setting here.
	FullSnapshotSchedule string `json:"full_snapshot_schedule"`
	// DeltaSnapshotPeriod is the interval of delta snapshots (Gardener's
	// docs/concepts/backup-restore.md).
	DeltaSnapshotPeriod string `json:"delta_snapshot_period"`
	// DeltaSnapshotMemoryLimit triggers a delta snapshot early once that many bytes of events
	// have accumulated (Gardener's docs/concepts/backup-restore.md).
	DeltaSnapshotMemoryLimit string `json:"delta_snapshot_memory_limit"`
	// GarbageCollectionPeriod is how often old snapshots are deleted (Gardener's
	// docs/concepts/backup-restore.md).
	GarbageCollectionPeriod string `json:"garbage_collection_period"`
}

// The defaults of Gardener's documentation (Gardener's docs/concepts/backup-restore.md) and of
// Gardener operators where they are silent; the schema's defaults (schema.go) are the others.
const (
	defaultMainStorage   = "25Gi"
	defaultEventsStorage = "10Gi"
	// GarbageCollectionPolicy is hard-coded to Exponential in Gardener (Gardener's
	// docs/concepts/backup-restore.md).
	GarbageCollectionPolicy = "Exponential"
)

// Replicas is the member count: three with high availability (Gardener's
// docs/concepts/operator.md), one otherwise.
func Replicas(highAvailability bool) int64 {
	if highAvailability {
		return 3
	}
	return 1
}

// Type is the etcd component type as the catalog registers it: its schema (schema.go) and its
// render function.
var Type = component.Define(typeSchema, renderValues)

// BackupDefaults are the backup block's defaults, for composites that back an etcd up.
var BackupDefaults = component.BlockDefaults[Backup](typeSchema, "backup")

// renderValues renders one etcd instance.
func renderValues(in render.Input, v Values) (*render.Output, error) {
	objs, err := Objects(v)
	if err != nil {
		return nil, err
	}
	prefix, ns := v.NamePrefix, v.Namespace
	return &render.Output{
		Objects: objs,
		Outputs: map[string]cty.Value{
			"name":           cty.StringVal(Name(prefix, v.Role)),
			"client_service": cty.StringVal(ClientServiceName(prefix, v.Role)),
			"endpoint":       cty.StringVal(Endpoint(prefix, v.Role, ns)),
		},
	}, nil
}

// Objects renders the Etcd resource.
func Objects(v Values) ([]render.Object, error) {
	if v.Role != RoleMain && v.Role != RoleEvents {
		return nil, fmt.Errorf("role %q is not one of main, events", v.Role)
	}
	if v.Backup != nil && v.Role != RoleMain {
		return nil, fmt.Errorf("backup is configured for the %s etcd; only the main etcd is backed up", v.Role)
	}
	if v.Backup != nil && (v.Backup.Provider == "" || v.Backup.BucketName == "" || v.Backup.SecretRef == "") {
		return nil, fmt.Errorf("backup needs a provider, a bucket name and a secret ref")
	}
	imgs, err := images.Resolve(v.Images, images.EtcdWrapper, images.EtcdBackupRestore)
	if err != nil {
		return nil, fmt.Errorf("etcd images: %w", err)
	}
	etcdImage, backupImage := imgs[images.EtcdWrapper], imgs[images.EtcdBackupRestore]
	prefix, ns := v.NamePrefix, v.Namespace
	name := Name(prefix, v.Role)
	selector := SelectorLabels(prefix, v.Role)

	spec := map[string]any{
		"selector":            map[string]any{"matchLabels": kube.AnyMap(selector)},
		"labels":              kube.AnyMap(podLabels(v, selector)),
		"replicas":            replicas.UnlessHibernated(Replicas(v.HighAvailability), v.Hibernated),
		"priorityClassName":   v.PriorityClassName,
		"storageCapacity":     or(v.StorageCapacity, defaultStorage(v.Role)),
		"volumeClaimTemplate": or(v.VolumeClaimTemplate, VolumeClaimTemplateName(prefix, v.Role)),
		"etcd":                etcdSpec(v, ns, etcdImage),
		"backup":              backupSpec(v, ns, name, backupImage),
		// Periodic compaction keeps the revision history short (Gardener's documentation is silent; this
		// is the usual setting for Kubernetes' etcds).
		"sharedConfig": map[string]any{"autoCompactionMode": "periodic", "autoCompactionRetention": "30m"},
	}
	if v.StorageClass != "" {
		spec["storageClass"] = v.StorageClass
	}
	if v.HighAvailability {
		spec["schedulingConstraints"] = map[string]any{"topologySpreadConstraints": spread(selector)}
	}
	u := kube.Custom("druid.gardener.cloud/v1alpha1", "Etcd", ns, name, map[string]string{
		"gardener.cloud/role": "controlplane",
		"role":                v.Role,
	}, map[string]any{"spec": spec})
	return kube.On(v.Cluster.Name, "", u), nil
}

// SelectorLabels select the pods of one etcd: app etcd-statefulset, the role, and the Etcd's name
// so that two control planes may share a namespace.
func SelectorLabels(prefix, role string) map[string]string {
	return map[string]string{"app": "etcd-statefulset", "role": role, "name": Name(prefix, role)}
}

// podLabels add the labels that open the network paths etcd needs under Gardener's deny-all
// policies (Gardener's "Network Policies" docs/operations/network_policies.md): DNS, the runtime
// API server (member leases of the backup-restore sidecar) and, with a backup, the object store.
func podLabels(v Values, selector map[string]string) map[string]string {
	l := map[string]string{
		"gardener.cloud/role":                            "controlplane",
		"networking.gardener.cloud/to-dns":               "allowed",
		"networking.gardener.cloud/to-runtime-apiserver": "allowed",
	}
	if v.Backup != nil {
		l["networking.gardener.cloud/to-public-networks"] = "allowed"
		l["networking.gardener.cloud/to-private-networks"] = "allowed"
	}
	for k, val := range selector {
		l[k] = val
	}
	return l
}

func etcdSpec(v Values, ns, image string) map[string]any {
	e := map[string]any{
		"image":                   image,
		"clientPort":              int64(ClientPort),
		"serverPort":              int64(PeerPort),
		"metrics":                 "basic",
		"defragmentationSchedule": or(v.DefragmentationSchedule, defaultDefragSchedule(v.Role)),
		"clientUrlTls": map[string]any{
			"tlsCASecretRef":     map[string]any{"name": v.CASecretName, "namespace": ns, "dataKey": "ca.crt"},
			"serverTLSSecretRef": map[string]any{"name": or(v.ServerTLSSecretName, "etcd-server-"+v.Role), "namespace": ns},
			"clientTLSSecretRef": map[string]any{"name": v.ClientTLSSecretName, "namespace": ns},
		},
	}
	if v.HighAvailability {
		// Members of a multi-node cluster authenticate each other with peer certificates.
		e["peerUrlTls"] = map[string]any{
			"tlsCASecretRef":     map[string]any{"name": v.PeerCASecretName, "namespace": ns, "dataKey": "ca.crt"},
			"serverTLSSecretRef": map[string]any{"name": or(v.PeerTLSSecretName, "etcd-peer-server-"+v.Role), "namespace": ns},
		}
	}
	if v.TopologyAwareRouting {
		// Gardener's docs/operations/topology_aware_routing.md: annotation for kube-proxy (topology-mode
		// since Kubernetes 1.27), label for gardener-resource-manager's EndpointSlice hints webhook.
		e["clientService"] = map[string]any{
			"annotations": map[string]any{"service.kubernetes.io/topology-mode": "auto"},
			"labels":      map[string]any{"endpoint-slice-hints.resources.gardener.cloud/consider": "true"},
		}
	}
	return e
}

func backupSpec(v Values, ns, name, image string) map[string]any {
	b := map[string]any{"image": image, "port": int64(BackupPort)}
	if v.Backup == nil {
		// The sidecar still runs without a store: it defragments and health-checks (Gardener's
		// docs/concepts/etcd.md).
		return b
	}
	b["store"] = map[string]any{
		"provider":  v.Backup.Provider,
		"container": v.Backup.BucketName,
		"prefix":    or(v.Backup.Prefix, name),
		"secretRef": map[string]any{"name": v.Backup.SecretRef, "namespace": ns},
	}
	b["fullSnapshotSchedule"] = v.Backup.FullSnapshotSchedule
	b["deltaSnapshotPeriod"] = v.Backup.DeltaSnapshotPeriod
	b["deltaSnapshotMemoryLimit"] = v.Backup.DeltaSnapshotMemoryLimit
	b["garbageCollectionPolicy"] = GarbageCollectionPolicy
	b["garbageCollectionPeriod"] = v.Backup.GarbageCollectionPeriod
	return b
}

// spread asks the scheduler to place members on different nodes and zones without ever making
// them unschedulable on a small cluster.
func spread(selector map[string]string) []any {
	var out []any
	for _, key := range []string{"kubernetes.io/hostname", "topology.kubernetes.io/zone"} {
		out = append(out, map[string]any{
			"maxSkew":           int64(1),
			"topologyKey":       key,
			"whenUnsatisfiable": "ScheduleAnyway",
			"labelSelector":     map[string]any{"matchLabels": kube.AnyMap(selector)},
		})
	}
	return out
}

func defaultStorage(role string) string {
	if role == RoleMain {
		return defaultMainStorage
	}
	return defaultEventsStorage
}

// defaultDefragSchedule staggers the two etcds so that they never defragment at the same time
// (Gardener derives the time from the maintenance window; Gardener's documentation gives none).
func defaultDefragSchedule(role string) string {
	if role == RoleMain {
		return "0 1 * * *"
	}
	return "30 1 * * *"
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
