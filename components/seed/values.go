package seed

import (
	"encoding/json"
	"fmt"

	"github.com/declarative-gardener/gardener/components/gardenercontrollermanager"
	"github.com/declarative-gardener/gardener/components/internal/decode"
)

// Values are the seed block's configuration (schema.go), field for field.
type Values struct {
	Garden  GardenRef      `json:"garden"`
	Cluster decode.Cluster `json:"cluster"`
	// ManagedBy is who reconciles the seed: ManagedByEngine or ManagedByGardenlet.
	ManagedBy  string   `json:"managed_by"`
	Extensions []string `json:"extensions"`
	// AdmissionWebhooks registers the webhooks of the seed's own resource manager and VPA.
	AdmissionWebhooks bool `json:"admission_webhooks"`
	Provider          struct {
		Type           string   `json:"type"`
		Region         string   `json:"region"`
		Zones          []string `json:"zones"`
		ProviderConfig any      `json:"provider_config"`
	} `json:"provider"`
	Networks struct {
		Nodes         string   `json:"nodes"`
		Pods          string   `json:"pods"`
		Services      string   `json:"services"`
		BlockCIDRs    []string `json:"block_cidrs"`
		IPFamilies    []string `json:"ip_families"`
		ShootDefaults *struct {
			Pods     string `json:"pods"`
			Services string `json:"services"`
		} `json:"shoot_defaults"`
	} `json:"networks"`
	Ingress Ingress `json:"ingress"`
	DNS     struct {
		Provider struct {
			Type      string `json:"type"`
			SecretRef string `json:"secret_ref"`
		} `json:"provider"`
	} `json:"dns"`
	Backup                *Backup                `json:"backup"`
	ExposureClassHandlers []ExposureClassHandler `json:"exposure_class_handler"`
	Taints                []struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	} `json:"taints"`
	Settings      *Settings      `json:"settings"`
	Observability *Observability `json:"observability"`
}

// Ingress is the seed's ingress domain and controller (.spec.ingress).
type Ingress struct {
	Domain         string `json:"domain"`
	ControllerKind string `json:"controller_kind"`
	ProviderConfig any    `json:"provider_config"`
}

// Observability switches the seed's monitoring and logging stack (Gardener's "Logging And
// Monitoring" docs/extensions/logging-and-monitoring.md).
type Observability struct {
	Enabled           bool   `json:"enabled"`
	LoggingEnabled    bool   `json:"logging_enabled"`
	Alerting          bool   `json:"alerting"`
	PrometheusStorage string `json:"prometheus_storage"`
	ValiStorage       string `json:"vali_storage"`
}

// ExposureClassHandler realises the handler of an ExposureClass on this seed (Gardener's
// "ExposureClasses" docs/usage/networking/exposureclasses.md).
type ExposureClassHandler struct {
	Name                    string            `json:"name"`
	LoadBalancerAnnotations map[string]string `json:"load_balancer_annotations"`
	IngressNamespace        string            `json:"ingress_namespace"`
	IngressLabels           map[string]string `json:"ingress_labels"`
}

// Namespace is the handler's gateway namespace, istio-ingress-handler-<name> by default.
func (h ExposureClassHandler) Namespace() string {
	if h.IngressNamespace != "" {
		return h.IngressNamespace
	}
	return "istio-ingress-handler-" + h.Name
}

// Labels are the handler's gateway pod labels. Gardener's documentation names none by default;
// these keep them apart from the default gateway and from other handlers.
func (h ExposureClassHandler) Labels() map[string]string {
	if len(h.IngressLabels) > 0 {
		return h.IngressLabels
	}
	return map[string]string{"app": "istio-ingressgateway", "gardener.cloud/role": "exposureclass-handler", "handler.exposureclass.gardener.cloud/name": h.Name}
}

// Settings are the seed's switches.
type Settings struct {
	ExcessCapacityReservationEnabled bool `json:"excess_capacity_reservation_enabled"`
	SchedulingVisible                bool `json:"scheduling_visible"`
	VerticalPodAutoscalerEnabled     bool `json:"vertical_pod_autoscaler_enabled"`
	TopologyAwareRoutingEnabled      bool `json:"topology_aware_routing_enabled"`
	LoadBalancerServices             *struct {
		Annotations           map[string]string `json:"annotations"`
		ExternalTrafficPolicy string            `json:"external_traffic_policy"`
		ProxyProtocolAllowed  bool              `json:"proxy_protocol_allowed"`
		Zones                 []struct {
			Name                  string            `json:"name"`
			Annotations           map[string]string `json:"annotations"`
			ExternalTrafficPolicy string            `json:"external_traffic_policy"`
		} `json:"zones"`
	} `json:"load_balancer_services"`
	DependencyWatchdog *struct {
		WeederEnabled bool `json:"weeder_enabled"`
		ProberEnabled bool `json:"prober_enabled"`
	} `json:"dependency_watchdog"`
}

// GardenRef is what a seed reads of the garden it registers with: the garden's outputs.
type GardenRef struct {
	Name            string
	VirtualEndpoint string
	CABundle        string
	VirtualCluster  string
	RuntimeCluster  string
	// ObservabilityEnabled is whether the garden runs its observability stack.
	ObservabilityEnabled bool
	// ShootLoops are the garden's gardener-controller-manager shoot loop settings, which the
	// seed hands on to its shoots.
	ShootLoops gardenercontrollermanager.ShootLoops
}

// UnmarshalJSON takes the outputs the seed needs and ignores the others.
func (g *GardenRef) UnmarshalJSON(data []byte) error {
	var v struct {
		Name            string         `json:"name"`
		VirtualEndpoint string         `json:"virtual_endpoint"`
		CABundle        string         `json:"ca_bundle"`
		VirtualCluster  decode.Cluster `json:"virtual_cluster"`
		RuntimeCluster  decode.Cluster `json:"runtime_cluster"`
		// Observability is on unless the garden says otherwise.
		ObservabilityEnabled *bool                                 `json:"observability_enabled"`
		ShootLoops           *gardenercontrollermanager.ShootLoops `json:"gardener_controller_manager"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("garden reference: %w", err)
	}
	*g = GardenRef{Name: v.Name, VirtualEndpoint: v.VirtualEndpoint, CABundle: v.CABundle, VirtualCluster: v.VirtualCluster.Name, RuntimeCluster: v.RuntimeCluster.Name,
		ObservabilityEnabled: v.ObservabilityEnabled == nil || *v.ObservabilityEnabled, ShootLoops: gardenercontrollermanager.DefaultShootLoops()}
	if v.ShootLoops != nil {
		g.ShootLoops = *v.ShootLoops
	}
	return nil
}

// Backup is the seed's object store for its shoots' etcd backups.
type Backup struct {
	Provider       string `json:"provider"`
	Region         string `json:"region"`
	SecretRef      string `json:"secret_ref"`
	ProviderConfig any    `json:"provider_config"`
	// ConditionThreshold is how long BackupBucketsReady is Progressing before it turns False
	// (gardener-controller-manager's conditionThreshold, Gardener's "Gardener Controller Manager"
	// docs/concepts/controller-manager.md); "" means False at once.
	ConditionThreshold string `json:"condition_threshold"`
}
