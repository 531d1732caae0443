package shootextensions

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

// APIVersion is the group version of every resource built here.
const APIVersion = "extensions.gardener.cloud/v1alpha1"

// The names earlier versions of the engine gave the Infrastructure and the ControlPlanes. Gardener
// names them after the shoot (DefaultInfrastructure in pkg/gardenlet/operation/botanist/infrastructure.go,
// DefaultControlPlane in botanist/controlplane.go and `-exposure` in
// pkg/component/extensions/controlplane/controlplane.go at gardener/gardener v1.120.0), and so does
// the engine now, but a shoot whose resources exist under these names keeps them (LegacyNames).
const (
	LegacyInfrastructureName       = "infrastructure"
	LegacyControlPlaneName         = "control-plane"
	LegacyControlPlaneExposureName = "control-plane-exposure"
)

// LegacyNames says which of the shoot's extension resources keep the names of earlier versions
// (LegacyInfrastructureName, LegacyControlPlaneName): renaming one would make its provider delete
// it, the shoot's infrastructure or its control-plane components with it, and create it again,
// which Gardener does only through its migrate and restore protocol.
type LegacyNames struct {
	Infrastructure, ControlPlane bool
}

// infrastructureName is the Infrastructure's name: the shoot's, or the legacy one.
func (r resolved) infrastructureName() string {
	if r.LegacyNames.Infrastructure {
		return LegacyInfrastructureName
	}
	return r.Name
}

// controlPlaneName is the name of the ControlPlane of a purpose ("normal" or "exposure"): the
// shoot's (with -exposure for the exposure one), or the legacy ones.
func (r resolved) controlPlaneName(purpose string) string {
	switch {
	case r.LegacyNames.ControlPlane && purpose == "exposure":
		return LegacyControlPlaneExposureName
	case r.LegacyNames.ControlPlane:
		return LegacyControlPlaneName
	case purpose == "exposure":
		return r.Name + "-exposure"
	}
	return r.Name
}

// Objects builds every extension resource of the shoot, in the order of the shoot flow
// (pkg/gardenlet/controller/shoot/shoot/reconciler_reconcile.go): Cluster first (it must exist
// before any Extension, Gardener's "Cluster" docs/extensions/cluster.md, "Extension"
// docs/extensions/resources/extension.md), BackupEntry, the DNS records, Infrastructure, Network,
// ControlPlanes, OperatingSystemConfigs, ContainerRuntimes, Worker and the Extensions.
func Objects(v Values) ([]render.Object, error) {
	r, err := resolve(v)
	if err != nil {
		return nil, err
	}
	var out []render.Object
	for _, build := range []func(Values) ([]render.Object, error){
		one(Cluster), BackupEntry, DNSRecords, Infrastructure, Network, ControlPlanes,
		OperatingSystemConfigs, ContainerRuntimes, Worker, func(v Values) ([]render.Object, error) { return Extensions(v, "") },
	} {
		objs, err := build(r.Values)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

func one(f func(Values) (render.Object, error)) func(Values) ([]render.Object, error) {
	return func(v Values) ([]render.Object, error) {
		o, err := f(v)
		if err != nil {
			return nil, err
		}
		return []render.Object{o}, nil
	}
}

// object builds one resource of kind in the control-plane namespace ("" for cluster-scoped ones).
func (r resolved) object(kind, namespace, name string, spec map[string]any) render.Object {
	u := kube.Custom(APIVersion, kind, namespace, name, nil, map[string]any{"spec": spec})
	return render.Object{Cluster: r.Cluster.Name, Object: u}
}

// secretRef is a reference to a Secret in the control-plane namespace.
func (r resolved) secretRef(name string) map[string]any {
	return map[string]any{"name": name, "namespace": r.namespace}
}

// withConfig sets providerConfig when there is one.
func withConfig(spec map[string]any, config map[string]any) map[string]any {
	if config != nil {
		spec["providerConfig"] = deepCopy(config)
	}
	return spec
}

func deepCopy(m map[string]any) map[string]any {
	u := &unstructured.Unstructured{Object: m}
	return u.DeepCopy().Object
}

// Cluster is the cluster-scoped Cluster named like the control-plane namespace, with the
// CloudProfile, Seed and Shoot objects extensions read (Gardener's docs/extensions/cluster.md).
func Cluster(v Values) (render.Object, error) {
	r, err := resolve(v)
	if err != nil {
		return render.Object{}, err
	}
	return r.object("Cluster", "", r.namespace, map[string]any{
		"cloudProfile": r.cloudProfile(),
		"seed":         r.seed(),
		"shoot":        r.shoot(),
	}), nil
}

// Infrastructure is the shoot's Infrastructure, named like the shoot (Gardener's
// docs/extensions/resources/infrastructure.md); none for workerless shoots.
func Infrastructure(v Values) ([]render.Object, error) {
	r, err := resolve(v)
	if err != nil || len(r.Workers) == 0 {
		return nil, err
	}
	spec := withConfig(map[string]any{
		"type":      r.Provider.Type,
		"region":    r.Provider.Region,
		"secretRef": r.secretRef(r.Provider.CredentialsSecretName),
	}, r.Provider.InfrastructureConfig)
	if k := r.Provider.SSHPublicKey; k != "" {
		spec["sshPublicKey"] = base64.StdEncoding.EncodeToString([]byte(k))
	}
	return []render.Object{r.object("Infrastructure", r.namespace, r.infrastructureName(), spec)}, nil
}

// Network is the shoot's Network, named like the shoot (Gardener's "Network"
// docs/extensions/resources/network.md); none for workerless shoots.
func Network(v Values) ([]render.Object, error) {
	r, err := resolve(v)
	if err != nil || len(r.Workers) == 0 {
		return nil, err
	}
	spec := withConfig(map[string]any{
		"type":        r.Networking.Type,
		"podCIDR":     r.Networking.Pods,
		"serviceCIDR": r.Networking.Services,
		"ipFamilies":  kube.AnyList(r.Networking.IPFamilies),
	}, r.Networking.ProviderConfig)
	return []render.Object{r.object("Network", r.namespace, r.Name, spec)}, nil
}

// ControlPlanes are the ControlPlane of purpose normal, named like the shoot, which makes the provider extension
// deploy its control-plane components (Gardener's docs/extensions/resources/controlplane.md), and,
// with Exposure, the one of purpose exposure (<shoot>-exposure) for the seed's provider (Gardener's
// docs/extensions/resources/controlplane-exposure.md). None for workerless shoots.
func ControlPlanes(v Values) ([]render.Object, error) {
	r, err := resolve(v)
	if err != nil || len(r.Workers) == 0 {
		return nil, err
	}
	spec := withConfig(map[string]any{
		"type":      r.Provider.Type,
		"purpose":   "normal",
		"region":    r.Provider.Region,
		"secretRef": r.secretRef(r.Provider.CredentialsSecretName),
	}, r.Provider.ControlPlaneConfig)
	if s := r.Provider.InfrastructureProviderStatus; s != nil {
		spec["infrastructureProviderStatus"] = deepCopy(s)
	}
	out := []render.Object{r.object("ControlPlane", r.namespace, r.controlPlaneName("normal"), spec)}
	if e := r.Exposure; e != nil {
		out = append(out, r.object("ControlPlane", r.namespace, r.controlPlaneName("exposure"), map[string]any{
			"type":      e.ProviderType,
			"purpose":   "exposure",
			"region":    e.Region,
			"secretRef": r.secretRef(r.Provider.CredentialsSecretName),
		}))
	}
	return out, nil
}

// DNSRecordName names the shoot's internal and external records: <shoot>-internal and
// <shoot>-external.
func DNSRecordName(shoot, which string) string { return shoot + "-" + which }

// DNSRecordSecretName names a record's copy of its DNS provider credentials in the control-plane
// namespace, dnsrecord-<shoot>-<internal|external> (Gardener's "DNS Record"
// docs/extensions/resources/dnsrecord.md).
func DNSRecordSecretName(shoot, which string) string {
	return "dnsrecord-" + DNSRecordName(shoot, which)
}

// InternalAPIDomain is api.<shoot>.<project>.<internal-domain> (Gardener's "Control Plane Endpoints
// And Ports" docs/usage/advanced/control-plane-endpoints-and-ports.md).
func InternalAPIDomain(project, shoot, internalDomain string) string {
	return "api." + shoot + "." + project + "." + internalDomain
}

// DNSRecords are the internal record, which points to the API server's load balancer, and the
// external one, which "actually points to the internal domain name" (Gardener's
// docs/extensions/resources/dnsrecord.md): a CNAME to it. A record is left out when its domain is
// not set.
func DNSRecords(v Values) ([]render.Object, error) {
	r, err := resolve(v)
	if err != nil {
		return nil, err
	}
	var out []render.Object
	d := r.DNS
	if d.InternalDomain != "" {
		if d.InternalProviderType == "" || d.Address == "" {
			return nil, fmt.Errorf("shoot %s/%s: internal DNS record: provider type and address are required", r.Project, r.Name)
		}
		recordType := d.RecordType
		if recordType == "" {
			recordType = render.RecordType(d.Address)
		}
		out = append(out, r.object("DNSRecord", r.namespace, DNSRecordName(r.Name, "internal"), map[string]any{
			"type":       d.InternalProviderType,
			"secretRef":  r.secretRef(or(d.InternalSecretName, DNSRecordSecretName(r.Name, "internal"))),
			"name":       InternalAPIDomain(r.Project, r.Name, d.InternalDomain),
			"recordType": recordType,
			"values":     []any{d.Address},
		}))
	}
	if d.Domain != "" {
		if d.ProviderType == "" || d.InternalDomain == "" {
			return nil, fmt.Errorf("shoot %s/%s: external DNS record: provider type and internal domain are required", r.Project, r.Name)
		}
		out = append(out, r.object("DNSRecord", r.namespace, DNSRecordName(r.Name, "external"), map[string]any{
			"type": d.ProviderType,
			// Gardener's docs/extensions/resources/dnsrecord.md: the example's Secret
			// dnsrecord-<shoot>-external.
			"secretRef":  r.secretRef(or(d.SecretName, DNSRecordSecretName(r.Name, "external"))),
			"name":       "api." + d.Domain,
			"recordType": "CNAME",
			"values":     []any{InternalAPIDomain(r.Project, r.Name, d.InternalDomain)},
		}))
	}
	return out, nil
}

// Extensions are the Extension resources, one per enabled type, named like the type
// (Gardener's docs/extensions/resources/extension.md); with step set, only those whose reconcile
// lifecycle is that step, so that the composite can place them before or after the kube-apiserver
// or the workers (Gardener's "ControllerRegistration" docs/extensions/registration.md).
func Extensions(v Values, step string) ([]render.Object, error) {
	r, err := resolve(v)
	if err != nil {
		return nil, err
	}
	var out []render.Object
	for _, e := range r.Extensions {
		if e.Disabled || (step != "" && e.ReconcileStep() != step) {
			continue
		}
		out = append(out, r.object("Extension", r.namespace, e.Type, withConfig(map[string]any{"type": e.Type}, e.ProviderConfig)))
	}
	return out, nil
}

// BackupEntryName is the BackupEntry's name: the technical ID, followed by --<uid> when the
// Shoot's UID is known (Gardener's "BackupEntry" docs/extensions/resources/backupentry.md, "Control
// Plane Migration" docs/operations/control_plane_migration.md).
func BackupEntryName(technicalID, uid string) string {
	if uid == "" {
		return technicalID
	}
	return technicalID + "--" + uid
}

// BackupEntry is the cluster-scoped BackupEntry of the shoot's etcd backups in the seed's
// bucket (Gardener's docs/extensions/resources/backupentry.md); none without Backup.
func BackupEntry(v Values) ([]render.Object, error) {
	r, err := resolve(v)
	if err != nil || r.Backup == nil {
		return nil, err
	}
	b := r.Backup
	spec := withConfig(map[string]any{
		"type":       b.ProviderType,
		"region":     b.Region,
		"bucketName": b.BucketName,
		"secretRef":  map[string]any{"name": or(b.SecretName, "backupprovider"), "namespace": or(b.SecretNamespace, r.namespace)},
	}, b.ProviderConfig)
	return []render.Object{r.object("BackupEntry", "", BackupEntryName(r.namespace, r.UID), spec)}, nil
}

// ContainerRuntimeName is <type>-<pool>.
func ContainerRuntimeName(runtimeType, pool string) string { return runtimeType + "-" + pool }

// ContainerRuntimes are one ContainerRuntime per worker pool and additional runtime
// (Gardener's "ContainerRuntime" docs/extensions/resources/containerruntime.md), selecting the
// pool's nodes by the worker.gardener.cloud/pool label.
func ContainerRuntimes(v Values) ([]render.Object, error) {
	r, err := resolve(v)
	if err != nil {
		return nil, err
	}
	var out []render.Object
	for _, w := range r.Workers {
		for _, t := range w.ContainerRuntimes {
			out = append(out, r.object("ContainerRuntime", r.namespace, ContainerRuntimeName(t, w.Name), map[string]any{
				"type": t,
				// Gardener's docs/extensions/resources/containerruntime.md: the example's binary path.
				"binaryPath": "/var/bin/containerruntimes",
				"workerPool": map[string]any{
					"name":     w.Name,
					"selector": map[string]any{"matchLabels": map[string]any{"worker.gardener.cloud/pool": w.Name}},
				},
			}))
		}
	}
	return out, nil
}

// intOrPercent turns "1" into 1 and keeps "10%" a string, as intstr fields want them.
func intOrPercent(s, def string) any {
	s = or(s, def)
	if strings.HasSuffix(s, "%") {
		return s
	}
	if n, err := strconv.ParseInt(s, 10, 32); err == nil {
		return n
	}
	return s
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
