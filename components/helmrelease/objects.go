package helmrelease

import (
	"errors"
	"fmt"
	"sort"

	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/release"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Objects renders the chart's objects for the values, in Helm's install order (see the package
// documentation).
func Objects(v Values) ([]render.Object, error) {
	if v.Namespace == "" {
		return nil, errors.New("namespace is required")
	}
	if v.ReleaseName == "" {
		return nil, errors.New("release name is required")
	}
	ch, err := loadChart(v.Paths, v.Chart, v.Version)
	if err != nil {
		return nil, err
	}
	r, err := template(ch, v.ReleaseName, v.Namespace, mergeValues(v.Values, v.SensitiveValues))
	if err != nil {
		return nil, err
	}
	var crds, manifest []*unstructured.Unstructured
	for _, f := range r.crds {
		objs, err := parseYAML(f.File.Data)
		if err != nil {
			return nil, fmt.Errorf("chart %s: %s: %w", v.Chart, f.Filename, err)
		}
		crds = append(crds, objs...)
	}
	for _, m := range r.manifests {
		objs, err := parseYAML([]byte(m.Content))
		if err != nil {
			return nil, fmt.Errorf("chart %s: %s: %w", v.Chart, m.Name, err)
		}
		manifest = append(manifest, objs...)
	}
	pre, post, err := hookObjects(r.hooks)
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", v.Chart, err)
	}

	ordered := crds
	if v.CreateNamespace && !rendersNamespace(v.Namespace, crds, manifest, pre, post) {
		ns, err := kube.ToUnstructured(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: v.Namespace}})
		if err != nil {
			return nil, err
		}
		ordered = append(ordered, ns)
	}
	ordered = append(ordered, pre...)
	ordered = append(ordered, manifest...)
	ordered = append(ordered, post...)

	sc := newScopes(ordered)
	for _, o := range ordered {
		if o.GetNamespace() == "" && sc.namespaced(o.GroupVersionKind()) {
			o.SetNamespace(v.Namespace)
		}
	}
	return kube.On(v.Cluster.Name, v.Namespace, ordered...), nil
}

// mergeValues merges sensitive over plain values with helm's coalescing rules (a null removes a
// key), on copies: the caller's maps stay untouched.
func mergeValues(plain, sensitive map[string]any) map[string]any {
	dst := deepCopy(sensitive).(map[string]any)
	if dst == nil {
		dst = map[string]any{}
	}
	src := deepCopy(plain).(map[string]any)
	return chartutil.CoalesceTables(dst, src)
}

// deepCopy copies the maps and lists of a JSON-shaped value.
func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		if v == nil {
			return v
		}
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

// hookObjects returns the objects of the hooks that run on install or upgrade, split into those
// running before the release's objects and those running after, each ordered the way helm runs
// them (weight, then name; helm's kind order among equals). Hooks of other events only are left
// out.
func hookObjects(hooks []*release.Hook) (pre, post []*unstructured.Unstructured, err error) {
	var before, after []*release.Hook
	for _, h := range hooks {
		runs, first := false, false
		for _, e := range h.Events {
			switch e {
			case release.HookPreInstall, release.HookPreUpgrade:
				runs, first = true, true
			case release.HookPostInstall, release.HookPostUpgrade:
				runs = true
			}
		}
		switch {
		case first:
			before = append(before, h)
		case runs:
			after = append(after, h)
		}
	}
	for _, group := range []*[]*release.Hook{&before, &after} {
		hs := *group
		sort.SliceStable(hs, func(i, j int) bool {
			if hs[i].Weight != hs[j].Weight {
				return hs[i].Weight < hs[j].Weight
			}
			return hs[i].Name < hs[j].Name
		})
	}
	for _, group := range []struct {
		hooks []*release.Hook
		out   *[]*unstructured.Unstructured
	}{{before, &pre}, {after, &post}} {
		for _, h := range group.hooks {
			objs, err := parseYAML([]byte(h.Manifest))
			if err != nil {
				return nil, nil, fmt.Errorf("hook %s (%s): %w", h.Name, h.Path, err)
			}
			*group.out = append(*group.out, objs...)
		}
	}
	return pre, post, nil
}

// rendersNamespace reports whether the chart itself renders the namespace called name.
func rendersNamespace(name string, groups ...[]*unstructured.Unstructured) bool {
	for _, g := range groups {
		for _, o := range g {
			gvk := o.GroupVersionKind()
			if gvk.Group == "" && gvk.Kind == "Namespace" && o.GetName() == name {
				return true
			}
		}
	}
	return false
}
