package observability

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/kubeapiserver"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The seed's Prometheus instances, deployed in the seed's garden namespace (Gardener's "Alerting"
// docs/monitoring/alerting.md): prometheus-operator runs each as the StatefulSet prometheus-<name>,
// which gives the component names of Gardener's "Priority Classes"
// docs/development/priority-classes.md. Each selects the monitoring objects labelled
// prometheus=<name> (Gardener's "Logging And Monitoring"
// docs/extensions/logging-and-monitoring.md).
const (
	// CachePrometheusName scrapes the seed's nodes and pods once, for the shoot Prometheus
	// instances to federate their control plane's share from (Gardener's
	// docs/extensions/logging-and-monitoring.md, docs/monitoring/alerting.md).
	CachePrometheusName = "cache"
	// SeedPrometheusName scrapes the extensions' pods, the operators' entry point for debugging
	// (Gardener's docs/monitoring/alerting.md).
	SeedPrometheusName = "seed"
	// AggregatePrometheusName keeps the pre-aggregated data of the cache and shoot Prometheus
	// instances, is exposed through an Ingress and alerts (Gardener's docs/monitoring/alerting.md,
	// docs/extensions/logging-and-monitoring.md).
	AggregatePrometheusName = "aggregate"
	// SeedAlertmanagerName runs as alertmanager-seed (Gardener's
	// docs/development/priority-classes.md). Its AlertmanagerConfigs are labelled alertmanager=seed,
	// by analogy with alertmanager=garden (Gardener's "Gardener Operator" docs/concepts/operator.md);
	// Gardener's documentation names no label for the seed.
	SeedAlertmanagerName = "seed"
)

// Defaults and fixed values of the seed stack.
const (
	// SeedPriorityClass is the class of every pod of the seed's stack (Gardener's
	// docs/development/priority-classes.md).
	SeedPriorityClass = priorityclasses.System600
	// SeedScrapeTargetsAlias is the alias of the seed's Prometheus pods: Services annotated
	// networking.resources.gardener.cloud/from-all-seed-scrape-targets-allowed-ports let them
	// in (Gardener's "Network Policies" docs/operations/network_policies.md).
	SeedScrapeTargetsAlias = "all-seed-scrape-targets"
	// SeedPlutonoHostPrefix and SeedPrometheusHostPrefix are the first labels of the hosts of
	// the seed's Plutono and aggregate Prometheus under the seed's ingress domain, as the local
	// setup lists them (Gardener's "Getting Started Locally"
	// docs/deployment/getting_started_locally.md: p-seed and
	// g-seed.ingress.local.seed.local.gardener.cloud).
	SeedPlutonoHostPrefix    = "g-seed"
	SeedPrometheusHostPrefix = "p-seed"
	// DefaultSeedValiStorage is the central Vali's volume size (Gardener's "Configuring Logging"
	// docs/deployment/configuring_logging.md).
	DefaultSeedValiStorage = "100Gi"
)

// SeedValues configure a seed's observability stack. The zero value of every optional field is
// its default.
type SeedValues struct {
	// Cluster is the seed cluster (required).
	Cluster decode.Cluster
	// Namespace is the seed's garden namespace; "" means "garden" (Gardener's
	// docs/extensions/logging-and-monitoring.md).
	Namespace string
	// Images overrides image vector entries by image name (see ImageNames).
	Images map[string]string
	// IngressDomain is the seed's ingress domain (.spec.ingress.domain), under which the seed's
	// nginx-ingress controller publishes Plutono and Prometheus (Gardener's "DNS Record"
	// docs/extensions/resources/dnsrecord.md); "" renders no Ingress.
	IngressDomain string
	// IngressTLSSecretName names the Secret (in Namespace) with the certificate the Ingresses
	// serve, such as the seed's wildcard certificate seed-ingress-certificate (Gardener's "Trusted Tls
	// For Control Planes" docs/operations/trusted-tls-for-control-planes.md); "" leaves it to the
	// ingress controller's default.
	IngressTLSSecretName string
	// IngressAuthSecretName names the Secret (in Namespace) whose key auth holds the htpasswd
	// credentials the ingress controller demands before it forwards to the aggregate Prometheus.
	// Prometheus has no authentication of its own, so "" renders no Ingress for it.
	IngressAuthSecretName string
	// PlutonoAdminSecretName names the Secret (in Namespace) whose key password is the password
	// of Plutono's admin user; "" means "plutono-admin".
	PlutonoAdminSecretName string
	// PrometheusStorage is the volume size of each Prometheus; "" means "10Gi".
	PrometheusStorage string
	// ValiStorage is the volume size of Vali; "" means "100Gi" (Gardener's
	// docs/deployment/configuring_logging.md).
	ValiStorage string
	// LoggingEnabled renders Vali, as gardenlet's logging.enabled does (Gardener's
	// docs/extensions/logging-and-monitoring.md).
	LoggingEnabled bool
	// Alerting renders alertmanager-seed and has the aggregate Prometheus alert to it; nil
	// means true (Gardener's docs/extensions/logging-and-monitoring.md, docs/monitoring/alerting.md).
	Alerting *bool
	// RuntimeIsGarden: the seed is the garden runtime cluster, whose observability stack
	// already runs prometheus-operator (with its CRDs), Plutono, kube-state-metrics and Vali
	// there, so the seed's stack leaves them out (Gardener's docs/concepts/operator.md). The garden's
	// stack must then watch all namespaces (Values.WatchAllNamespaces).
	RuntimeIsGarden bool
}

func (v SeedValues) withDefaults() SeedValues {
	defaultTo(&v.Namespace, DefaultNamespace)
	defaultStack(&v.PrometheusStorage, &v.ValiStorage, DefaultSeedValiStorage, &v.PlutonoAdminSecretName, &v.Alerting)
	return v
}

// SeedPlutonoURL is where operators reach the seed's Plutono; "" without an ingress domain or
// when the garden's Plutono serves the seed.
func SeedPlutonoURL(v SeedValues) string {
	if v.RuntimeIsGarden {
		return ""
	}
	return seedPlutono(v.withDefaults()).url()
}

// SeedObjects renders a seed's observability stack into its garden namespace: the prometheus-
// operator with its CRDs, the cache, seed and aggregate Prometheus, alertmanager-seed,
// kube-state-metrics, Plutono and, with logging, Vali (Gardener's
// docs/extensions/logging-and-monitoring.md, docs/monitoring/alerting.md). Objects that the
// garden's stack provides are left out when the seed is the garden runtime cluster.
//
// Not rendered: fluent-operator and fluent-bit (as in the garden stack, Vali receives no logs
// until a log shipper is added), and the cAdvisor and node-exporter scrapes of the cache
// Prometheus.
func SeedObjects(v SeedValues) ([]render.Object, error) {
	v = v.withDefaults()
	if v.Cluster.Name == "" {
		return nil, fmt.Errorf("cluster is not set")
	}
	promStorage, valiStorage, img, err := resolve(v.PrometheusStorage, v.ValiStorage, v.Images, gardenImages)
	if err != nil {
		return nil, err
	}
	s := stack{namespace: v.Namespace, priorityClass: SeedPriorityClass, replicas: stackReplicas, img: img,
		networkPolicies: true, scrapeAlias: SeedScrapeTargetsAlias}
	instances := seedPrometheuses(v)

	var typed []runtime.Object
	if !v.RuntimeIsGarden {
		if typed, err = crdObjects(); err != nil {
			return nil, err
		}
		typed = append(typed, operatorObjects(s, true)...)
	}
	typed = append(typed, prometheusRBAC(s, instances)...)
	if *v.Alerting {
		typed = append(typed, alertmanagerObjects(s, SeedAlertmanagerName)...)
	}
	if !v.RuntimeIsGarden {
		more, err := seedOwnComponents(s, v, valiStorage)
		if err != nil {
			return nil, err
		}
		typed = append(typed, more...)
	}
	if host := ingressHost(SeedPrometheusHostPrefix, v.IngressDomain); host != "" && v.IngressAuthSecretName != "" {
		typed = append(typed, ingress(v.Namespace, "prometheus-"+AggregatePrometheusName, "prometheus", host, v.IngressTLSSecretName, v.IngressAuthSecretName))
	}
	return objects(v.Cluster.Name, typed, seedCustomResources(v, s, instances, promStorage))
}

// seedOwnComponents are kube-state-metrics, Plutono and Vali, which a seed in the garden
// runtime cluster takes from the garden (Gardener's docs/concepts/operator.md).
func seedOwnComponents(s stack, v SeedValues, valiStorage resource.Quantity) ([]runtime.Object, error) {
	out := kubeStateMetricsObjects(s, nil)
	plutono, err := plutonoObjects(s, seedPlutono(v))
	if err != nil {
		return nil, err
	}
	out = append(out, plutono...)
	if v.LoggingEnabled {
		vali, err := valiObjects(s, valiStorage)
		if err != nil {
			return nil, err
		}
		out = append(out, vali...)
	}
	return out, nil
}

// seedPlutono shows the aggregate Prometheus (the default) and the seed Prometheus, the
// operators' entry point (Gardener's docs/monitoring/alerting.md), and with logging the seed's Vali
// (Gardener's docs/extensions/logging-and-monitoring.md).
func seedPlutono(v SeedValues) plutonoSpec {
	p := plutonoSpec{
		role: SeedPrometheusName, prometheus: []string{"prometheus-" + AggregatePrometheusName, "prometheus-" + SeedPrometheusName},
		vali: v.LoggingEnabled, host: ingressHost(SeedPlutonoHostPrefix, v.IngressDomain),
		tlsSecret: v.IngressTLSSecretName, adminSecret: v.PlutonoAdminSecretName,
	}
	p.datasourceLabels = datasourceLabels(p)
	return p
}

// datasourceLabels are the network labels that let Plutono reach its datasources' pods
// (Gardener's "Gardener Resource Manager" docs/concepts/resource-manager.md).
func datasourceLabels(p plutonoSpec) map[string]string {
	out := map[string]string{}
	for _, svc := range p.prometheus {
		out[kubeapiserver.ToServiceLabel(svc, prometheusPort)] = allowed
	}
	if p.vali {
		out[kubeapiserver.ToServiceLabel(ValiServiceName, valiPort)] = allowed
	}
	return out
}

// seedPrometheuses are the cache, seed and aggregate Prometheus. Gardener's documentation gives the
// cache Prometheus' retention (about a day, Gardener's docs/monitoring/alerting.md); the others'
// are an operator's choice. All discover targets cluster-wide and reach the Services annotated for
// the seed's alias.
func seedPrometheuses(v SeedValues) []prometheusInstance {
	network := map[string]string{toRuntimeAPIServer: allowed, toScrapeTargets(SeedScrapeTargetsAlias): allowed}
	// The shoot Prometheus instances federate from the cache Prometheus (Gardener's
	// docs/monitoring/alerting.md), the aggregate Prometheus too (Gardener's
	// docs/monitoring/alerting.md): its Service admits both aliases, the shoots' from the shoot
	// namespaces (gardener.cloud/role=shoot, Gardener's "Provider Local"
	// docs/extensions/provider-local.md).
	shootAlias, port := kubeapiserver.ScrapeAnnotation(ShootScrapeTargetsAlias, prometheusPort)
	seedAlias, _ := kubeapiserver.ScrapeAnnotation(SeedScrapeTargetsAlias, prometheusPort)
	cacheAnnotations := map[string]string{
		shootAlias:         port,
		seedAlias:          port,
		namespaceSelectors: `[{"matchLabels":{"gardener.cloud/role":"shoot"}}]`,
	}
	aggregate := prometheusInstance{name: AggregatePrometheusName, label: AggregatePrometheusName, retention: "30d", rules: prometheusRules, clusterWide: true, podLabels: network}
	if *v.Alerting {
		aggregate.alertTo(SeedAlertmanagerName)
	}
	return []prometheusInstance{
		{name: CachePrometheusName, label: CachePrometheusName, retention: "1d", rules: prometheusRules, clusterWide: true, podLabels: network, serviceAnnotations: cacheAnnotations},
		{name: SeedPrometheusName, label: SeedPrometheusName, retention: "7d", rules: prometheusRules, clusterWide: true, podLabels: network},
		aggregate,
	}
}

// seedCustomResources are the Prometheus and Alertmanager instances and what they scrape: the
// cache Prometheus kube-state-metrics (Gardener's docs/monitoring/alerting.md), the seed Prometheus
// the annotated extension pods (Gardener's docs/monitoring/alerting.md), the aggregate Prometheus
// the cache and the shoot Prometheus instances (Gardener's docs/monitoring/alerting.md).
func seedCustomResources(v SeedValues, s stack, instances []prometheusInstance, storage resource.Quantity) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, p := range instances {
		out = append(out, prometheus(s, p, storage))
	}
	if *v.Alerting {
		out = append(out, alertmanager(s, SeedAlertmanagerName, SeedAlertmanagerName))
	}
	// Gardener's documentation does not say which series the aggregate Prometheus keeps; these are the
	// recording rules' results by Gardener's naming (seed:..., shoot:...) and the targets' up.
	return append(out,
		serviceMonitor(v.Namespace, CachePrometheusName, KubeStateMetricsName, ksmEndpoint()),
		extensionsPodMonitor(v.Namespace),
		federation(v.Namespace, AggregatePrometheusName, "prometheus-"+CachePrometheusName, v.Namespace, `{__name__=~"seed:.+"}`, `{__name__="up"}`),
		shootFederation(v.Namespace),
	)
}

// extensionsPodMonitor has the seed Prometheus scrape the pods in extension namespaces annotated
// prometheus.io/scrape=true on the port of prometheus.io/port, with the job named by
// prometheus.io/name (Gardener's docs/monitoring/alerting.md).
func extensionsPodMonitor(namespace string) *unstructured.Unstructured {
	const annotation = "__meta_kubernetes_pod_annotation_prometheus_io_"
	spec := map[string]any{
		"namespaceSelector": map[string]any{"any": true},
		"selector":          map[string]any{},
		"podMetricsEndpoints": []any{map[string]any{"relabelings": []any{
			keep("__meta_kubernetes_namespace", "extension-.+"),
			keep(annotation+"scrape", "true"),
			map[string]any{
				"action": "replace", "sourceLabels": []any{"__address__", annotation + "port"},
				"regex": `([^:]+)(?::\d+)?;(\d+)`, "replacement": "$1:$2", "targetLabel": "__address__",
			},
			map[string]any{"action": "replace", "sourceLabels": []any{annotation + "name"}, "regex": "(.+)", "targetLabel": "job"},
		}}},
	}
	labels := map[string]string{partOf: "observability", PrometheusLabel: SeedPrometheusName}
	return customResource("monitoring.coreos.com/v1", "PodMonitor", namespace, SeedPrometheusName+"-extensions", labels, spec)
}

// shootFederation has the aggregate Prometheus federate the shoot Prometheus instances of all
// shoot namespaces (Gardener's docs/monitoring/alerting.md), whose Services admit it
// (shootPrometheus).
func shootFederation(namespace string) *unstructured.Unstructured {
	endpoint := map[string]any{
		"port": "web", "path": "/federate", "honorLabels": true,
		"params":      map[string]any{"match[]": []any{`{__name__=~"shoot:.+"}`, `{__name__="up"}`}},
		"relabelings": []any{keep("__meta_kubernetes_namespace", "shoot--.+")},
	}
	sm := serviceMonitorSelecting(namespace, AggregatePrometheusName, "prometheus-"+ShootPrometheusName,
		map[string]string{"app": "prometheus"}, endpoint)
	_ = unstructured.SetNestedField(sm.Object, map[string]any{"any": true}, "spec", "namespaceSelector") // a fresh map
	return sm
}

// keep is a relabeling that keeps the targets whose label matches regex.
func keep(label, regex string) map[string]any {
	return map[string]any{"action": "keep", "sourceLabels": []any{label}, "regex": regex}
}
