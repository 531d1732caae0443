package observability

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/declarative-gardener/gardener/components/internal/decode"
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
	// SeedName is the Seed's name, the external label seed of the aggregate Prometheus' series
	// (newAggregatePrometheus in pkg/gardenlet/controller/seed/seed/components.go).
	SeedName string
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

// SeedObjects renders a seed's observability stack into its garden namespace as gardenlet's seed
// reconciler deploys it (pkg/gardenlet/controller/seed/seed/components.go): the prometheus-
// operator with its CRDs, kube-state-metrics-seed, Plutono, with logging Vali, the cache, seed and
// aggregate Prometheus and alertmanager-seed. Objects that the garden's stack provides are left out
// when the seed is the garden runtime cluster.
//
// Not rendered: fluent-operator and fluent-bit (Vali receives no logs until a log shipper is
// added), the Prometheus instances' rules, the cAdvisor, kubelet and node-exporter scrapes of the
// cache Prometheus and the dashboards.
func SeedObjects(v SeedValues) ([]render.Object, error) {
	v = v.withDefaults()
	if v.Cluster.Name == "" {
		return nil, fmt.Errorf("cluster is not set")
	}
	promStorage, valiStorage, img, err := resolve(v.PrometheusStorage, v.ValiStorage, v.Images, gardenImages)
	if err != nil {
		return nil, err
	}
	s := stack{kind: seedStack, namespace: v.Namespace, priorityClass: SeedPriorityClass, replicas: stackReplicas, img: img}
	instances := seedPrometheuses(v)

	var objs []runtime.Object
	if !v.RuntimeIsGarden {
		crds, err := crdObjects()
		if err != nil {
			return nil, err
		}
		objs = append(crds, operatorObjects(s, true)...)
		objs = append(objs, seedOwnComponents(s, v, valiStorage)...)
	}
	objs = append(objs, kubeStateMetricsObjects(s, kubeStateMetrics{suffix: "-seed"})...)
	objs = append(objs,
		ksmScrapeConfig(v.Namespace, CachePrometheusName, KubeStateMetricsName+"-seed"),
		ksmScrapeConfig(v.Namespace, SeedPrometheusName, KubeStateMetricsName+"-seed"),
	)
	objs = append(objs, prometheusRBAC(s, instances)...)
	for _, p := range instances {
		objs = append(objs, prometheus(s, p, promStorage), prometheusVPA(s, p))
	}
	objs = append(objs, extensionsPodMonitor(v.Namespace), cacheFederation(v.Namespace), shootFederation(v.Namespace))
	if *v.Alerting {
		objs = append(objs, alertmanagerObjects(s, SeedAlertmanagerName)...)
		objs = append(objs, alertmanager(s, SeedAlertmanagerName, resource.MustParse("1Gi")), alertmanagerVPA(s, SeedAlertmanagerName))
	}
	if host := ingressHost(SeedPrometheusHostPrefix, v.IngressDomain); host != "" && v.IngressAuthSecretName != "" {
		objs = append(objs, ingress(v.Namespace, "prometheus-"+AggregatePrometheusName, prometheusLabels(AggregatePrometheusName), host,
			v.IngressTLSSecretName, v.IngressAuthSecretName, intstr.FromInt32(prometheusWeb)))
	}
	return objects(v.Cluster.Name, objs)
}

// seedOwnComponents are Plutono and Vali, which a seed in the garden runtime cluster takes from
// the garden (the seed reconciler skips them there, pkg/gardenlet/controller/seed/seed/reconciler_reconcile.go).
func seedOwnComponents(s stack, v SeedValues, valiStorage resource.Quantity) []runtime.Object {
	out := plutonoObjects(s, seedPlutono(v))
	if v.LoggingEnabled {
		out = append(out, valiObjects(s, valiStorage)...)
	}
	return out
}

// seedPlutono loads the dashboards labelled dashboard.monitoring.gardener.cloud/seed=true.
func seedPlutono(v SeedValues) plutonoSpec {
	return plutonoSpec{
		role: SeedPrometheusName, host: ingressHost(SeedPlutonoHostPrefix, v.IngressDomain),
		tlsSecret: v.IngressTLSSecretName, adminSecret: v.PlutonoAdminSecretName,
	}
}

// seedPrometheuses are the cache, seed and aggregate Prometheus with the retention, requests and
// network labels gardenlet gives them (newCachePrometheus, newSeedPrometheus and
// newAggregatePrometheus in pkg/gardenlet/controller/seed/seed/components.go).
func seedPrometheuses(v SeedValues) []prometheusInstance {
	annotations := prometheusServiceAnnotations(seedStack, "")
	aggregate := prometheusInstance{
		name: AggregatePrometheusName, retention: "30d", clusterWide: true, serviceAnnotations: annotations,
		externalLabels: map[string]string{"seed": v.SeedName},
		vpaMinAllowed:  map[string]string{"memory": "1000M"},
		podLabels: map[string]string{
			toScrapeTargets(seedScrapeTargets):                                        allowed,
			toScrapeTargets("istio-system-" + seedScrapeTargets):                      allowed,
			toScrapeTargets("all-istio-ingresses-" + seedScrapeTargets):               allowed,
			toService(shootsAlias+"-prometheus-"+ShootPrometheusName, prometheusPort): allowed,
		},
		host: ingressHost(SeedPrometheusHostPrefix, v.IngressDomain),
	}
	if v.SeedName == "" {
		aggregate.externalLabels = nil
	}
	if *v.Alerting {
		aggregate.alertTo("alertmanager-"+SeedAlertmanagerName, "")
	}
	return []prometheusInstance{
		{name: CachePrometheusName, retention: "1d", clusterWide: true, serviceAnnotations: annotations,
			podLabels: map[string]string{toScrapeTargets(seedScrapeTargets): allowed}},
		{name: SeedPrometheusName, clusterWide: true, serviceAnnotations: annotations,
			vpaMinAllowed: map[string]string{"memory": "400Mi"},
			podLabels: map[string]string{
				toScrapeTargets(seedScrapeTargets):                 allowed,
				toScrapeTargets("extensions-" + seedScrapeTargets): allowed,
				toService(shootsAlias+"-vpa-recommender", 8942):    allowed,
			}},
		aggregate,
	}
}

// extensionsPodMonitor has the seed Prometheus scrape the pods in extension namespaces annotated
// prometheus.io/scrape=true on the port of prometheus.io/port, with the job named by
// prometheus.io/name (CentralPodMonitors in pkg/component/observability/monitoring/prometheus/seed).
func extensionsPodMonitor(namespace string) *unstructured.Unstructured {
	const annotation = "__meta_kubernetes_pod_annotation_prometheus_io_"
	spec := map[string]any{
		"namespaceSelector": map[string]any{"any": true},
		"selector":          map[string]any{},
		"podMetricsEndpoints": []any{map[string]any{"relabelings": []any{
			map[string]any{"sourceLabels": []any{"__meta_kubernetes_namespace", annotation + "scrape", annotation + "port"}, "regex": "extension-(.+);true;(.+)", "action": "keep"},
			map[string]any{"sourceLabels": []any{annotation + "name"}, "regex": "(.+)", "action": "replace", "targetLabel": "job"},
			map[string]any{"sourceLabels": []any{"__address__", annotation + "port"}, "regex": `([^:]+)(?::\d+)?;(\d+)`, "action": "replace", "replacement": "$1:$2", "targetLabel": "__address__"},
			map[string]any{"action": "labelmap", "regex": "__meta_kubernetes_pod_label_(.+)"},
		}}},
	}
	return customResource("monitoring.coreos.com/v1", "PodMonitor", namespace, SeedPrometheusName+"-extensions", prometheusSelector(SeedPrometheusName), spec)
}

// cacheFederation has the aggregate Prometheus federate the cache Prometheus' metering and seed
// series and the garden and extension namespaces' kube-state-metrics, cAdvisor and etcd-druid
// series (CentralScrapeConfigs in pkg/component/observability/monitoring/prometheus/aggregate).
func cacheFederation(namespace string) *unstructured.Unstructured {
	spec := map[string]any{
		"honorTimestamps": false,
		"metricsPath":     "/federate",
		"params": map[string]any{"match[]": []any{
			`{__name__=~"metering:.+", __name__!~"metering:.+(over_time|_seconds|:this_month)"}`,
			`{__name__=~"seed:(.+):(.+)"}`,
			`{job="kube-state-metrics",namespace=~"garden|extension-.+"}`,
			`{job="kube-state-metrics",namespace=""}`,
			`{job="cadvisor",namespace=~"garden|extension-.+"}`,
			`{job="etcd-druid",namespace="garden"}`,
		}},
		"kubernetesSDConfigs": []any{map[string]any{"role": "Service", "namespaces": map[string]any{"names": []any{DefaultNamespace}}}},
		"relabelings": []any{
			map[string]any{"sourceLabels": []any{"__meta_kubernetes_service_name", "__meta_kubernetes_service_port_name"}, "regex": "prometheus-" + CachePrometheusName + ";web", "action": "keep"},
			map[string]any{"action": "replace", "replacement": "prometheus", "targetLabel": "job"},
		},
	}
	return customResource("monitoring.coreos.com/v1alpha1", "ScrapeConfig", namespace, AggregatePrometheusName+"-prometheus", prometheusSelector(AggregatePrometheusName), spec)
}

// shootFederation has the aggregate Prometheus federate the shoot Prometheus instances of all
// shoot namespaces (CentralServiceMonitors in
// pkg/component/observability/monitoring/prometheus/aggregate).
func shootFederation(namespace string) *unstructured.Unstructured {
	spec := map[string]any{
		"selector":          map[string]any{"matchLabels": map[string]any{labelApp: "prometheus", labelRole: roleMonitoring}},
		"namespaceSelector": map[string]any{"any": true},
		"endpoints": []any{map[string]any{
			"path": "/federate", "honorTimestamps": false, "honorLabels": true, "port": "web",
			"params": map[string]any{"match[]": []any{
				`{__name__="shoot:availability"}`,
				`{__name__=~"shoot:(.+):(.+)",__name__!="shoot:apiserver_latency_seconds:quantile"}`,
				`{__name__="ALERTS"}`,
				`{__name__="prometheus_tsdb_lowest_timestamp"}`,
				`{__name__="prometheus_tsdb_storage_blocks_bytes"}`,
				`{__name__="kubeproxy_network_latency:quantile"}`,
				`{__name__="kubeproxy_sync_proxy:quantile"}`,
			}},
			"relabelings": []any{
				map[string]any{"action": "replace", "replacement": "shoot-prometheus", "targetLabel": "job"},
				map[string]any{"sourceLabels": []any{"__meta_kubernetes_namespace"}, "regex": "shoot-(.+)", "action": "keep"},
			},
		}},
	}
	return customResource("monitoring.coreos.com/v1", "ServiceMonitor", namespace, AggregatePrometheusName+"-shoot-prometheus", prometheusSelector(AggregatePrometheusName), spec)
}
