package apply

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/components/catalog"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/state"
)

// An apply targeted at one shoot finds and locks its state with the landscape evaluated in the
// plan's scope (the other shoots left out), so that a sharded state is locked for the shards of
// what it plans only; an apply of everything, or a destroy, evaluates every shoot.
func TestTargetedApplyLocksInTheTargetsScope(t *testing.T) {
	errStop := errors.New("stop before locking")
	opened := func(targets []string, destroy bool) *config.Result {
		var seen *config.Result
		_, diags, err := Landscape(context.Background(), LandscapeOptions{
			Planner: planner.Options{
				Dir: filepath.Join("..", "..", "landscapes", "scale"), Schemas: catalog.Schemas(), Renderers: catalog.Renderers(),
				Inputs:  config.InputSources{Vars: []string{fmt.Sprintf("shoot_count=%d", 12)}},
				Targets: targets, Destroy: destroy,
			},
			OpenState: func(res *config.Result) (state.Backend, error) {
				seen = res
				return nil, errStop
			},
		})
		require.False(t, diags.HasErrors(), diags.Error())
		require.ErrorIs(t, err, errStop)
		require.NotNil(t, seen)
		return seen
	}
	targeted := opened([]string{`shoot.on_s2["shoot-001"]`}, false)
	assert.Positive(t, targeted.Evaluated.Skipped, "the other shoots are left out")
	assert.Zero(t, opened(nil, false).Evaluated.Skipped, "an apply of everything evaluates everything")
	assert.Zero(t, opened([]string{`shoot.on_s2["shoot-001"]`}, true).Evaluated.Skipped, "a destroy evaluates everything")
}
