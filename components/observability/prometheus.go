package observability

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/declarative-gardener/gardener/components/internal/kube"
)

// Names of the Prometheus and Alertmanager custom resources. prometheus-operator names their
// StatefulSets prometheus-<name> and alertmanager-<name>, which gives the component names of
// the documents: prometheus-garden, prometheus-longterm, alertmanager-garden (S4:12753-12755).
const (
	GardenPrometheusName   = "garden"
	LongtermPrometheusName = "longterm"
	GardenAlertmanagerName = "garden"
)

// Service names of the instances: Plutono's datasource, the Long-term Prometheus' federation
// and the Garden Prometheus' alerting use them.
const (
	GardenPrometheusService   = "prometheus-" + GardenPrometheusName
	LongtermPrometheusService = "prometheus-" + LongtermPrometheusName
	GardenAlertmanagerService = "alertmanager-" + GardenAlertmanagerName
)

// ScrapeInterval is the default interval between scrapes (S4:25728: "The collection interval
// should be the default of 30s").
const ScrapeInterval = "30s"

// Ports of the operator-managed pods: prometheus-operator names them "web".
const (
	prometheusPort   = 9090
	alertmanagerPort = 9093
	prometheusWeb    = 80
)

// prometheusInstance is one Prometheus of the stack.
type prometheusInstance struct {
	name  string // the custom resource's name and the value of its prometheus label
	label string
	// retention is how long samples are kept. The documents give no numbers, only that the
	// Long-term Prometheus keeps metrics longer than the Garden Prometheus (S4:12856); these
	// are the values an operator would expect, bounded by retentionSize on small volumes.
	retention string
}

// prometheuses lists the instances Values ask for: the Garden Prometheus always, the Long-term
// Prometheus unless turned off.
func prometheuses(v Values) []prometheusInstance {
	out := []prometheusInstance{{name: GardenPrometheusName, label: GardenPrometheusLabel, retention: "10d"}}
	if *v.Longterm {
		out = append(out, prometheusInstance{name: LongtermPrometheusName, label: LongtermPrometheusLabel, retention: "90d"})
	}
	return out
}

// prometheusRules let a Prometheus discover and scrape targets in the cluster: Kubernetes
// service discovery, the kubelets' metrics (cAdvisor) and /metrics of the API server.
var prometheusRules = []rbacv1.PolicyRule{
	{APIGroups: []string{""}, Resources: []string{"nodes", "nodes/metrics", "services", "endpoints", "pods"}, Verbs: read},
	{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: read},
	{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"ingresses"}, Verbs: read},
	{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}},
	{NonResourceURLs: []string{"/metrics", "/metrics/cadvisor"}, Verbs: []string{"get"}},
}

// prometheusRBAC renders each Prometheus' ServiceAccount, cluster-wide read permissions and
// Service.
func prometheusRBAC(v Values) []runtime.Object {
	var out []runtime.Object
	for _, p := range prometheuses(v) {
		name := "prometheus-" + p.name
		out = append(out, clusterRBAC(name, v.Namespace, prometheusRules)...)
		out = append(out, service(name, v.Namespace, "prometheus", prometheusPodLabels(p.name), "web", prometheusWeb, intstr.FromString("web")))
	}
	return out
}

// alertmanagerObjects renders alertmanager-garden's ServiceAccount (it needs no permissions) and
// Service when alerting is on.
func alertmanagerObjects(v Values) []runtime.Object {
	if !*v.Alerting {
		return nil
	}
	return []runtime.Object{
		&corev1.ServiceAccount{ObjectMeta: meta(GardenAlertmanagerService, v.Namespace, "")},
		service(GardenAlertmanagerService, v.Namespace, "alertmanager", alertmanagerPodLabels(), "web", alertmanagerPort, intstr.FromString("web")),
	}
}

// prometheusPodLabels are the labels the operator's Prometheus pods get through podMetadata,
// selected by the instance's Service.
func prometheusPodLabels(name string) map[string]string {
	return map[string]string{"app": "prometheus", "role": name}
}

func alertmanagerPodLabels() map[string]string {
	return map[string]string{"app": "alertmanager", "role": GardenAlertmanagerName}
}

// customResources renders the prometheus-operator objects: the Prometheus instances, the
// Long-term Prometheus' federation from the Garden Prometheus, alertmanager-garden and
// kube-state-metrics' ServiceMonitor.
func customResources(v Values, img map[string]string, storage resource.Quantity) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, p := range prometheuses(v) {
		out = append(out, prometheus(v, p, img[ImagePrometheus], storage))
	}
	if *v.Longterm {
		out = append(out, federation(v.Namespace))
	}
	if *v.Alerting {
		out = append(out, alertmanager(v.Namespace, img[ImageAlertmanager]))
	}
	return append(out, kubeStateMetricsMonitor(v.Namespace))
}

// matchLabels is a label selector on one label.
func matchLabels(key, value string) map[string]any {
	return map[string]any{"matchLabels": map[string]any{key: value}}
}

// prometheus renders one Prometheus. It selects the monitoring objects labelled with its
// prometheus label (S4:12848, S4:12858) in its own namespace (the namespace selectors are left
// unset, which means the Prometheus' namespace), scrapes every 30s (S4:25728) and runs with
// the garden's priority class 100 (S4:26372).
func prometheus(v Values, p prometheusInstance, image string, storage resource.Quantity) *unstructured.Unstructured {
	sel := matchLabels(PrometheusLabel, p.label)
	spec := map[string]any{
		"replicas":               int64(replicas),
		"image":                  image,
		"serviceAccountName":     "prometheus-" + p.name,
		"priorityClassName":      PriorityClass,
		"scrapeInterval":         ScrapeInterval,
		"evaluationInterval":     ScrapeInterval,
		"retention":              p.retention,
		"retentionSize":          retentionSize(storage),
		"serviceMonitorSelector": sel,
		"podMonitorSelector":     sel,
		"probeSelector":          sel,
		"ruleSelector":           sel,
		"scrapeConfigSelector":   sel,
		"podMetadata":            map[string]any{"labels": kube.AnyMap(prometheusPodLabels(p.name))},
		"securityContext":        podSecurityMap(),
		"resources":              map[string]any{"requests": map[string]any{"cpu": "100m", "memory": "400Mi"}},
		"storage":                volumeClaimTemplate("prometheus-db", storage),
	}
	if p.name == GardenPrometheusName && *v.Alerting {
		spec["alerting"] = map[string]any{"alertmanagers": []any{map[string]any{
			"name":       GardenAlertmanagerService,
			"namespace":  v.Namespace,
			"port":       "web",
			"apiVersion": "v2",
		}}}
	}
	labels := map[string]string{partOf: "observability", PrometheusLabel: p.label}
	return customResource("monitoring.coreos.com/v1", "Prometheus", v.Namespace, p.name, labels, spec)
}

// federation lets the Long-term Prometheus federate from the Garden Prometheus (S4:12856). The
// documents do not say which series; the Garden Prometheus is the landscape's aggregator of
// metering (S4:12850), so the metering series and the targets' up series are kept for long.
func federation(namespace string) *unstructured.Unstructured {
	spec := map[string]any{
		"jobName":     GardenPrometheusService,
		"honorLabels": true,
		"metricsPath": "/federate",
		"params":      map[string]any{"match[]": []any{`{__name__=~"metering:.+"}`, `{__name__="up"}`}},
		"staticConfigs": []any{map[string]any{
			"targets": []any{fmt.Sprintf("%s.%s.svc:%d", GardenPrometheusService, namespace, prometheusWeb)},
		}},
	}
	labels := map[string]string{partOf: "observability", PrometheusLabel: LongtermPrometheusLabel}
	return customResource("monitoring.coreos.com/v1alpha1", "ScrapeConfig", namespace, "longterm-"+GardenPrometheusService, labels, spec)
}

// alertmanager renders alertmanager-garden. It comes without configuration of its own and takes
// the AlertmanagerConfigs labelled alertmanager=garden in its namespace (S4:12881); their routes
// apply as written (matcher strategy None), since the documented example routes on
// severity and topology, not on the namespace (S4:12896-12906).
func alertmanager(namespace, image string) *unstructured.Unstructured {
	spec := map[string]any{
		"replicas":                          int64(replicas),
		"image":                             image,
		"serviceAccountName":                GardenAlertmanagerService,
		"priorityClassName":                 PriorityClass,
		"alertmanagerConfigSelector":        matchLabels(AlertmanagerLabel, GardenAlertmanagerLabel),
		"alertmanagerConfigMatcherStrategy": map[string]any{"type": "None"},
		"podMetadata":                       map[string]any{"labels": kube.AnyMap(alertmanagerPodLabels())},
		"securityContext":                   podSecurityMap(),
		"resources":                         map[string]any{"requests": map[string]any{"cpu": "10m", "memory": "30Mi"}},
		"storage":                           volumeClaimTemplate("alertmanager-db", resource.MustParse("1Gi")),
	}
	labels := map[string]string{partOf: "observability", AlertmanagerLabel: GardenAlertmanagerLabel}
	return customResource("monitoring.coreos.com/v1", "Alertmanager", namespace, GardenAlertmanagerName, labels, spec)
}

// retentionSize keeps a Prometheus' blocks within 80% of its volume, so that a full disk never
// stops ingestion before the time-based retention removes old blocks.
func retentionSize(storage resource.Quantity) string {
	return fmt.Sprintf("%dMiB", storage.Value()*4/5/(1<<20))
}

// volumeClaimTemplate is the storage block of a Prometheus or Alertmanager.
func volumeClaimTemplate(name string, size resource.Quantity) map[string]any {
	return map[string]any{"volumeClaimTemplate": map[string]any{
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"accessModes": []any{"ReadWriteOnce"},
			"resources":   map[string]any{"requests": map[string]any{"storage": size.String()}},
		},
	}}
}

// podSecurityMap is podSecurity(nobody) as the custom resources carry it; the Prometheus and
// Alertmanager images run as nobody.
func podSecurityMap() map[string]any {
	return map[string]any{
		"runAsNonRoot":   true,
		"runAsUser":      nobody,
		"runAsGroup":     nobody,
		"fsGroup":        nobody,
		"seccompProfile": map[string]any{"type": "RuntimeDefault"},
	}
}

// customResource builds a namespaced custom resource with a spec.
func customResource(apiVersion, kind, namespace, name string, labels map[string]string, spec map[string]any) *unstructured.Unstructured {
	return kube.Custom(apiVersion, kind, namespace, name, labels, map[string]any{"spec": spec})
}
