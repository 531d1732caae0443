package observability

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/declarative-gardener/gardener/components/internal/kube"
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

// ScrapeInterval is the interval between scrapes and rule evaluations of every Prometheus
// (pkg/component/observability/monitoring/prometheus/prometheus.go in gardener/gardener v1.120.0).
const ScrapeInterval = "1m"

// Ports of the operator-managed pods and of their Services (prometheus/component.go,
// alertmanager/component.go).
const (
	prometheusPort   = 9090
	alertmanagerPort = 9093
	prometheusWeb    = 80
	// alertmanagerPortName names the port of an Alertmanager's Service, which Prometheus
	// instances send their alerts to.
	alertmanagerPortName = "metrics"
)

// alertmanagerRef is an Alertmanager a Prometheus sends its alerts to; namespace "" is the
// Prometheus' own.
type alertmanagerRef struct{ service, namespace string }

// prometheusInstance is one Prometheus of a stack, the values gardenlet and gardener-operator
// give Gardener's prometheus component (pkg/gardenlet/controller/seed/seed/components.go,
// pkg/gardenlet/operation/botanist/monitoring.go).
type prometheusInstance struct {
	name string // the custom resource's name and its prometheus label's value
	// retention is how long samples are kept; "" keeps the operator's default.
	retention string
	// cpu and memory are the requests of the prometheus container; "" means Gardener's default
	// (300m, 1000Mi).
	cpu, memory string
	// vpaMinAllowed are the smallest requests its VerticalPodAutoscaler recommends; nil means
	// memory 100M.
	vpaMinAllowed map[string]string
	// externalLabels are added to every series it sends elsewhere.
	externalLabels map[string]string
	// alertmanagers receive its alerts.
	alertmanagers []alertmanagerRef
	// restrictToNamespace selects monitoring objects of its own namespace only (a shoot's);
	// otherwise of every namespace.
	restrictToNamespace bool
	// clusterWide binds its ServiceAccount to the ClusterRole prometheus; otherwise a Role of its
	// namespace grants service discovery there.
	clusterWide bool
	// podLabels are the network labels of its pods besides DNS and the runtime API server.
	podLabels map[string]string
	// serviceAnnotations let other Prometheus instances reach it through the NetworkPolicy
	// controller.
	serviceAnnotations map[string]string
	// host is the host of its Ingress, which sets its external URL; "" for none.
	host string
}

// alertTo has the instance send its alerts to the Alertmanager service of namespace ("" for its
// own).
func (p *prometheusInstance) alertTo(service, namespace string) {
	p.alertmanagers = append(p.alertmanagers, alertmanagerRef{service: service, namespace: namespace})
}

// service is the name of the instance's Service, ServiceAccount and StatefulSet,
// prometheus-<name>.
func (p prometheusInstance) service() string { return "prometheus-" + p.name }

// prometheusLabels label every object of the Prometheus name (getLabels in
// prometheus/component.go).
func prometheusLabels(name string) map[string]string {
	return map[string]string{labelApp: "prometheus", labelRole: roleMonitoring, "name": name}
}

// prometheusSelector selects the pods prometheus-operator runs for the Prometheus name.
func prometheusSelector(name string) map[string]string {
	return map[string]string{PrometheusLabel: name}
}

// prometheusServiceAnnotations are the NetworkPolicy annotations of a Prometheus' Service: in a
// shoot namespace it is reached from the seed's garden namespace, elsewhere it is a seed scrape
// target reachable from the shoot namespaces (prometheus/service.go).
func prometheusServiceAnnotations(kind stackKind, seedNamespace string) map[string]string {
	if kind == shootStack {
		return map[string]string{
			podLabelSelectorNamespaceAlias: shootsAlias,
			namespaceSelectors:             `[{"matchLabels":{"kubernetes.io/metadata.name":"` + seedNamespace + `"}}]`,
		}
	}
	k, v := scrapeAnnotation(seedScrapeTargets, prometheusPort)
	return map[string]string{k: v, namespaceSelectors: `[{"matchLabels":{"gardener.cloud/role":"shoot"}}]`}
}

// prometheusNamespaceRules grant a Prometheus restricted to its namespace the service discovery
// there.
var prometheusNamespaceRules = prometheusRules[:1]

// prometheusRBAC renders each Prometheus' ServiceAccount, its binding to the ClusterRole
// prometheus (or a Role of its namespace), the Service and the Secret of additional scrape
// configurations its resource names (prometheus/serviceaccount.go, rbac.go, service.go,
// secret.go).
func prometheusRBAC(s stack, instances []prometheusInstance) []runtime.Object {
	var out []runtime.Object
	for _, p := range instances {
		name, labels := p.service(), prometheusLabels(p.name)
		out = append(out, serviceAccount(name, s.namespace, labels))
		if p.clusterWide {
			crb := clusterRoleBinding(name, labels, PrometheusClusterRole, name, s.namespace)
			crb.Annotations = map[string]string{annotationDeleteOnInvalidUpdate: "true"}
			out = append(out, crb)
		} else {
			out = append(out, roleOf(name, s.namespace, labels, prometheusNamespaceRules), roleBinding(name, s.namespace, labels, name, name))
		}
		svc := service(name, s.namespace, labels, prometheusSelector(p.name), "web", prometheusWeb, intstr.FromInt32(prometheusPort))
		svc.Annotations = p.serviceAnnotations
		out = append(out, svc, &corev1.Secret{
			ObjectMeta: meta(name+"-additional-scrape-configs", s.namespace, labels),
			Type:       corev1.SecretTypeOpaque,
			Data:       map[string][]byte{"prometheus.yaml": {}},
		})
	}
	return out
}

// alertmanagerLabels label every object of the Alertmanager name and select its pods
// (alertmanager/component.go); a shoot's carry gardener.cloud/role=monitoring besides.
func alertmanagerLabels(name string) map[string]string {
	return map[string]string{labelComponent: "alertmanager", labelRole: roleMonitoring, AlertmanagerLabel: name}
}

// alertmanagerObjects renders the Service of the Alertmanager name (alertmanager/service.go):
// a scrape target of the garden's and the seed's Prometheus in a seed, reachable from the shoot
// namespaces; a scrape target of the shoot's Prometheus in a shoot namespace.
func alertmanagerObjects(s stack, name string) []runtime.Object {
	labels := alertmanagerLabels(name)
	svc := &corev1.Service{
		ObjectMeta: meta("alertmanager-"+name, s.namespace, labels),
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: labels,
			// Gardener leaves the protocol and the target port to the API server's defaults.
			Ports: []corev1.ServicePort{{Name: alertmanagerPortName, Port: alertmanagerPort, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(alertmanagerPort)}},
		},
	}
	if s.kind == shootStack {
		s.scrapable(svc, alertmanagerPort)
	} else {
		scrapableBy(svc, []int32{alertmanagerPort}, gardenScrapeTargets, seedScrapeTargets)
		annotate(svc, namespaceSelectors, `[{"matchLabels":{"gardener.cloud/role":"shoot"}}]`)
	}
	return []runtime.Object{svc}
}

// matchLabels is a label selector on one label.
func matchLabels(key, value string) map[string]any {
	return map[string]any{"matchLabels": map[string]any{key: value}}
}

// imageVersion is the tag of an image reference, the version prometheus-operator is told the
// image runs; "" for a digest.
func imageVersion(ref string) string {
	if strings.Contains(ref, "@") {
		return ""
	}
	i := strings.LastIndex(ref, ":")
	if i < 0 || strings.Contains(ref[i:], "/") {
		return ""
	}
	return ref[i+1:]
}

// prometheus renders one Prometheus as Gardener's prometheus component does
// (prometheus/prometheus.go): it selects the monitoring objects labelled prometheus=<name>, in
// every namespace unless restricted to its own, scrapes and evaluates every minute, reloads its
// configuration over HTTP and runs as root on its volume.
func prometheus(s stack, p prometheusInstance, storage resource.Quantity) *unstructured.Unstructured {
	sel := matchLabels(PrometheusLabel, p.name)
	podLabels := merge(map[string]string{toDNS: allowed, toRuntimeAPIServer: allowed, labelObservabilityApp: p.service()}, p.podLabels)
	cpu, memory := p.cpu, p.memory
	if cpu == "" {
		cpu, memory = "300m", "1000Mi"
	}
	spec := map[string]any{
		"evaluationInterval":      ScrapeInterval,
		"scrapeInterval":          ScrapeInterval,
		"reloadStrategy":          "HTTP",
		"additionalScrapeConfigs": map[string]any{"name": p.service() + "-additional-scrape-configs", "key": "prometheus.yaml"},
		"podMetadata":             map[string]any{"labels": kube.AnyMap(podLabels)},
		"priorityClassName":       s.priorityClass,
		"replicas":                int64(s.replicas),
		"shards":                  int64(1),
		"image":                   s.img[ImagePrometheus],
		"imagePullPolicy":         string(corev1.PullIfNotPresent),
		"resources":               map[string]any{"requests": map[string]any{"cpu": cpu, "memory": memory}},
		"serviceAccountName":      p.service(),
		"securityContext":         map[string]any{"runAsUser": int64(0)},
		"storage":                 volumeClaimTemplate("prometheus-db", storage),
		"serviceMonitorSelector":  sel,
		"podMonitorSelector":      sel,
		"probeSelector":           sel,
		"scrapeConfigSelector":    sel,
		"ruleSelector":            sel,
		"web":                     map[string]any{"maxConnections": int64(1024)},
		"retentionSize":           retentionSize(storage),
	}
	if v := imageVersion(s.img[ImagePrometheus]); v != "" {
		spec["version"] = v
	}
	if !p.restrictToNamespace {
		for _, field := range []string{"serviceMonitorNamespaceSelector", "podMonitorNamespaceSelector", "probeNamespaceSelector", "scrapeConfigNamespaceSelector", "ruleNamespaceSelector"} {
			spec[field] = map[string]any{}
		}
	}
	if p.retention != "" {
		spec["retention"] = p.retention
	}
	if len(p.externalLabels) > 0 {
		spec["externalLabels"] = kube.AnyMap(p.externalLabels)
	}
	if p.host != "" {
		spec["externalURL"] = "https://" + p.host
	}
	if len(p.alertmanagers) > 0 {
		var ams []any
		for _, am := range p.alertmanagers {
			entry := map[string]any{
				"name": am.service,
				"port": alertmanagerPortName,
				"alertRelabelings": []any{map[string]any{
					"sourceLabels": []any{"ignoreAlerts"}, "regex": "true", "action": "drop",
				}},
			}
			// Gardener leaves the namespace out for the Prometheus' own; the CRD the engine installs
			// requires it, so it is spelled out.
			entry["namespace"] = am.namespace
			if am.namespace == "" {
				entry["namespace"] = s.namespace
			}
			ams = append(ams, entry)
		}
		spec["alerting"] = map[string]any{"alertmanagers": ams}
	}
	return customResource("monitoring.coreos.com/v1", "Prometheus", s.namespace, p.name, prometheusLabels(p.name), spec)
}

// prometheusVPA scales the prometheus container's requests and leaves the config reloader alone
// (prometheus/vpa.go).
func prometheusVPA(s stack, p prometheusInstance) *unstructured.Unstructured {
	min := p.vpaMinAllowed
	if min == nil {
		min = map[string]string{"memory": "100M"}
	}
	labels := merge(prometheusLabels(p.name), map[string]string{labelObservabilityApp: p.service()})
	return verticalPodAutoscaler(s.namespace, p.service(), labels, "monitoring.coreos.com/v1", "Prometheus", p.name,
		containerPolicy{container: "prometheus", minAllowed: min, requestsOnly: true},
		containerPolicy{container: "config-reloader", off: true})
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
	return customResource("monitoring.coreos.com/v1alpha1", "ScrapeConfig", namespace, label+"-"+source, prometheusSelector(label), spec)
}

// alertmanager renders the Alertmanager name, which runs as alertmanager-<name>, as Gardener's
// alertmanager component does (alertmanager/alertmanager.go). It takes the AlertmanagerConfigs
// labelled alertmanager=<name> of every namespace; their routes apply as written (matcher strategy
// None).
func alertmanager(s stack, name string, storage resource.Quantity) *unstructured.Unstructured {
	labels := alertmanagerLabels(name)
	if s.kind == shootStack {
		labels[labelGardenRole] = roleMonitoring
	}
	podLabels := merge(labels, map[string]string{
		toDNS: allowed, toPublicNetworks: allowed, toPrivateNetworks: allowed,
		labelObservabilityApp: "alertmanager-" + name,
	})
	spec := map[string]any{
		"podMetadata":                         map[string]any{"labels": kube.AnyMap(podLabels)},
		"priorityClassName":                   s.priorityClass,
		"replicas":                            int64(s.replicas),
		"image":                               s.img[ImageAlertmanager],
		"imagePullPolicy":                     string(corev1.PullIfNotPresent),
		"resources":                           map[string]any{"requests": map[string]any{"memory": "20Mi"}},
		"securityContext":                     map[string]any{"runAsUser": int64(0)},
		"storage":                             volumeClaimTemplate("alertmanager-db", storage),
		"alertmanagerConfigSelector":          matchLabels(AlertmanagerLabel, name),
		"alertmanagerConfigNamespaceSelector": map[string]any{},
		"alertmanagerConfigMatcherStrategy":   map[string]any{"type": "None"},
		"logLevel":                            "info",
		"forceEnableClusterMode":              true,
	}
	if v := imageVersion(s.img[ImageAlertmanager]); v != "" {
		spec["version"] = v
	}
	return customResource("monitoring.coreos.com/v1", "Alertmanager", s.namespace, name, labels, spec)
}

// alertmanagerVPA scales the alertmanager container's memory between 20Mi and 200Mi and leaves
// the config reloader alone (alertmanager/vpa.go).
func alertmanagerVPA(s stack, name string) *unstructured.Unstructured {
	labels := merge(alertmanagerLabels(name), map[string]string{labelObservabilityApp: "alertmanager-" + name})
	return verticalPodAutoscaler(s.namespace, "alertmanager-"+name, labels, "monitoring.coreos.com/v1", "Alertmanager", name,
		containerPolicy{container: "alertmanager", minAllowed: map[string]string{"memory": "20Mi"}, maxAllowed: map[string]string{"memory": "200Mi"},
			requestsOnly: true, controlledResources: []string{"memory"}},
		containerPolicy{container: "config-reloader", off: true})
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

// customResource builds a namespaced custom resource with a spec.
func customResource(apiVersion, kind, namespace, name string, labels map[string]string, spec map[string]any) *unstructured.Unstructured {
	return kube.Custom(apiVersion, kind, namespace, name, labels, map[string]any{"spec": spec})
}
