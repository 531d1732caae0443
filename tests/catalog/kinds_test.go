package catalog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/kinds"
	"github.com/declarative-gardener/gardener/engine/object"
)

// TestEveryRenderedKindHasRules reads every object the catalog's goldens and fixtures render, the
// composite goldens' objects with markers of values known only at apply included, and requires an
// entry in the kinds table (engine/kinds) for its kind: apply order, scope, protection,
// replacement, immutable fields and readiness of a kind the catalog renders are a decision, not
// the defaults by accident. A chart's own custom kinds (helm_release's test chart renders a CRD
// and objects of its kind) are exempt when their group is one the table does not know: the engine
// knows nothing of them by design and gives them the defaults.
func TestEveryRenderedKindHasRules(t *testing.T) {
	files := append(goldenRenderFiles(t), "testdata/fixtures.yaml")
	missing := map[string]string{} // kind: the first file rendering it
	count := 0
	for _, f := range files {
		objects := readObjects(t, f, nil)
		ownKinds := map[schema.GroupKind]bool{}
		for _, o := range objects {
			if gk, ok := definedKind(o.object); ok {
				ownKinds[gk] = true
			}
		}
		for _, o := range objects {
			gk := o.object.GroupVersionKind().GroupKind()
			require.NotEmpty(t, gk.Kind, "%s: an object without kind", f)
			count++
			if _, ok := kinds.Lookup(gk); ok || (ownKinds[gk] && !kinds.KnownGroup(gk.Group)) {
				continue
			}
			if name := object.GroupKindString(gk); missing[name] == "" {
				missing[name] = f
			}
		}
	}
	assert.Empty(t, missing, "kinds the catalog renders without an entry in engine/kinds")
	require.NotZero(t, count)
}

// definedKind returns the kind a CustomResourceDefinition defines.
func definedKind(u *unstructured.Unstructured) (schema.GroupKind, bool) {
	if u.GroupVersionKind().GroupKind() != (schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}) {
		return schema.GroupKind{}, false
	}
	group, _, _ := unstructured.NestedString(u.Object, "spec", "group")
	kind, _, _ := unstructured.NestedString(u.Object, "spec", "names", "kind")
	return schema.GroupKind{Group: group, Kind: kind}, group != "" && kind != ""
}
