package resourcemanager

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/internal/unique"
)

// The ports the GRM listens on (pkg/component/gardener/resourcemanager/resource_manager.go at
// gardener/gardener v1.120.0): webhooks behind Service port 443, metrics and health probes.
const (
	ServerPort  = 10250
	MetricsPort = 8080
	HealthPort  = 8081
)

// Where the pod finds its configuration and serving certificate (resource_manager.go at v1.120.0).
const (
	// configMapPrefix is the ConfigMap's name before the checksum of its data.
	configMapPrefix = Name
	configKey       = "config.yaml"
	configDir       = "/etc/gardener-resource-manager-config"
	serverCertDir   = "/etc/gardener-resource-manager-tls"
)

// The component configuration (resourcemanager.config.gardener.cloud/v1alpha1
// ResourceManagerConfiguration, pkg/resourcemanager/apis/config/v1alpha1/types.go at v1.120.0).
// Only the fields a GRM of Gardener's sets are modelled; the GRM defaults the rest.
type (
	grmConfig struct {
		APIVersion             string            `json:"apiVersion"`
		Kind                   string            `json:"kind"`
		SourceClientConnection clientConnection  `json:"sourceClientConnection"`
		TargetClientConnection *clientConnection `json:"targetClientConnection,omitempty"`
		LeaderElection         leaderElection    `json:"leaderElection"`
		LogLevel               string            `json:"logLevel"`
		LogFormat              string            `json:"logFormat"`
		Server                 serverConfig      `json:"server"`
		Controllers            controllers       `json:"controllers"`
		Webhooks               webhooks          `json:"webhooks"`
	}
	clientConnection struct {
		Kubeconfig string   `json:"kubeconfig,omitempty"`
		QPS        int      `json:"qps,omitempty"`
		Burst      int      `json:"burst,omitempty"`
		Namespaces []string `json:"namespaces,omitempty"`
	}
	leaderElection struct {
		LeaderElect       bool   `json:"leaderElect"`
		LeaseDuration     string `json:"leaseDuration,omitempty"`
		RenewDeadline     string `json:"renewDeadline,omitempty"`
		RetryPeriod       string `json:"retryPeriod,omitempty"`
		ResourceLock      string `json:"resourceLock,omitempty"`
		ResourceName      string `json:"resourceName"`
		ResourceNamespace string `json:"resourceNamespace"`
	}
	serverConfig struct {
		Webhooks     webhookServer `json:"webhooks"`
		HealthProbes port          `json:"healthProbes"`
		Metrics      port          `json:"metrics"`
	}
	webhookServer struct {
		Port int       `json:"port"`
		TLS  serverTLS `json:"tls"`
	}
	serverTLS struct {
		ServerCertDir string `json:"serverCertDir"`
	}
	port struct {
		Port int `json:"port"`
	}
	controllers struct {
		ClusterID                    string          `json:"clusterID,omitempty"`
		ResourceClass                string          `json:"resourceClass,omitempty"`
		GarbageCollector             periodic        `json:"garbageCollector"`
		Health                       workers         `json:"health"`
		CSRApprover                  csrApprover     `json:"csrApprover"`
		ManagedResource              managedResource `json:"managedResource"`
		NetworkPolicy                networkPolicy   `json:"networkPolicy"`
		NodeCriticalComponents       toggle          `json:"nodeCriticalComponents"`
		NodeAgentReconciliationDelay reconcileDelay  `json:"nodeAgentReconciliationDelay"`
		TokenRequestor               toggledWorkers  `json:"tokenRequestor"`
	}
	periodic struct {
		Enabled    bool   `json:"enabled"`
		SyncPeriod string `json:"syncPeriod,omitempty"`
	}
	workers struct {
		ConcurrentSyncs int    `json:"concurrentSyncs,omitempty"`
		SyncPeriod      string `json:"syncPeriod,omitempty"`
	}
	toggledWorkers struct {
		Enabled         bool `json:"enabled"`
		ConcurrentSyncs int  `json:"concurrentSyncs,omitempty"`
	}
	csrApprover struct {
		Enabled          bool   `json:"enabled"`
		ConcurrentSyncs  int    `json:"concurrentSyncs,omitempty"`
		MachineNamespace string `json:"machineNamespace"`
	}
	managedResource struct {
		ConcurrentSyncs     int    `json:"concurrentSyncs,omitempty"`
		SyncPeriod          string `json:"syncPeriod,omitempty"`
		AlwaysUpdate        bool   `json:"alwaysUpdate,omitempty"`
		ManagedByLabelValue string `json:"managedByLabelValue,omitempty"`
	}
	networkPolicy struct {
		Enabled            bool                   `json:"enabled"`
		ConcurrentSyncs    int                    `json:"concurrentSyncs,omitempty"`
		NamespaceSelectors []metav1.LabelSelector `json:"namespaceSelectors,omitempty"`
	}
	reconcileDelay struct {
		Enabled  bool   `json:"enabled"`
		MaxDelay string `json:"maxDelay,omitempty"`
	}
	webhooks struct {
		CRDDeletionProtection        toggle                 `json:"crdDeletionProtection"`
		EndpointSliceHints           toggle                 `json:"endpointSliceHints"`
		ExtensionValidation          toggle                 `json:"extensionValidation"`
		HighAvailabilityConfig       highAvailability       `json:"highAvailabilityConfig"`
		KubernetesServiceHost        serviceHost            `json:"kubernetesServiceHost"`
		NodeAgentAuthorizer          nodeAgentAuthorizer    `json:"nodeAgentAuthorizer"`
		PodSchedulerName             podSchedulerName       `json:"podSchedulerName"`
		PodTopologySpreadConstraints toggle                 `json:"podTopologySpreadConstraints"`
		ProjectedTokenMount          projectedToken         `json:"projectedTokenMount"`
		SeccompProfile               toggle                 `json:"seccompProfile"`
		SystemComponentsConfig       systemComponentsConfig `json:"systemComponentsConfig"`
	}
	toggle struct {
		Enabled bool `json:"enabled"`
	}
	highAvailability struct {
		Enabled                             bool `json:"enabled"`
		DefaultNotReadyTolerationSeconds    int  `json:"defaultNotReadyTolerationSeconds,omitempty"`
		DefaultUnreachableTolerationSeconds int  `json:"defaultUnreachableTolerationSeconds,omitempty"`
	}
	serviceHost struct {
		Enabled bool   `json:"enabled"`
		Host    string `json:"host"`
	}
	nodeAgentAuthorizer struct {
		Enabled                bool   `json:"enabled"`
		MachineNamespace       string `json:"machineNamespace"`
		AuthorizeWithSelectors *bool  `json:"authorizeWithSelectors,omitempty"`
	}
	podSchedulerName struct {
		Enabled       bool   `json:"enabled"`
		SchedulerName string `json:"schedulerName,omitempty"`
	}
	projectedToken struct {
		Enabled           bool `json:"enabled"`
		ExpirationSeconds int  `json:"expirationSeconds,omitempty"`
	}
	systemComponentsConfig struct {
		Enabled         bool                `json:"enabled"`
		NodeSelector    map[string]string   `json:"nodeSelector,omitempty"`
		PodNodeSelector map[string]string   `json:"podNodeSelector,omitempty"`
		PodTolerations  []corev1.Toleration `json:"podTolerations,omitempty"`
	}
)

// Sync periods Gardener gives every GRM (ensureConfigMap in resource_manager.go at v1.120.0): the
// garbage collector every 12 hours, ManagedResources every hour, health checks every minute
// (pkg/component/shared/resourcemanager.go).
const (
	garbageCollectorSyncPeriod = 12 * time.Hour
	managedResourceSyncPeriod  = time.Hour
	healthSyncPeriod           = time.Minute
)

// componentConfig builds the runtime GRM's configuration.
//
// It watches ManagedResources in all namespaces (no .sourceClientConnection.namespaces): the
// runtime's ManagedResources live in garden and istio-system (Gardener's "Gardener Operator"
// docs/concepts/operator.md). Source and target are the same cluster, so there is no
// targetClientConnection. Only ManagedResources of the configured class are reconciled (Gardener's
// docs/concepts/resource-manager.md).
func componentConfig(v Values) grmConfig {
	c := grmConfig{
		APIVersion: "resourcemanager.config.gardener.cloud/v1alpha1",
		Kind:       "ResourceManagerConfiguration",
		// The engine's choice for the runtime GRM, not Gardener's, which leaves rates and timings
		// to the GRM's defaults; a shoot's GRM leaves them to the defaults too (shootConfig).
		SourceClientConnection: clientConnection{QPS: 100, Burst: 130},
		LeaderElection: leaderElection{
			LeaderElect:       true,
			LeaseDuration:     "15s",
			RenewDeadline:     "10s",
			RetryPeriod:       "2s",
			ResourceLock:      "leases",
			ResourceName:      Name,
			ResourceNamespace: v.Namespace,
		},
		LogLevel:  v.LogLevel,
		LogFormat: v.LogFormat,
		Server: serverConfig{
			Webhooks:     webhookServer{Port: ServerPort, TLS: serverTLS{ServerCertDir: serverCertDir}},
			HealthProbes: port{Port: HealthPort},
			Metrics:      port{Port: MetricsPort},
		},
		Controllers: controllers{
			ResourceClass:    v.Class,
			GarbageCollector: periodic{Enabled: true, SyncPeriod: garbageCollectorSyncPeriod.String()},
			Health:           workers{ConcurrentSyncs: v.ConcurrentSyncs, SyncPeriod: healthSyncPeriod.String()},
			// managed-by label value "gardener" (Gardener's docs/concepts/resource-manager.md).
			ManagedResource: managedResource{ConcurrentSyncs: v.ConcurrentSyncs, SyncPeriod: managedResourceSyncPeriod.String(), ManagedByLabelValue: "gardener"},
			// gardener-operator enables the NetworkPolicy controller for the garden namespaces
			// (Gardener's "Network Policies" docs/operations/network_policies.md).
			NetworkPolicy: networkPolicy{Enabled: true, ConcurrentSyncs: v.ConcurrentSyncs, NamespaceSelectors: networkPolicyNamespaces()},
			// Issues tokens for Secrets labelled resources.gardener.cloud/purpose=token-requestor
			// (Gardener's docs/concepts/resource-manager.md); idle while there are none.
			TokenRequestor: toggledWorkers{Enabled: true, ConcurrentSyncs: v.ConcurrentSyncs},
		},
		// The handlers behind the webhook configurations of webhooks.go; served even when the
		// configurations are not registered, which costs nothing.
		Webhooks: webhooks{
			CRDDeletionProtection: toggle{Enabled: true},
			EndpointSliceHints:    toggle{Enabled: true},
			ExtensionValidation:   toggle{Enabled: true},
			// Not in Gardener's documentation: toleration seconds for taint-based evictions (Gardener's
			// docs/concepts/resource-manager.md) as in Gardener's example configuration.
			HighAvailabilityConfig:       highAvailability{Enabled: true, DefaultNotReadyTolerationSeconds: 60, DefaultUnreachableTolerationSeconds: 60},
			PodTopologySpreadConstraints: toggle{Enabled: true},
			// 12h token lifetime (Gardener's docs/concepts/resource-manager.md).
			ProjectedTokenMount: projectedToken{Enabled: true, ExpirationSeconds: 43200},
			SeccompProfile:      toggle{Enabled: v.DefaultSeccompProfile},
		},
	}
	if v.Shoot != nil {
		c = shootConfig(v)
	}
	return c
}

// shootConfig is a shoot GRM's configuration as gardenlet writes it for a GRM responsible for
// the shoot (ensureConfigMap in pkg/component/gardener/resourcemanager/resource_manager.go with the
// values of NewTargetGardenerResourceManager in pkg/component/shared/resourcemanager.go and
// DefaultResourceManager in pkg/gardenlet/operation/botanist/resource_manager.go at v1.120.0):
//   - the source connection watches only the control-plane namespace; the target connection is
//     the shoot, through the generic token kubeconfig with the GRM's own token, and caches only
//     kube-system, kubernetes-dashboard and kube-node-lease;
//   - no resource class: the GRM's default, that of ManagedResources without .spec.class;
//   - controllers: the garbage collector (12h), health (10 workers, 1m), ManagedResources (20
//     workers, 1h, always update), the token requestor (5 workers), and for shoots with workers
//     the kubelet CSR approver (5 workers, machines in the control-plane namespace), the
//     node-critical-components controller and the node agent's reconciliation delay (5m);
//   - webhooks, served to the shoot's API server: projected token mount,
//     high-availability-config, kubernetes-service-host (the API server's internal domain),
//     system-components-config (worker.gardener.cloud/system-components=true nodes), the node
//     agent authorizer, the pod scheduler name for the bin-packing profile and the topology
//     spread constraints where the shoot turned MatchLabelKeysInPodTopologySpread off. A
//     workerless shoot keeps only the node agent authorizer (disableControllersAndWebhooks-
//     ForWorkerlessShoot).
func shootConfig(v Values) grmConfig {
	s := v.Shoot
	withWorkers := !s.Workerless
	c := grmConfig{
		APIVersion:             "resourcemanager.config.gardener.cloud/v1alpha1",
		Kind:                   "ResourceManagerConfiguration",
		SourceClientConnection: clientConnection{Namespaces: []string{v.Namespace}},
		TargetClientConnection: &clientConnection{Kubeconfig: GenericKubeconfigPath, Namespaces: TargetNamespaces},
		LeaderElection:         leaderElection{LeaderElect: true, ResourceName: Name, ResourceNamespace: v.Namespace},
		LogLevel:               v.LogLevel,
		LogFormat:              v.LogFormat,
		Server: serverConfig{
			Webhooks:     webhookServer{Port: ServerPort, TLS: serverTLS{ServerCertDir: serverCertDir}},
			HealthProbes: port{Port: HealthPort},
			Metrics:      port{Port: MetricsPort},
		},
		Controllers: controllers{
			ClusterID:                    s.ClusterIdentity,
			ResourceClass:                v.Class,
			GarbageCollector:             periodic{Enabled: true, SyncPeriod: garbageCollectorSyncPeriod.String()},
			Health:                       workers{ConcurrentSyncs: shootHealthWorkers, SyncPeriod: healthSyncPeriod.String()},
			CSRApprover:                  csrApprover{Enabled: withWorkers, ConcurrentSyncs: shootCSRApproverWorkers, MachineNamespace: v.Namespace},
			ManagedResource:              managedResource{ConcurrentSyncs: shootManagedResourceWorkers, SyncPeriod: managedResourceSyncPeriod.String(), AlwaysUpdate: true},
			NodeCriticalComponents:       toggle{Enabled: withWorkers},
			NodeAgentReconciliationDelay: reconcileDelay{Enabled: true, MaxDelay: s.nodeAgentMaxDelay().String()},
			TokenRequestor:               toggledWorkers{Enabled: true, ConcurrentSyncs: shootTokenRequestorWorkers},
		},
		Webhooks: webhooks{
			HighAvailabilityConfig:       highAvailability{Enabled: withWorkers},
			NodeAgentAuthorizer:          nodeAgentAuthorizer{Enabled: true, MachineNamespace: v.Namespace, AuthorizeWithSelectors: &s.AuthorizeWithSelectors},
			PodTopologySpreadConstraints: toggle{Enabled: withWorkers && s.PodTopologySpreadConstraints},
			ProjectedTokenMount:          projectedToken{Enabled: withWorkers},
			SeccompProfile:               toggle{Enabled: v.DefaultSeccompProfile},
			SystemComponentsConfig: systemComponentsConfig{
				Enabled:         withWorkers,
				NodeSelector:    map[string]string{LabelSystemComponents: "true"},
				PodNodeSelector: map[string]string{LabelSystemComponents: "true"},
				PodTolerations:  s.SystemComponentTolerations,
			},
		},
	}
	if s.KubernetesServiceHost != "" {
		c.Webhooks.KubernetesServiceHost = serviceHost{Enabled: withWorkers, Host: s.KubernetesServiceHost}
	}
	if s.BinPacking {
		c.Webhooks.PodSchedulerName = podSchedulerName{Enabled: withWorkers, SchedulerName: BinPackingSchedulerName}
	}
	return c
}

// networkPolicyNamespaces selects the namespaces whose Services the NetworkPolicy controller
// handles in a garden runtime cluster: garden, istio-system, *istio-ingress-*, shoot-* and
// extension-* (Gardener's docs/operations/network_policies.md). Gardener's documentation names the
// shoot role label (Gardener's docs/operations/network_policies.md); the istio-ingress and
// extension role values are Gardener's namespace roles.
func networkPolicyNamespaces() []metav1.LabelSelector {
	return []metav1.LabelSelector{
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpIn, Values: []string{"garden", "istio-system"}}}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "gardener.cloud/role", Operator: metav1.LabelSelectorOpIn, Values: []string{"extension", "istio-ingress", "shoot"}}}},
	}
}

// configMap holds the configuration as YAML under a name that ends in a checksum of it,
// immutable and garbage-collectable (ensureConfigMap with MakeUnique in resource_manager.go at
// v1.120.0): a new configuration is a new ConfigMap, which rolls the pods through the volume that
// names it, and the resource manager's garbage collector deletes the old one once no Deployment
// names it. sigs.k8s.io/yaml writes keys sorted, so the text, and with it the name, is
// deterministic.
func configMap(v Values) (*corev1.ConfigMap, error) {
	data, err := yaml.Marshal(componentConfig(v))
	if err != nil {
		return nil, fmt.Errorf("gardener-resource-manager configuration: %w", err)
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: configMapPrefix, Namespace: v.Namespace, Labels: labels(v)},
		Data:       map[string]string{configKey: string(data)},
	}
	unique.ConfigMap(cm)
	return cm, nil
}
