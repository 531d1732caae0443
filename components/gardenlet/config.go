package gardenlet

import (
	"encoding/base64"
	"fmt"
	"maps"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/engine/render"
)

// ConfigKey is the ConfigMap key, and file name, of the GardenletConfiguration.
const ConfigKey = "config.yaml"

// Ports gardenlet serves on: health probes (/healthz, /readyz) and metrics. The documents name
// the /healthz endpoint (S4:14590) but no ports; these are gardenlet's usual ones.
const (
	HealthPort  = 2728
	MetricsPort = 2729
)

// configuration is the GardenletConfiguration (gardenlet.config.gardener.cloud/v1alpha1,
// S4:14554-14568, S4:19343-19350).
func configuration(v Values) (string, error) {
	ref := func(name string) map[string]any { return map[string]any{"name": name, "namespace": v.Namespace} }
	client := map[string]any{
		// gardenlet stores (and rotates) its own kubeconfig here (S4:14531, S4:19089-19093).
		"kubeconfigSecret": ref(KubeconfigSecretName),
	}
	if v.BootstrapKubeconfig != "" {
		// The Secret is rendered by this component; gardenlet reads it with its ServiceAccount
		// (S4:19076-19084).
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
	cfg := map[string]any{
		"apiVersion":             "gardenlet.config.gardener.cloud/v1alpha1",
		"kind":                   "GardenletConfiguration",
		"gardenClientConnection": client,
		"leaderElection": map[string]any{
			"leaderElect":       true,
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
	if len(v.Controllers) > 0 {
		cfg["controllers"] = v.Controllers
	}
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

func configMap(ns, config string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: ConfigMapName, Namespace: ns, Labels: SelectorLabels()},
		Data:       map[string]string{ConfigKey: config},
	}
}

// bootstrapSecret holds the bootstrap kubeconfig (S4:19272); gardenlet deletes it once it has
// its own kubeconfig (S4:14511, S4:19293).
// It is create-only (render.CreateOnlyAnnotation): applied once, and neither re-created after
// gardenlet deleted it nor shown as missing in later plans.
func bootstrapSecret(v Values) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: BootstrapKubeconfigSecretName, Namespace: v.Namespace, Labels: SelectorLabels(),
			Annotations: map[string]string{render.CreateOnlyAnnotation: "true"},
		},
		Type:       corev1.SecretTypeOpaque,
		StringData: map[string]string{"kubeconfig": v.BootstrapKubeconfig},
	}
}
