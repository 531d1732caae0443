package garden

import (
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/projectcontroller"
)

// Values are the garden block's configuration (schema.go), field for field.
type Values struct {
	Cluster           decode.Cluster    `json:"cluster"`
	VirtualGarden     *decode.Cluster   `json:"virtual_garden"`
	Images            map[string]string `json:"images"`
	AdmissionWebhooks bool              `json:"admission_webhooks"`
	RuntimeCluster    RuntimeCluster    `json:"runtime_cluster"`
	Observability     *Observability    `json:"observability"`
	VirtualCluster    VirtualCluster    `json:"virtual_cluster"`
	DNSProviders      []DNSProvider     `json:"dns_provider"`
}

// RuntimeCluster describes the runtime cluster.
type RuntimeCluster struct {
	Networking struct {
		Pods       string   `json:"pods"`
		Services   string   `json:"services"`
		Nodes      string   `json:"nodes"`
		BlockCIDRs []string `json:"block_cidrs"`
	} `json:"networking"`
	Provider *struct {
		Region string   `json:"region"`
		Zones  []string `json:"zones"`
	} `json:"provider"`
	Ingress struct {
		Domains        []string `json:"domains"`
		ControllerKind string   `json:"controller_kind"`
	} `json:"ingress"`
	Settings *RuntimeSettings `json:"settings"`
}

// RuntimeSettings are the runtime cluster's optional switches.
type RuntimeSettings struct {
	VerticalPodAutoscalerEnabled bool   `json:"vertical_pod_autoscaler_enabled"`
	TopologyAwareRoutingEnabled  bool   `json:"topology_aware_routing_enabled"`
	VolumeMinimumSize            string `json:"volume_minimum_size"`
	LoadBalancerServices         *struct {
		Annotations map[string]string `json:"annotations"`
	} `json:"load_balancer_services"`
}

// VirtualCluster describes the virtual garden.
type VirtualCluster struct {
	DNSDomains       []string `json:"dns_domains"`
	HighAvailability bool     `json:"high_availability"`
	Networking       struct {
		Services string `json:"services"`
	} `json:"networking"`
	Kubernetes struct {
		Version       string `json:"version"`
		KubeAPIServer *struct {
			AuditPolicyConfigMap string          `json:"audit_policy_config_map"`
			EventTTL             string          `json:"event_ttl"`
			EncryptedResources   []string        `json:"encrypted_resources"`
			FeatureGates         map[string]bool `json:"feature_gates"`
		} `json:"kube_api_server"`
		KubeControllerManager *struct {
			CertificateSigningDuration string          `json:"certificate_signing_duration"`
			FeatureGates               map[string]bool `json:"feature_gates"`
		} `json:"kube_controller_manager"`
	} `json:"kubernetes"`
	Etcd *struct {
		Main *struct {
			StorageCapacity string `json:"storage_capacity"`
			StorageClass    string `json:"storage_class"`
			Backup          *struct {
				Provider       string `json:"provider"`
				BucketName     string `json:"bucket_name"`
				SecretRef      string `json:"secret_ref"`
				ProviderConfig any    `json:"provider_config"`
			} `json:"backup"`
		} `json:"main"`
		Events *struct {
			StorageCapacity string `json:"storage_capacity"`
			StorageClass    string `json:"storage_class"`
		} `json:"events"`
	} `json:"etcd"`
	Maintenance *struct {
		TimeWindowBegin string `json:"time_window_begin"`
		TimeWindowEnd   string `json:"time_window_end"`
	} `json:"maintenance"`
	Gardener *Gardener `json:"gardener"`
}

// Gardener configures the Gardener control plane.
type Gardener struct {
	Version         string `json:"version"`
	ClusterIdentity string `json:"cluster_identity"`
	APIServer       *struct {
		AuditPolicyConfigMap  string          `json:"audit_policy_config_map"`
		EncryptedResources    []string        `json:"encrypted_resources"`
		WatchCacheDefaultSize *int            `json:"watch_cache_default_size"`
		RegisterAPIServices   bool            `json:"register_api_services"`
		FeatureGates          map[string]bool `json:"feature_gates"`
	} `json:"api_server"`
	AdmissionController *struct {
		LogLevel         string `json:"log_level"`
		ResourceSizeMode string `json:"resource_size_mode"`
	} `json:"admission_controller"`
	ControllerManager *ControllerManager `json:"controller_manager"`
	Scheduler         *struct {
		LogLevel     string          `json:"log_level"`
		FeatureGates map[string]bool `json:"feature_gates"`
	} `json:"scheduler"`
	Dashboard *struct {
		Enabled          bool   `json:"enabled"`
		EnableTokenLogin bool   `json:"enable_token_login"`
		LogLevel         string `json:"log_level"`
	} `json:"dashboard"`
}

// DNSProvider is a DNS service the garden may use.
type DNSProvider struct {
	Name           string `json:"name"`
	Type           string `json:"type"`
	SecretRef      string `json:"secret_ref"`
	ProviderConfig any    `json:"provider_config"`
}

// Observability switches the garden's monitoring and logging.
type Observability struct {
	Enabled           bool   `json:"enabled"`
	Longterm          bool   `json:"longterm"`
	Alerting          bool   `json:"alerting"`
	PrometheusStorage string `json:"prometheus_storage"`
	ValiStorage       string `json:"vali_storage"`
}

// ControllerManager are the garden's settings of gardener-controller-manager: its log level and
// feature gates, the project controllers' settings, which the garden publishes for the projects'
// predictions (output project_controller), and the shoot loops' settings, which it hands to seeds
// and shoots (output gardener_controller_manager); the shoot loops' settings left out are the
// gardener_controller_manager component's defaults.
type ControllerManager struct {
	LogLevel     string          `json:"log_level"`
	FeatureGates map[string]bool `json:"feature_gates"`
	projectcontroller.Values
	ShootHibernationTriggerDeadline     string `json:"shoot_hibernation_trigger_deadline"`
	ShootMaintenanceRestartControlPlane *bool  `json:"shoot_maintenance_restart_control_plane"`
	ShootMaintenanceRestartCoreAddons   *bool  `json:"shoot_maintenance_restart_core_addons"`
	ShootQuotaSyncPeriod                string `json:"shoot_quota_sync_period"`
	ShootRetryPeriod                    string `json:"shoot_retry_period"`
	ShootRetryJitterPeriod              string `json:"shoot_retry_jitter_period"`
}
