package observability

import (
	_ "embed"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/shootaccess"
	"github.com/declarative-gardener/gardener/components/internal/unique"
)

// KubeStateMetricsName is the name of a shoot control plane's kube-state-metrics and the stem of
// the seed's (kube-state-metrics-seed) and the garden runtime cluster's
// (kube-state-metrics-runtime) (pkg/component/observability/monitoring/kubestatemetrics in
// gardener/gardener v1.120.0).
const KubeStateMetricsName = "kube-state-metrics"

// ksmPort serves the object metrics; the Service exposes it on port 80.
const (
	ksmPort          = 8080
	ksmTelemetryPort = 8081
	ksmServicePort   = 80
	ksmConfigDir     = "/config"
	ksmConfigFile    = "custom-resource-state.yaml"
)

// ksmCustomResourceState configures kube-state-metrics' metrics of VerticalPodAutoscalers, the
// document Gardener marshals from its custom resource state configuration with the VPA metrics
// (kubestatemetrics/customresourcestate.go; testdata/custom-resource-state-vpa.expectation.yaml).
//
//go:embed ksm-custom-resource-state.yaml
var ksmCustomResourceState string

// ksmCustomResourceStateGarden adds the Garden resource's metrics for the garden runtime
// cluster's kube-state-metrics (testdata/custom-resource-state-garden.expectation.yaml).
//
//go:embed ksm-custom-resource-state-garden.yaml
var ksmCustomResourceStateGarden string

// kubeStateMetrics is one kube-state-metrics: its name suffix (-seed, -runtime or none in a shoot
// namespace) and whether it exports the objects of a shoot through access.
type kubeStateMetrics struct {
	suffix string
	access *shootaccess.Access
}

func (k kubeStateMetrics) name() string { return KubeStateMetricsName + k.suffix }

// labels label and select every object of the instance: component and type (seed or shoot).
func (k kubeStateMetrics) labels() map[string]string {
	t := "seed"
	if k.access != nil {
		t = "shoot"
	}
	return map[string]string{labelComponent: k.name(), "type": t}
}

// ksmRules are kube-state-metrics' permissions in the cluster it exports, the seed's with
// HorizontalPodAutoscalers besides (kubestatemetrics/resources.go).
func ksmRules(seed bool) []rbacv1.PolicyRule {
	rules := []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"nodes", "pods", "services", "resourcequotas", "replicationcontrollers", "limitranges", "persistentvolumeclaims", "namespaces"}, Verbs: []string{"list", "watch"}},
		{APIGroups: []string{"apps", "extensions"}, Resources: []string{"daemonsets", "deployments", "replicasets", "statefulsets"}, Verbs: []string{"list", "watch"}},
		{APIGroups: []string{"batch"}, Resources: []string{"cronjobs", "jobs"}, Verbs: []string{"list", "watch"}},
		{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: []string{"list", "watch"}},
		{APIGroups: []string{"autoscaling.k8s.io"}, Resources: []string{"verticalpodautoscalers"}, Verbs: []string{"list", "watch"}},
		{APIGroups: []string{"operator.gardener.cloud"}, Resources: []string{"gardens"}, Verbs: []string{"list", "watch"}},
	}
	if seed {
		rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{"autoscaling"}, Resources: []string{"horizontalpodautoscalers"}, Verbs: []string{"list", "watch"}})
	}
	return rules
}

// ksmClusterRole is kube-state-metrics' ClusterRole and its binding to subject in namespace: in
// the seed for its ServiceAccount, in the shoot (applied by the shoot's gardener-resource-manager)
// for the ServiceAccount its token stands for.
func (k kubeStateMetrics) clusterRole(subject, namespace string) []runtime.Object {
	name := "gardener.cloud:monitoring:" + KubeStateMetricsName
	if k.access == nil {
		name += k.suffix
	}
	crb := clusterRoleBinding(name, k.labels(), name, subject, namespace)
	crb.Annotations = map[string]string{annotationDeleteOnInvalidUpdate: "true"}
	return []runtime.Object{&rbacv1.ClusterRole{ObjectMeta: meta(name, "", k.labels()), Rules: ksmRules(k.access == nil)}, crb}
}

// kubeStateMetricsObjects renders kube-state-metrics as Gardener does
// (kubestatemetrics/resources.go): in a seed or the garden runtime cluster with its ServiceAccount
// and ClusterRole, two replicas and a PodDisruptionBudget, exporting what the cache (or garden)
// Prometheus needs; in a shoot namespace one replica exporting the shoot's kube-system with the
// token of access (its permissions in the shoot are in shootRBAC). Both with the
// VerticalPodAutoscaler metrics' configuration, a Service on port 80 and a VerticalPodAutoscaler.
func kubeStateMetricsObjects(s stack, k kubeStateMetrics) []runtime.Object {
	name, labels := k.name(), k.labels()
	config := ksmCustomResourceState
	if s.kind == gardenStack {
		config = ksmCustomResourceStateGarden
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: meta(KubeStateMetricsName+"-custom-resource-state", s.namespace, nil),
		Data:       map[string]string{ksmConfigFile: config},
	}
	unique.ConfigMap(cm)
	args := []string{fmt.Sprintf("--port=%d", ksmPort), fmt.Sprintf("--telemetry-port=%d", ksmTelemetryPort)}
	deploymentLabels := merge(labels)
	podLabels := map[string]string{toDNS: allowed}
	var out []runtime.Object
	replicas := s.replicas
	if k.access == nil {
		deploymentLabels[labelRole] = roleMonitoring
		podLabels = merge(podLabels, deploymentLabels, map[string]string{toRuntimeAPIServer: allowed})
		metrics := ksmSeedMetrics
		if s.kind == gardenStack {
			metrics = ksmGardenMetrics
		}
		args = append(args,
			"--resources=deployments,pods,statefulsets,nodes,horizontalpodautoscalers,persistentvolumeclaims,replicasets,namespaces",
			"--metric-labels-allowlist=nodes=[*],pods=[origin]",
			"--metric-annotations-allowlist=namespaces=[shoot.gardener.cloud/uid]",
			"--metric-allowlist="+strings.Join(metrics, ","),
		)
		out = append(out, serviceAccount(name, s.namespace, labels))
		out = append(out, k.clusterRole(name, s.namespace)...)
		replicas = 2
	} else {
		deploymentLabels[labelGardenRole] = roleMonitoring
		podLabels = merge(podLabels, deploymentLabels, map[string]string{toShootAPIServer(): allowed})
		args = append(args,
			"--resources=daemonsets,deployments,nodes,pods,statefulsets,replicasets",
			"--namespaces="+metav1.NamespaceSystem,
			"--kubeconfig="+shootaccess.KubeconfigPath,
			"--metric-labels-allowlist=nodes=[*],pods=[origin]",
			"--metric-allowlist="+strings.Join(ksmShootMetrics, ","),
		)
		out = append(out, k.access.Secret())
	}
	args = append(args, "--custom-resource-state-config-file="+ksmConfigDir+"/"+ksmConfigFile)
	probe := func(readiness bool) *corev1.Probe {
		p := &corev1.Probe{
			ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(ksmPort)}},
			InitialDelaySeconds: 5, TimeoutSeconds: 5,
		}
		if readiness {
			p.PeriodSeconds, p.SuccessThreshold, p.FailureThreshold = 30, 1, 3
		}
		return p
	}
	c := corev1.Container{
		Name:            KubeStateMetricsName,
		Image:           s.img[ImageKubeStateMetrics],
		ImagePullPolicy: corev1.PullIfNotPresent,
		Args:            args,
		Ports:           []corev1.ContainerPort{{Name: "metrics", ContainerPort: ksmPort, Protocol: corev1.ProtocolTCP}},
		LivenessProbe:   probe(false),
		ReadinessProbe:  probe(true),
		Resources:       requests("10m", "32Mi"),
		SecurityContext: noPrivilegeEscalation(),
		VolumeMounts:    []corev1.VolumeMount{{Name: cm.Name, MountPath: ksmConfigDir, ReadOnly: true}},
	}
	pod := corev1.PodSpec{
		Containers: []corev1.Container{c},
		Volumes: []corev1.Volume{{Name: cm.Name, VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm.Name}},
		}}},
	}
	if k.access == nil {
		pod.ServiceAccountName = name
	} else {
		pod.AutomountServiceAccountToken = ptr.To(false)
		pod.Containers[0].VolumeMounts = append(pod.Containers[0].VolumeMounts, k.access.Mount())
		pod.Volumes = append(pod.Volumes, k.access.GenericKubeconfigVolume())
	}
	d := s.deployment(name, deploymentLabels, labels, podLabels, pod)
	d.Spec.Replicas = ptr.To(replicas)
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: ptr.To(intstr.FromInt32(1))}}
	unique.InjectReferences(d)
	svc := service(name, s.namespace, labels, labels, "metrics", ksmServicePort, intstr.FromInt32(ksmPort))
	switch s.kind {
	case shootStack:
		s.scrapable(svc, ksmPort)
	default:
		scrapableBy(svc, []int32{ksmPort}, gardenScrapeTargets, seedScrapeTargets)
	}
	out = append(out, d, svc, cm, workloadVPA(s.namespace, "kube-state-metrics-vpa"+k.suffix, nil, "Deployment", name,
		containerPolicy{container: "*", requestsOnly: true, minAllowed: map[string]string{"memory": "32Mi"}}))
	if k.access == nil {
		out = append(out, &policyv1.PodDisruptionBudget{
			ObjectMeta: meta("kube-state-metrics-pdb"+k.suffix, s.namespace, labels),
			Spec: policyv1.PodDisruptionBudgetSpec{
				MaxUnavailable:             ptr.To(intstr.FromInt32(1)),
				Selector:                   &metav1.LabelSelector{MatchLabels: labels},
				UnhealthyPodEvictionPolicy: ptr.To(policyv1.AlwaysAllow),
			},
		})
	}
	return out
}

// ksmScrapeConfig has the Prometheus label scrape the kube-state-metrics name of namespace
// through its Service's metrics port; it is <label>-kube-state-metrics (the shoot's
// <label>-<name>, which is the same), one target whatever the replicas (scrapeConfigCache,
// scrapeConfigSeed, scrapeConfigGarden and scrapeConfigShoot in kubestatemetrics/resources.go):
// the cache and shoot Prometheus keep the type label and drop Terraformer pods' series, the seed
// and garden Prometheus drop the series of shoot namespaces.
func ksmScrapeConfig(namespace, label, name string) *unstructured.Unstructured {
	objectName := label + "-" + KubeStateMetricsName
	if label == ShootPrometheusName {
		objectName = label + "-" + name
	}
	relabel := []any{
		map[string]any{"sourceLabels": []any{"__meta_kubernetes_service_label_component", "__meta_kubernetes_service_port_name"}, "regex": name + ";metrics", "action": "keep"},
	}
	var metricRelabel []any
	dropShoots := map[string]any{"sourceLabels": []any{"namespace"}, "regex": "shoot-.+", "action": "drop"}
	dropTerraformer := map[string]any{"sourceLabels": []any{"pod"}, "regex": `^.+\.tf-pod.+$`, "action": "drop"}
	switch label {
	case CachePrometheusName, ShootPrometheusName:
		relabel = append(relabel, map[string]any{"sourceLabels": []any{"__meta_kubernetes_service_label_type"}, "regex": "(.+)", "replacement": "${1}", "targetLabel": "type"})
		metricRelabel = []any{dropTerraformer}
	case SeedPrometheusName:
		metricRelabel = []any{dropShoots}
	default:
		metricRelabel = []any{dropShoots, dropTerraformer}
	}
	relabel = append(relabel,
		map[string]any{"action": "replace", "replacement": "kube-state-metrics", "targetLabel": "job"},
		map[string]any{"targetLabel": "instance", "replacement": "kube-state-metrics"},
	)
	spec := map[string]any{
		"kubernetesSDConfigs": []any{map[string]any{"role": "Service", "namespaces": map[string]any{"names": []any{namespace}}}},
		"relabelings":         relabel,
		"metricRelabelings":   metricRelabel,
	}
	return customResource("monitoring.coreos.com/v1alpha1", "ScrapeConfig", namespace, objectName, prometheusSelector(label), spec)
}
