package observability

import (
	"fmt"

	"github.com/declarative-gardener/gardener/components/internal/kube"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// blackbox-exporter's port, configuration and the module that probes the API server.
const (
	blackboxPort            = 9115
	blackboxConfigName      = BlackboxExporterName + "-config"
	blackboxConfigDir       = "/etc/blackbox_exporter"
	blackboxTokenDir        = "/var/run/secrets/blackbox_exporter/token"
	blackboxCADir           = "/var/run/secrets/blackbox_exporter/ca"
	blackboxAPIServerModule = "http_apiserver"
)

// blackboxConfig has one module: an HTTPS GET that presents the shoot Prometheus' token and
// verifies the API server's certificate against the shoot's CA, healthy on 200.
func blackboxConfig() map[string]any {
	return map[string]any{"modules": map[string]any{blackboxAPIServerModule: map[string]any{
		"prober":  "http",
		"timeout": "10s",
		"http": map[string]any{
			"valid_status_codes": []any{200},
			"authorization":      map[string]any{"type": "Bearer", "credentials_file": blackboxTokenDir + "/token"},
			"tls_config":         map[string]any{"ca_file": blackboxCADir + "/ca.crt"},
		},
	}}}
}

// blackboxObjects renders blackbox-exporter in the control-plane namespace (Gardener's "Logging And
// Monitoring" docs/extensions/logging-and-monitoring.md): its configuration, Deployment and
// Service. The shoot Prometheus has it probe (apiServerProbe).
func blackboxObjects(s stack, v ShootValues) ([]runtime.Object, error) {
	cfg, err := yaml.Marshal(blackboxConfig())
	if err != nil {
		return nil, fmt.Errorf("blackbox-exporter configuration: %w", err)
	}
	c := s.container(BlackboxExporterName, ImageBlackboxExporter, "5m", "20Mi")
	c.Args, c.Ports, c.ReadinessProbe = []string{"--config.file=" + blackboxConfigDir + "/blackbox.yaml"}, tcpPort("probe", blackboxPort), httpProbe("/-/healthy", "probe")
	c.VolumeMounts = []corev1.VolumeMount{
		{Name: "config", MountPath: blackboxConfigDir, ReadOnly: true},
		{Name: "token", MountPath: blackboxTokenDir, ReadOnly: true},
		{Name: "ca", MountPath: blackboxCADir, ReadOnly: true},
	}
	pod := corev1.PodSpec{
		AutomountServiceAccountToken: ptr.To(false),
		SecurityContext:              kube.NonRootPodOwningVolumes(nobody),
		Containers:                   []corev1.Container{c},
		Volumes: []corev1.Volume{
			{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: blackboxConfigName}}}},
			secretVolume("token", ShootAccessPrometheusSecret, "token"),
			secretVolume("ca", v.CASecretName, "ca.crt"),
		},
	}
	// The Service and the external domain (Gardener's "Connectivity" docs/monitoring/connectivity.md),
	// through the seed's load balancer.
	network := toShootAPIServer(map[string]string{toPublicNetworks: allowed})
	return []runtime.Object{
		&corev1.ConfigMap{ObjectMeta: meta(blackboxConfigName, s.namespace, BlackboxExporterName), Data: map[string]string{"blackbox.yaml": string(cfg)}},
		s.deployment(BlackboxExporterName, network, pod),
		s.scrapable(service(BlackboxExporterName, s.namespace, BlackboxExporterName, appLabels(BlackboxExporterName), "probe", blackboxPort, intstr.FromString("probe")), blackboxPort),
	}, nil
}

// secretVolume mounts one key of a Secret.
func secretVolume(name, secret, key string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
		SecretName: secret,
		Items:      []corev1.KeyToPath{{Key: key, Path: key}},
	}}}
}
