// Package quota renders the quota component: a Quota (core.gardener.cloud/v1beta1, Gardener's Quota
// in docs/api-reference/core.md) that limits the resources and lifetime of the shoots of a project
// or of the shoots using one set of credentials. Bindings reference it, so it comes before them
// (Gardener's docs/concepts/apiserver-admission-plugins.md).
package quota

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/gardenapi"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The API version and kind of the Quota (Gardener's Quota in docs/api-reference/core.md).
const (
	APIVersion = "core.gardener.cloud/v1beta1"
	Kind       = "Quota"
)

// The scopes of a Quota: a project, or a set of credentials (Gardener's Quota in
// docs/api-reference/core.md).
const (
	ScopeProject          = "Project"
	ScopeSecret           = "Secret"
	ScopeWorkloadIdentity = "WorkloadIdentity"
)

// scopeAPIVersions are the API versions of the scope kinds, which spec.scope names as an
// ObjectReference without a name (Gardener's Quota in docs/api-reference/core.md).
var scopeAPIVersions = map[string]string{
	ScopeProject:          "core.gardener.cloud/v1beta1",
	ScopeSecret:           "v1",
	ScopeWorkloadIdentity: "security.gardener.cloud/v1alpha1",
}

// Metrics are the resources a Quota may limit. Gardener's documentation only says "a list of
// resources" (Gardener's QuotaSpec in docs/api-reference/core.md); these are the names
// gardener-apiserver accepts and Gardener's example quotas use, which an operator expects.
var Metrics = []string{"cpu", "gpu", "memory", "storage.standard", "storage.premium", "loadbalancer"}

// Values are the component's typed inputs.
type Values struct {
	// Cluster is the virtual garden.
	Cluster decode.Cluster `json:"cluster"`
	// Name is the Quota's name; rendering defaults it to the instance name.
	Name string `json:"name"`
	// Namespace is the namespace the Quota lives in.
	Namespace string `json:"namespace"`
	// Scope is what the Quota limits: Project, Secret or WorkloadIdentity.
	Scope string `json:"scope"`
	// ClusterLifetimeDays, when set, deletes shoots under the Quota after so many days
	// (Gardener's Quota in docs/api-reference/core.md, "Gardener Controller Manager"
	// docs/concepts/controller-manager.md).
	ClusterLifetimeDays *int64 `json:"cluster_lifetime_days"`
	// Metrics maps metric names (see Metrics) to quantities such as "200" or "4Ti".
	Metrics map[string]string `json:"metrics"`
}

// Type is the quota component type as the catalog registers it: its schema (schema.go) and its
// render function; its outputs are the Quota's name and namespace.
var Type = component.Define(typeSchema, gardenapi.Object[Values]{
	What:    "quota",
	Meta:    func(v *Values) (*string, *string) { return &v.Name, &v.Namespace },
	Objects: Objects,
}.Render)

// Objects renders the Quota.
func Objects(v Values) ([]render.Object, error) {
	ns := v.Namespace
	if err := gardenapi.ValidateNamespaced("quota", v.Name, ns); err != nil {
		return nil, err
	}
	scope := v.Scope
	apiVersion, ok := scopeAPIVersions[scope]
	if !ok {
		return nil, fmt.Errorf("quota %s: scope %q is not one of Project, Secret, WorkloadIdentity", v.Name, scope)
	}
	metrics, err := metrics(v.Metrics)
	if err != nil {
		return nil, fmt.Errorf("quota %s: %w", v.Name, err)
	}
	spec := map[string]any{
		"scope":   map[string]any{"apiVersion": apiVersion, "kind": scope},
		"metrics": metrics,
	}
	if d := v.ClusterLifetimeDays; d != nil {
		if *d < 1 || *d > 1<<31-1 {
			return nil, fmt.Errorf("quota %s: cluster lifetime of %d days is not a positive 32-bit number", v.Name, *d)
		}
		spec["clusterLifetimeDays"] = *d
	}
	u := kube.Custom(APIVersion, Kind, ns, v.Name, nil, map[string]any{"spec": spec})
	return kube.On(v.Cluster.Name, "", u), nil
}

// metrics validates metric names and quantities and renders them in canonical form, so that a
// plan does not show 1000m against the API server's 1.
func metrics(in map[string]string) (map[string]any, error) {
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]any, len(in))
	for _, k := range keys {
		if !slices.Contains(Metrics, k) {
			return nil, fmt.Errorf("metric %q is not one of %s", k, strings.Join(Metrics, ", "))
		}
		if strings.Contains(in[k], render.UnknownString) {
			out[k] = in[k]
			continue
		}
		q, err := resource.ParseQuantity(in[k])
		if err != nil {
			return nil, fmt.Errorf("metric %s: %q is not a quantity such as 100 or 4Ti", k, in[k])
		}
		if q.Sign() < 0 {
			return nil, fmt.Errorf("metric %s: %q is negative", k, in[k])
		}
		out[k] = q.String()
	}
	return out, nil
}
