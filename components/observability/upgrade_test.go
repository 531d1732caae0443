package observability

import (
	"maps"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/tests/upgradetest"
)

// TestUpgradeFromTheEarlierRendering checks what a plan does to a seed's and a shoot's stack
// applied with the rendering before issue 27 (testdata/before-issue-27: the goldens of then without
// the CRDs): the decisions of docs/fidelity/observability.md ("Upgrading a landscape applied with
// the earlier rendering"). Workloads whose selectors (and Vali's serviceName) changed and
// prometheus-operator's Service, headless now, are replaced; renamed objects are deleted, earlier
// versions of content-addressed ConfigMaps superseded; everything else changes in place.
func TestUpgradeFromTheEarlierRendering(t *testing.T) {
	// Both seed renderings: the RBAC of the Prometheus instances, prometheus-operator and
	// kube-state-metrics under Gardener's names, kube-state-metrics renamed, the aggregate
	// Prometheus' federation and kube-state-metrics' ServiceMonitor replaced by Gardener's
	// ScrapeConfigs and ServiceMonitor.
	seed := map[string]string{
		"ClusterRole/gardener.cloud:observability:kube-state-metrics":          "delete",
		"ClusterRole/gardener.cloud:observability:prometheus-aggregate":        "delete",
		"ClusterRole/gardener.cloud:observability:prometheus-cache":            "delete",
		"ClusterRole/gardener.cloud:observability:prometheus-operator":         "delete",
		"ClusterRole/gardener.cloud:observability:prometheus-seed":             "delete",
		"ClusterRoleBinding/gardener.cloud:observability:kube-state-metrics":   "delete",
		"ClusterRoleBinding/gardener.cloud:observability:prometheus-aggregate": "delete",
		"ClusterRoleBinding/gardener.cloud:observability:prometheus-cache":     "delete",
		"ClusterRoleBinding/gardener.cloud:observability:prometheus-operator":  "delete",
		"ClusterRoleBinding/gardener.cloud:observability:prometheus-seed":      "delete",
		"ConfigMap/plutono-dashboard-providers":                                "superseded",
		"ConfigMap/plutono-datasources":                                        "superseded",
		"Deployment/kube-state-metrics":                                        "delete",
		"Deployment/plutono":                                                   "replace .spec.selector",
		"ScrapeConfig/aggregate-prometheus-cache":                              "delete",
		"Service/kube-state-metrics":                                           "delete",
		"Service/prometheus-operator":                                          "replace .spec.clusterIP",
		"ServiceAccount/kube-state-metrics":                                    "delete",
		"ServiceMonitor/aggregate-prometheus-shoot":                            "delete",
		"ServiceMonitor/cache-kube-state-metrics":                              "delete", // a ScrapeConfig of that name now
	}
	withAlerting := maps.Clone(seed)
	withAlerting["ServiceAccount/alertmanager-seed"] = "delete"
	assert.Equal(t, withAlerting, upgradetest.Actions(t, "testdata/before-issue-27/seed.yaml", seedObjects(t, SeedValues{Cluster: decode.Cluster{Name: "seed"}})))

	withLogging := maps.Clone(seed)
	withLogging["ConfigMap/vali-config"] = "superseded"
	withLogging["StatefulSet/vali"] = "replace .spec.selector .spec.serviceName"
	assert.Equal(t, withLogging, upgradetest.Actions(t, "testdata/before-issue-27/seed-customised.yaml", seedObjects(t, seedCustomised)))

	// The shoot's stack with logging and alerting: its permissions in the shoot move to Gardener's
	// three ManagedResources, the API server probe to a ScrapeConfig.
	assert.Equal(t, map[string]string{
		"ConfigMap/blackbox-exporter-config":              "superseded",
		"ConfigMap/plutono-dashboard-providers":           "superseded",
		"ConfigMap/plutono-datasources":                   "superseded",
		"ConfigMap/vali-config":                           "superseded",
		"Deployment/event-logger":                         "replace .spec.selector",
		"Deployment/kube-state-metrics":                   "replace .spec.selector",
		"Deployment/plutono":                              "replace .spec.selector",
		"ManagedResource/shoot-core-observability":        "delete",
		"Probe/shoot-kube-apiserver":                      "delete",
		"Secret/managedresource-shoot-core-observability": "delete",
		"ServiceAccount/alertmanager-shoot":               "delete",
		"ServiceMonitor/shoot-kube-state-metrics":         "delete",
		"StatefulSet/vali":                                "replace .spec.selector .spec.serviceName",
	}, upgradetest.Actions(t, "testdata/before-issue-27/shoot.yaml", shootObjects(t, shootCustomised)))
}
