package gardenlet

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/unique"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
)

const configDir = "/etc/gardenlet/config"

// tolerationSeconds is how long gardenlet's pods stay on a node that is not ready or unreachable
// (nodeToleration in charts/gardener/gardenlet/values.yaml).
const tolerationSeconds = 60

// Chart labels: the gardenlet Helm chart (name gardenlet, version 0.1.0) installed as release
// gardenlet, as gardener-operator and the ManagedSeed controller install it
// (charts/gardener/gardenlet/Chart.yaml, test/chart_test.go).
const (
	chartName   = "gardenlet-0.1.0"
	releaseName = "gardenlet"
	heritage    = "Helm"
)

// SelectorLabels select gardenlet's pods (gardenlet.deployment.matchLabels of the chart).
func SelectorLabels() map[string]string {
	return map[string]string{"app": "gardener", "role": "gardenlet"}
}

// chartLabels are the labels of every object of the chart.
func chartLabels() map[string]string {
	labels := SelectorLabels()
	labels["chart"], labels["release"], labels["heritage"] = chartName, releaseName, heritage
	return labels
}

// podLabels: the chart's labels; gardener-resource-manager's webhooks leave gardenlet's pods
// alone (it mounts its own token and sets its own seccomp profile), and gardenlet reaches every
// shoot's kube-apiserver and etcd-main client; its other egress is open through the NetworkPolicy
// allow-all-egress-from-gardenlet (deployment.yaml, networkpolicy.yaml of the chart).
func podLabels() map[string]string {
	labels := chartLabels()
	maps.Copy(labels, map[string]string{
		"projected-token-mount.resources.gardener.cloud/skip":                         "true",
		"seccompprofile.resources.gardener.cloud/skip":                                "true",
		"networking.resources.gardener.cloud/to-all-shoots-etcd-main-client-tcp-8080": "allowed",
		"networking.resources.gardener.cloud/to-all-shoots-kube-apiserver-tcp-443":    "allowed",
	})
	return labels
}

// topologySpread spreads more than one replica over nodes and, on a seed with several zones, over
// the zones (gardenlet.deployment.topologySpreadConstraints of the chart).
func topologySpread(replicas int32, zones int) []corev1.TopologySpreadConstraint {
	if replicas <= 1 {
		return nil
	}
	selector := &metav1.LabelSelector{MatchLabels: SelectorLabels()}
	out := []corev1.TopologySpreadConstraint{{
		MaxSkew: 1, TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.ScheduleAnyway,
		LabelSelector: selector, MatchLabelKeys: []string{"pod-template-hash"},
	}}
	if zones > 1 {
		out = append(out, corev1.TopologySpreadConstraint{
			MaxSkew: 1, MinDomains: ptr.To(min(replicas, int32(zones))), TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: selector, MatchLabelKeys: []string{"pod-template-hash"},
		})
	}
	return out
}

// deployment is gardenlet's Deployment as the chart renders it (deployment.yaml): configMap is the
// name of its configuration ConfigMap, bootstrapChecksum the checksum of the bootstrap Secret (""
// without one).
func deployment(v Values, configMap, bootstrapChecksum string) (*appsv1.Deployment, error) {
	image, err := images.Of(v.Images, images.Gardenlet, "")
	if err != nil {
		return nil, fmt.Errorf("gardenlet images: %w", err)
	}
	references := map[string]string{unique.AnnotationKey("configmap", configMap): configMap}
	podAnnotations := map[string]string{
		"prometheus.io/scrape": "true",
		"prometheus.io/scheme": "http",
		"prometheus.io/name":   "gardenlet",
		"prometheus.io/port":   strconv.Itoa(MetricsPort),
	}
	if bootstrapChecksum != "" {
		podAnnotations["checksum/secret-gardenlet-kubeconfig-garden-bootstrap"] = bootstrapChecksum
	}
	maps.Copy(podAnnotations, references)
	probe := func(path string, delay int32) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromInt32(HealthPort), Scheme: corev1.URISchemeHTTP}},
			InitialDelaySeconds: delay, TimeoutSeconds: 5,
		}
	}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{
			Name: Name, Namespace: v.Namespace, Annotations: references,
			Labels: merge(chartLabels(), map[string]string{"high-availability-config.resources.gardener.cloud/skip": "true"}),
		},
		Spec: appsv1.DeploymentSpec{
			Replicas:             ptr.To(v.Replicas),
			RevisionHistoryLimit: ptr.To(int32(2)),
			Selector:             &metav1.LabelSelector{MatchLabels: SelectorLabels()},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels(), Annotations: podAnnotations},
				Spec: corev1.PodSpec{
					TopologySpreadConstraints: topologySpread(v.Replicas, seedZones(v.SeedSpec)),
					PriorityClassName:         priorityclasses.SystemCritical,
					ServiceAccountName:        Name,
					SecurityContext:           kube.NonRootPodOwningVolumes(65532),
					Containers: []corev1.Container{{
						Name:            Name,
						Image:           image,
						ImagePullPolicy: corev1.PullIfNotPresent,
						Args:            []string{"--config=" + configDir + "/" + ConfigKey},
						LivenessProbe:   probe("/healthz", 15),
						ReadinessProbe:  probe("/readyz", 10),
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU:    resource.MustParse("100m"),
							corev1.ResourceMemory: resource.MustParse("100Mi"),
						}},
						SecurityContext:          &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false)},
						TerminationMessagePath:   corev1.TerminationMessagePathDefault,
						TerminationMessagePolicy: corev1.TerminationMessageReadFile,
						VolumeMounts: []corev1.VolumeMount{
							{Name: "kube-api-access-gardener", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true},
							{Name: "gardenlet-config", MountPath: configDir},
						},
					}},
					Tolerations: []corev1.Toleration{
						{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](tolerationSeconds)},
						{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](tolerationSeconds)},
					},
					Volumes: []corev1.Volume{
						{Name: "kube-api-access-gardener", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
							DefaultMode: ptr.To[int32](0o644),
							Sources: []corev1.VolumeProjection{
								{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr.To[int64](43200)}},
								{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"}, Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
								{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
							},
						}}},
						{Name: "gardenlet-config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: configMap}}}},
					},
				},
			},
		},
	}, nil
}

// seedZones is the number of the seed's zones (gardenlet.seed.numberOfZones of the chart): at least 1.
func seedZones(spec map[string]any) int {
	provider, _ := spec["provider"].(map[string]any)
	zones, _ := provider["zones"].([]any)
	return max(len(zones), 1)
}

// service exposes the metrics port to the seed's Prometheus (service.yaml of the chart).
func service(ns string) *corev1.Service {
	selector := merge(SelectorLabels(), map[string]string{"release": releaseName})
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{
			Name: Name, Namespace: ns, Labels: chartLabels(),
			Annotations: map[string]string{"networking.resources.gardener.cloud/from-all-seed-scrape-targets-allowed-ports": fmt.Sprintf(`[{"port":%d,"protocol":"TCP"}]`, MetricsPort)},
		},
		Spec: corev1.ServiceSpec{
			Selector: selector,
			Ports:    []corev1.ServicePort{{Name: "metrics", Protocol: corev1.ProtocolTCP, Port: MetricsPort, TargetPort: intstr.FromInt32(MetricsPort)}},
		},
	}
}

// networkPolicy opens all egress of gardenlet's pods (networkpolicy.yaml of the chart).
func networkPolicy(ns string) *networkingv1.NetworkPolicy {
	return &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "allow-all-egress-from-gardenlet", Namespace: ns, Labels: chartLabels()},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: merge(SelectorLabels(), map[string]string{"release": releaseName})},
			Egress:      []networkingv1.NetworkPolicyEgressRule{{}},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
		},
	}
}

// checksum is the SHA-256 of text in hex, as Helm's sha256sum writes it.
func checksum(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// merge returns a new map with the entries of all maps, later ones winning.
func merge(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		maps.Copy(out, m)
	}
	return out
}
