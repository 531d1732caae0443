package planner

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/engine/secrets"
	"github.com/declarative-gardener/gardener/state"
)

const lostLineage = "6f1c2a5e-0d7b-4f55-9a55-1d2b0b7f3c11"

// Only an empty state continues another lineage; a state that exists keeps its own.
func TestAdoptLineage(t *testing.T) {
	written := func(lineage string) *state.State {
		st := state.Empty("land")
		st.Lineage, st.Serial = lineage, 3
		return st
	}
	for _, tt := range []struct {
		name    string
		st      *state.State
		lineage string
		want    string // the state's lineage afterwards
		err     string
	}{
		{name: "an empty state continues it", st: state.Empty("land"), lineage: lostLineage, want: lostLineage},
		{name: "a state of that lineage keeps it", st: written(lostLineage), lineage: lostLineage, want: lostLineage},
		{name: "a state of another lineage refuses it", st: written("0b9a7c1e-5d2f-4e8a-9c3b-7f6e5d4c3b2a"), lineage: lostLineage,
			err: "--adopt-lineage " + lostLineage + ": the landscape's state exists with lineage 0b9a7c1e-5d2f-4e8a-9c3b-7f6e5d4c3b2a; only an empty (lost) state continues another lineage"},
		{name: "not a lineage", st: state.Empty("land"), lineage: "no such thing",
			err: `--adopt-lineage: lineage "no such thing" cannot label the objects of a landscape: it must be 1 to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := adoptLineage(tt.st, tt.lineage)
			if tt.err != "" {
				assert.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, tt.st.Lineage)
		})
	}
}

// The generator step learns the landscape's lineage, the UID the state records a Secret under
// and whether an import block adopts it; without a state the field manager alone decides.
func TestProvenanceFromState(t *testing.T) {
	st := state.Empty("land")
	st.Lineage, st.Serial = lostLineage, 2
	st.Components["component.generated_secret.ca"] = &state.Component{Objects: []state.Object{
		{Cluster: "runtime", Version: "v1", Kind: "Secret", Namespace: "garden", Name: "ca", UID: "uid-1"},
		{Cluster: "runtime", Version: "v1", Kind: "ConfigMap", Namespace: "garden", Name: "other", UID: "uid-2"},
	}}
	imported := func(cluster, namespace, name string) bool {
		return cluster == "runtime" && namespace == "garden" && name == "planted"
	}
	prov := provenanceFromState(func() (*state.State, error) { return st, nil }, imported)
	for _, tt := range []struct {
		cluster, namespace, name string
		want                     secrets.Provenance
	}{
		{"runtime", "garden", "ca", secrets.Provenance{Lineage: lostLineage, RecordedUID: "uid-1"}},
		{"runtime", "garden", "other", secrets.Provenance{Lineage: lostLineage}},
		{"virtual-garden", "garden", "ca", secrets.Provenance{Lineage: lostLineage}},
		{"runtime", "garden", "planted", secrets.Provenance{Lineage: lostLineage, Imported: true}},
	} {
		got, err := prov(tt.cluster, tt.namespace, tt.name)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, "%s/%s/%s", tt.cluster, tt.namespace, tt.name)
	}
	got, err := provenanceFromState(func() (*state.State, error) { return nil, nil }, imported)("runtime", "garden", "ca")
	require.NoError(t, err)
	assert.Equal(t, secrets.Provenance{Stateless: true}, got)
}
