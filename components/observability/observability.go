// Package observability renders the observability component: the garden runtime cluster's
// monitoring and logging stack as gardener-operator deploys it into the garden namespace,
// reduced to what a landscape needs to see its garden (Gardener's "Gardener Operator"
// docs/concepts/operator.md): prometheus-operator with its CRDs, the Garden Prometheus
// (prometheus-garden), the Long-term Prometheus (prometheus-longterm), alertmanager-garden,
// kube-state-metrics, Plutono and Vali.
//
// Operators extend the stack the documented way: prometheus-operator objects labelled
// prometheus=garden or prometheus=longterm, AlertmanagerConfigs labelled alertmanager=garden and
// dashboard ConfigMaps labelled dashboard.monitoring.gardener.cloud/garden=true (Gardener's
// docs/concepts/operator.md).
//
// Not rendered yet: fluent-operator and fluent-bit (so Vali receives no logs until a log shipper
// is added), gardener-metrics-exporter, blackbox-exporter and the Long-term Prometheus' Cortex
// query cache (Gardener's docs/concepts/operator.md).
package observability

import (
	"fmt"

	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/crds"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/components/internal/unique"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Labels by which the stack finds the objects operators add (Gardener's docs/concepts/operator.md).
const (
	// PrometheusLabel is the key of the label that assigns a ServiceMonitor, PodMonitor,
	// PrometheusRule or ScrapeConfig to a Prometheus.
	PrometheusLabel = "prometheus"
	// GardenPrometheusLabel is PrometheusLabel's value for the Garden Prometheus.
	GardenPrometheusLabel = "garden"
	// LongtermPrometheusLabel is PrometheusLabel's value for the Long-term Prometheus.
	LongtermPrometheusLabel = "longterm"
	// AlertmanagerLabel is the key of the label that assigns an AlertmanagerConfig to an
	// Alertmanager.
	AlertmanagerLabel = "alertmanager"
	// GardenAlertmanagerLabel is AlertmanagerLabel's value for alertmanager-garden.
	GardenAlertmanagerLabel = "garden"
	// DashboardLabel is the key of the label of ConfigMaps whose JSON documents Plutono loads
	// as dashboards; its value is DashboardLabelValue.
	DashboardLabel      = "dashboard.monitoring.gardener.cloud/garden"
	DashboardLabelValue = "true"
)

// GardenPrometheusLabels are the labels of objects that extend the Garden Prometheus.
func GardenPrometheusLabels() map[string]string {
	return map[string]string{PrometheusLabel: GardenPrometheusLabel}
}

// LongtermPrometheusLabels are the labels of objects that extend the Long-term Prometheus.
func LongtermPrometheusLabels() map[string]string {
	return map[string]string{PrometheusLabel: LongtermPrometheusLabel}
}

// GardenAlertmanagerLabels are the labels of AlertmanagerConfigs for alertmanager-garden.
func GardenAlertmanagerLabels() map[string]string {
	return map[string]string{AlertmanagerLabel: GardenAlertmanagerLabel}
}

// Defaults of the stacks: the garden's are the schema's (schema.go); the seed's and the shoot's
// stacks, which composites render, apply them to their zero values.
const (
	DefaultNamespace         = "garden"
	DefaultPrometheusStorage = "10Gi"
	DefaultValiStorage       = "10Gi"
	// DefaultPlutonoAdminSecretName names the Secret with Plutono's admin password.
	DefaultPlutonoAdminSecretName = "plutono-admin"
)

// CRDs are the prometheus-operator kinds the stack serves, embedded in components/crds. Probe
// is among them although nothing here renders one: the operator's Prometheus controller
// watches the kind.
var CRDs = []string{
	"alertmanagerconfigs.monitoring.coreos.com",
	"alertmanagers.monitoring.coreos.com",
	"podmonitors.monitoring.coreos.com",
	"probes.monitoring.coreos.com",
	"prometheuses.monitoring.coreos.com",
	"prometheusrules.monitoring.coreos.com",
	"scrapeconfigs.monitoring.coreos.com",
	"servicemonitors.monitoring.coreos.com",
}

// Values are the component's typed inputs. Composites start from Type.Defaults, the schema's
// defaults.
type Values struct {
	// Cluster is the garden runtime cluster the stack runs in and observes.
	Cluster decode.Cluster `json:"cluster"`
	// Namespace of the stack (Gardener's docs/concepts/operator.md).
	Namespace string `json:"namespace"`
	// Images overrides entries of the stack's image vector (see ImageNames) by image name:
	// "repository:tag", "repository@sha256:..." or a bare tag.
	Images map[string]string `json:"images"`
	// IngressDomain is the runtime cluster's ingress domain; Plutono is published as
	// plutono-garden.<IngressDomain>. "" renders no Ingress.
	IngressDomain string `json:"ingress_domain"`
	// IngressTLSSecretName names the Secret (in Namespace) with the certificate Plutono's
	// Ingress serves, such as the garden's wildcard certificate (Gardener's "Trusted Tls For Garden
	// Runtime" docs/operations/trusted-tls-for-garden-runtime.md); "" leaves the certificate to the
	// ingress controller's default.
	IngressTLSSecretName string `json:"ingress_tls_secret_name"`
	// PlutonoAdminSecretName names the Secret (in Namespace) whose key "password" is the
	// password of Plutono's admin user, as a generated_secret of class password writes it.
	// Plutono allows no anonymous access.
	PlutonoAdminSecretName string `json:"plutono_admin_secret_name"`
	// PrometheusStorage is the volume size of each Prometheus.
	PrometheusStorage string `json:"prometheus_storage"`
	// ValiStorage is the volume size of Vali.
	ValiStorage string `json:"vali_storage"`
	// Longterm renders the Long-term Prometheus (Gardener's docs/concepts/operator.md).
	Longterm bool `json:"longterm"`
	// Alerting renders alertmanager-garden and points the Garden Prometheus at it (Gardener's
	// docs/concepts/operator.md).
	Alerting bool `json:"alerting"`
	// WatchAllNamespaces has prometheus-operator serve Prometheus and Alertmanager instances in
	// every namespace rather than Namespace only. Set it when the runtime cluster is a seed too:
	// the seed then uses the garden's operator (Gardener's docs/concepts/operator.md), also for the
	// instances in its shoots' control-plane namespaces (see SeedValues.RuntimeIsGarden). The garden
	// composite sets it; it is not an attribute of the component.
	WatchAllNamespaces bool `json:"-"`
}

// Type is the observability component type as the catalog registers it: its schema (schema.go) and
// its render function.
var Type = component.Define(typeSchema, renderValues)

// renderValues renders one observability instance.
func renderValues(in render.Input, v Values) (*render.Output, error) {
	objs, err := Objects(v)
	if err != nil {
		return nil, err
	}
	return &render.Output{Objects: objs, Outputs: map[string]cty.Value{"plutono_url": cty.StringVal(PlutonoURL(v.IngressDomain))}}, nil
}

// PlutonoURL is where operators reach Plutono through the Ingress; "" without an ingress domain.
func PlutonoURL(ingressDomain string) string {
	if ingressDomain == "" {
		return ""
	}
	return "https://" + plutonoHost(ingressDomain)
}

// Objects renders the CRDs and all workloads of the stack with their RBAC, configuration,
// Services and custom resources.
func Objects(v Values) ([]render.Object, error) {
	if v.Cluster.Name == "" {
		return nil, fmt.Errorf("cluster is not set")
	}
	promStorage, valiStorage, img, err := resolve(v.PrometheusStorage, v.ValiStorage, v.Images, gardenImages)
	if err != nil {
		return nil, err
	}
	s := stack{kind: gardenStack, namespace: v.Namespace, priorityClass: PriorityClass, replicas: stackReplicas, img: img}

	objs, err := crdObjects()
	if err != nil {
		return nil, err
	}
	objs = append(objs, operatorObjects(s, v.WatchAllNamespaces)...)
	objs = append(objs, kubeStateMetricsObjects(s, kubeStateMetrics{suffix: "-runtime"})...)
	objs = append(objs, ksmScrapeConfig(v.Namespace, GardenPrometheusLabel, KubeStateMetricsName+"-runtime"))
	objs = append(objs, plutonoObjects(s, plutonoSpec{
		role: GardenPrometheusLabel, host: ingressHost(PlutonoHostPrefix, v.IngressDomain), tlsSecret: v.IngressTLSSecretName, adminSecret: v.PlutonoAdminSecretName,
	})...)
	objs = append(objs, valiObjects(s, valiStorage)...)
	instances := prometheuses(v)
	objs = append(objs, prometheusRBAC(s, instances)...)
	for _, p := range instances {
		objs = append(objs, prometheus(s, p, promStorage), prometheusVPA(s, p))
	}
	if v.Longterm {
		// Gardener's documentation does not say which series; the Garden Prometheus is the landscape's
		// aggregator of metering (Gardener's docs/concepts/operator.md), so the metering series and the
		// targets' up series are kept for long.
		objs = append(objs, federation(v.Namespace, LongtermPrometheusLabel, GardenPrometheusService, v.Namespace,
			`{__name__=~"metering:.+"}`, `{__name__="up"}`))
	}
	if v.Alerting {
		objs = append(objs, alertmanagerObjects(s, GardenAlertmanagerName)...)
		objs = append(objs, alertmanager(s, GardenAlertmanagerName, resource.MustParse("1Gi")), alertmanagerVPA(s, GardenAlertmanagerName))
	}
	return objects(v.Cluster.Name, objs)
}

// prometheuses lists the garden instances Values ask for: the Garden Prometheus always, the
// Long-term Prometheus unless turned off. Gardener's documentation gives no retention for the
// garden, only that the Long-term Prometheus keeps metrics longer than the Garden Prometheus
// (Gardener's docs/concepts/operator.md).
func prometheuses(v Values) []prometheusInstance {
	annotations := prometheusServiceAnnotations(gardenStack, "")
	garden := prometheusInstance{name: GardenPrometheusName, retention: "10d", clusterWide: true, serviceAnnotations: annotations,
		podLabels: map[string]string{toScrapeTargets(gardenScrapeTargets): allowed}}
	if v.Alerting {
		garden.alertTo(GardenAlertmanagerService, "")
	}
	out := []prometheusInstance{garden}
	if v.Longterm {
		out = append(out, prometheusInstance{name: LongtermPrometheusName, retention: "90d", clusterWide: true, serviceAnnotations: annotations,
			podLabels: map[string]string{toService(GardenPrometheusService, prometheusPort): allowed}})
	}
	return out
}

// crdObjects are the prometheus-operator CRDs.
func crdObjects() ([]runtime.Object, error) {
	var out []runtime.Object
	for _, name := range CRDs {
		crd, err := crds.Object(name)
		if err != nil {
			return nil, err
		}
		out = append(out, crd)
	}
	return out, nil
}

// uniqueBases are the names of the content-addressed ConfigMaps the stacks render; a plan
// deletes their earlier versions as superseded.
var uniqueBases = []string{plutonoDatasources, plutonoDashboardProviders, valiConfigName, blackboxConfigName, KubeStateMetricsName + "-custom-resource-state"}

// objects converts the objects, typed or custom resources, in their order and places them on
// cluster.
func objects(cluster string, objs []runtime.Object) ([]render.Object, error) {
	out := make([]render.Object, 0, len(objs))
	for _, o := range objs {
		u, ok := o.(*unstructured.Unstructured)
		if !ok {
			converted, err := kube.ToUnstructured(o)
			if err != nil {
				return nil, err
			}
			u = converted
			dropTemplateStatus(u)
		}
		out = append(out, kube.On(cluster, "", u)...)
	}
	for _, base := range uniqueBases {
		unique.MarkVersions(out, "ConfigMap", base)
	}
	return out, nil
}

// resolve parses the volume sizes of Prometheus and Vali and resolves the images, the inputs
// every stack checks first.
func resolve(promStorage, valiStorage string, overrides map[string]string, names []string) (resource.Quantity, resource.Quantity, map[string]string, error) {
	var zero resource.Quantity
	prom, err := positiveQuantity("prometheus storage", promStorage)
	if err != nil {
		return zero, zero, nil, err
	}
	vali, err := positiveQuantity("vali storage", valiStorage)
	if err != nil {
		return zero, zero, nil, err
	}
	img, err := resolveImages(overrides, names)
	if err != nil {
		return zero, zero, nil, fmt.Errorf("images: %w", err)
	}
	return prom, vali, img, nil
}

// positiveQuantity parses a volume size.
func positiveQuantity(subject, value string) (resource.Quantity, error) {
	q, err := resource.ParseQuantity(value)
	if err != nil {
		return q, fmt.Errorf("%s %q: %w", subject, value, err)
	}
	if q.Sign() <= 0 {
		return q, fmt.Errorf("%s %q is not positive", subject, value)
	}
	return q, nil
}

// ingressHost is <prefix>.<domain>, or "" without a domain.
func ingressHost(prefix, domain string) string {
	if domain == "" {
		return ""
	}
	return prefix + "." + domain
}
