package rendering

import (
	"fmt"
	"slices"

	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/render"
)

// liveLookup reads the objects render.LiveValue markers refer to, each once per plan: a seed's
// gateway address is read once, not once per shoot behind it. Without r.Get (gardener graph) it
// finds nothing, and the markers stay for apply.
func (r *Renderer) liveLookup(clusters map[string]cty.Value) render.LiveLookup {
	return func(ref render.LiveRef) (*unstructured.Unstructured, error) {
		key := ref.ObjectKey()
		if obj, ok := r.live[key]; ok {
			return obj, nil
		}
		if r.Get == nil {
			return nil, nil
		}
		value, ok := clusters[ref.Cluster]
		if !ok {
			return nil, fmt.Errorf("cluster %q is no cluster block of the landscape", ref.Cluster)
		}
		obj, err := r.Get(value, ref.GVR(), ref.Namespace, ref.Name)
		if err != nil {
			return nil, err
		}
		if r.live == nil {
			r.live = map[string]*unstructured.Unstructured{}
		}
		r.live[key] = obj
		return obj, nil
	}
}

// resolveLive replaces the render.LiveValue markers in objects whose values the live objects
// already hold. The others stay and are planned as "(known after apply)"; apply fills them in.
func (r *Renderer) resolveLive(objects []render.Object, clusters map[string]cty.Value) ([]render.Object, error) {
	lookup := r.liveLookup(clusters)
	out, cloned := objects, false
	for i, o := range objects {
		if !render.HasLive(o.Object.Object) {
			continue
		}
		replaced, _, err := render.ResolveLiveObject(o.Object.Object, lookup)
		if err != nil {
			return nil, fmt.Errorf("object %s %s: %w", o.Object.GetKind(), o.Object.GetName(), err)
		}
		if !cloned {
			out, cloned = slices.Clone(objects), true
		}
		out[i].Object = &unstructured.Unstructured{Object: replaced}
	}
	return out, nil
}

// resolveLiveOutputs does for outputs what resolveLive does for objects; an output keeps its
// markers when the live value is not there yet, so that it reaches the components using it.
func (r *Renderer) resolveLiveOutputs(outputs map[string]cty.Value, clusters map[string]cty.Value) (map[string]cty.Value, error) {
	lookup := r.liveLookup(clusters)
	var ferr error
	out := make(map[string]cty.Value, len(outputs))
	for name, v := range outputs {
		if v == cty.NilVal {
			out[name] = v
			continue
		}
		out[name], _ = cty.Transform(v, func(_ cty.Path, e cty.Value) (cty.Value, error) {
			if e.IsNull() || !e.IsKnown() || e.Type() != cty.String || !render.HasLive(e.AsString()) {
				return e, nil
			}
			s, _, err := render.ResolveLive(e.AsString(), lookup)
			if err != nil && ferr == nil {
				ferr = fmt.Errorf("output %s: %w", name, err)
			}
			return cty.StringVal(s), nil
		})
	}
	return out, ferr
}

// holds reports whether every condition holds on the live objects (render.MaintenanceWindow's
// HoldWhile): each object exists and its field has the value. Without cluster access (gardener
// graph) nothing is held.
func (r *Renderer) holds(conditions []render.LiveCondition, clusters map[string]cty.Value) (bool, error) {
	lookup := r.liveLookup(clusters)
	for _, c := range conditions {
		obj, err := lookup(c.Ref)
		if err != nil {
			return false, fmt.Errorf("read %s: %w", c.Ref, err)
		}
		if obj == nil {
			return false, nil
		}
		v, ok := render.FieldValue(obj, c.Ref.Paths)
		if !ok {
			v = c.Default
		}
		if v != c.Value {
			return false, nil
		}
	}
	return true, nil
}
