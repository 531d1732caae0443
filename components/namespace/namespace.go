// Package namespace renders the namespace component: one Namespace with labels and annotations.
// Gardener's components expect their namespaces to carry labels (the high-availability-config
// consider label, Gardener's "High Availability Of Components"
// docs/development/high-availability-of-components.md; gardener.cloud/role, Gardener's "Network
// Policies" docs/operations/network_policies.md), so a landscape declares its namespaces explicitly
// instead of relying on the first object created in them.
package namespace

import (
	"fmt"
	"sort"
	"strings"

	"github.com/zclconf/go-cty/cty"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Values are the component's typed inputs.
type Values struct {
	// Cluster is the cluster the Namespace is created in.
	Cluster decode.Cluster `json:"cluster"`
	// Name is the Namespace's name; Render defaults it to the instance name (underscores as
	// dashes), Objects requires it.
	Name string `json:"name"`
	// Labels and Annotations are set on the Namespace as given.
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
}

// Type is the namespace component type as the catalog registers it: its schema (schema.go) and its
// render function.
var Type = component.Define(typeSchema, renderValues)

// renderValues renders one namespace instance and its output `name`.
func renderValues(in render.Input, v Values) (*render.Output, error) {
	if v.Name == "" {
		v.Name = component.InstanceObjectName(in.Name)
	}
	objs, err := Objects(v)
	if err != nil {
		return nil, err
	}
	return &render.Output{Objects: objs, Outputs: map[string]cty.Value{"name": cty.StringVal(v.Name)}}, nil
}

// Objects renders the Namespace. Label keys and values are checked here so that a typo fails
// the plan rather than the apply.
func Objects(v Values) ([]render.Object, error) {
	if v.Name == "" {
		return nil, fmt.Errorf("namespace name is empty")
	}
	if v.Name != render.UnknownString {
		if errs := validation.IsDNS1123Label(v.Name); len(errs) > 0 {
			return nil, fmt.Errorf("namespace name %q is invalid: %s", v.Name, strings.Join(errs, "; "))
		}
	}
	for _, k := range sortedKeys(v.Labels) {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return nil, fmt.Errorf("namespace %s: label key %q is invalid: %s", v.Name, k, strings.Join(errs, "; "))
		}
		if errs := validation.IsValidLabelValue(v.Labels[k]); len(errs) > 0 && v.Labels[k] != render.UnknownString {
			return nil, fmt.Errorf("namespace %s: value of label %q is invalid: %s", v.Name, k, strings.Join(errs, "; "))
		}
	}
	for _, k := range sortedKeys(v.Annotations) {
		if errs := validation.IsQualifiedName(strings.ToLower(k)); len(errs) > 0 {
			return nil, fmt.Errorf("namespace %s: annotation key %q is invalid: %s", v.Name, k, strings.Join(errs, "; "))
		}
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name:        v.Name,
		Labels:      v.Labels,
		Annotations: v.Annotations,
	}}
	return kube.Typed(v.Cluster.Name, ns)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
