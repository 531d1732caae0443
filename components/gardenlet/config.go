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

// Ports gardenlet serves on: health probes (/healthz, /readyz) and metrics. Gardener's
// documentation names the /healthz endpoint (Gardener's "gardenlet" docs/concepts/gardenlet.md) but
// no ports; these are gardenlet's usual ones.
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

// bootstrapSecret holds the bootstrap kubeconfig (Gardener's
// docs/deployment/deploy_gardenlet_manually.md); gardenlet deletes it once it has its own
// kubeconfig (Gardener's docs/concepts/gardenlet.md, docs/deployment/deploy_gardenlet_manually.md).
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
