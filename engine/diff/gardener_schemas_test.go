package diff

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/engine/openapi"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// recordedGardenerSchemas returns gardener-apiserver's OpenAPI v3 documents by path, compacted,
// as engine/openapi embeds them (TestEmbeddedSchemasAreCurrent checks them against the local
// virtual garden): the offline Gardener tests diff against the real API's schemas.
func recordedGardenerSchemas(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, gv := range localcluster.GardenerAPIGroupVersions {
		path := openapi.PathOf(gv)
		doc, ok, err := openapi.EmbeddedDocument(path)
		require.NoError(t, err)
		require.True(t, ok, "%s is not embedded: regenerate with go run ./tests/openapigen", path)
		out[path] = string(doc)
	}
	return out
}
