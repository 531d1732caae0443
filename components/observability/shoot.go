package observability

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/replicas"
	"github.com/declarative-gardener/gardener/components/internal/shootaccess"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Names of a shoot control plane's observability stack in its namespace (Gardener's "Priority
// Classes" docs/development/priority-classes.md).
const (
	// ShootPrometheusName runs as prometheus-shoot and selects the monitoring objects labelled
	// prometheus=shoot (Gardener's "Logging And Monitoring"
	// docs/extensions/logging-and-monitoring.md).
	ShootPrometheusName = "shoot"
	// ShootAlertmanagerName runs as alertmanager-shoot. Its AlertmanagerConfigs are labelled
	// alertmanager=shoot, by analogy with alertmanager=garden (Gardener's "Gardener Operator"
	// docs/concepts/operator.md); Gardener's documentation names no label for shoots.
	ShootAlertmanagerName = "shoot"
	// BlackboxExporterName probes the shoot's API server from the seed (Gardener's "Alerting"
	// docs/monitoring/alerting.md, "Connectivity" docs/monitoring/connectivity.md).
	BlackboxExporterName = "blackbox-exporter"
	// EventLoggerName writes the events of the shoot's kube-system and of the control-plane
	// namespace to its log, for the log shipper to send to the shoot's Vali (Gardener's "Logging"
	// docs/usage/observability/logging.md).
	EventLoggerName = "event-logger"
	// ShootAccessPrometheusSecret is the token-requestor Secret with the token the shoot
	// Prometheus authenticates with at the shoot's API server and the components that delegate
	// to it (Gardener's docs/extensions/logging-and-monitoring.md).
	ShootAccessPrometheusSecret = "shoot-access-prometheus-shoot"
	// ShootRBACName is the ManagedResource with the stack's permissions in the shoot, applied
	// by the shoot's gardener-resource-manager (class unset, Gardener's "Conventions"
	// docs/extensions/conventions.md).
	ShootRBACName = "shoot-core-observability"
)

// Defaults and fixed values of the shoot stack.
const (
	// ShootPriorityClass is the class of every pod of the shoot's stack (Gardener's
	// docs/development/priority-classes.md).
	ShootPriorityClass = priorityclasses.System100
	// ShootScrapeTargetsAlias is the alias of the shoot Prometheus: Services annotated
	// networking.resources.gardener.cloud/from-all-scrape-targets-allowed-ports let it in
	// (Gardener's "Network Policies" docs/operations/network_policies.md).
	ShootScrapeTargetsAlias = "all-scrape-targets"
	// Host prefixes under the seed's ingress domain, <prefix>-<project>--<shoot>, as the local
	// setup lists them (Gardener's "Getting Started Locally"
	// docs/deployment/getting_started_locally.md: gu- for the users' Plutono, p- for Prometheus). The
	// documents name no host for the Alertmanager, which is exposed too (Gardener's "Trusted Tls For
	// Control Planes" docs/operations/trusted-tls-for-control-planes.md); au- follows the pattern.
	ShootPlutonoHostPrefix      = "gu"
	ShootPrometheusHostPrefix   = "p"
	ShootAlertmanagerHostPrefix = "au"
	// DefaultShootValiStorage is the volume size of a shoot's Vali; Gardener's documentation gives
	// only the central Vali's (Gardener's "Configuring Logging"
	// docs/deployment/configuring_logging.md).
	DefaultShootValiStorage = "30Gi"
)

// ShootValues configure the observability stack of one shoot control plane. The caller decides
// whether there is one: shoots of purpose testing get none (Gardener's "Shoot Cluster Purposes"
// docs/usage/shoot/shoot_purposes.md) and no Vali either (Gardener's
// docs/extensions/logging-and-monitoring.md); LoggingEnabled is gardenlet's logging.enabled for the
// other purposes. Replicas are 1 whatever the control plane's availability (Gardener's "High
// Availability Of Components" docs/development/high-availability-of-components.md). The zero value
// of every optional field is its default; the default Secret names are those the shoot's control
// plane already has.
type ShootValues struct {
	// Cluster is the seed cluster (required).
	Cluster decode.Cluster
	// Namespace is the control-plane namespace shoot--<project>--<name> (required).
	Namespace string
	// Project and Name of the shoot (required): they name the Ingress hosts.
	Project, Name string
	// Images overrides image vector entries by image name (see ShootImageNames).
	Images map[string]string
	// IngressDomain is the seed's ingress domain, under which the seed's nginx-ingress
	// controller publishes Plutono, Prometheus and Alertmanager (Gardener's "DNS Record"
	// docs/extensions/resources/dnsrecord.md); "" renders no Ingress.
	IngressDomain string
	// IngressTLSSecretName names the Secret (in Namespace) with the certificate the Ingresses
	// serve, such as the seed's wildcard certificate gardenlet copies into the namespace
	// (Gardener's docs/operations/trusted-tls-for-control-planes.md); "" leaves it to the ingress
	// controller's default.
	IngressTLSSecretName string
	// IngressAuthSecretName names the Secret (in Namespace) whose key auth holds the htpasswd
	// credentials the ingress controller demands before it forwards to Prometheus and
	// Alertmanager (Gardener's "Shoot Credentials Rotation"
	// docs/usage/shoot-operations/shoot_credentials_rotation.md). They have no authentication of their
	// own, so "" renders no Ingress for them.
	IngressAuthSecretName string
	// PlutonoAdminSecretName names the Secret (in Namespace) whose key password is the password
	// of Plutono's admin user; "" means "plutono-admin".
	PlutonoAdminSecretName string
	// CASecretName names the Secret with the shoot's cluster CA (key ca.crt), which signs the
	// API server's certificate; "" means "ca".
	CASecretName string
	// EtcdCASecretName and EtcdClientSecretName name the Secrets with etcd's CA (key ca.crt) and
	// a client certificate (keys tls.crt, tls.key) for scraping etcd; "" means "ca-etcd" and
	// "etcd-client".
	EtcdCASecretName, EtcdClientSecretName string
	// GenericKubeconfigSecretName names the Secret with the shoot's generic token kubeconfig
	// (Gardener's docs/extensions/conventions.md); "" means "generic-token-kubeconfig".
	GenericKubeconfigSecretName string
	// APIServerHost is the API server's external host (api.<domain>); blackbox-exporter probes
	// it besides the in-cluster Service, which is the seed's view of the shoot's connectivity
	// (Gardener's docs/monitoring/connectivity.md). "" probes the Service only.
	APIServerHost string
	// SeedNamespace is where the seed's cache Prometheus runs; "" means "garden".
	SeedNamespace string
	// LoggingEnabled renders Vali and the event-logger (Gardener's
	// docs/extensions/logging-and-monitoring.md, docs/usage/observability/logging.md).
	LoggingEnabled bool
	// Alerting renders alertmanager-shoot and has the shoot Prometheus alert to it (Gardener's
	// docs/extensions/logging-and-monitoring.md: "if configured").
	Alerting bool
	// PrometheusStorage is the Prometheus volume size; "" means "10Gi".
	PrometheusStorage string
	// ValiStorage is Vali's volume size; "" means "30Gi".
	ValiStorage string
	// Hibernated scales every workload to zero, as Gardener does with the control plane of a
	// hibernated shoot (Gardener's "Shoot Hibernation" docs/usage/shoot/shoot_hibernate.md); volumes
	// stay.
	Hibernated bool
}

func (v ShootValues) withDefaults() ShootValues {
	defaultTo(&v.PlutonoAdminSecretName, DefaultPlutonoAdminSecretName)
	defaultTo(&v.CASecretName, "ca")
	defaultTo(&v.EtcdCASecretName, "ca-etcd")
	defaultTo(&v.EtcdClientSecretName, "etcd-client")
	defaultTo(&v.GenericKubeconfigSecretName, "generic-token-kubeconfig")
	defaultTo(&v.SeedNamespace, DefaultNamespace)
	defaultTo(&v.PrometheusStorage, DefaultPrometheusStorage)
	defaultTo(&v.ValiStorage, DefaultShootValiStorage)
	return v
}

// shootImages are the image names the shoot stack runs.
var shootImages = []string{
	ImageAlertmanager, ImageBlackboxExporter, ImageEventLogger, ImageKubeStateMetrics, ImagePlutono,
	ImagePlutonoDashboardRefresher, ImagePrometheus, ImageVali,
}

// ShootImageNames lists the shoot stack's image names, sorted.
func ShootImageNames() []string { return shootImages }

// ShootHost is a host of the shoot's stack under the seed's ingress domain:
// <prefix>-<project>--<shoot>.<domain> (Gardener's docs/deployment/getting_started_locally.md); ""
// without a domain.
func ShootHost(prefix, project, name, ingressDomain string) string {
	return ingressHost(prefix+"-"+project+"--"+name, ingressDomain)
}

// ShootPlutonoURL is where users reach the shoot's Plutono; "" without an ingress domain.
func ShootPlutonoURL(v ShootValues) string {
	return shootPlutono(v).url()
}

// ShootObjects renders the observability stack of a shoot control plane into its namespace as
// gardenlet deploys it (pkg/gardenlet/operation/botanist/monitoring.go, plutono.go, logging.go,
// kubestatemetrics.go, blackboxexporter.go): prometheus-shoot with what it scrapes,
// blackbox-exporter, Plutono, kube-state-metrics, with alerting alertmanager-shoot, with logging
// Vali and the event-logger, and the ManagedResources with their permissions in the shoot.
func ShootObjects(v ShootValues) ([]render.Object, error) {
	v = v.withDefaults()
	if err := v.validate(); err != nil {
		return nil, err
	}
	promStorage, valiStorage, img, err := resolve(v.PrometheusStorage, v.ValiStorage, v.Images, shootImages)
	if err != nil {
		return nil, err
	}
	s := stack{kind: shootStack, namespace: v.Namespace, priorityClass: ShootPriorityClass, replicas: replicas.UnlessHibernated(stackReplicas, v.Hibernated), img: img}
	p := shootPrometheus(v)
	objs := []runtime.Object{shootAccess(v, p.service()).Secret()}
	objs = append(objs, prometheusRBAC(s, []prometheusInstance{p})...)
	objs = append(objs, prometheus(s, p, promStorage), prometheusVPA(s, p))
	if v.Alerting {
		objs = append(objs, alertmanagerObjects(s, ShootAlertmanagerName)...)
		objs = append(objs, alertmanager(s, ShootAlertmanagerName, resource.MustParse("1Gi")), alertmanagerVPA(s, ShootAlertmanagerName), alertmanagerMonitor(v.Namespace))
	}
	ksmAccess := shootAccess(v, KubeStateMetricsName)
	objs = append(objs, kubeStateMetricsObjects(s, kubeStateMetrics{access: &ksmAccess})...)
	objs = append(objs, ksmScrapeConfig(v.Namespace, ShootPrometheusName, KubeStateMetricsName))
	objs = append(objs, blackboxObjects(s, v)...)
	objs = append(objs, apiServerProbe(v))
	objs = append(objs, plutonoObjects(s, shootPlutono(v))...)
	if v.LoggingEnabled {
		objs = append(objs, valiObjects(s, valiStorage)...)
		objs = append(objs, eventLoggerObjects(s, shootAccess(v, EventLoggerName))...)
	}
	objs = append(objs, shootIngresses(v)...)
	objs = append(objs, federation(v.Namespace, ShootPrometheusName, "prometheus-"+CachePrometheusName, v.SeedNamespace, `{namespace="`+v.Namespace+`"}`))
	for _, t := range scrapeTargets(v) {
		objs = append(objs, t)
	}
	out, err := objects(v.Cluster.Name, objs)
	if err != nil {
		return nil, err
	}
	rbac, err := shootRBAC(v)
	if err != nil {
		return nil, err
	}
	return append(out, rbac...), nil
}

// validate checks the required values.
func (v ShootValues) validate() error {
	if v.Cluster.Name == "" {
		return fmt.Errorf("cluster is not set")
	}
	if v.Namespace == "" {
		return fmt.Errorf("namespace is required: the shoot's control-plane namespace shoot--<project>--<name>")
	}
	if v.Project == "" || v.Name == "" {
		return fmt.Errorf("project and name of the shoot are required")
	}
	if errs := validation.IsDNS1123Label(v.Namespace); len(errs) > 0 {
		return fmt.Errorf("namespace %q: %s", v.Namespace, strings.Join(errs, "; "))
	}
	if h := ShootHost(ShootAlertmanagerHostPrefix, v.Project, v.Name, v.IngressDomain); h != "" {
		if errs := validation.IsDNS1123Subdomain(h); len(errs) > 0 {
			return fmt.Errorf("ingress host %q: %s", h, strings.Join(errs, "; "))
		}
	}
	return nil
}

// shootAccess is a component's access to the shoot: its token-requestor Secret and the generic
// kubeconfig.
func shootAccess(v ShootValues, component string) shootaccess.Access {
	return shootaccess.Access{Namespace: v.Namespace, Component: component, GenericKubeconfigSecretName: v.GenericKubeconfigSecretName}
}

// shootPrometheus is prometheus-shoot as gardenlet configures it (DefaultPrometheus in
// pkg/gardenlet/operation/botanist/monitoring.go): monitoring objects of its namespace only, kept
// for 30 days, requests 150m and 400M, alerts to alertmanager-seed in the seed's garden namespace
// and, with alerting, to alertmanager-shoot; its pods reach the Services annotated for the shoot's
// scrape targets, the seed's cache Prometheus and alertmanager-seed; its Service admits the
// aggregate Prometheus from the garden namespace.
func shootPrometheus(v ShootValues) prometheusInstance {
	p := prometheusInstance{
		name: ShootPrometheusName, retention: "30d", restrictToNamespace: true, cpu: "150m", memory: "400M",
		vpaMinAllowed: map[string]string{"cpu": "150m", "memory": "100M"},
		externalLabels: map[string]string{
			"cluster": v.Namespace, "project": v.Project, "shoot_name": v.Name, "name": v.Name, "ignoreAlerts": "false",
		},
		podLabels: map[string]string{
			toScrapeTargets(shootScrapeTargets):                                                allowed,
			toService(v.SeedNamespace+"-prometheus-"+CachePrometheusName, prometheusPort):      allowed,
			toService(v.SeedNamespace+"-alertmanager-"+SeedAlertmanagerName, alertmanagerPort): allowed,
		},
		serviceAnnotations: prometheusServiceAnnotations(shootStack, v.SeedNamespace),
		host:               ShootHost(ShootPrometheusHostPrefix, v.Project, v.Name, v.IngressDomain),
	}
	p.alertTo("alertmanager-"+SeedAlertmanagerName, v.SeedNamespace)
	if v.Alerting {
		p.alertTo("alertmanager-"+ShootAlertmanagerName, "")
	}
	return p
}

// shootPlutono loads the dashboards labelled dashboard.monitoring.gardener.cloud/shoot=true
// (Gardener's docs/extensions/logging-and-monitoring.md).
func shootPlutono(v ShootValues) plutonoSpec {
	return plutonoSpec{
		role:      ShootPrometheusName,
		host:      ShootHost(ShootPlutonoHostPrefix, v.Project, v.Name, v.IngressDomain),
		tlsSecret: v.IngressTLSSecretName, adminSecret: v.PlutonoAdminSecretName,
	}
}

// shootIngresses publish Prometheus and Alertmanager behind basic authentication, refusing their
// management endpoints (prometheus/ingress.go, alertmanager/ingress.go).
func shootIngresses(v ShootValues) []runtime.Object {
	if v.IngressDomain == "" || v.IngressAuthSecretName == "" {
		return nil
	}
	p := ingress(v.Namespace, "prometheus-"+ShootPrometheusName, prometheusLabels(ShootPrometheusName),
		ShootHost(ShootPrometheusHostPrefix, v.Project, v.Name, v.IngressDomain), v.IngressTLSSecretName, v.IngressAuthSecretName, intstr.FromInt32(prometheusWeb))
	p.Annotations[annotationServerSnippet] = prometheusBlockedPaths
	out := []runtime.Object{p}
	if v.Alerting {
		a := ingress(v.Namespace, "alertmanager-"+ShootAlertmanagerName, alertmanagerLabels(ShootAlertmanagerName),
			ShootHost(ShootAlertmanagerHostPrefix, v.Project, v.Name, v.IngressDomain), v.IngressTLSSecretName, v.IngressAuthSecretName, intstr.FromInt32(alertmanagerPort))
		a.Annotations[annotationServerSnippet] = alertmanagerBlockedPaths
		out = append(out, a)
	}
	return out
}

// alertmanagerMonitor has the shoot Prometheus scrape alertmanager-shoot (CentralServiceMonitors
// in pkg/component/observability/monitoring/prometheus/shoot).
func alertmanagerMonitor(namespace string) *unstructured.Unstructured {
	return serviceMonitorSelecting(namespace, ShootPrometheusName, "alertmanager-"+ShootAlertmanagerName, alertmanagerLabels(ShootAlertmanagerName), map[string]any{
		"port":              alertmanagerPortName,
		"relabelings":       []any{map[string]any{"action": "labelmap", "regex": "__meta_kubernetes_service_label_(.+)"}},
		"metricRelabelings": []any{keepMetrics("alertmanager_config_hash", "alertmanager_config_last_reload_successful", "process_max_fds", "process_open_fds")},
	})
}

// keepMetrics is the relabeling that keeps the named series only (StandardMetricRelabelConfig in
// pkg/component/observability/monitoring/utils/utils.go).
func keepMetrics(names ...string) map[string]any {
	return map[string]any{"sourceLabels": []any{"__name__"}, "action": "keep", "regex": "^(" + strings.Join(names, "|") + ")$"}
}
