package gardenlet

import (
	_ "embed"
	"encoding/base64"
	"fmt"
	"maps"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/internal/unique"
	"github.com/declarative-gardener/gardener/engine/render"
)

// ConfigKey is the ConfigMap key, and file name, of the GardenletConfiguration.
const ConfigKey = "config.yaml"

// Ports gardenlet serves on: health probes (/healthz, /readyz) and metrics
// (config.server.healthProbes.port and config.server.metrics.port in
// charts/gardener/gardenlet/values.yaml of gardener/gardener v1.120.0).
const (
	HealthPort  = 2728
	MetricsPort = 2729
)

// configuration is the GardenletConfiguration (gardenlet.config.gardener.cloud/v1alpha1,
// Gardener's docs/concepts/gardenlet.md, "Deploy Gardenlet Manually"
// docs/deployment/deploy_gardenlet_manually.md).
func configuration(v Values) (string, error) {
	ref := func(name string) map[string]any { return map[string]any{"name": name, "namespace": v.Namespace} }
	client := map[string]any{
		"qps":   100,
		"burst": 130,
		// gardenlet stores (and rotates) its own kubeconfig here (Gardener's docs/concepts/gardenlet.md,
		// docs/deployment/deploy_gardenlet_manually.md).
		"kubeconfigSecret": ref(KubeconfigSecretName),
	}
	if v.BootstrapKubeconfig != "" {
		// The Secret is rendered by this component; gardenlet reads it with its ServiceAccount
		// (Gardener's docs/deployment/deploy_gardenlet_manually.md).
		client["bootstrapKubeconfig"] = ref(BootstrapKubeconfigSecretName)
	}
	if v.GardenClusterAddress != "" {
		client["gardenClusterAddress"] = v.GardenClusterAddress
	}
	if v.GardenCABundle != "" {
		client["gardenClusterCACert"] = caData(v.GardenCABundle)
	}
	meta := map[string]any{"name": v.SeedName}
	if len(v.SeedLabels) > 0 {
		meta["labels"] = maps.Clone(v.SeedLabels)
	}
	controllers, err := controllersConfig(v.Controllers)
	if err != nil {
		return "", err
	}
	// The chart's defaults (charts/gardener/gardenlet/values.yaml): client connections, the
	// controllers, the capacity of 250 shoots and leader election.
	cfg := map[string]any{
		"apiVersion":             "gardenlet.config.gardener.cloud/v1alpha1",
		"kind":                   "GardenletConfiguration",
		"gardenClientConnection": client,
		"seedClientConnection":   map[string]any{"qps": 100, "burst": 130},
		"shootClientConnection":  map[string]any{"qps": 25, "burst": 50},
		"controllers":            controllers,
		"resources":              map[string]any{"capacity": map[string]any{"shoots": "250"}},
		"leaderElection": map[string]any{
			"leaderElect":       true,
			"leaseDuration":     "15s",
			"renewDeadline":     "10s",
			"retryPeriod":       "2s",
			"resourceLock":      "leases",
			"resourceName":      LeaderElectionName,
			"resourceNamespace": v.Namespace,
		},
		"logLevel":  v.LogLevel,
		"logFormat": "json",
		"server": map[string]any{
			"healthProbes": map[string]any{"port": HealthPort},
			"metrics":      map[string]any{"port": MetricsPort},
		},
		"seedConfig": map[string]any{
			"apiVersion": "core.gardener.cloud/v1beta1",
			"kind":       "Seed",
			"metadata":   meta,
			"spec":       v.SeedSpec,
		},
	}
	// The chart's default debugging and node tolerations (charts/gardener/gardenlet/values.yaml),
	// which the Deployment's tolerations repeat.
	cfg["debugging"] = map[string]any{"enableProfiling": false, "enableContentionProfiling": false}
	cfg["nodeToleration"] = map[string]any{"defaultNotReadyTolerationSeconds": tolerationSeconds, "defaultUnreachableTolerationSeconds": tolerationSeconds}
	if len(v.FeatureGates) > 0 {
		cfg["featureGates"] = v.FeatureGates
	}
	if len(v.ExposureClassHandlers) > 0 {
		cfg["exposureClassHandlers"] = v.ExposureClassHandlers
	}
	out, err := yaml.Marshal(cfg)
	if err != nil {
		return "", fmt.Errorf("gardenlet configuration: %w", err)
	}
	return string(out), nil
}

// caData is gardenClusterCACert: PEM is base64-encoded, anything else (base64, an engine
// marker) is used as it is.
func caData(s string) string {
	if strings.HasPrefix(strings.TrimSpace(s), "-----BEGIN") {
		return base64.StdEncoding.EncodeToString([]byte(s))
	}
	return s
}

// configMap holds the configuration under a name with the checksum of its data, immutable and
// collectable once no pod refers to it, as the chart names it (gardenlet.config.name:
// gardenlet-configmap-<the first 8 digits of the SHA-256 of the ConfigMap's data text>).
func configMap(ns, config string) *corev1.ConfigMap {
	data := ConfigKey + ": |\n  " + strings.ReplaceAll(strings.TrimRight(config, "\n"), "\n", "\n  ")
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name: ConfigMapName + "-" + checksum(data)[:8], Namespace: ns,
			Labels: merge(chartLabels(), map[string]string{"resources.gardener.cloud/garbage-collectable-reference": "true"}),
		},
		Immutable: ptr.To(true),
		Data:      map[string]string{ConfigKey: config},
	}
}

// controllersDefaults is the chart's controllers section (controllers.yaml).
//
//go:embed controllers.yaml
var controllersDefaults []byte

// controllersConfig merges the landscape's controllers section over the chart's: each
// controller's settings replace the chart's setting for setting.
func controllersConfig(overrides map[string]any) (map[string]any, error) {
	var out map[string]any
	if err := yaml.Unmarshal(controllersDefaults, &out); err != nil {
		return nil, fmt.Errorf("gardenlet controllers defaults: %w", err)
	}
	for name, settings := range overrides {
		base, ok := out[name].(map[string]any)
		given, isMap := settings.(map[string]any)
		if !ok || !isMap {
			out[name] = settings
			continue
		}
		merged := maps.Clone(base)
		maps.Copy(merged, given)
		out[name] = merged
	}
	return out, nil
}

// bootstrapSecret holds the bootstrap kubeconfig (Gardener's
// docs/deployment/deploy_gardenlet_manually.md); gardenlet deletes it once it has its own
// kubeconfig (Gardener's docs/concepts/gardenlet.md, docs/deployment/deploy_gardenlet_manually.md).
// It is create-only (render.CreateOnlyAnnotation): applied once, and neither re-created after
// gardenlet deleted it nor shown as missing in later plans.
func bootstrapSecret(v Values) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: BootstrapKubeconfigSecretName, Namespace: v.Namespace, Labels: chartLabels(),
			Annotations: map[string]string{render.CreateOnlyAnnotation: "true"},
		},
		Type:       corev1.SecretTypeOpaque,
		StringData: map[string]string{"kubeconfig": v.BootstrapKubeconfig},
	}
}

// ConfigMapOf finds gardenlet's configuration ConfigMap among rendered objects, whatever its
// checksum; nil if there is none.
func ConfigMapOf(objs []render.Object) *unstructured.Unstructured {
	for _, o := range objs {
		if o.Object.GetKind() == "ConfigMap" && o.Object.GetName() != ConfigMapName && unique.Versions(ConfigMapName).MatchString(o.Object.GetName()) {
			return o.Object
		}
	}
	return nil
}
