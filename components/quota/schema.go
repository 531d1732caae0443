package quota

import (
	"fmt"
	"sort"

	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/declarative-gardener/gardener/components/internal/attr"
	"github.com/declarative-gardener/gardener/components/internal/gardenapi"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// typeSchema is the component type for a Quota in the virtual garden (Gardener's Quota in
// docs/api-reference/core.md): limits on the resources and lifetime of a project's shoots, or of
// the shoots using one set of credentials.
func typeSchema() *schema.Schema {
	return &schema.Schema{
		Kind: schema.KindComponent,
		Type: "quota",
		Description: "A Quota in the virtual garden that limits the resources and lifetime of the shoots of a project, or of the shoots using one set of credentials. " +
			"Secret and credentials bindings reference it in their quota blocks.",
		Body: schema.Body{Attributes: []schema.Attribute{
			attr.Reference("cluster", schema.RefCluster, "The virtual garden cluster the Quota is created in."),
			{Name: "name", Type: cty.String, Checks: attr.Checks(schema.ObjectName()), Description: "The Quota's name; the block name when unset."},
			{Name: "namespace", Type: cty.String, Default: cty.StringVal(gardenapi.GardenNamespace), Checks: attr.Checks(schema.DNSLabel()), Description: "The namespace the Quota lives in, such as a project namespace."},
			// Gardener's Quota in docs/api-reference/core.md scope is immutable.
			{Name: "scope", Type: cty.String, Default: cty.StringVal(ScopeProject), Immutable: true, AllowedValues: []string{"Project", "Secret", "WorkloadIdentity"}, Description: "What the Quota limits: all shoots of a project, or the shoots using one Secret or WorkloadIdentity."},
			{Name: "cluster_lifetime_days", Type: cty.Number, Checks: attr.Checks(schema.Positive()), Description: "Days after which Gardener deletes shoots under this Quota; shoots live indefinitely when unset."},
			{Name: "metrics", Type: cty.Map(cty.String), Checks: attr.Checks(quotaMetrics()), Description: "Limits by metric (cpu, gpu, memory, storage.standard, storage.premium, loadbalancer) as quantities, such as { cpu = \"200\", memory = \"4000Gi\" }."},
		}},
		Outputs: []schema.Output{
			{Name: "name", Type: cty.String, Description: "The Quota's name, for the quota blocks of bindings."},
			{Name: "namespace", Type: cty.String, Description: "The namespace the Quota lives in."},
		},
	}
}

// quotaMetricNames are the metrics gardener-apiserver accepts in a Quota; Gardener's documentation
// only say "a list of resources" (Gardener's QuotaSpec in docs/api-reference/core.md).
var quotaMetricNames = map[string]bool{"cpu": true, "gpu": true, "memory": true, "storage.standard": true, "storage.premium": true, "loadbalancer": true}

// quotaMetrics demands known metric names with non-negative quantities.
func quotaMetrics() schema.Check {
	return schema.Check{Name: "quota_metrics", Describe: "metric names cpu, gpu, memory, storage.standard, storage.premium or loadbalancer with quantities such as 200 or 4000Gi", Func: func(v cty.Value) string {
		v, _ = v.UnmarkDeep()
		if v.IsNull() || !v.IsWhollyKnown() || !v.Type().IsMapType() {
			return ""
		}
		m := v.AsValueMap()
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !quotaMetricNames[k] {
				return fmt.Sprintf("The metric %q is not one of cpu, gpu, memory, storage.standard, storage.premium, loadbalancer.", k)
			}
			if m[k].IsNull() {
				return fmt.Sprintf("The metric %s has no value.", k)
			}
			q, err := resource.ParseQuantity(m[k].AsString())
			if err != nil || q.Sign() < 0 {
				return fmt.Sprintf("The metric %s has %q, which is not a quantity of zero or more such as 200 or 4000Gi.", k, m[k].AsString())
			}
		}
		return ""
	}}
}
