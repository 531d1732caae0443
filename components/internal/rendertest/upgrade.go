package rendertest

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/engine/diff"
	"github.com/declarative-gardener/gardener/engine/openapi"
	"github.com/declarative-gardener/gardener/engine/render"
)

// ImmutableChanges diffs each object of an earlier rendering (a YAML file of documents, as
// applied before) against the object of the same kind and name the component renders now, the
// way a plan does, and returns the immutable fields that change by "Kind/name": the objects a plan
// replaces. Objects the new rendering lacks are left out (a plan deletes them); at least one must
// be rendered still.
func ImmutableChanges(t *testing.T, beforeFile string, objs []render.Object) map[string][]string {
	t.Helper()
	raw, err := os.ReadFile(beforeFile)
	require.NoError(t, err)
	differ := diff.New(openapi.New(nil, ""), "gardener")
	out := map[string][]string{}
	compared := 0
	for _, doc := range strings.Split(string(raw), "\n---") {
		if strings.TrimSpace(strings.TrimPrefix(doc, "---")) == "" {
			continue
		}
		live := &unstructured.Unstructured{}
		require.NoError(t, yaml.Unmarshal([]byte(doc), &live.Object))
		desired := Find(objs, live.GetKind(), live.GetName())
		if desired == nil {
			continue
		}
		compared++
		r, err := differ.Diff(desired, live, true)
		require.NoError(t, err)
		if len(r.Immutable) > 0 {
			out[live.GetKind()+"/"+live.GetName()] = r.Immutable
		}
	}
	require.NotZero(t, compared, "no object of %s is rendered any more", beforeFile)
	return out
}
