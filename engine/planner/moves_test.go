package planner

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/engine/address"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/state"
)

func movesOf(t *testing.T, pairs ...string) []*config.Moved {
	t.Helper()
	var out []*config.Moved
	for i := 0; i < len(pairs); i += 2 {
		from, err := address.Parse(pairs[i])
		require.NoError(t, err)
		to, err := address.Parse(pairs[i+1])
		require.NoError(t, err)
		out = append(out, &config.Moved{From: from, To: to})
	}
	return out
}

func movedTestState() *state.State {
	st := state.Empty("land")
	st.Serial = 3
	st.Components["component.manifests.old"] = &state.Component{Address: "component.manifests.old", Type: "manifests", Objects: []state.Object{{Cluster: "runtime", Version: "v1", Kind: "ConfigMap", Namespace: "a", Name: "b", UID: "u1"}}}
	st.Components[`shoot.dev["x"]`] = &state.Component{Address: `shoot.dev["x"]`, Type: "shoot"}
	st.Components[`shoot.dev["x"].etcd_main`] = &state.Component{Address: `shoot.dev["x"].etcd_main`, Type: "etcd", DependsOn: []string{"component.manifests.old", `shoot.dev["x"]`}}
	st.Retired = map[string]*state.Retirement{`shoot.dev["y"]`: {Ended: "2026-11-20T08:00:00Z", Reason: "quota"}}
	return st
}

// The moved blocks move the state's records, their parts, what depends on them and ended
// lifetimes, following chains, in a copy: the state given stays as it was.
func TestMoveState(t *testing.T) {
	st := movedTestState()
	next, moved, err := MoveState(st, movesOf(t,
		"component.manifests.old", "component.manifests.mid",
		"component.manifests.mid", "component.manifests.new",
		"shoot.dev", "shoot.prod",
	))
	require.NoError(t, err)
	assert.Equal(t, []plan.Move{
		{From: "component.manifests.old", To: "component.manifests.new"},
		{From: `shoot.dev["x"]`, To: `shoot.prod["x"]`},
		{From: `shoot.dev["x"].etcd_main`, To: `shoot.prod["x"].etcd_main`},
		{From: `shoot.dev["y"]`, To: `shoot.prod["y"]`},
	}, moved)
	assert.Equal(t, []string{"component.manifests.new", `shoot.prod["x"]`, `shoot.prod["x"].etcd_main`}, next.Addresses())
	assert.Equal(t, "component.manifests.new", next.Components["component.manifests.new"].Address)
	assert.Equal(t, "u1", next.Components["component.manifests.new"].Objects[0].UID)
	assert.Equal(t, []string{"component.manifests.new", `shoot.prod["x"]`}, next.Components[`shoot.prod["x"].etcd_main`].DependsOn)
	assert.Contains(t, next.Retired, `shoot.prod["y"]`)
	assert.Equal(t, int64(3), next.Serial)

	assert.Equal(t, movedTestState(), st, "the state given is not changed")

	again, none, err := MoveState(next, movesOf(t, "component.manifests.old", "component.manifests.new"))
	require.NoError(t, err)
	assert.Empty(t, none, "a moved block whose move is made moves nothing")
	assert.Same(t, next, again)
}

func TestMoveStateRefusesToMerge(t *testing.T) {
	st := movedTestState()
	st.Components["component.manifests.new"] = &state.Component{Address: "component.manifests.new", Type: "manifests"}
	_, _, err := MoveState(st, movesOf(t, "component.manifests.old", "component.manifests.new"))
	require.Error(t, err)
	assert.Equal(t, "the state records component.manifests.new already, so component.manifests.old cannot move there; remove one of them from the state (gardener state rm) or move it elsewhere first", err.Error())
	var me *MoveError
	require.ErrorAs(t, err, &me)
	assert.NotNil(t, me.By)

	// Moved on by a chain, both records would end at one address.
	_, _, err = MoveState(st, movesOf(t, "component.manifests.old", "component.manifests.new", "component.manifests.new", "component.manifests.newer"))
	require.Error(t, err)
	assert.Equal(t, "both component.manifests.new and component.manifests.old would move to component.manifests.newer", err.Error())
}

// A moved block that finds nothing to move, neither at its old address nor, followed to the end
// of its chain, at its new one, is most likely a typo: the plan warns at the block.
func TestIdleMovesAreWarnedAbout(t *testing.T) {
	st := movedTestState()
	moves := movesOf(t,
		"component.manifests.old", "component.manifests.mid", // moves a record
		"component.manifests.mid", "component.manifests.new", // its chain goes on
		"component.manifests.typo", "component.manifests.other", // finds nothing
		"shoot.done", "shoot.dev", // made before: the new address is recorded
	)
	next, _, err := MoveState(st, moves)
	require.NoError(t, err)
	idle := idleMoves(st, next, moves)
	require.Len(t, idle, 1)
	assert.Equal(t, "component.manifests.typo", idle[0].From.String())
	d := idleMoveWarning(idle[0])
	assert.Equal(t, "Moved block moves nothing", d.Summary)

	st.Serial = 0
	assert.Empty(t, idleMoves(st, st, moves), "nothing was applied yet, so nothing is idle")
}
