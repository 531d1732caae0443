package observe

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"
)

// emptyCluster is the recording of an empty cluster of the pinned Kubernetes release serving the
// pinned Gardener release's API (the groups gardener-apiserver serves through the aggregation
// layer), with no objects: its server version, discovery and OpenAPI index, whose hashes are
// those of the documents embedded in engine/openapi, so that every schema comes from them.
// Regenerate it with `go run ./tests/openapigen`, which records it from the local control plane.
//
//go:embed emptycluster.json
var emptyCluster []byte

var (
	emptyOnce sync.Once
	emptyRec  *Recording
	emptyErr  error
)

// EmptyCluster is the cluster an offline plan reads for every cluster block (`gardener plan
// --offline`): a Snapshot of an empty cluster (Recording.Empty), so that the plan runs the same
// pipeline as a plan from a snapshot and finds nothing. Kinds defined by CustomResourceDefinitions
// are not served; a plan learns them from the CRDs the landscape renders, as on a new cluster.
func EmptyCluster() (*Snapshot, error) {
	emptyOnce.Do(func() {
		var rec Recording
		if err := json.Unmarshal(emptyCluster, &rec); err != nil {
			emptyErr = fmt.Errorf("embedded empty cluster: %w", err)
			return
		}
		if !rec.Empty || rec.Resources == nil || rec.OpenAPIIndex == nil {
			emptyErr = fmt.Errorf("embedded empty cluster: not a recording of an empty cluster")
			return
		}
		emptyRec = &rec
	})
	if emptyErr != nil {
		return nil, emptyErr
	}
	return NewSnapshot(emptyRec), nil
}

// EmptyClusterRecording returns a copy of the embedded empty cluster's recording, for the test
// that compares it with what the local control plane serves.
func EmptyClusterRecording() (*Recording, error) {
	if _, err := EmptyCluster(); err != nil {
		return nil, err
	}
	var rec Recording
	if err := json.Unmarshal(emptyCluster, &rec); err != nil {
		return nil, err
	}
	return &rec, nil
}
