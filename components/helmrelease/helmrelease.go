// Package helmrelease renders the helm_release component: a Helm chart vendored into the
// landscape, rendered offline the way `helm template` does, and applied like every other
// component's objects (server-side apply, plans, pruning), not through Helm's release storage.
//
// What differs from `helm install`, and why:
//
//   - The chart is a directory or a .tgz archive inside the landscape. OCI and repository
//     charts would make rendering depend on the network; they are refused, vendor them instead.
//   - Templates see Kubernetes 1.35 (KubeVersion) and helm's built-in API versions plus the
//     group/versions of the chart's own CRDs, never a live cluster: `lookup` returns nothing.
//   - Objects come in Helm's install order: the CRDs of crds/ directories first, then the
//     release namespace (create_namespace), then hooks that run before an install or upgrade
//     (by weight, then name), then the templates' objects in Helm's kind order, then hooks
//     that run after an install or upgrade. Hooks become ordinary objects: they are applied
//     on every apply and never deleted by hook-delete-policy.
//   - Hooks that fire only on test, delete or rollback are skipped: test pods are not part of
//     a release's desired state, and applying a pre-delete cleanup job at install time would
//     run it at the wrong moment.
//   - Namespaced objects without a namespace get the release namespace: built-in kinds and
//     kinds defined by the chart's CRDs explicitly, other kinds through the engine's default
//     namespace once discovery tells their scope.
//   - Rendering is deterministic only as far as the chart is: templates that call
//     randAlphaNum, genCA, uuidv4 or now produce a change on every plan. Such charts need their
//     random inputs passed in as values.
package helmrelease

import (
	"fmt"
	"strings"

	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/engine/landscapefs"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Values are the component's typed inputs.
type Values struct {
	// Cluster is the cluster the chart's objects are applied to.
	Cluster decode.Cluster `json:"cluster"`
	// Chart is the chart's directory or .tgz archive, a path the landscape names, read through
	// Paths.
	Chart string `json:"chart"`
	// Version, when set, must equal the chart's version: a guard against vendoring another one.
	Version string `json:"version"`
	// Namespace is the release namespace (required).
	Namespace string `json:"namespace"`
	// CreateNamespace renders the release namespace as an object of the release.
	CreateNamespace bool `json:"create_namespace"`
	// ReleaseName is the Helm release name the templates see (required; Render defaults it to
	// the component's name).
	ReleaseName string `json:"release_name"`
	// Values override the chart's default values.
	Values map[string]any `json:"values"`
	// SensitiveValues override Values; they are kept apart only so that plans hide them.
	SensitiveValues map[string]any `json:"sensitive_values"`
	// OutputSafe shows the values of the release's ConfigMaps although it has SensitiveValues.
	OutputSafe bool `json:"output_safe"`
	// Paths reads Chart: the landscape directory under the operator's policy.
	Paths *landscapefs.Dir `json:"-"`
}

// Type is the helm_release component type as the catalog registers it: its schema (schema.go) and
// its render function.
var Type = component.Define(typeSchema, renderValues)

// renderValues renders one helm_release instance.
func renderValues(in render.Input, v Values) (*render.Output, error) {
	v.Paths = in.Files()
	if v.ReleaseName == "" {
		v.ReleaseName = component.InstanceObjectName(in.Name)
	}
	for _, s := range []string{v.Chart, v.Namespace, v.ReleaseName} {
		if strings.Contains(s, render.UnknownString) {
			return nil, fmt.Errorf("chart, namespace or release name %w", render.ErrDeferred)
		}
	}
	v.Values = wholeNumbers(v.Values).(map[string]any)
	v.SensitiveValues = wholeNumbers(v.SensitiveValues).(map[string]any)
	objs, err := Objects(v)
	if err != nil {
		return nil, err
	}
	if len(v.SensitiveValues) > 0 && !v.OutputSafe {
		hideDataValues(objs)
	}
	return &render.Output{
		Objects: objs,
		Outputs: map[string]cty.Value{
			"release_name": cty.StringVal(v.ReleaseName),
			"namespace":    cty.StringVal(v.Namespace),
		},
	}, nil
}

// hideDataValues marks the values of the ConfigMaps and Secrets among objs sensitive, their keys
// not: a template may have transformed a sensitive value beyond recognition (upper-cased it,
// base64-encoded it with a prefix), and ConfigMaps are where charts put configuration. The engine
// traces what the templates make of sensitive values by rendering the release again with other
// values (engine/rendering), but a chart may render the same output for both; this rule does not
// depend on that.
func hideDataValues(objs []render.Object) {
	for i, o := range objs {
		u := o.Object
		if u.GetAPIVersion() != "v1" || (u.GetKind() != "ConfigMap" && u.GetKind() != "Secret") {
			continue
		}
		for _, field := range []string{"data", "binaryData", "stringData"} {
			if _, ok := u.Object[field]; ok {
				objs[i].Sensitive = objs[i].Sensitive.Mark(func(s *render.Sensitivity) { s.Elements = true }, field)
			}
		}
	}
}

// wholeNumbers turns the float64 numbers decoded from the configuration that are whole into
// int64, as `helm --set` does, so that a template prints 1000000 rather than 1e+06.
func wholeNumbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = wholeNumbers(e)
		}
		return v
	case []any:
		for i, e := range v {
			v[i] = wholeNumbers(e)
		}
		return v
	case float64:
		if v == float64(int64(v)) && v >= -1<<53 && v <= 1<<53 {
			return int64(v)
		}
	}
	return v
}
