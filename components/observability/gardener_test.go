package observability

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The facts below are Gardener v1.120.0's, each from the file its test names: the seed's stack as
// gardenlet's seed reconciler deploys it, the shoot's as its botanist does.

func typedAs[T runtime.Object](t *testing.T, objs []render.Object, kind, name string, into T) T {
	t.Helper()
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(rendertest.MustFind(t, objs, kind, name).Object, into))
	return into
}

func deploymentOf(t *testing.T, objs []render.Object, name string) *appsv1.Deployment {
	return typedAs(t, objs, "Deployment", name, &appsv1.Deployment{})
}

func serviceOf(t *testing.T, objs []render.Object, name string) *corev1.Service {
	return typedAs(t, objs, "Service", name, &corev1.Service{})
}

var seedWithLogging = SeedValues{Cluster: decode.Cluster{Name: "seed"}, SeedName: "eu1", LoggingEnabled: true}

// TestPrometheusOperatorAsGardener: pkg/component/observability/monitoring/prometheusoperator
// (deployment.go, service.go, serviceaccount.go, rbac.go, vpa.go).
func TestPrometheusOperatorAsGardener(t *testing.T) {
	objs := seedObjects(t, seedWithLogging)
	d := deploymentOf(t, objs, "prometheus-operator")
	labels := map[string]string{"app": "prometheus-operator"}
	assert.Equal(t, labels, d.Labels)
	assert.Equal(t, labels, d.Spec.Selector.MatchLabels)
	assert.Equal(t, map[string]string{"app": "prometheus-operator", "networking.gardener.cloud/to-dns": "allowed", "networking.gardener.cloud/to-runtime-apiserver": "allowed"}, d.Spec.Template.Labels)
	c := d.Spec.Template.Spec.Containers[0]
	assert.Equal(t, []string{
		"--prometheus-config-reloader=quay.io/prometheus-operator/prometheus-config-reloader:v0.82.2",
		"--config-reloader-cpu-request=0", "--config-reloader-cpu-limit=0", "--config-reloader-memory-request=20M",
		"--config-reloader-memory-limit=0", "--enable-config-reloader-probes=false",
	}, c.Args)
	assert.Equal(t, []corev1.EnvVar{{Name: "GOGC", Value: "30"}}, c.Env)
	assert.Equal(t, "100m", c.Resources.Requests.Cpu().String())
	assert.Equal(t, "100Mi", c.Resources.Requests.Memory().String())
	assert.Equal(t, []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}}, c.Ports)
	assert.Nil(t, c.ReadinessProbe)
	assert.EqualValues(t, 65532, *d.Spec.Template.Spec.SecurityContext.RunAsUser)
	assert.Equal(t, "gardener-system-600", d.Spec.Template.Spec.PriorityClassName)
	assert.Equal(t, "None", serviceOf(t, objs, "prometheus-operator").Spec.ClusterIP)
	sa := typedAs(t, objs, "ServiceAccount", "prometheus-operator", &corev1.ServiceAccount{})
	assert.False(t, *sa.AutomountServiceAccountToken)
	for _, name := range []string{"prometheus-operator", "prometheus"} {
		assert.NotNil(t, rendertest.Find(objs, "ClusterRole", name), name)
	}
	assert.NotNil(t, rendertest.Find(objs, "VerticalPodAutoscaler", "prometheus-operator"))
}

// TestSeedPrometheusesAsGardener: prometheus/prometheus.go, service.go, rbac.go, vpa.go with the
// values of newCachePrometheus, newSeedPrometheus and newAggregatePrometheus in
// pkg/gardenlet/controller/seed/seed/components.go.
func TestSeedPrometheusesAsGardener(t *testing.T) {
	objs := seedObjects(t, seedWithLogging)
	for name, retention := range map[string]string{"cache": "1d", "seed": "", "aggregate": "30d"} {
		p := rendertest.MustFind(t, objs, "Prometheus", name)
		assert.Equal(t, map[string]string{"app": "prometheus", "role": "monitoring", "name": name}, p.GetLabels(), name)
		assert.Equal(t, retention, str(t, p, "spec", "retention"), name)
		for field, want := range map[string]string{"scrapeInterval": "1m", "evaluationInterval": "1m", "reloadStrategy": "HTTP", "serviceAccountName": "prometheus-" + name, "version": "v3.4.0"} {
			assert.Equal(t, want, str(t, p, "spec", field), name+" "+field)
		}
		sel, found, _ := unstructured.NestedMap(p.Object, "spec", "serviceMonitorNamespaceSelector")
		assert.True(t, found, name)
		assert.Empty(t, sel, "every namespace")
		assert.Equal(t, "prometheus-"+name, podLabels(t, p)["observability.gardener.cloud/app"])
		svc := serviceOf(t, objs, "prometheus-"+name)
		assert.Equal(t, map[string]string{"prometheus": name}, svc.Spec.Selector)
		assert.Equal(t, "web", svc.Spec.Ports[0].Name)
		assert.EqualValues(t, 80, svc.Spec.Ports[0].Port)
		assert.EqualValues(t, 9090, svc.Spec.Ports[0].TargetPort.IntVal)
		crb := rendertest.MustFind(t, objs, "ClusterRoleBinding", "prometheus-"+name)
		assert.Equal(t, "prometheus", str(t, crb, "roleRef", "name"))
		assert.NotNil(t, rendertest.Find(objs, "VerticalPodAutoscaler", "prometheus-"+name))
		assert.NotNil(t, rendertest.Find(objs, "Secret", "prometheus-"+name+"-additional-scrape-configs"))
	}
	aggregate := rendertest.MustFind(t, objs, "Prometheus", "aggregate")
	assert.Equal(t, "eu1", str(t, aggregate, "spec", "externalLabels", "seed"))
	assert.Equal(t, "allowed", podLabels(t, aggregate)["networking.resources.gardener.cloud/to-all-shoots-prometheus-shoot-tcp-9090"])
	ams, _, _ := unstructured.NestedSlice(aggregate.Object, "spec", "alerting", "alertmanagers")
	require.Len(t, ams, 1)
	am := ams[0].(map[string]any)
	assert.Equal(t, "alertmanager-seed", am["name"])
	assert.Equal(t, "metrics", am["port"])
	assert.Equal(t, []any{map[string]any{"sourceLabels": []any{"ignoreAlerts"}, "regex": "true", "action": "drop"}}, am["alertRelabelings"])
}

// TestAlertmanagerAsGardener: alertmanager/alertmanager.go and service.go.
func TestAlertmanagerAsGardener(t *testing.T) {
	objs := seedObjects(t, seedWithLogging)
	labels := map[string]string{"component": "alertmanager", "role": "monitoring", "alertmanager": "seed"}
	am := rendertest.MustFind(t, objs, "Alertmanager", "seed")
	assert.Equal(t, labels, am.GetLabels())
	force, _, _ := unstructured.NestedBool(am.Object, "spec", "forceEnableClusterMode")
	assert.True(t, force)
	assert.Equal(t, "info", str(t, am, "spec", "logLevel"))
	svc := serviceOf(t, objs, "alertmanager-seed")
	assert.Equal(t, labels, svc.Spec.Selector)
	assert.Equal(t, "metrics", svc.Spec.Ports[0].Name)
	assert.EqualValues(t, 9093, svc.Spec.Ports[0].Port)
	assert.Nil(t, rendertest.Find(objs, "ServiceAccount", "alertmanager-seed"), "Gardener's Alertmanager names no ServiceAccount")
}

// TestKubeStateMetricsAsGardener: kubestatemetrics/resources.go, NameSuffix -seed in a seed, none
// in a shoot namespace.
func TestKubeStateMetricsAsGardener(t *testing.T) {
	seed := seedObjects(t, seedWithLogging)
	d := deploymentOf(t, seed, "kube-state-metrics-seed")
	labels := map[string]string{"component": "kube-state-metrics-seed", "type": "seed"}
	assert.Equal(t, labels, d.Spec.Selector.MatchLabels)
	assert.Equal(t, "monitoring", d.Labels["role"])
	assert.EqualValues(t, 2, *d.Spec.Replicas)
	args := d.Spec.Template.Spec.Containers[0].Args
	assert.Equal(t, []string{"--port=8080", "--telemetry-port=8081",
		"--resources=deployments,pods,statefulsets,nodes,horizontalpodautoscalers,persistentvolumeclaims,replicasets,namespaces",
		"--metric-labels-allowlist=nodes=[*],pods=[origin]", "--metric-annotations-allowlist=namespaces=[shoot.gardener.cloud/uid]"}, args[:5])
	assert.Contains(t, args[5], "--metric-allowlist=^kube_daemonset_metadata_generation$,")
	assert.Equal(t, "--custom-resource-state-config-file=/config/custom-resource-state.yaml", args[6])
	svc := serviceOf(t, seed, "kube-state-metrics-seed")
	assert.EqualValues(t, 80, svc.Spec.Ports[0].Port)
	assert.EqualValues(t, 8080, svc.Spec.Ports[0].TargetPort.IntVal)
	for kind, name := range map[string]string{"PodDisruptionBudget": "kube-state-metrics-pdb-seed", "VerticalPodAutoscaler": "kube-state-metrics-vpa-seed", "ClusterRole": "gardener.cloud:monitoring:kube-state-metrics-seed"} {
		assert.NotNil(t, rendertest.Find(seed, kind, name), name)
	}
	assert.NotNil(t, findVersion(seed, "ConfigMap", "kube-state-metrics-custom-resource-state"))

	shoot := deploymentOf(t, shootObjects(t, shootDefault), "kube-state-metrics")
	assert.Equal(t, map[string]string{"component": "kube-state-metrics", "type": "shoot"}, shoot.Spec.Selector.MatchLabels)
	assert.Equal(t, "monitoring", shoot.Labels["gardener.cloud/role"])
	assert.Contains(t, shoot.Spec.Template.Spec.Containers[0].Args, "--namespaces=kube-system")
	assert.Contains(t, shoot.Spec.Template.Spec.Containers[0].Args, "--kubeconfig=/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig/kubeconfig")
}

// TestPlutonoAndValiAsGardener: pkg/component/observability/plutono/plutono.go and
// logging/vali/vali.go.
func TestPlutonoAndValiAsGardener(t *testing.T) {
	objs := seedObjects(t, seedWithLogging)
	p := deploymentOf(t, objs, "plutono")
	assert.Equal(t, map[string]string{"component": "plutono"}, p.Spec.Selector.MatchLabels)
	assert.Equal(t, map[string]string{"component": "plutono", "role": "monitoring"}, p.Labels)
	assert.Equal(t, []corev1.ContainerPort{{Name: "web", ContainerPort: 3000}}, p.Spec.Template.Spec.Containers[0].Ports)
	svc := serviceOf(t, objs, "plutono")
	assert.EqualValues(t, 3000, svc.Spec.Ports[0].Port)

	sts := typedAs(t, objs, "StatefulSet", "vali", &appsv1.StatefulSet{})
	labels := map[string]string{"gardener.cloud/role": "logging", "role": "logging", "app": "vali"}
	assert.Equal(t, labels, sts.Spec.Selector.MatchLabels)
	assert.Empty(t, sts.Spec.ServiceName)
	c := sts.Spec.Template.Spec.Containers[0]
	assert.EqualValues(t, 120, c.LivenessProbe.InitialDelaySeconds)
	assert.EqualValues(t, 5, c.LivenessProbe.FailureThreshold)
	assert.EqualValues(t, 7, c.ReadinessProbe.FailureThreshold)
	assert.Equal(t, "/etc/vali/vali.yaml", c.VolumeMounts[0].MountPath)
	assert.Equal(t, labels, serviceOf(t, objs, "logging").Spec.Selector)
	assert.NotNil(t, rendertest.Find(objs, "VerticalPodAutoscaler", "vali-vpa"))
}

// TestShootComponentsAsGardener: blackboxexporter.go with DefaultBlackboxExporterControlPlane,
// shoot/controlplane/scrapeconfig.go, eventlogger/event_logger.go and DefaultPrometheus and
// DefaultAlertmanager in pkg/gardenlet/operation/botanist/monitoring.go.
func TestShootComponentsAsGardener(t *testing.T) {
	objs := shootObjects(t, shootCustomised)
	bb := deploymentOf(t, objs, "blackbox-exporter")
	assert.Equal(t, map[string]string{"app": "blackbox-exporter"}, bb.Spec.Selector.MatchLabels)
	assert.Equal(t, []string{"--config.file=/etc/blackbox_exporter/blackbox.yaml", "--log.level=debug"}, bb.Spec.Template.Spec.Containers[0].Args)
	assert.Equal(t, "server", bb.Labels["high-availability-config.resources.gardener.cloud/type"])
	assert.NotNil(t, rendertest.Find(objs, "PodDisruptionBudget", "blackbox-exporter"))
	probe := rendertest.MustFind(t, objs, "ScrapeConfig", "shoot-blackbox-apiserver")
	targets, _, _ := unstructured.NestedSlice(probe.Object, "spec", "staticConfigs")
	assert.Equal(t, []any{"https://api.app.dev.example.com/healthz"}, targets[0].(map[string]any)["targets"])

	el := deploymentOf(t, objs, "event-logger")
	assert.Equal(t, map[string]string{"app": "event-logger", "role": "logging", "gardener.cloud/role": "logging"}, el.Spec.Selector.MatchLabels)
	assert.EqualValues(t, 1, *el.Spec.RevisionHistoryLimit)

	p := rendertest.MustFind(t, objs, "Prometheus", "shoot")
	assert.Equal(t, "30d", str(t, p, "spec", "retention"))
	_, restricted, _ := unstructured.NestedMap(p.Object, "spec", "serviceMonitorNamespaceSelector")
	assert.False(t, restricted, "its own namespace only")
	ams, _, _ := unstructured.NestedSlice(p.Object, "spec", "alerting", "alertmanagers")
	require.Len(t, ams, 2)
	assert.Equal(t, map[string]any{"name": "alertmanager-seed", "namespace": "garden"}, map[string]any{"name": ams[0].(map[string]any)["name"], "namespace": ams[0].(map[string]any)["namespace"]})
	am := rendertest.MustFind(t, objs, "Alertmanager", "shoot")
	assert.Equal(t, "monitoring", am.GetLabels()["gardener.cloud/role"])
}
