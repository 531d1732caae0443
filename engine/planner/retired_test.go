package planner

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/rendering"
	"github.com/declarative-gardener/gardener/state"
)

func TestRecordRetirements(t *testing.T) {
	st := state.Empty("local")
	st.Retired = map[string]*state.Retirement{
		"shoot.trial":    {Ended: "2026-11-20T08:00:00Z", Reason: "r"}, // still retired
		"shoot.gone":     {Ended: "2026-11-01T08:00:00Z", Reason: "r"}, // block removed
		"shoot.lifted":   {Ended: "2026-11-01T08:00:00Z", Reason: "r"}, // rendered without a lifetime
		"shoot.deferred": {Ended: "2026-11-01T08:00:00Z", Reason: "r"}, // rendered during apply
	}
	trial := rendering.Retirement{Address: "shoot.trial", Ended: "2026-11-20T08:00:00Z", Reason: "r"}
	fresh := rendering.Retirement{Address: "shoot.fresh", Ended: "2026-11-21T08:00:00Z", Reason: "r"}
	rendered := map[config.InstanceAddress]*rendering.Rendered{
		"shoot.trial":    {Retired: &trial},
		"shoot.fresh":    {Retired: &fresh},
		"shoot.lifted":   {},
		"shoot.deferred": {Deferred: []string{".seed"}},
	}
	p := &plan.Plan{Retired: []plan.Retirement{plan.Retirement(trial), plan.Retirement(fresh)}}
	recordRetirements(p, st, rendered)
	assert.True(t, p.Retired[0].Recorded)
	assert.False(t, p.Retired[1].Recorded, "a new retirement is a change of the plan")
	assert.Equal(t, []string{"shoot.gone", "shoot.lifted"}, p.Forget)
	assert.True(t, p.HasChanges())

	targeted := &plan.Plan{Targets: []string{"shoot.trial"}, Retired: []plan.Retirement{plan.Retirement(trial)}}
	recordRetirements(targeted, st, rendered)
	assert.Empty(t, targeted.Forget, "a targeted plan does not see the whole landscape")
	assert.False(t, targeted.HasChanges())
}
