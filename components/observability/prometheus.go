package observability

import (
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/kubeapiserver"
)

// Names of the Prometheus and Alertmanager custom resources. prometheus-operator names their
// StatefulSets prometheus-<name> and alertmanager-<name>, which gives the component names of
// Gardener's documentation: prometheus-garden, prometheus-longterm, alertmanager-garden (Gardener's
// "Gardener Operator" docs/concepts/operator.md).
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

// ScrapeInterval is the default interval between scrapes (Gardener's "Monitoring Stack"
// docs/development/monitoring-stack.md: "The collection interval should be the default of 30s").
const ScrapeInterval = "30s"

// Ports of the operator-managed pods: prometheus-operator names them "web".
const (
	prometheusPort   = 9090
	alertmanagerPort = 9093
	prometheusWeb    = 80
)

// prometheusInstance is one Prometheus of a stack.
type prometheusInstance struct {
	name  string // the custom resource's name
	label string // the value of its prometheus label, which selects its monitoring objects
	// retention is how long samples are kept. Gardener's documentation gives no numbers for the
	// garden, only that the Long-term Prometheus keeps metrics longer than the Garden Prometheus
	// (Gardener's docs/concepts/operator.md); these are the values an operator would expect, bounded
	// by retentionSize on small volumes.
	retention string
	// alertmanager is the Service of the Alertmanager it sends alerts to; "" sends none.
	alertmanager string
	// rules are its permissions for service discovery; clusterWide grants them in the whole
	// cluster (ClusterRole), otherwise in its own namespace (Role).
	rules       []rbacv1.PolicyRule
	clusterWide bool
	// podLabels are the network labels of its pods (under NetworkPolicies only).
	podLabels map[string]string
	// serviceAnnotations let other Prometheus instances reach it through the NetworkPolicy
	// controller.
	serviceAnnotations map[string]string
}

// alertTo has the instance send its alerts to the Alertmanager name and lets its pods reach it
// (Gardener's "Gardener Resource Manager" docs/concepts/resource-manager.md).
func (p *prometheusInstance) alertTo(name string) {
	p.alertmanager = "alertmanager-" + name
	labels := maps.Clone(p.podLabels)
	labels[kubeapiserver.ToServiceLabel(p.alertmanager, alertmanagerPort)] = allowed
	p.podLabels = labels
}

// service is the name of the instance's Service and StatefulSet, prometheus-<name>.
func (p prometheusInstance) service() string { return "prometheus-" + p.name }

// prometheuses lists the garden instances Values ask for: the Garden Prometheus always, the
// Long-term Prometheus unless turned off.
func prometheuses(v Values) []prometheusInstance {
	garden := prometheusInstance{name: GardenPrometheusName, label: GardenPrometheusLabel, retention: "10d", rules: prometheusRules, clusterWide: true}
	if v.Alerting {
		garden.alertmanager = GardenAlertmanagerService
	}
	out := []prometheusInstance{garden}
	if v.Longterm {
		out = append(out, prometheusInstance{name: LongtermPrometheusName, label: LongtermPrometheusLabel, retention: "90d", rules: prometheusRules, clusterWide: true})
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

// prometheusNamespaceRules are prometheusRules without what only exists cluster-wide: service
// discovery in the Prometheus' own namespace.
var prometheusNamespaceRules = []rbacv1.PolicyRule{
	{APIGroups: []string{""}, Resources: []string{"services", "endpoints", "pods"}, Verbs: read},
	{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: read},
	{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}},
}

// prometheusRBAC renders each Prometheus' ServiceAccount, service-discovery permissions and
// Service.
func prometheusRBAC(s stack, instances []prometheusInstance) []runtime.Object {
	var out []runtime.Object
	for _, p := range instances {
		name := p.service()
		if p.clusterWide {
			out = append(out, clusterRBAC(name, s.namespace, p.rules)...)
		} else {
			out = append(out, namespacedRBAC(name, s.namespace, p.rules)...)
		}
		svc := service(name, s.namespace, "prometheus", prometheusPodLabels(p.name), "web", prometheusWeb, intstr.FromString("web"))
		svc.Annotations = p.serviceAnnotations
		out = append(out, svc)
	}
	return out
}

// alertmanagerObjects renders the ServiceAccount (it needs no permissions) and Service of the
// Alertmanager name.
func alertmanagerObjects(s stack, name string) []runtime.Object {
	svc := "alertmanager-" + name
	return []runtime.Object{
		&corev1.ServiceAccount{ObjectMeta: meta(svc, s.namespace, "")},
		service(svc, s.namespace, "alertmanager", alertmanagerPodLabels(name), "web", alertmanagerPort, intstr.FromString("web")),
	}
}

// prometheusPodLabels are the labels the operator's Prometheus pods get through podMetadata,
// selected by the instance's Service.
func prometheusPodLabels(name string) map[string]string {
	return map[string]string{"app": "prometheus", "role": name}
}

func alertmanagerPodLabels(name string) map[string]string {
	return map[string]string{"app": "alertmanager", "role": name}
}

// customResources renders the garden's prometheus-operator objects: the Prometheus instances,
// the Long-term Prometheus' federation from the Garden Prometheus, alertmanager-garden and
// kube-state-metrics' ServiceMonitor.
func customResources(v Values, s stack, storage resource.Quantity) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, p := range prometheuses(v) {
		out = append(out, prometheus(s, p, storage))
	}
	if v.Longterm {
		// Gardener's documentation does not say which series; the Garden Prometheus is the landscape's
		// aggregator of metering (Gardener's docs/concepts/operator.md), so the metering series and the
		// targets' up series are kept for long.
		out = append(out, federation(v.Namespace, LongtermPrometheusLabel, GardenPrometheusService, v.Namespace,
			`{__name__=~"metering:.+"}`, `{__name__="up"}`))
	}
	if v.Alerting {
		out = append(out, alertmanager(s, GardenAlertmanagerName, GardenAlertmanagerLabel))
	}
	return append(out, serviceMonitor(v.Namespace, GardenPrometheusLabel, KubeStateMetricsName, ksmEndpoint()))
}

// matchLabels is a label selector on one label.
func matchLabels(key, value string) map[string]any {
	return map[string]any{"matchLabels": map[string]any{key: value}}
}

// prometheus renders one Prometheus. It selects the monitoring objects labelled with its
// prometheus label (Gardener's docs/concepts/operator.md, "Logging And Monitoring"
// docs/extensions/logging-and-monitoring.md) in its own namespace (the namespace selectors are left
// unset, which means the Prometheus' namespace) and scrapes every 30s (Gardener's
// docs/development/monitoring-stack.md).
func prometheus(s stack, p prometheusInstance, storage resource.Quantity) *unstructured.Unstructured {
	sel := matchLabels(PrometheusLabel, p.label)
	podLabels := prometheusPodLabels(p.name)
	if s.networkPolicies {
		podLabels[toDNS] = allowed
		maps.Copy(podLabels, p.podLabels)
	}
	spec := map[string]any{
		"replicas":               int64(s.replicas),
		"image":                  s.img[ImagePrometheus],
		"serviceAccountName":     p.service(),
		"priorityClassName":      s.priorityClass,
		"scrapeInterval":         ScrapeInterval,
		"evaluationInterval":     ScrapeInterval,
		"retention":              p.retention,
		"retentionSize":          retentionSize(storage),
		"serviceMonitorSelector": sel,
		"podMonitorSelector":     sel,
		"probeSelector":          sel,
		"ruleSelector":           sel,
		"scrapeConfigSelector":   sel,
		"podMetadata":            map[string]any{"labels": kube.AnyMap(podLabels)},
		"securityContext":        podSecurityMap(),
		"resources":              map[string]any{"requests": map[string]any{"cpu": "100m", "memory": "400Mi"}},
		"storage":                volumeClaimTemplate("prometheus-db", storage),
	}
	if p.alertmanager != "" {
		spec["alerting"] = map[string]any{"alertmanagers": []any{map[string]any{
			"name":       p.alertmanager,
			"namespace":  s.namespace,
			"port":       "web",
			"apiVersion": "v2",
		}}}
	}
	labels := map[string]string{partOf: "observability", PrometheusLabel: p.label}
	return customResource("monitoring.coreos.com/v1", "Prometheus", s.namespace, p.name, labels, spec)
}

// federation is a ScrapeConfig, named <label>-<source>, that has the Prometheus labelled label
// federate the series matching match from the Prometheus behind the Service source in
// sourceNamespace (Gardener's docs/concepts/operator.md, "Alerting" docs/monitoring/alerting.md).
func federation(namespace, label, source, sourceNamespace string, match ...string) *unstructured.Unstructured {
	spec := map[string]any{
		"jobName":     source,
		"honorLabels": true,
		"metricsPath": "/federate",
		"params":      map[string]any{"match[]": kube.AnyList(match)},
		"staticConfigs": []any{map[string]any{
			"targets": []any{fmt.Sprintf("%s.%s.svc:%d", source, sourceNamespace, prometheusWeb)},
		}},
	}
	labels := map[string]string{partOf: "observability", PrometheusLabel: label}
	return customResource("monitoring.coreos.com/v1alpha1", "ScrapeConfig", namespace, label+"-"+source, labels, spec)
}

// alertmanager renders the Alertmanager name, which runs as alertmanager-<name>. It comes
// without configuration of its own and takes the AlertmanagerConfigs labelled
// alertmanager=<label> in its namespace (Gardener's docs/concepts/operator.md); their routes apply
// as written (matcher strategy None), since the documented example routes on severity and topology,
// not on the namespace (Gardener's docs/concepts/operator.md).
func alertmanager(s stack, name, label string) *unstructured.Unstructured {
	podLabels := alertmanagerPodLabels(name)
	if s.networkPolicies {
		podLabels[toDNS] = allowed
		podLabels[toPublicNetworks] = allowed // the receivers: mail servers, chat services
	}
	spec := map[string]any{
		"replicas":                          int64(s.replicas),
		"image":                             s.img[ImageAlertmanager],
		"serviceAccountName":                "alertmanager-" + name,
		"priorityClassName":                 s.priorityClass,
		"alertmanagerConfigSelector":        matchLabels(AlertmanagerLabel, label),
		"alertmanagerConfigMatcherStrategy": map[string]any{"type": "None"},
		"podMetadata":                       map[string]any{"labels": kube.AnyMap(podLabels)},
		"securityContext":                   podSecurityMap(),
		"resources":                         map[string]any{"requests": map[string]any{"cpu": "10m", "memory": "30Mi"}},
		"storage":                           volumeClaimTemplate("alertmanager-db", resource.MustParse("1Gi")),
	}
	labels := map[string]string{partOf: "observability", AlertmanagerLabel: label}
	return customResource("monitoring.coreos.com/v1", "Alertmanager", s.namespace, name, labels, spec)
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

// podSecurityMap is kube.NonRootPodOwningVolumes(nobody) as the custom resources carry it; the Prometheus and
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
