package diff

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/engine/openapi"
)

// embeddedDiffer is a differ over the embedded built-in schemas: unit tests need no server.
func embeddedDiffer() *Differ { return New(openapi.New(nil, ""), "gardener") }

func obj(t testing.TB, doc string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	require.NoError(t, yaml.Unmarshal([]byte(doc), &u.Object))
	return u
}

func paths(r *Result) []string {
	var out []string
	for _, c := range r.Changes {
		out = append(out, c.Path)
	}
	return out
}
