// Package render turns evaluated component instances into Kubernetes objects by calling the
// component types' pure render functions. The engine never imports the component packages: cmd
// wires a Registry of render functions in. Values known only after apply reach render functions
// as a marker string, and the fields they end up in are reported as unknown, so that plans show
// "(known after apply)" instead of a guess.
package render

import (
	"errors"
	"fmt"
	"sort"

	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Func renders one instance of a component type. It must be pure: no cluster access, no clock,
// no randomness, so that two plans of the same landscape render the same objects.
type Func func(in Input) (*Output, error)

// Registry maps component types (schema types such as "manifests") and composite kinds
// ("garden", "seed", "shoot") to their render functions.
type Registry map[string]Func

// Input is what a render function receives.
type Input struct {
	// Landscape is the landscape's name.
	Landscape string
	// Address is the instance address ("component.manifests.base", `shoot.dev["a"]`).
	Address string
	// Name is the instance's object name (the block name, "-<key>" for expanded blocks).
	Name string
	// Dir is the landscape directory; relative file paths in configurations resolve against it.
	Dir string
	// Config is the decoded configuration without sensitive marks. Unknown strings are
	// replaced by UnknownString; other unknown values never reach a render function.
	Config cty.Value
}

// Output is what a render function returns.
type Output struct {
	// Objects are the Kubernetes objects, each with the cluster it belongs to.
	Objects []Object
	// Outputs are the instance's output values by name; outputs not set are known only after apply.
	Outputs map[string]cty.Value
}

// Object is a rendered Kubernetes object and the name of the cluster block it is applied to.
type Object struct {
	Cluster string
	Object  *unstructured.Unstructured
	// DefaultNamespace is set on the object when its kind is namespaced and it names no
	// namespace; whether a kind is namespaced is the cluster's knowledge, not the renderer's.
	DefaultNamespace string
}

// ErrDeferred is returned (wrapped) by a render function that needs a value known only after
// apply to decide what to render at all (a file name, an object's name): the instance is then
// rendered during apply instead of failing the plan.
var ErrDeferred = errors.New("depends on values known only after apply")

// UnknownString stands in for a string known only after apply. Render functions treat it like
// any other string; fields that contain it are planned as "(known after apply)".
const UnknownString = "${known after apply}"

// ClusterName returns the name of the cluster a `cluster = cluster.x` attribute refers to: the
// evaluated cluster value carries its name.
func ClusterName(config cty.Value, attr string) (string, error) {
	if config.IsNull() || !config.Type().IsObjectType() || !config.Type().HasAttribute(attr) {
		return "", fmt.Errorf("configuration has no %s attribute", attr)
	}
	v := config.GetAttr(attr)
	if v.IsNull() || !v.Type().IsObjectType() || !v.Type().HasAttribute("name") {
		return "", fmt.Errorf("%s is not a cluster reference", attr)
	}
	name := v.GetAttr("name")
	if !name.IsKnown() || name.IsNull() || name.Type() != cty.String {
		return "", fmt.Errorf("%s has no known cluster name", attr)
	}
	return name.AsString(), nil
}

// Types lists the registry's types, sorted.
func (r Registry) Types() []string {
	out := make([]string, 0, len(r))
	for t := range r {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}
