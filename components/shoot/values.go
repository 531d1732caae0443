package shoot

import (
	"encoding/json"
	"fmt"

	"github.com/declarative-gardener/gardener/components/gardenercontrollermanager"
	"github.com/declarative-gardener/gardener/components/internal/decode"
)

// Values are the shoot block's configuration (schema.go), field for field.
type Values struct {
	Name             string   `json:"name"`
	Project          string   `json:"project"`
	Seed             *SeedRef `json:"seed"`
	CloudProfile     string   `json:"cloud_profile"`
	CloudProfileKind string   `json:"cloud_profile_kind"`
	// CloudProfileObject is the cloud_profile block's CloudProfile, which the extensions Cluster
	// embeds; nil when the shoot names its profile only.
	CloudProfileObject decode.Object `json:"cloud_profile_object"`
	Region             string        `json:"region"`
	CredentialsBinding string        `json:"credentials_binding"`
	SecretBinding      string        `json:"secret_binding"`
	Purpose            string        `json:"purpose"`
	// ExpirationTimestamp is a later (or earlier) end of life than a Quota's cluster lifetime.
	ExpirationTimestamp string `json:"expiration_timestamp"`
	DNSDomain           string `json:"dns_domain"`
	ExposureClass       string `json:"exposure_class"`
	// ExposureClassHandler is the handler of ExposureClass, whose seed gateway exposes the API
	// server.
	ExposureClassHandler string `json:"exposure_class_handler"`
	// InternalDomain and DefaultDomain are the landscape's domains with their DNS providers.
	InternalDomain *DNSDomain `json:"internal_domain"`
	DefaultDomain  *DNSDomain `json:"default_domain"`
	// DNSProvider is the provider of the shoot's own dns_domain.
	DNSProvider *struct {
		Type      string `json:"type"`
		SecretRef string `json:"secret_ref"`
	} `json:"dns_provider"`
	// ExtensionLifecycles are the registrations' lifecycles of Extension types, by type.
	ExtensionLifecycles map[string]ExtensionLifecycle `json:"extension_lifecycles"`

	Kubernetes       Kubernetes        `json:"kubernetes"`
	Networking       *Networking       `json:"networking"`
	Provider         Provider          `json:"provider"`
	Workers          []Worker          `json:"workers"`
	Maintenance      *Maintenance      `json:"maintenance"`
	Hibernation      *Hibernation      `json:"hibernation"`
	ControlPlane     *ControlPlane     `json:"control_plane"`
	Extensions       []Extension       `json:"extensions"`
	Tolerations      []Toleration      `json:"tolerations"`
	SystemComponents *SystemComponents `json:"system_components"`
	Addons           *Addons           `json:"addons"`
}

// ExtensionLifecycle is an Extension type as its registration declares it: when it is
// reconciled, deleted and migrated (Gardener's ControllerResource in docs/api-reference/core.md),
// and whether it is enabled for every shoot that does not disable it, workerless ones only where
// WorkerlessSupported (Gardener's "Extension" docs/extensions/resources/extension.md).
type ExtensionLifecycle struct {
	Reconcile           string `json:"reconcile"`
	Delete              string `json:"delete"`
	Migrate             string `json:"migrate"`
	GloballyEnabled     bool   `json:"globally_enabled"`
	WorkerlessSupported bool   `json:"workerless_supported"`
}

// DNSDomain is a domain of the landscape and the DNS provider serving it, whose credentials are
// a Secret in the virtual garden's garden namespace (Gardener's "Configuration"
// docs/operations/configuration.md).
type DNSDomain struct {
	Domain       string `json:"domain"`
	ProviderType string `json:"provider_type"`
	SecretRef    string `json:"secret_ref"`
}

// KubeAPIServer is .spec.kubernetes.kubeAPIServer.
type KubeAPIServer struct {
	AuditPolicyConfigMap              string          `json:"audit_policy_config_map"`
	APIAudiences                      []string        `json:"api_audiences"`
	EventTTL                          string          `json:"event_ttl"`
	EnableAnonymousAuthentication     *bool           `json:"enable_anonymous_authentication"`
	RuntimeConfig                     map[string]bool `json:"runtime_config"`
	MaxTokenExpiration                string          `json:"max_token_expiration"`
	StructuredAuthenticationConfigMap string          `json:"structured_authentication_config_map"`
	StructuredAuthorizationConfigMap  string          `json:"structured_authorization_config_map"`
	EncryptedResources                []string        `json:"encrypted_resources"`
	FeatureGates                      map[string]bool `json:"feature_gates"`
	AdmissionPlugins                  []struct {
		Name                 string `json:"name"`
		Config               any    `json:"config"`
		Disabled             bool   `json:"disabled"`
		KubeconfigSecretName string `json:"kubeconfig_secret_name"`
	} `json:"admission_plugins"`
}

// Kubernetes is .spec.kubernetes.
type Kubernetes struct {
	Version                      string         `json:"version"`
	EnableStaticTokenKubeconfig  *bool          `json:"enable_static_token_kubeconfig"`
	VerticalPodAutoscalerEnabled *bool          `json:"vertical_pod_autoscaler_enabled"`
	KubeAPIServer                *KubeAPIServer `json:"kube_api_server"`
	KubeControllerManager        *struct {
		NodeCIDRMaskSize       *int32          `json:"node_cidr_mask_size"`
		NodeMonitorGracePeriod string          `json:"node_monitor_grace_period"`
		FeatureGates           map[string]bool `json:"feature_gates"`
	} `json:"kube_controller_manager"`
	KubeScheduler *struct {
		Profile      string          `json:"profile"`
		FeatureGates map[string]bool `json:"feature_gates"`
	} `json:"kube_scheduler"`
	KubeProxy *KubeProxy `json:"kube_proxy"`
}

// KubeProxy is .spec.kubernetes.kubeProxy.
type KubeProxy struct {
	Enabled      bool            `json:"enabled"`
	Mode         string          `json:"mode"`
	FeatureGates map[string]bool `json:"feature_gates"`
}

// Networking is .spec.networking.
type Networking struct {
	Type           string         `json:"type"`
	Pods           string         `json:"pods"`
	Nodes          string         `json:"nodes"`
	Services       string         `json:"services"`
	IPFamilies     []string       `json:"ip_families"`
	ProviderConfig map[string]any `json:"provider_config"`
}

// Provider is .spec.provider without the workers.
type Provider struct {
	Type                 string         `json:"type"`
	InfrastructureConfig map[string]any `json:"infrastructure_config"`
	ControlPlaneConfig   map[string]any `json:"control_plane_config"`
	SSHAccessEnabled     *bool          `json:"ssh_access_enabled"`
}

// Worker is one worker pool, .spec.provider.workers[].
type Worker struct {
	Name                    string            `json:"name"`
	MachineType             string            `json:"machine_type"`
	Architecture            string            `json:"architecture"`
	Minimum                 int32             `json:"minimum"`
	Maximum                 int32             `json:"maximum"`
	MaxSurge                string            `json:"max_surge"`
	MaxUnavailable          string            `json:"max_unavailable"`
	Zones                   []string          `json:"zones"`
	Labels                  map[string]string `json:"labels"`
	Annotations             map[string]string `json:"annotations"`
	KubernetesVersion       string            `json:"kubernetes_version"`
	SystemComponentsAllowed *bool             `json:"system_components_allowed"`
	ProviderConfig          map[string]any    `json:"provider_config"`
	MachineImage            *struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"machine_image"`
	Volume *struct {
		Type string `json:"type"`
		Size string `json:"size"`
	} `json:"volume"`
	Taints []struct {
		Key    string `json:"key"`
		Value  string `json:"value"`
		Effect string `json:"effect"`
	} `json:"taints"`
	CRI *struct {
		Name string `json:"name"`
	} `json:"cri"`
}

// AutoUpdate is .spec.maintenance.autoUpdate.
type AutoUpdate struct {
	KubernetesVersion   bool `json:"kubernetes_version"`
	MachineImageVersion bool `json:"machine_image_version"`
}

// Maintenance is .spec.maintenance.
type Maintenance struct {
	ConfineSpecUpdateRollout bool        `json:"confine_spec_update_rollout"`
	AutoUpdate               *AutoUpdate `json:"auto_update"`
	TimeWindow               *struct {
		Begin string `json:"begin"`
		End   string `json:"end"`
	} `json:"time_window"`
}

// Hibernation is .spec.hibernation.
type Hibernation struct {
	Enabled   bool `json:"enabled"`
	Schedules []struct {
		Start    string `json:"start"`
		End      string `json:"end"`
		Location string `json:"location"`
	} `json:"schedules"`
}

// ControlPlane is .spec.controlPlane.
type ControlPlane struct {
	HighAvailability *struct {
		FailureTolerance string `json:"failure_tolerance"`
	} `json:"high_availability"`
}

// Extension is one of .spec.extensions[].
type Extension struct {
	Type           string         `json:"type"`
	ProviderConfig map[string]any `json:"provider_config"`
	Disabled       bool           `json:"disabled"`
}

// Toleration is one of .spec.tolerations[].
type Toleration struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// SystemComponents is .spec.systemComponents.
type SystemComponents struct {
	CoreDNSAutoscalingMode string `json:"core_dns_autoscaling_mode"`
	NodeLocalDNSEnabled    bool   `json:"node_local_dns_enabled"`
}

// Addons is .spec.addons.
type Addons struct {
	KubernetesDashboard *struct {
		Enabled            bool   `json:"enabled"`
		AuthenticationMode string `json:"authentication_mode"`
	} `json:"kubernetes_dashboard"`
	NginxIngress *struct {
		Enabled                  bool              `json:"enabled"`
		LoadBalancerSourceRanges []string          `json:"load_balancer_source_ranges"`
		Config                   map[string]string `json:"config"`
		ExternalTrafficPolicy    string            `json:"external_traffic_policy"`
	} `json:"nginx_ingress"`
}

// SeedRef is what a shoot reads of the seed that runs its control plane: the seed's outputs.
type SeedRef struct {
	Name           string
	Cluster        string
	VirtualCluster string
	ProviderType   string
	Region         string
	Zones          []string
	IngressDomain  string
	// Networks of the seed, and the defaults it gives shoots without networks of their own.
	Pods, Services, Nodes    string
	ShootPods, ShootServices string
	// BlockCIDRs and IPFamilies complete the seed's networks as the NetworkPolicy controller runs
	// with them in the seed cluster (components/seed's PolicyNetworks).
	BlockCIDRs, IPFamilies       []string
	BackupProvider, BackupRegion string
	// ExposureClassHandlers are the seed's handler gateways by handler name.
	ExposureClassHandlers map[string]Gateway
	// Observability says whether the seed runs its observability stack and stores logs.
	Observability SeedObservability
	// ManagedBy is who reconciles the seed: "engine" or "gardenlet".
	ManagedBy string
	// ShootLoops are the settings of the garden's gardener-controller-manager, which the
	// shoot predicts its loops with.
	ShootLoops gardenercontrollermanager.ShootLoops
	// Object is the Seed as the seed block registers it, which the extensions Cluster embeds; nil
	// for a seed built in Go without it.
	Object decode.Object
}

// SeedObservability is the seed's observability output.
type SeedObservability struct {
	Enabled        bool `json:"enabled"`
	LoggingEnabled bool `json:"logging_enabled"`
}

// Gateway is an Istio ingress gateway of the seed: its namespace and pod labels.
type Gateway struct {
	Namespace string            `json:"namespace"`
	Labels    map[string]string `json:"labels"`
}

// UnmarshalJSON takes the outputs the shoot needs and ignores the others.
func (s *SeedRef) UnmarshalJSON(data []byte) error {
	var v struct {
		Name           string         `json:"name"`
		Cluster        decode.Cluster `json:"cluster"`
		VirtualCluster decode.Cluster `json:"virtual_cluster"`
		ProviderType   string         `json:"provider_type"`
		Region         string         `json:"region"`
		Zones          []string       `json:"zones"`
		IngressDomain  string         `json:"ingress_domain"`
		Networks       struct {
			Pods          string   `json:"pods"`
			Services      string   `json:"services"`
			Nodes         string   `json:"nodes"`
			ShootPods     string   `json:"shoot_pods"`
			ShootServices string   `json:"shoot_services"`
			BlockCIDRs    []string `json:"block_cidrs"`
			IPFamilies    []string `json:"ip_families"`
		} `json:"networks"`
		BackupProvider        string                                `json:"backup_provider"`
		BackupRegion          string                                `json:"backup_region"`
		ExposureClassHandlers map[string]Gateway                    `json:"exposure_class_handlers"`
		Observability         SeedObservability                     `json:"observability"`
		ManagedBy             string                                `json:"managed_by"`
		ShootLoops            *gardenercontrollermanager.ShootLoops `json:"gardener_controller_manager"`
		Object                decode.Object                         `json:"object"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("seed reference: %w", err)
	}
	*s = SeedRef{
		Name: v.Name, Cluster: v.Cluster.Name, VirtualCluster: v.VirtualCluster.Name,
		ProviderType: v.ProviderType, Region: v.Region, Zones: v.Zones, IngressDomain: v.IngressDomain,
		Pods: v.Networks.Pods, Services: v.Networks.Services, Nodes: v.Networks.Nodes,
		ShootPods: v.Networks.ShootPods, ShootServices: v.Networks.ShootServices,
		BlockCIDRs: v.Networks.BlockCIDRs, IPFamilies: v.Networks.IPFamilies,
		BackupProvider: v.BackupProvider, BackupRegion: v.BackupRegion, ExposureClassHandlers: v.ExposureClassHandlers,
		Observability: v.Observability, ManagedBy: v.ManagedBy, ShootLoops: gardenercontrollermanager.DefaultShootLoops(),
		Object: v.Object,
	}
	if v.ShootLoops != nil {
		s.ShootLoops = *v.ShootLoops
	}
	return nil
}

// shootLoops are the seed's gardener-controller-manager settings, parsed; the component's
// defaults for a seed built in Go without them.
func (s SeedRef) shootLoops() (gardenercontrollermanager.ShootLoopDurations, error) {
	loops := s.ShootLoops
	if loops == (gardenercontrollermanager.ShootLoops{}) {
		loops = gardenercontrollermanager.DefaultShootLoops()
	}
	return loops.Durations()
}
