package plan

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/rendering"
)

// createOnly marks an object create-only, as a component does.
func createOnly(u *unstructured.Unstructured) *unstructured.Unstructured {
	ann := u.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	ann[render.CreateOnlyAnnotation] = "true"
	u.SetAnnotations(ann)
	return u
}

// trackedRefs is a Tracked or Created func recording the given ConfigMaps of cluster runtime.
func trackedRefs(names ...string) func(string, object.Ref) bool {
	return func(cluster string, ref object.Ref) bool {
		for _, n := range names {
			if cluster == "runtime" && ref == (object.Ref{Kind: "ConfigMap", Namespace: "apps", Name: n}) {
				return true
			}
		}
		return false
	}
}

func TestBuildCreateOnly(t *testing.T) {
	bootstrap := func() *unstructured.Unstructured {
		return createOnly(cm("", "bootstrap", map[string]any{"kubeconfig": "token"}))
	}
	// As the landscape (of lineage l-1) applied it, then changed by its consumer.
	edited := live(t, createOnly(cm("apps", "bootstrap", map[string]any{"kubeconfig": "token"})), "component.manifests.a")
	inventory.SetLineage(edited, "l-1")
	edited.Object["data"] = map[string]any{"kubeconfig": "rotated", "extra": "x"}
	withState := func(o *Options) { o.Tracked, o.Lineage, o.WithState = trackedRefs("bootstrap"), "l-1", true }
	unowned := createOnly(cm("apps", "bootstrap", map[string]any{"kubeconfig": "theirs"}))
	unowned.SetResourceVersion("3")
	rendered := map[config.InstanceAddress]*rendering.Rendered{
		"component.manifests.a": {Address: "component.manifests.a", Type: "manifests", Objects: objects(bootstrap())},
	}
	for _, tt := range []struct {
		name     string
		live     []*unstructured.Unstructured
		rendered map[config.InstanceAddress]*rendering.Rendered
		mutate   func(*Options)
		want     map[string]string
		warnings []string
	}{
		{
			name: "absent and not recorded: created", rendered: rendered,
			mutate: func(o *Options) { o.Tracked = trackedRefs() },
			want:   map[string]string{"component.manifests.a ConfigMap apps/bootstrap": "create missing"},
		},
		{
			name: "absent without a state: created", rendered: rendered,
			want: map[string]string{"component.manifests.a ConfigMap apps/bootstrap": "create missing"},
		},
		{
			name: "absent but recorded: deleted by its consumer, not created again", rendered: rendered,
			mutate: func(o *Options) { o.Tracked = trackedRefs("bootstrap") },
			want:   map[string]string{"component.manifests.a ConfigMap apps/bootstrap": "no-op created_once"},
		},
		{
			name: "recorded only as pending (an interrupted apply never wrote it): created", rendered: rendered,
			mutate: func(o *Options) { o.Tracked, o.Created = trackedRefs("bootstrap"), trackedRefs() },
			want:   map[string]string{"component.manifests.a ConfigMap apps/bootstrap": "create missing"},
		},
		{
			name: "present and changed since: never updated", live: []*unstructured.Unstructured{edited}, rendered: rendered,
			mutate: func(o *Options) { o.Tracked = trackedRefs("bootstrap") },
			want:   map[string]string{"component.manifests.a ConfigMap apps/bootstrap": "no-op "},
		},
		{
			name: "present without the label: neither adopted nor changed", live: []*unstructured.Unstructured{unowned}, rendered: rendered,
			want:     map[string]string{"component.manifests.a ConfigMap apps/bootstrap": "no-op "},
			warnings: []string{"ConfigMap apps/bootstrap in cluster runtime exists without the label declarative-gardener.io/landscape=test; it is create-only, so it is neither adopted nor changed"},
		},
		{
			name: "removed from the landscape: deleted", live: []*unstructured.Unstructured{edited},
			rendered: map[config.InstanceAddress]*rendering.Rendered{"component.manifests.a": {Address: "component.manifests.a", Type: "manifests"}},
			mutate: func(o *Options) {
				withState(o)
				o.PreviousKinds = map[string][]schema.GroupKind{"runtime": {{Kind: "ConfigMap"}}}
			},
			want: map[string]string{"component.manifests.a ConfigMap apps/bootstrap": "delete removed_from_landscape"},
		},
		{
			name:     "removed from the landscape after its consumer deleted it: nothing to do",
			rendered: map[config.InstanceAddress]*rendering.Rendered{"component.manifests.a": {Address: "component.manifests.a", Type: "manifests"}},
			mutate: func(o *Options) {
				o.Tracked = trackedRefs("bootstrap")
				o.PreviousKinds = map[string][]schema.GroupKind{"runtime": {{Kind: "ConfigMap"}}}
			},
			want: map[string]string{},
		},
		{
			name: "destroyed", live: []*unstructured.Unstructured{edited}, rendered: rendered,
			mutate: func(o *Options) { withState(o); o.Destroy = true },
			want:   map[string]string{"component.manifests.a ConfigMap apps/bootstrap": "delete destroy"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var objs []*unstructured.Unstructured
			for _, o := range tt.live {
				objs = append(objs, o.DeepCopy())
			}
			res := buildPlan(t, &fakeCluster{objects: objs}, tt.rendered, tt.mutate)
			assert.Equal(t, tt.want, actions(res.Plan))
			assert.Equal(t, tt.warnings, res.Plan.Warnings)
			for _, c := range res.Plan.Components {
				for _, o := range c.Objects {
					if o.Action == NoOp {
						assert.Empty(t, o.Changes, "differences of a create-only object are not changes")
						assert.Empty(t, o.ResourceVersion, "a consumer's edits or deletion must not make a saved plan stale")
					}
				}
			}
			if tt.want["component.manifests.a ConfigMap apps/bootstrap"] == "no-op created_once" {
				assert.False(t, res.Plan.HasChanges(), "a create-only object deleted by its consumer is not a change")
				require.Len(t, res.Desired, 1, "still rendered, so that a saved plan's objects match a re-render")
			}
		})
	}
}

func TestBuildCreateOnlyRefusals(t *testing.T) {
	other := createOnly(cm("apps", "bootstrap", nil))
	require.NoError(t, inventory.Stamp(other, "other", "component.manifests.a", nil))
	misspelt := cm("", "bootstrap", nil)
	misspelt.SetAnnotations(map[string]string{render.CreateOnlyAnnotation: "True"})
	for name, tt := range map[string]struct {
		live   []*unstructured.Unstructured
		render *unstructured.Unstructured
		want   string
	}{
		"another landscape's object": {[]*unstructured.Unstructured{other}, createOnly(cm("", "bootstrap", nil)), `belongs to landscape "other"`},
		"a misspelt value":           {nil, misspelt, `annotation declarative-gardener.io/create-only is "True"; it must be "true" or "false"`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Build(context.Background(), Options{
				Landscape: "test", Order: []config.InstanceAddress{"component.manifests.a"},
				Rendered: map[config.InstanceAddress]*rendering.Rendered{"component.manifests.a": {Type: "manifests", Objects: objects(tt.render)}},
				Clusters: map[string]observe.Cluster{"runtime": &fakeCluster{objects: tt.live}},
				Differs:  func(string) (Differ, error) { return fakeDiffer{}, nil },
			})
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

func TestCreateOnly(t *testing.T) {
	for value, want := range map[string]bool{"": false, "false": false, "true": true} {
		u := cm("apps", "x", nil)
		if value != "" {
			u.SetAnnotations(map[string]string{render.CreateOnlyAnnotation: value})
		}
		got, err := CreateOnly(u)
		require.NoError(t, err, value)
		assert.Equal(t, want, got, value)
	}
}
