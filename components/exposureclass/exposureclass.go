// Package exposureclass renders the exposure_class component: an ExposureClass
// (core.gardener.cloud/v1beta1, cluster-scoped, Gardener's ExposureClass in
// docs/api-reference/core.md) naming a control-plane exposure handler that gardenlets are
// configured with, and the seeds that can serve it. Shoots reference it by name, so it comes before
// them (Gardener's docs/concepts/apiserver-admission-plugins.md, Gardener's "ExposureClasses"
// docs/usage/networking/exposureclasses.md).
package exposureclass

import (
	"fmt"
	"sort"

	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/gardenapi"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The API version and kind of the ExposureClass (Gardener's ExposureClass in
// docs/api-reference/core.md).
const (
	APIVersion = "core.gardener.cloud/v1beta1"
	Kind       = "ExposureClass"
)

// Values are the component's typed inputs.
type Values struct {
	// Cluster is the virtual garden.
	Cluster decode.Cluster `json:"cluster"`
	// Name is the ExposureClass's name, which shoots set as exposureClassName; Render defaults it
	// to the instance name.
	Name string `json:"name"`
	// Handler names the exposure handler in the gardenlet configuration (Gardener's ExposureClass in
	// docs/api-reference/core.md).
	Handler string `json:"handler"`
	// SeedSelector are labels a seed must carry to serve the class.
	SeedSelector map[string]string `json:"seed_selector"`
	// SeedProviderTypes restrict the seeds by provider type; "*" allows any (Gardener's SeedSelector
	// in docs/api-reference/core.md).
	SeedProviderTypes []string `json:"seed_provider_types"`
	// Tolerations are seed taints shoots of the class tolerate.
	Tolerations []Toleration `json:"tolerations"`
}

// Toleration tolerates a seed taint (Gardener's Toleration in docs/api-reference/core.md).
type Toleration = gardenapi.Toleration

// Type is the exposure_class component type as the catalog registers it: its schema (schema.go) and
// its render function.
var Type = component.Define(typeSchema, renderValues)

// object renders the ExposureClass and its name as an output.
var object = gardenapi.Object[Values]{
	What:    "exposure class",
	Meta:    func(v *Values) (*string, *string) { return &v.Name, nil },
	Objects: Objects,
}

// renderValues renders one exposure_class instance; its outputs are the class's name and handler.
func renderValues(in render.Input, v Values) (*render.Output, error) {
	out, err := object.Render(in, v)
	if err != nil {
		return nil, err
	}
	// Shoots of the class are exposed through the seed's gateway of this handler.
	out.Outputs["handler"] = cty.StringVal(v.Handler)
	return out, nil
}

// Objects renders the ExposureClass. It has no spec: handler and scheduling are top-level fields,
// both immutable (Gardener's ExposureClass in docs/api-reference/core.md).
func Objects(v Values) ([]render.Object, error) {
	if err := gardenapi.ValidateName("exposure class", v.Name); err != nil {
		return nil, err
	}
	if v.Handler == "" {
		return nil, fmt.Errorf("exposure class %s: handler is required", v.Name)
	}
	fields := map[string]any{"handler": v.Handler}
	scheduling := map[string]any{}
	selector := map[string]any{}
	if len(v.SeedSelector) > 0 {
		selector = gardenapi.MatchLabels(v.SeedSelector)
	}
	if len(v.SeedProviderTypes) > 0 {
		types := append([]string(nil), v.SeedProviderTypes...)
		sort.Strings(types)
		list := make([]any, len(types))
		for i, t := range types {
			if i > 0 && types[i-1] == t {
				return nil, fmt.Errorf("exposure class %s: seed provider type %s is given twice", v.Name, t)
			}
			list[i] = t
		}
		selector["providerTypes"] = list
	}
	if len(selector) > 0 {
		scheduling["seedSelector"] = selector
	}
	if len(v.Tolerations) > 0 {
		list, err := gardenapi.Tolerations(v.Tolerations)
		if err != nil {
			return nil, fmt.Errorf("exposure class %s: %w", v.Name, err)
		}
		scheduling["tolerations"] = list
	}
	if len(scheduling) > 0 {
		fields["scheduling"] = scheduling
	}
	u := kube.Custom(APIVersion, Kind, "", v.Name, nil, fields)
	return kube.On(v.Cluster.Name, "", u), nil
}
