package observability

import (
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for the garden runtime cluster's observability stack as
// gardener-operator deploys it (Gardener's "Gardener Operator" docs/concepts/operator.md), reduced
// to what a landscape needs to see its garden.
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "observability",
		Description: "The observability stack of a garden runtime cluster: prometheus-operator with the monitoring.coreos.com CRDs, " +
			"the Garden Prometheus (prometheus-garden), the Long-term Prometheus (prometheus-longterm), alertmanager-garden, kube-state-metrics, " +
			"Plutono (with an Ingress on plutono-garden.<ingress domain>) and Vali. Extend it with ServiceMonitors, PodMonitors, PrometheusRules " +
			"and ScrapeConfigs labelled prometheus=garden or prometheus=longterm, AlertmanagerConfigs labelled alertmanager=garden and dashboard " +
			"ConfigMaps labelled dashboard.monitoring.gardener.cloud/garden=true, all in the namespace. Not rendered yet: fluent-operator and " +
			"fluent-bit (Vali receives no logs until a log shipper is added), gardener-metrics-exporter and blackbox-exporter.",
		Body: schema.Body{Attributes: []schema.Attribute{
			attr.Reference("cluster", schema.RefCluster, "The garden runtime cluster the stack runs in and observes."),
			{Name: "namespace", Type: cty.String, Default: cty.StringVal(DefaultNamespace), Checks: attr.Checks(schema.DNSLabel()), Description: "The namespace of the stack and of the objects that extend it."},
			{Name: "images", Type: cty.Map(cty.String), Description: "Overrides of the stack's images (prometheus-operator, prometheus-config-reloader, prometheus, alertmanager, kube-state-metrics, plutono, plutono-dashboard-refresher, vali) by image name: \"repository:tag\", \"repository@sha256:...\" or a bare tag."},
			{Name: "ingress_domain", Type: cty.String, Checks: attr.Checks(schema.DNSName()), Description: "The runtime cluster's ingress domain; Plutono is published as plutono-garden.<ingress_domain> through the nginx-ingress-gardener IngressClass. Unset renders no Ingress."},
			{Name: "ingress_tls_secret_name", Type: cty.String, Checks: attr.Checks(schema.ObjectName()), Description: "The Secret (in the namespace) with the certificate Plutono's Ingress serves, such as the garden's wildcard certificate; unset leaves it to the ingress controller's default certificate."},
			{Name: "plutono_admin_secret_name", Type: cty.String, Default: cty.StringVal(DefaultPlutonoAdminSecretName), Checks: attr.Checks(schema.ObjectName()), Description: "The Secret (in the namespace) whose key password is the password of Plutono's admin user, as a generated_secret of class password writes it. Plutono allows no anonymous access."},
			{Name: "prometheus_storage", Type: cty.String, Default: cty.StringVal(DefaultPrometheusStorage), Checks: attr.Checks(schema.Quantity()), Description: "The volume size of each Prometheus; its blocks are kept within 80% of it."},
			{Name: "vali_storage", Type: cty.String, Default: cty.StringVal(DefaultValiStorage), Checks: attr.Checks(schema.Quantity()), Description: "The volume size of Vali, which keeps logs for 336h."},
			{Name: "longterm", Type: cty.Bool, Default: cty.True, Description: "Whether the Long-term Prometheus runs, federating from the Garden Prometheus and keeping metrics longer."},
			{Name: "alerting", Type: cty.Bool, Default: cty.True, Description: "Whether alertmanager-garden runs and the Garden Prometheus sends alerts to it; it is configured by AlertmanagerConfigs labelled alertmanager=garden."},
		}},
		Outputs: []schema.Output{{Name: "plutono_url", Type: cty.String, Description: "Plutono's URL, https://plutono-garden.<ingress_domain>; empty without an ingress domain."}},
	}
}
