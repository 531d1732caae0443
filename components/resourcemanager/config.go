package resourcemanager

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// The ports the GRM listens on. Gardener's documentation shows the webhook server behind Service
// port 443 on target port 10250 (Gardener's "Gardener Resource Manager"
// docs/concepts/resource-manager.md); metrics and health probes use the ports of Gardener's example
// component configuration, which Gardener's documentation does not name.
const (
	ServerPort  = 10250
	MetricsPort = 8080
	HealthPort  = 8081
)

// Where the pod finds its configuration and serving certificate.
const (
	configMapName  = Name + "-config"
	configKey      = "config.yaml"
	configDir      = "/etc/gardener-resource-manager-config"
	serverCertDir  = "/etc/gardener-resource-manager-tls"
	checksumConfig = "checksum/config"
)

// The component configuration (resourcemanager.config.gardener.cloud/v1alpha1
// ResourceManagerConfiguration, Gardener's docs/concepts/resource-manager.md). Only the fields this
// component sets are modelled; the GRM defaults the rest.
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
		QPS        int      `json:"qps"`
		Burst      int      `json:"burst"`
		Namespaces []string `json:"namespaces,omitempty"`
	}
	leaderElection struct {
		LeaderElect       bool   `json:"leaderElect"`
		LeaseDuration     string `json:"leaseDuration"`
		RenewDeadline     string `json:"renewDeadline"`
		RetryPeriod       string `json:"retryPeriod"`
		ResourceLock      string `json:"resourceLock"`
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
		ResourceClass    string           `json:"resourceClass,omitempty"`
		GarbageCollector periodic         `json:"garbageCollector"`
		Health           workers          `json:"health"`
		ManagedResources managedResources `json:"managedResources"`
		NetworkPolicy    networkPolicy    `json:"networkPolicy"`
		TokenRequestor   toggledWorkers   `json:"tokenRequestor"`
	}
	periodic struct {
		Enabled    bool   `json:"enabled"`
		SyncPeriod string `json:"syncPeriod,omitempty"`
	}
	workers struct {
		ConcurrentSyncs int    `json:"concurrentSyncs"`
		SyncPeriod      string `json:"syncPeriod"`
	}
	toggledWorkers struct {
		Enabled         bool `json:"enabled"`
		ConcurrentSyncs int  `json:"concurrentSyncs"`
	}
	managedResources struct {
		ConcurrentSyncs     int    `json:"concurrentSyncs"`
		SyncPeriod          string `json:"syncPeriod"`
		AlwaysUpdate        bool   `json:"alwaysUpdate"`
		ManagedByLabelValue string `json:"managedByLabelValue"`
	}
	networkPolicy struct {
		Enabled            bool                   `json:"enabled"`
		ConcurrentSyncs    int                    `json:"concurrentSyncs,omitempty"`
		NamespaceSelectors []metav1.LabelSelector `json:"namespaceSelectors,omitempty"`
	}
	webhooks struct {
		CRDDeletionProtection        toggle           `json:"crdDeletionProtection"`
		EndpointSliceHints           toggle           `json:"endpointSliceHints"`
		ExtensionValidation          toggle           `json:"extensionValidation"`
		HighAvailabilityConfig       highAvailability `json:"highAvailabilityConfig"`
		PodTopologySpreadConstraints toggle           `json:"podTopologySpreadConstraints"`
		ProjectedTokenMount          projectedToken   `json:"projectedTokenMount"`
		SeccompProfile               toggle           `json:"seccompProfile"`
	}
	toggle struct {
		Enabled bool `json:"enabled"`
	}
	highAvailability struct {
		Enabled                             bool `json:"enabled"`
		DefaultNotReadyTolerationSeconds    int  `json:"defaultNotReadyTolerationSeconds,omitempty"`
		DefaultUnreachableTolerationSeconds int  `json:"defaultUnreachableTolerationSeconds,omitempty"`
	}
	projectedToken struct {
		Enabled           bool `json:"enabled"`
		ExpirationSeconds int  `json:"expirationSeconds"`
	}
)

// componentConfig builds the runtime GRM's configuration.
//
// It watches ManagedResources in all namespaces (no .sourceClientConnection.namespaces,
// Gardener's docs/concepts/resource-manager.md): the runtime's ManagedResources live in garden and
// istio-system (Gardener's "Gardener Operator" docs/concepts/operator.md). Source and target are
// the same cluster, so there is no targetClientConnection. Only ManagedResources of the configured
// class are reconciled (Gardener's docs/concepts/resource-manager.md).
func componentConfig(v Values) grmConfig {
	c := grmConfig{
		APIVersion: "resourcemanager.config.gardener.cloud/v1alpha1",
		Kind:       "ResourceManagerConfiguration",
		// Not in Gardener's documentation: client rates and leader election timings as in Gardener's
		// example configuration.
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
			ResourceClass: v.Class,
			// The garbage collector is opt-in (Gardener's docs/concepts/resource-manager.md); Gardener's
			// garden system components use immutable ConfigMaps/Secrets that rely on it (Gardener's
			// "Component Checklist" docs/development/component-checklist.md).
			GarbageCollector: periodic{Enabled: true, SyncPeriod: "1h"},
			Health:           workers{ConcurrentSyncs: v.ConcurrentSyncs, SyncPeriod: "1m"},
			// managed-by label value "gardener" (Gardener's docs/concepts/resource-manager.md).
			ManagedResources: managedResources{ConcurrentSyncs: v.ConcurrentSyncs, SyncPeriod: "1m", ManagedByLabelValue: "gardener"},
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
		shootConfig(&c, v)
	}
	return c
}

// shootConfig turns the configuration into a shoot GRM's (Gardener's
// docs/concepts/resource-manager.md):
//   - the source connection watches only the shoot's namespace of the seed;
//   - the target connection is the shoot, through the mounted kubeconfig;
//   - no resourceClass: the GRM's default class, that of ManagedResources without .spec.class;
//   - the TokenRequestor stays on, for the shoot-access Secrets of the control plane;
//   - off are the controllers and webhook handlers that act on the seed beyond the namespace,
//     which the seed's GRM already does for every shoot namespace: the garbage collector, the
//     NetworkPolicy controller (the runtime GRM's selectors include role shoot), the
//     high-availability-config webhook (it reads Namespaces), and the deletion protection and
//     validation of extension resources, which live in the seed (Gardener's
//     docs/concepts/resource-manager.md). The pod and EndpointSlice handlers stay served for
//     webhooks registered in the shoot.
func shootConfig(c *grmConfig, v Values) {
	c.SourceClientConnection.Namespaces = []string{v.Namespace}
	c.TargetClientConnection = &clientConnection{Kubeconfig: TargetKubeconfigPath, QPS: c.SourceClientConnection.QPS, Burst: c.SourceClientConnection.Burst}
	c.Controllers.GarbageCollector = periodic{Enabled: false}
	c.Controllers.NetworkPolicy = networkPolicy{Enabled: false}
	c.Webhooks.CRDDeletionProtection = toggle{Enabled: false}
	c.Webhooks.ExtensionValidation = toggle{Enabled: false}
	c.Webhooks.HighAvailabilityConfig = highAvailability{Enabled: false}
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

// configMap holds the configuration as YAML. sigs.k8s.io/yaml writes keys sorted, so the text,
// and with it the checksum, is deterministic.
func configMap(v Values) (*corev1.ConfigMap, error) {
	data, err := yaml.Marshal(componentConfig(v))
	if err != nil {
		return nil, fmt.Errorf("gardener-resource-manager configuration: %w", err)
	}
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: configMapName, Namespace: v.Namespace, Labels: labels()},
		Data:       map[string]string{configKey: string(data)},
	}, nil
}

// configChecksum is the sha256 of the configuration text; as a pod template annotation it makes
// a configuration change roll the pods (the checksum approach of Gardener's
// docs/concepts/resource-manager.md).
func configChecksum(cm *corev1.ConfigMap) string {
	sum := sha256.Sum256([]byte(cm.Data[configKey]))
	return hex.EncodeToString(sum[:])
}
