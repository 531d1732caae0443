package observe_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/observe"
)

var update = flag.Bool("update", false, "rewrite golden files")

// recordedFake observes a small landscape through a Recorder and returns the result and the
// recording.
func recordedFake(t *testing.T) (*observe.Observed, *observe.Recording, observe.Request) {
	t.Helper()
	cm, dep := configMaps.GroupVersionKind, deploys.GroupVersionKind
	withData := obj(cm, "a", "one", true)
	require.NoError(t, unstructured.SetNestedField(withData.Object, "<b>&</b>", "data", "html"))
	require.NoError(t, unstructured.SetNestedField(withData.Object, int64(3), "metadata", "generation"))
	f := &fakeCluster{
		resources: []observe.Resource{deploys, configMaps, etcds},
		objects:   []*unstructured.Unstructured{obj(dep, "b", "web", true), obj(dep, "a", "web", true), withData, obj(cm, "a", "adopt", false)},
	}
	rec := observe.NewRecorder(f)
	req := observe.Request{
		Selector: selector,
		Desired:  []object.Ref{ref(cm, "a", "one"), ref(cm, "a", "adopt"), ref(cm, "a", "absent"), ref(dep, "a", "web"), ref(etcds.GroupVersionKind, "a", "main")},
		Kinds:    []schema.GroupKind{dep.GroupKind()},
	}
	got, err := observe.Observe(context.Background(), rec, req)
	require.NoError(t, err)
	ctx := context.Background()
	_, err = rec.ServerVersion(ctx)
	require.NoError(t, err)
	_, err = rec.OpenAPIV3Index(ctx)
	require.NoError(t, err)
	_, err = rec.OpenAPIV3(ctx, "api/v1")
	require.NoError(t, err)
	recording, err := rec.Recording()
	require.NoError(t, err)
	return got, recording, req
}

func TestSnapshotReplaysObserve(t *testing.T) {
	want, recording, req := recordedFake(t)
	var buf bytes.Buffer
	require.NoError(t, observe.WriteSnapshot(&buf, &observe.SnapshotFile{Clusters: map[string]*observe.Recording{"runtime": recording}}))
	file, err := observe.ReadSnapshot(bytes.NewReader(buf.Bytes()))
	require.NoError(t, err)
	snap, err := file.Cluster("runtime")
	require.NoError(t, err)

	got, err := observe.Observe(context.Background(), snap, req)
	require.NoError(t, err)
	assert.Equal(t, want, got)

	ctx := context.Background()
	v, err := snap.ServerVersion(ctx)
	require.NoError(t, err)
	assert.Equal(t, "v1.37.1", v)
	index, err := snap.OpenAPIV3Index(ctx)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"api/v1": "/openapi/v3/api/v1?hash=ABC"}, index)
	doc, err := snap.OpenAPIV3(ctx, "api/v1")
	require.NoError(t, err)
	live, _ := (&fakeCluster{}).OpenAPIV3(ctx, "api/v1")
	assert.Equal(t, live, doc)

	_, err = file.Cluster("seed")
	assert.EqualError(t, err, `snapshot: no recording of cluster "seed" (recorded: [runtime])`)
}

func TestSnapshotUnrecordedReads(t *testing.T) {
	_, recording, _ := recordedFake(t)
	snap := observe.NewSnapshot(recording)
	ctx := context.Background()
	gvr := deploys.GVR()
	_, err := snap.List(ctx, gvr, "a", selector)
	require.ErrorIs(t, err, observe.ErrNotRecorded)
	assert.EqualError(t, err, `snapshot: LIST deployments.apps/v1 in namespace a with selector "declarative-gardener.io/landscape=local": not recorded`)
	_, err = snap.Get(ctx, gvr, "a", "other")
	assert.EqualError(t, err, "snapshot: GET deployments.apps/v1 a/other: not recorded")
	_, err = snap.OpenAPIV3(ctx, "apis/apps/v1")
	assert.EqualError(t, err, `snapshot: openapi v3 document "apis/apps/v1": not recorded`)

	empty := observe.NewSnapshot(&observe.Recording{})
	_, err = empty.Resources(ctx)
	assert.EqualError(t, err, "snapshot: discovery: not recorded")
	_, err = empty.ServerVersion(ctx)
	assert.EqualError(t, err, "snapshot: server version: not recorded")
	_, err = empty.OpenAPIV3Index(ctx)
	assert.EqualError(t, err, "snapshot: openapi v3 index: not recorded")

	// A recorded "not found" replays as not found.
	got, err := snap.Get(ctx, configMaps.GVR(), "a", "absent")
	require.NoError(t, err)
	assert.Nil(t, got)
}

func TestSnapshotFileIsStable(t *testing.T) {
	_, recording, _ := recordedFake(t)
	var first bytes.Buffer
	require.NoError(t, observe.WriteSnapshot(&first, &observe.SnapshotFile{Clusters: map[string]*observe.Recording{"runtime": recording, "virtual-garden": {}}}))

	file, err := observe.ReadSnapshot(bytes.NewReader(first.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, observe.SnapshotFormatVersion, file.FormatVersion)
	var second bytes.Buffer
	require.NoError(t, observe.WriteSnapshot(&second, file))
	assert.Equal(t, first.String(), second.String(), "write, read, write must be byte-identical")

	// A second recording of the same reads gives the same bytes.
	_, again, _ := recordedFake(t)
	var third bytes.Buffer
	require.NoError(t, observe.WriteSnapshot(&third, &observe.SnapshotFile{Clusters: map[string]*observe.Recording{"runtime": again, "virtual-garden": {}}}))
	assert.Equal(t, first.String(), third.String())

	golden := filepath.Join("testdata", "snapshot.golden.json")
	if *update {
		require.NoError(t, os.WriteFile(golden, first.Bytes(), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), first.String(), "run with -update to accept a format change")
}

func TestReadSnapshotRejects(t *testing.T) {
	tests := []struct {
		name, input, wantErr string
	}{
		{"not json", "nope", "snapshot: not a snapshot file: invalid character 'o' in literal null (expecting 'u')"},
		{"no version", `{"clusters":{}}`, "snapshot: not a snapshot file: format_version is missing"},
		{"future version", `{"format_version":"2.0","clusters":{}}`, "snapshot: format_version 2.0 is not supported (this gardener reads 1.x)"},
		{"future version, earlier style", `{"format_version":2,"clusters":{}}`, "snapshot: format_version 2.0 is not supported (this gardener reads 1.x)"},
		{"not a version", `{"format_version":"v1","clusters":{}}`, `snapshot: not a snapshot file: format version "v1" is not MAJOR.MINOR`},
		{"null recording", `{"format_version":"1.0","clusters":{"a":null}}`, `snapshot: cluster "a" has no recording`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := observe.ReadSnapshot(bytes.NewReader([]byte(tt.input)))
			assert.EqualError(t, err, tt.wantErr)
		})
	}
}
