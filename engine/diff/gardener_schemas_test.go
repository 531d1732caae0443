package diff

import (
	"bytes"
	"compress/gzip"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/discovery"

	"github.com/declarative-gardener/gardener/engine/openapi"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

var updateRecordings = flag.Bool("update", false, "record the OpenAPI documents of gardener-apiserver anew")

// gardenerSchemaDir holds gardener-apiserver's OpenAPI v3 documents, compacted and gzipped, one
// per group version it serves: the offline Gardener tests diff against the real API's schemas.
const gardenerSchemaDir = "testdata/gardener-openapi"

// gardenerSchemaFile is the recording of one OpenAPI path ("apis/core.gardener.cloud/v1beta1").
func gardenerSchemaFile(path string) string {
	return filepath.Join(gardenerSchemaDir, strings.ReplaceAll(strings.TrimPrefix(path, "apis/"), "/", "_")+".json.gz")
}

// recordedGardenerSchemas returns the recorded documents by OpenAPI path.
func recordedGardenerSchemas(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, gv := range localcluster.GardenerAPIGroupVersions {
		path := openapi.PathOf(gv)
		gz, err := os.ReadFile(gardenerSchemaFile(path))
		require.NoError(t, err, "record with go test ./engine/diff -run TestRecordedGardenerSchemasAreCurrent -update")
		r, err := gzip.NewReader(bytes.NewReader(gz))
		require.NoError(t, err)
		data, err := io.ReadAll(r)
		require.NoError(t, err)
		out[path] = string(data)
	}
	return out
}

// TestRecordedGardenerSchemasAreCurrent compares the recorded documents with what the local
// virtual garden's gardener-apiserver (the pinned release) serves; -update records them.
func TestRecordedGardenerSchemasAreCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("starts control planes")
	}
	t.Parallel()
	c := localcluster.Shared(t)
	dc, err := discovery.NewDiscoveryClientForConfig(c.Plane(localcluster.VirtualGardenPlane).RESTConfig())
	require.NoError(t, err)
	paths, err := dc.OpenAPIV3().Paths()
	require.NoError(t, err)
	var recorded map[string]string
	if !*updateRecordings {
		recorded = recordedGardenerSchemas(t)
	}
	for _, gv := range localcluster.GardenerAPIGroupVersions {
		path := openapi.PathOf(gv)
		served, ok := paths[path]
		require.True(t, ok, "gardener-apiserver publishes no OpenAPI v3 document for %s", path)
		raw, err := served.Schema("application/json")
		require.NoError(t, err, path)
		compact, err := openapi.Compact(raw)
		require.NoError(t, err, path)
		file := gardenerSchemaFile(path)
		if *updateRecordings {
			var buf bytes.Buffer
			w, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
			require.NoError(t, err)
			_, err = w.Write(compact)
			require.NoError(t, err)
			require.NoError(t, w.Close())
			require.NoError(t, os.MkdirAll(gardenerSchemaDir, 0o755))
			require.NoError(t, os.WriteFile(file, buf.Bytes(), 0o644))
			continue
		}
		assert.JSONEq(t, recorded[path], string(compact), "%s is stale: re-record with -update", file)
	}
}
