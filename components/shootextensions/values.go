// Package shootextensions builds the extensions.gardener.cloud/v1alpha1 resources gardenlet writes
// into a shoot's control-plane namespace of the seed (Gardener's docs/api-reference/extensions.md,
// Gardener's "Extensions" docs/api-reference/extensions.md): Cluster, Infrastructure, ControlPlane,
// Network, OperatingSystemConfig, Worker, DNSRecord, ContainerRuntime, Extension and BackupEntry.
// Extension controllers reconcile them; each is ready when its status.lastOperation reaches
// Succeeded (Gardener's "Extension" docs/extensions/resources/extension.md). The shoot composite
// places the builders in the steps of the documented shoot flow
// (pkg/gardenlet/controller/shoot/shoot/reconciler_reconcile.go), so every kind has a builder of
// its own besides Objects.
package shootextensions

import (
	"fmt"

	"github.com/declarative-gardener/gardener/components/internal/decode"
)

// Values describe one shoot for its extension resources. Zero values mean the defaults
// documented on each field.
type Values struct {
	// Cluster is the seed the shoot's control plane runs in.
	Cluster decode.Cluster `json:"cluster"`
	// Project and Name name the shoot; both are required.
	Project string `json:"project"`
	Name    string `json:"name"`
	// TechnicalID is the control-plane namespace; "" means shoot--<project>--<name> (pkg/gardenlet/operation/botanist/namespaces.go).
	TechnicalID string `json:"technical_id"`
	// UID of the Shoot, if known; it makes the BackupEntry's name unique (Gardener's "Control Plane
	// Migration" docs/operations/control_plane_migration.md).
	UID string `json:"uid"`
	// KubernetesVersion of the shoot's control plane.
	KubernetesVersion string `json:"kubernetes_version"`
	// Purpose of the shoot (evaluation, development, ...), copied into the Cluster's Shoot.
	Purpose string `json:"purpose"`

	// Provider is the shoot's infrastructure.
	Provider Provider `json:"provider"`
	// Networking is the shoot's networking.
	Networking Networking `json:"networking"`
	// Workers are the worker pools; none makes a workerless shoot, which has no Infrastructure,
	// ControlPlane, Network, OperatingSystemConfig or Worker (Gardener's "Workerless Shoots"
	// docs/usage/shoot/shoot_workerless.md).
	Workers []WorkerPool `json:"workers"`
	// DNS are the shoot's API server records.
	DNS DNS `json:"dns"`
	// Extensions are the Extension resources, one per type (Gardener's
	// docs/extensions/resources/extension.md).
	Extensions []Extension `json:"extensions"`
	// LegacyNames keeps the names earlier versions gave the Infrastructure and the ControlPlanes
	// where the shoot's resources exist under them.
	LegacyNames LegacyNames `json:"-"`
	// Backup, when set, makes the shoot's BackupEntry (only for seeds with backup, pkg/gardenlet/controller/shoot/shoot/reconciler_reconcile.go).
	Backup *Backup `json:"backup"`
	// Exposure, when set, makes the ControlPlane with purpose exposure, which only shoots whose
	// API server is exposed without SNI need (Gardener's "ControlPlane Exposure"
	// docs/extensions/resources/controlplane-exposure.md).
	Exposure *Exposure `json:"exposure"`

	// CloudProfile, Seed and Shoot are the full core.gardener.cloud/v1beta1 objects the Cluster
	// carries (Gardener's "Cluster" docs/extensions/cluster.md); nil means a minimal object built from
	// the values above.
	CloudProfile map[string]any `json:"cloud_profile"`
	Seed         map[string]any `json:"seed"`
	Shoot        map[string]any `json:"shoot"`
	// CloudProfileName and SeedName name the minimal objects built when CloudProfile or Seed is nil.
	CloudProfileName string `json:"cloud_profile_name"`
	SeedName         string `json:"seed_name"`
}

// Provider is the shoot's infrastructure provider (.spec.provider).
type Provider struct {
	// Type is the provider extension type, such as aws or local; required.
	Type string `json:"type"`
	// Region of the infrastructure; required.
	Region string `json:"region"`
	// CredentialsSecretName is the Secret with the infrastructure credentials in the
	// control-plane namespace; "" means "cloudprovider" (Gardener's "Infrastructure"
	// docs/extensions/resources/infrastructure.md).
	CredentialsSecretName string `json:"credentials_secret_name"`
	// InfrastructureConfig and ControlPlaneConfig are copied to the Infrastructure's and
	// ControlPlane's providerConfig unevaluated (Gardener's
	// docs/extensions/resources/infrastructure.md, "ControlPlane"
	// docs/extensions/resources/controlplane.md).
	InfrastructureConfig map[string]any `json:"infrastructure_config"`
	ControlPlaneConfig   map[string]any `json:"control_plane_config"`
	// InfrastructureProviderStatus is the Infrastructure's status.providerStatus, which gardenlet
	// copies into the ControlPlane and the Worker (Gardener's
	// docs/extensions/resources/controlplane.md, "Worker" docs/extensions/resources/worker.md); nil
	// while unknown.
	InfrastructureProviderStatus map[string]any `json:"infrastructure_provider_status"`
	// SSHPublicKey is the public key for the nodes (OpenSSH format); "" when SSH is off.
	SSHPublicKey string `json:"ssh_public_key"`
}

// Networking is the shoot's networking (.spec.networking).
type Networking struct {
	// Type is the networking extension type, such as calico or cilium; required with workers.
	Type string `json:"type"`
	// ProviderConfig is copied to the Network's providerConfig.
	ProviderConfig map[string]any `json:"provider_config"`
	// Pods, Services and Nodes are the shoot's CIDRs.
	Pods     string `json:"pods"`
	Services string `json:"services"`
	Nodes    string `json:"nodes"`
	// IPFamilies; nil means [IPv4] (Gardener's Networking in docs/api-reference/core.md).
	IPFamilies []string `json:"ip_families"`
}

// WorkerPool is one worker pool (.spec.provider.workers[], Gardener's Worker in
// docs/api-reference/core.md).
type WorkerPool struct {
	Name         string `json:"name"`
	MachineType  string `json:"machine_type"`
	ImageName    string `json:"image_name"`
	ImageVersion string `json:"image_version"`
	// Architecture; "" means amd64 (Gardener's "Shoot Supported Architectures"
	// docs/usage/shoot/shoot_supported_architectures.md).
	Architecture string `json:"architecture"`
	Minimum      int32  `json:"minimum"`
	Maximum      int32  `json:"maximum"`
	// MaxSurge and MaxUnavailable are numbers or percentages; "" means 1 and 0.
	MaxSurge       string   `json:"max_surge"`
	MaxUnavailable string   `json:"max_unavailable"`
	Zones          []string `json:"zones"`
	// VolumeSize (e.g. 50Gi) and VolumeType of the root disk; no volume when VolumeSize is "".
	VolumeSize string `json:"volume_size"`
	VolumeType string `json:"volume_type"`
	// KubernetesVersion of the pool's kubelets; "" means the control plane's.
	KubernetesVersion string            `json:"kubernetes_version"`
	Labels            map[string]string `json:"labels"`
	Annotations       map[string]string `json:"annotations"`
	Taints            []Taint           `json:"taints"`
	// ContainerRuntimes are additional runtimes (gvisor, kata, ...), one ContainerRuntime each
	// (Gardener's "ContainerRuntime" docs/extensions/resources/containerruntime.md).
	ContainerRuntimes []string `json:"container_runtimes"`
	// SystemComponents says whether Gardener's system components may run on the pool; nil means
	// true (Gardener's WorkerSystemComponents in docs/api-reference/core.md).
	SystemComponents *bool `json:"system_components"`
	// ProviderConfig is copied to the pool's providerConfig.
	ProviderConfig map[string]any `json:"provider_config"`
}

// Taint is a Node taint of a worker pool.
type Taint struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Effect string `json:"effect"`
}

// DNS describes the shoot's two API server records (Gardener's "DNS Record"
// docs/extensions/resources/dnsrecord.md, "Control Plane Endpoints And Ports"
// docs/usage/advanced/control-plane-endpoints-and-ports.md).
type DNS struct {
	// Domain is the external domain; the record is api.<domain>. "" means no external record
	// (.spec.dns.provider=unmanaged, Gardener's docs/extensions/resources/dnsrecord.md).
	Domain string `json:"domain"`
	// ProviderType and SecretName of the external record's DNS provider; SecretName "" means
	// dnsrecord-<shoot>-external (Gardener's docs/extensions/resources/dnsrecord.md).
	ProviderType string `json:"provider_type"`
	SecretName   string `json:"secret_name"`
	// InternalDomain is the landscape's internal domain; the record is
	// api.<shoot>.<project>.<internal-domain> (Gardener's
	// docs/usage/advanced/control-plane-endpoints-and-ports.md). "" means no internal record.
	InternalDomain string `json:"internal_domain"`
	// InternalProviderType and InternalSecretName of the internal domain's DNS provider;
	// InternalSecretName "" means dnsrecord-<shoot>-internal.
	InternalProviderType string `json:"internal_provider_type"`
	InternalSecretName   string `json:"internal_secret_name"`
	// Address is the endpoint of the API server's load balancer (an IP or a host name) that the
	// internal record points to (Gardener's docs/extensions/resources/dnsrecord.md).
	Address string `json:"address"`
	// RecordType of the internal record; "" means A for an IPv4, AAAA for an IPv6 address and
	// CNAME for a host name.
	RecordType string `json:"record_type"`
}

// Extension is one extension of the shoot (.spec.extensions[] plus globally enabled ones).
type Extension struct {
	Type           string         `json:"type"`
	ProviderConfig map[string]any `json:"provider_config"`
	// Disabled leaves out an extension that is globally enabled (Gardener's "ControllerRegistration"
	// docs/extensions/registration.md).
	Disabled bool `json:"disabled"`
	// Lifecycle is the ControllerRegistration's lifecycle of the type (Gardener's
	// docs/extensions/registration.md).
	Lifecycle Lifecycle `json:"lifecycle"`
}

// Lifecycle says when an Extension is reconciled, deleted and migrated relative to the
// kube-apiserver and the workers (Gardener's docs/extensions/registration.md).
type Lifecycle struct {
	// Reconcile is BeforeKubeAPIServer, AfterKubeAPIServer (default) or AfterWorker.
	Reconcile string `json:"reconcile"`
	// Delete and Migrate are BeforeKubeAPIServer (default) or AfterKubeAPIServer.
	Delete  string `json:"delete"`
	Migrate string `json:"migrate"`
}

// The lifecycle steps (Gardener's docs/extensions/registration.md).
const (
	BeforeKubeAPIServer = "BeforeKubeAPIServer"
	AfterKubeAPIServer  = "AfterKubeAPIServer"
	AfterWorker         = "AfterWorker"
)

// Backup is the shoot's backup in the seed's bucket (Gardener's "BackupEntry"
// docs/extensions/resources/backupentry.md).
type Backup struct {
	// ProviderType of the backup provider; required.
	ProviderType string `json:"provider_type"`
	// Region of the bucket; required.
	Region string `json:"region"`
	// BucketName is the seed's bucket; required.
	BucketName string `json:"bucket_name"`
	// SecretName and SecretNamespace are the provider secret; "" means backupprovider in the
	// control-plane namespace (Gardener's docs/extensions/resources/backupentry.md).
	SecretName      string         `json:"secret_name"`
	SecretNamespace string         `json:"secret_namespace"`
	ProviderConfig  map[string]any `json:"provider_config"`
}

// Exposure is the seed's provider for the ControlPlane with purpose exposure, which the seed's
// provider extension reconciles (Gardener's docs/extensions/resources/controlplane-exposure.md).
type Exposure struct {
	// ProviderType and Region of the seed; required.
	ProviderType string `json:"provider_type"`
	Region       string `json:"region"`
}

// resolved are the values with their defaults applied.
type resolved struct {
	Values
	namespace string
}

func resolve(v Values) (resolved, error) {
	if v.Project == "" || v.Name == "" {
		return resolved{}, fmt.Errorf("shoot project and name are required")
	}
	if v.Cluster.Name == "" {
		return resolved{}, fmt.Errorf("shoot %s/%s: cluster (the seed) is required", v.Project, v.Name)
	}
	if v.Provider.Type == "" || v.Provider.Region == "" {
		return resolved{}, fmt.Errorf("shoot %s/%s: provider type and region are required", v.Project, v.Name)
	}
	ns := v.TechnicalID
	if ns == "" {
		ns = TechnicalID(v.Project, v.Name)
	}
	if v.Provider.CredentialsSecretName == "" {
		v.Provider.CredentialsSecretName = "cloudprovider"
	}
	if len(v.Networking.IPFamilies) == 0 {
		v.Networking.IPFamilies = []string{"IPv4"}
	}
	if len(v.Workers) > 0 && (v.Networking.Type == "" || v.Networking.Pods == "" || v.Networking.Services == "") {
		return resolved{}, fmt.Errorf("shoot %s/%s: networking type, pods and services are required with workers", v.Project, v.Name)
	}
	seen := map[string]bool{}
	for _, w := range v.Workers {
		if w.Name == "" || w.MachineType == "" || w.ImageName == "" || w.ImageVersion == "" {
			return resolved{}, fmt.Errorf("shoot %s/%s: worker pool %q: name, machine type, image name and version are required", v.Project, v.Name, w.Name)
		}
		if seen[w.Name] {
			return resolved{}, fmt.Errorf("shoot %s/%s: worker pool %q is listed twice", v.Project, v.Name, w.Name)
		}
		seen[w.Name] = true
		if w.Minimum < 0 || w.Maximum < w.Minimum {
			return resolved{}, fmt.Errorf("shoot %s/%s: worker pool %q: need 0 <= minimum (%d) <= maximum (%d)", v.Project, v.Name, w.Name, w.Minimum, w.Maximum)
		}
	}
	types := map[string]bool{}
	for _, e := range v.Extensions {
		if e.Type == "" {
			return resolved{}, fmt.Errorf("shoot %s/%s: extension without a type", v.Project, v.Name)
		}
		if types[e.Type] {
			return resolved{}, fmt.Errorf("shoot %s/%s: extension %q is listed twice", v.Project, v.Name, e.Type)
		}
		types[e.Type] = true
		if err := e.Lifecycle.validate(); err != nil {
			return resolved{}, fmt.Errorf("shoot %s/%s: extension %q: %w", v.Project, v.Name, e.Type, err)
		}
	}
	if b := v.Backup; b != nil && (b.ProviderType == "" || b.Region == "" || b.BucketName == "") {
		return resolved{}, fmt.Errorf("shoot %s/%s: backup provider type, region and bucket name are required", v.Project, v.Name)
	}
	if e := v.Exposure; e != nil && (e.ProviderType == "" || e.Region == "") {
		return resolved{}, fmt.Errorf("shoot %s/%s: exposure provider type and region are required", v.Project, v.Name)
	}
	return resolved{Values: v, namespace: ns}, nil
}

func (l Lifecycle) validate() error {
	switch l.Reconcile {
	case "", BeforeKubeAPIServer, AfterKubeAPIServer, AfterWorker:
	default:
		return fmt.Errorf("reconcile lifecycle %q is not one of %s, %s, %s", l.Reconcile, BeforeKubeAPIServer, AfterKubeAPIServer, AfterWorker)
	}
	for what, s := range map[string]string{"delete": l.Delete, "migrate": l.Migrate} {
		if s != "" && s != BeforeKubeAPIServer && s != AfterKubeAPIServer {
			return fmt.Errorf("%s lifecycle %q is not one of %s, %s", what, s, BeforeKubeAPIServer, AfterKubeAPIServer)
		}
	}
	return nil
}

// ReconcileStep is the extension's reconcile lifecycle with its default, AfterKubeAPIServer
// (Gardener's docs/extensions/registration.md).
func (e Extension) ReconcileStep() string {
	if e.Lifecycle.Reconcile == "" {
		return AfterKubeAPIServer
	}
	return e.Lifecycle.Reconcile
}

// DeleteStep is the extension's delete lifecycle with its default, BeforeKubeAPIServer
// (Gardener's docs/extensions/registration.md).
func (e Extension) DeleteStep() string {
	if e.Lifecycle.Delete == "" {
		return BeforeKubeAPIServer
	}
	return e.Lifecycle.Delete
}

// TechnicalID is the shoot's control-plane namespace in the seed, shoot--<project>--<name>
// (pkg/gardenlet/operation/botanist/namespaces.go).
func TechnicalID(project, name string) string {
	return "shoot--" + project + "--" + name
}
