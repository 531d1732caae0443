// Package etcd renders the etcd component: one druid.gardener.cloud/v1alpha1 Etcd resource, from
// which etcd-druid builds the StatefulSet, Services and PodDisruptionBudget of one etcd cluster
// (Gardener's "etcd" docs/concepts/etcd.md). Gardener runs two per control plane, main and events
// (Gardener's docs/concepts/etcd.md); the virtual garden's are virtual-garden-etcd-main and
// virtual-garden-etcd-events (Gardener's "Gardener Operator" docs/concepts/operator.md).
package etcd

import (
	"fmt"
	"maps"
	"strings"
	"time"

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
	// Role is main or events. Gardener runs main as an important etcd and events as a normal one
	// (pkg/gardenlet/operation/botanist/botanist.go, pkg/operator/controller/garden/garden/components.go
	// at Gardener v1.120.0), which decides its metrics, resources and eviction rules.
	Role string `json:"role"`
	// HighAvailability runs three members instead of one (Gardener's docs/concepts/operator.md).
	HighAvailability bool `json:"high_availability"`
	// Images overrides image vector entries (etcd-wrapper, etcd-backup-restore) by name. Without
	// an override the Etcd names no image and etcd-druid takes its own image vector's, as
	// Gardener leaves it.
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
	// daily one at 01:00 for main and 01:30 for events. Gardener places it in the maintenance
	// window (Schedule); composites that know the window and the owner's uid pass it.
	DefragmentationSchedule string `json:"defragmentation_schedule"`
	// TopologyAwareRouting makes the client Service prefer members in the caller's zone
	// (Gardener's "Topology Aware Routing" docs/operations/topology_aware_routing.md).
	TopologyAwareRouting bool `json:"topology_aware_routing"`
	// RuntimeKubernetesVersion is the Kubernetes version of the cluster the etcd runs in, which
	// decides how the client Service asks for topology-aware routing; "" means a version before
	// 1.31.
	RuntimeKubernetesVersion string `json:"runtime_kubernetes_version"`
	// EvictionRequirement says when the VPA may evict members to scale them down: never or
	// in-maintenance-window-only; "" means never for main and in the maintenance window for
	// events, as gardener-operator has it for the virtual garden.
	EvictionRequirement string `json:"eviction_requirement"`
	// MaintenanceWindowBegin and MaintenanceWindowEnd are the owner's maintenance window
	// (HHMMSS+HHMM), which an in-window eviction requirement names.
	MaintenanceWindowBegin string `json:"maintenance_window_begin"`
	MaintenanceWindowEnd   string `json:"maintenance_window_end"`
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
	// Prefix is the folder inside the bucket that belongs to this etcd's owner; the snapshots go
	// to <prefix>/etcd-<role> (pkg/component/etcd/etcd/etcd.go at Gardener v1.120.0). "" means
	// the Etcd's name, as gardener-operator names the virtual garden's folder; a shoot's is its
	// BackupEntry's name, <technical ID>--<shoot uid>.
	Prefix string `json:"prefix"`
	// FullSnapshotSchedule is a daily cron schedule (UTC). Gardener places it in the hour before
	// the maintenance window (Schedule); composites that know the window and the owner's uid pass it.
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
	// defaultGarbageCollectionPeriod is Gardener's period, also for an etcd without a store
	// (pkg/component/etcd/etcd/etcd.go at Gardener v1.120.0).
	defaultGarbageCollectionPeriod = 12 * time.Hour
	// Quota is the size of etcd's database beyond which it refuses writes
	// (pkg/component/etcd/etcd/etcd.go at Gardener v1.120.0).
	Quota = "8Gi"
	// SnapshotCompression is the compression policy of the snapshots.
	SnapshotCompression = "gzip"
)

// Labels and annotations of Gardener's Etcds (pkg/component/etcd/etcd/etcd.go and
// pkg/apis/core/v1beta1/constants at Gardener v1.120.0).
const (
	LabelApp        = "app"
	LabelAppValue   = "etcd-statefulset"
	LabelRole       = "role"
	LabelGardenRole = "gardener.cloud/role"
	// GardenRoleControlPlane is the gardener.cloud/role of every control-plane component.
	GardenRoleControlPlane = "controlplane"
	// AnnotationAllowUnhealthyPodEviction lets etcd-druid's PodDisruptionBudget evict members that
	// are not ready; Gardener sets it on the events etcd, whose loss costs only events.
	AnnotationAllowUnhealthyPodEviction = "resources.druid.gardener.cloud/allow-unhealthy-pod-eviction"
	// AnnotationSafeToEvict keeps cluster-autoscaler from draining the node of the single main
	// etcd member, whose eviction stops the control plane.
	AnnotationSafeToEvict = "cluster-autoscaler.kubernetes.io/safe-to-evict"
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

// Objects renders the Etcd resource and its VerticalPodAutoscaler as Gardener deploys them (pkg/component/etcd/etcd/etcd.go at
// Gardener v1.120.0), but for the operation annotation: the engine's etcd-druid reconciles every
// spec change by itself (components/etcddruid), where Gardener's is told to by
// gardener.cloud/operation=reconcile, which druid removes again and a declarative apply would put
// back on every plan.
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
	imgs, err := overriddenImages(v.Images)
	if err != nil {
		return nil, fmt.Errorf("etcd images: %w", err)
	}
	prefix, ns := v.NamePrefix, v.Namespace
	name := Name(prefix, v.Role)
	important := v.Role == RoleMain

	etcdFields, err := etcdSpec(v, imgs[images.EtcdWrapper])
	if err != nil {
		return nil, err
	}
	backupFields, err := backupSpec(v, name, imgs[images.EtcdBackupRestore])
	if err != nil {
		return nil, err
	}
	spec := map[string]any{
		"selector":            map[string]any{"matchLabels": kube.AnyMap(SelectorLabels(v.Role))},
		"labels":              kube.AnyMap(podLabels(v)),
		"replicas":            replicas.UnlessHibernated(Replicas(v.HighAvailability), v.Hibernated),
		"priorityClassName":   v.PriorityClassName,
		"storageCapacity":     or(v.StorageCapacity, defaultStorage(v.Role)),
		"volumeClaimTemplate": or(v.VolumeClaimTemplate, VolumeClaimTemplateName(prefix, v.Role)),
		"etcd":                etcdFields,
		"backup":              backupFields,
	}
	if v.StorageClass != "" {
		spec["storageClass"] = v.StorageClass
	}
	if important && !v.HighAvailability {
		spec["annotations"] = map[string]any{AnnotationSafeToEvict: "false"}
	}
	u := kube.Custom("druid.gardener.cloud/v1alpha1", "Etcd", ns, name, map[string]string{
		LabelGardenRole: GardenRoleControlPlane,
		LabelRole:       v.Role,
	}, map[string]any{"spec": spec})
	if !important {
		u.SetAnnotations(map[string]string{AnnotationAllowUnhealthyPodEviction: ""})
	}
	vpa, err := verticalPodAutoscaler(v, name)
	if err != nil {
		return nil, err
	}
	return kube.On(v.Cluster.Name, "", u, vpa), nil
}

// SelectorLabels are the Etcd's selector: app etcd-statefulset, the role, and gardener.cloud/role
// controlplane (pkg/component/etcd/etcd/etcd.go at Gardener v1.120.0). etcd-druid selects the
// members of its StatefulSet by labels of its own, so these only need to be on the pods.
func SelectorLabels(role string) map[string]string {
	return map[string]string{LabelApp: LabelAppValue, LabelRole: role, LabelGardenRole: GardenRoleControlPlane}
}

// PeerLabels are the labels that let the members of a multi-member etcd reach each other's
// client, peer and backup-restore ports through the NetworkPolicies gardener-resource-manager
// derives from the client Service (pkg/component/etcd/etcd/etcd.go, NetworkPolicyLabel in
// pkg/utils/gardener/networkpolicy.go at Gardener v1.120.0).
func PeerLabels(prefix, role string) map[string]string {
	out := map[string]string{}
	for _, port := range []int{ClientPort, PeerPort, BackupPort} {
		out[fmt.Sprintf("networking.resources.gardener.cloud/to-%s-tcp-%d", ClientServiceName(prefix, role), port)] = "allowed"
	}
	return out
}

// podLabels are the selector and the labels that open the network paths etcd needs under
// Gardener's deny-all policies (Gardener's "Network Policies" docs/operations/network_policies.md):
// DNS, the runtime API server (member leases of the backup-restore sidecar), the object store,
// which may be public or private, and with several members each other.
func podLabels(v Values) map[string]string {
	l := SelectorLabels(v.Role)
	for _, to := range []string{"to-dns", "to-public-networks", "to-private-networks", "to-runtime-apiserver"} {
		l["networking.gardener.cloud/"+to] = "allowed"
	}
	if v.HighAvailability {
		maps.Copy(l, PeerLabels(v.NamePrefix, v.Role))
	}
	return l
}

// Requests of the containers (pkg/component/etcd/etcd/etcd.go at Gardener v1.120.0): an
// important etcd asks for more, and the compaction job for what compacting a large history takes.
var (
	etcdRequests = map[bool]map[string]any{
		true:  {"cpu": "150m", "memory": "500M"},
		false: {"cpu": "30m", "memory": "150M"},
	}
	backupRestoreRequests = map[bool]map[string]any{
		true:  {"cpu": "20m", "memory": "80Mi"},
		false: {"cpu": "10m", "memory": "40Mi"},
	}
	compactionRequests = map[string]any{"cpu": "600m", "memory": "3Gi"}
)

// tls is the TLS configuration of etcd's client port, which the backup-restore sidecar's server
// shares.
func tls(v Values) map[string]any {
	ns := v.Namespace
	return map[string]any{
		"tlsCASecretRef":     map[string]any{"name": v.CASecretName, "namespace": ns, "dataKey": "ca.crt"},
		"serverTLSSecretRef": map[string]any{"name": or(v.ServerTLSSecretName, "etcd-server-"+v.Role), "namespace": ns},
		"clientTLSSecretRef": map[string]any{"name": v.ClientTLSSecretName, "namespace": ns},
	}
}

func etcdSpec(v Values, image string) (map[string]any, error) {
	important := v.Role == RoleMain
	metrics := "basic"
	if important {
		metrics = "extensive"
	}
	e := map[string]any{
		"resources":               map[string]any{"requests": maps.Clone(etcdRequests[important])},
		"clientUrlTls":            tls(v),
		"serverPort":              int64(PeerPort),
		"clientPort":              int64(ClientPort),
		"metrics":                 metrics,
		"defragmentationSchedule": or(v.DefragmentationSchedule, defaultDefragSchedule(v.Role)),
		"quota":                   Quota,
	}
	if image != "" {
		e["image"] = image
	}
	service, err := clientService(v)
	if err != nil {
		return nil, err
	}
	e["clientService"] = service
	if v.HighAvailability {
		// Members of a multi-node cluster authenticate each other with peer certificates.
		e["peerUrlTls"] = map[string]any{
			"tlsCASecretRef":     map[string]any{"name": v.PeerCASecretName, "namespace": v.Namespace, "dataKey": "ca.crt"},
			"serverTLSSecretRef": map[string]any{"name": or(v.PeerTLSSecretName, "etcd-peer-server-"+v.Role), "namespace": v.Namespace},
		}
	}
	return e, nil
}

// clientService is what the client Service carries: the ports the scrape targets of the
// etcd's Prometheus may reach, for a shoot also from the garden namespace and every shoot's
// Prometheus (pkg/component/etcd/etcd/etcd.go at Gardener v1.120.0; Gardener's "Network
// Policies" docs/operations/network_policies.md), and topology-aware routing in the form the
// runtime cluster's Kubernetes version understands (ReconcileTopologyAwareRoutingSettings in
// pkg/utils/gardener/topology_aware_routing.go).
func clientService(v Values) (map[string]any, error) {
	scrape := "networking.resources.gardener.cloud/from-all-scrape-targets-allowed-ports"
	if v.NamePrefix != "" {
		scrape = "networking.resources.gardener.cloud/from-all-garden-scrape-targets-allowed-ports"
	}
	annotations := map[string]any{
		scrape: fmt.Sprintf(`[{"protocol":"TCP","port":%d},{"protocol":"TCP","port":%d}]`, ClientPort, BackupPort),
	}
	if v.NamePrefix == "" {
		annotations["networking.resources.gardener.cloud/namespace-selectors"] = `[{"matchLabels":{"kubernetes.io/metadata.name":"garden"}}]`
		annotations["networking.resources.gardener.cloud/pod-label-selector-namespace-alias"] = "all-shoots"
	}
	s := map[string]any{"annotations": annotations}
	if !v.TopologyAwareRouting {
		return s, nil
	}
	minor, err := runtimeMinor(v.RuntimeKubernetesVersion)
	if err != nil {
		return nil, err
	}
	hints := map[string]any{"endpoint-slice-hints.resources.gardener.cloud/consider": "true"}
	switch {
	case minor >= 32:
		s["trafficDistribution"] = "PreferClose"
	case minor == 31:
		s["trafficDistribution"], s["labels"] = "PreferClose", hints
	default:
		annotations["service.kubernetes.io/topology-mode"] = "auto"
		s["labels"] = hints
	}
	return s, nil
}

// runtimeMinor is the minor version of a 1.x Kubernetes version; 0 when unknown.
func runtimeMinor(version string) (int, error) {
	if version == "" {
		return 0, nil
	}
	var major, minor int
	if _, err := fmt.Sscanf(strings.TrimPrefix(version, "v"), "%d.%d", &major, &minor); err != nil || major != 1 {
		return 0, fmt.Errorf("runtime_kubernetes_version %q is not a Kubernetes 1.x version", version)
	}
	return minor, nil
}

func backupSpec(v Values, name, image string) (map[string]any, error) {
	important := v.Role == RoleMain
	gcPeriod := defaultGarbageCollectionPeriod.String()
	if v.Backup != nil && v.Backup.GarbageCollectionPeriod != "" {
		d, err := time.ParseDuration(v.Backup.GarbageCollectionPeriod)
		if err != nil {
			return nil, fmt.Errorf("backup garbage_collection_period: %w", err)
		}
		gcPeriod = d.String()
	}
	b := map[string]any{
		"tls":                     tls(v),
		"port":                    int64(BackupPort),
		"resources":               map[string]any{"requests": maps.Clone(backupRestoreRequests[important])},
		"compactionResources":     map[string]any{"requests": maps.Clone(compactionRequests)},
		"garbageCollectionPolicy": GarbageCollectionPolicy,
		"garbageCollectionPeriod": gcPeriod,
		"compression":             map[string]any{"enabled": true, "policy": SnapshotCompression},
	}
	if image != "" {
		b["image"] = image
	}
	if v.Backup == nil {
		// The sidecar still runs without a store: it defragments and health-checks (Gardener's
		// docs/concepts/etcd.md).
		return b, nil
	}
	delta, err := time.ParseDuration(v.Backup.DeltaSnapshotPeriod)
	if err != nil {
		return nil, fmt.Errorf("backup delta_snapshot_period: %w", err)
	}
	b["store"] = map[string]any{
		"provider":  v.Backup.Provider,
		"container": v.Backup.BucketName,
		"prefix":    StorePrefix(or(v.Backup.Prefix, name), v.Role),
		// Gardener names no namespace: the Secret is the Etcd's.
		"secretRef": map[string]any{"name": v.Backup.SecretRef},
	}
	b["fullSnapshotSchedule"] = v.Backup.FullSnapshotSchedule
	b["deltaSnapshotPeriod"] = delta.String()
	b["deltaSnapshotMemoryLimit"] = v.Backup.DeltaSnapshotMemoryLimit
	return b, nil
}

// StorePrefix is the folder of the bucket one etcd's snapshots go to: its owner's folder, then
// etcd-<role> (pkg/component/etcd/etcd/etcd.go at Gardener v1.120.0).
func StorePrefix(folder, role string) string { return folder + "/" + Name("", role) }

// overriddenImages are the references of the etcd images the landscape overrides; the others
// are left to etcd-druid's image vector.
func overriddenImages(overrides map[string]string) (map[string]string, error) {
	resolved, err := images.Resolve(overrides, images.EtcdWrapper, images.EtcdBackupRestore)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for name := range overrides {
		out[name] = resolved[name]
	}
	return out, nil
}

func defaultStorage(role string) string {
	if role == RoleMain {
		return defaultMainStorage
	}
	return defaultEventsStorage
}

// defaultDefragSchedule staggers the two etcds so that they never defragment at the same time,
// for a composite that cannot place the schedule in a maintenance window.
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
