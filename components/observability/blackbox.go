package observability

import (
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/unique"
)

// blackbox-exporter's port, configuration and the module that probes the API server
// (pkg/component/observability/monitoring/blackboxexporter in gardener/gardener v1.120.0).
const (
	blackboxPort            = 9115
	blackboxConfigName      = BlackboxExporterName + "-config"
	blackboxConfigDir       = "/etc/blackbox_exporter"
	blackboxConfigKey       = "blackbox.yaml"
	blackboxAccessDir       = "/var/run/secrets/blackbox_exporter/cluster-access"
	blackboxAPIServerModule = "http_apiserver"
)

// blackboxConfig has the module of shoot/controlplane/config.go: an HTTPS GET over IPv4 that
// presents the shoot Prometheus' token and verifies the API server's certificate against the
// shoot's CA bundle.
const blackboxConfig = `modules:
  ` + blackboxAPIServerModule + `:
    prober: http
    timeout: 10s
    http:
      headers:
        Accept: '*/*'
        Accept-Language: en-US
      preferred_ip_protocol: ipv4
      tls_config:
        ca_file: ` + blackboxAccessDir + `/bundle.crt
      bearer_token_file: ` + blackboxAccessDir + `/token
`

// blackboxLabels label the objects of blackbox-exporter (getLabels in blackboxexporter.go).
func blackboxLabels() map[string]string {
	return map[string]string{labelApp: BlackboxExporterName, labelGardenRole: roleMonitoring, "origin": "gardener"}
}

// blackboxObjects renders the control plane's blackbox-exporter as gardenlet deploys it
// (DefaultBlackboxExporterControlPlane in pkg/gardenlet/operation/botanist/blackboxexporter.go):
// its ServiceAccount, content-addressed configuration, Deployment, PodDisruptionBudget, Service
// and VerticalPodAutoscaler, and the ScrapeConfig by which the shoot Prometheus probes the API
// server through it.
func blackboxObjects(s stack, v ShootValues) []runtime.Object {
	labels := blackboxLabels()
	selector := map[string]string{labelApp: BlackboxExporterName}
	cm := &corev1.ConfigMap{
		ObjectMeta: meta(blackboxConfigName, s.namespace, map[string]string{labelApp: "prometheus", labelRole: roleMonitoring}),
		Data:       map[string]string{blackboxConfigKey: blackboxConfig},
	}
	unique.ConfigMap(cm)
	c := corev1.Container{
		Name:            BlackboxExporterName,
		Image:           s.img[ImageBlackboxExporter],
		Args:            []string{"--config.file=" + blackboxConfigDir + "/" + blackboxConfigKey, "--log.level=debug"},
		ImagePullPolicy: corev1.PullIfNotPresent,
		Resources:       requests("", "15M"),
		SecurityContext: noPrivilegeEscalation(),
		Ports:           []corev1.ContainerPort{{Name: "probe", ContainerPort: blackboxPort, Protocol: corev1.ProtocolTCP}},
		VolumeMounts: []corev1.VolumeMount{
			{Name: blackboxConfigName, MountPath: blackboxConfigDir},
			{Name: "cluster-access", MountPath: blackboxAccessDir},
		},
	}
	secret := func(name, key, path string) corev1.VolumeProjection {
		return corev1.VolumeProjection{Secret: &corev1.SecretProjection{
			LocalObjectReference: corev1.LocalObjectReference{Name: name},
			Items:                []corev1.KeyToPath{{Key: key, Path: path}},
			Optional:             ptr.To(false),
		}}
	}
	pod := corev1.PodSpec{
		ServiceAccountName: BlackboxExporterName,
		SecurityContext: &corev1.PodSecurityContext{
			RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To(nobody), FSGroup: ptr.To(nobody), SupplementalGroups: []int64{1},
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
		Containers: []corev1.Container{c},
		DNSConfig:  &corev1.PodDNSConfig{Options: []corev1.PodDNSConfigOption{{Name: "ndots", Value: ptr.To("3")}}},
		Volumes: []corev1.Volume{
			{Name: blackboxConfigName, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm.Name}}}},
			{Name: "cluster-access", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				DefaultMode: ptr.To[int32](0o644),
				Sources:     []corev1.VolumeProjection{secret(v.CASecretName, "ca.crt", "bundle.crt"), secret(ShootAccessPrometheusSecret, "token", "token")},
			}}},
		},
	}
	// The API server's domain through the seed's Istio ingress gateway, which kube-proxy may
	// short-cut inside the seed, and its Service (DefaultBlackboxExporterControlPlane).
	podLabels := merge(labels, map[string]string{
		toDNS: allowed, toPublicNetworks: allowed,
		toService("all-istio-ingresses-istio-ingressgateway", 9443): allowed,
		toShootAPIServer(): allowed,
	})
	d := s.deployment(BlackboxExporterName, merge(labels, map[string]string{"high-availability-config.resources.gardener.cloud/type": "server"}), selector, podLabels, pod)
	d.Spec.Template.Annotations = map[string]string{}
	unique.InjectReferences(d)
	svc := &corev1.Service{
		ObjectMeta: meta(BlackboxExporterName, s.namespace, selector),
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: selector,
			// Gardener leaves the target port to the API server's default, the port itself.
			Ports: []corev1.ServicePort{{Name: "probe", Port: blackboxPort, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(blackboxPort)}},
		},
	}
	s.scrapable(svc, blackboxPort)
	return []runtime.Object{
		serviceAccount(BlackboxExporterName, s.namespace, labels),
		cm,
		d,
		&policyv1.PodDisruptionBudget{
			ObjectMeta: meta(BlackboxExporterName, s.namespace, map[string]string{labelGardenRole: roleMonitoring, labelApp: BlackboxExporterName}),
			Spec: policyv1.PodDisruptionBudgetSpec{
				MaxUnavailable:             ptr.To(intstr.FromInt32(1)),
				Selector:                   &metav1.LabelSelector{MatchLabels: selector},
				UnhealthyPodEvictionPolicy: ptr.To(policyv1.AlwaysAllow),
			},
		},
		svc,
		workloadVPA(s.namespace, BlackboxExporterName, nil, "Deployment", BlackboxExporterName,
			containerPolicy{container: "*", requestsOnly: true, controlledResources: []string{"memory"}}),
	}
}

// apiServerProbe has the shoot Prometheus probe the API server's health through blackbox-exporter
// (shoot/controlplane/scrapeconfig.go): the target is the API server's domain, the job
// blackbox-apiserver, the type seed.
func apiServerProbe(v ShootValues) *unstructured.Unstructured {
	target := "https://" + v.APIServerHost + "/healthz"
	if v.APIServerHost == "" {
		target = "https://kube-apiserver/healthz"
	}
	spec := map[string]any{
		"params":        map[string]any{"module": []any{blackboxAPIServerModule}},
		"metricsPath":   "/probe",
		"staticConfigs": []any{map[string]any{"targets": []any{target}}},
		"relabelings": []any{
			map[string]any{"targetLabel": "type", "replacement": "seed"},
			map[string]any{"sourceLabels": []any{"__address__"}, "targetLabel": "__param_target", "action": "replace"},
			map[string]any{"sourceLabels": []any{"__param_target"}, "targetLabel": "instance", "action": "replace"},
			map[string]any{"targetLabel": "__address__", "replacement": "blackbox-exporter:9115", "action": "replace"},
			map[string]any{"action": "replace", "replacement": "blackbox-apiserver", "targetLabel": "job"},
		},
	}
	return customResource("monitoring.coreos.com/v1alpha1", "ScrapeConfig", v.Namespace, ShootPrometheusName+"-blackbox-apiserver", prometheusSelector(ShootPrometheusName), spec)
}
