// Package upgradetest tells what a plan does to the objects a landscape applied with an earlier
// rendering when it moves to the current one, offline, with the engine's differ: the component
// tests of issue 27's upgrade decisions (docs/fidelity.md, "Upgrading a landscape applied with an
// earlier rendering") share it.
package upgradetest

import (
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/engine/diff"
	"github.com/declarative-gardener/gardener/engine/openapi"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Actions is what a plan does to the objects of an earlier rendering when it moves to the current
// one, by "Kind/name": "replace <immutable fields>" for an object rendered now whose immutable
// fields change, "superseded" for an earlier version of a content-addressed object, "delete" for
// one no longer rendered. Objects that change in place are left out, and so are custom resources,
// whose schemas only a server knows.
func Actions(t testing.TB, beforeFile string, objs []render.Object) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(beforeFile)
	require.NoError(t, err)
	differ := diff.New(openapi.New(nil, ""), "gardener")
	out := map[string]string{}
	for _, doc := range strings.Split(string(raw), "\n---\n") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		live := &unstructured.Unstructured{}
		require.NoError(t, yaml.Unmarshal([]byte(doc), &live.Object))
		id := live.GetKind() + "/" + live.GetName()
		if live.GetKind() == "Service" {
			if _, found, _ := unstructured.NestedString(live.Object, "spec", "clusterIP"); !found {
				// The API server allocated an address to the Service the earlier rendering applied.
				require.NoError(t, unstructured.SetNestedField(live.Object, "10.0.0.10", "spec", "clusterIP"))
			}
		}
		var desired *unstructured.Unstructured
		superseded := false
		for _, o := range objs {
			if o.Object.GetKind() != live.GetKind() || o.Object.GetNamespace() != live.GetNamespace() {
				continue
			}
			if o.Object.GetName() == live.GetName() {
				desired = o.Object
			} else if o.Supersedes != nil && o.Supersedes.MatchString(live.GetName()) {
				superseded = true
			}
		}
		switch {
		case desired != nil:
			r, err := differ.Diff(desired, live, true)
			if err != nil && strings.Contains(err.Error(), "not built in") {
				continue // a custom resource: the engine's built-in schemas know no immutable fields of it
			}
			require.NoError(t, err, id)
			if len(r.Immutable) > 0 {
				fields := append([]string{}, r.Immutable...)
				sort.Strings(fields)
				out[id] = "replace " + strings.Join(fields, " ")
			}
		case superseded:
			out[id] = "superseded"
		default:
			out[id] = "delete"
		}
	}
	return out
}
