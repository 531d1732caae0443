package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sampleResults() []Result {
	return []Result{
		{Shoots: 10, Objects: 1000, GardenerPlanEmpty: 20, GardenerApply: 40, GardenerRenderEmpty: 18, KubectlApply: 30,
			GardenerNoOpPlan: 2, KubectlDiff: 24, ListFloor: 1, GardenerChangePlan: 2.5, RSS: map[string]float64{"apply": 200, "plan-noop": 150}},
		{Shoots: 100, Objects: 10000, GardenerPlanEmpty: 200, GardenerApply: 400, GardenerRenderEmpty: 180, KubectlApply: 300,
			GardenerNoOpPlan: 20, KubectlDiff: 240, ListFloor: 8, GardenerChangePlan: 21, RSS: map[string]float64{"apply": 900}},
	}
}

func TestRatiosAreTheTargetsComparisons(t *testing.T) {
	noopList, diffNoop, applyApply, renderedApply := sampleResults()[0].Ratios()
	assert.InDelta(t, 2.0, noopList, 1e-9, "no-op plan over the LIST floor")
	assert.InDelta(t, 12.0, diffNoop, 1e-9, "kubectl diff over the no-op plan: how many times faster gardener is")
	assert.InDelta(t, 0.75, applyApply, 1e-9, "kubectl apply over gardener apply")
	assert.InDelta(t, 1.2, renderedApply, 1e-9, "rendering plus kubectl apply over gardener apply")
}

func TestTableHasOneRowPerSizeWithTheRatiosAndPeakMemory(t *testing.T) {
	lines := strings.Split(strings.TrimSpace(table(sampleResults())), "\n")
	require.Len(t, lines, 4, "header, separator and one row per size")
	columns := len(strings.Split(lines[0], "|"))
	for _, l := range lines[1:] {
		assert.Len(t, strings.Split(l, "|"), columns, "every row has the header's columns: %s", l)
	}
	assert.Equal(t, "| 10 | 1000 | 20.00s | 40.00s | 18.00s | 30.00s | 2.00s | 24.00s | 1.00s | 2.50s | 2.0x | 12.0x | 0.8x | 1.2x | 200 |", lines[2])
	assert.Contains(t, lines[3], "| 900 |", "peak memory is the largest of the size's runs")
}

func TestPlotDrawsEverySeriesAtEverySize(t *testing.T) {
	svg := plot(sampleResults())
	assert.True(t, strings.HasPrefix(svg, "<svg "))
	assert.True(t, strings.HasSuffix(svg, "</svg>\n"))
	for _, name := range []string{"render + kubectl apply", "kubectl apply --server-side", "gardener apply", "kubectl diff --server-side", "gardener no-op plan", "LIST floor"} {
		assert.Contains(t, svg, ">"+name+"</text>")
	}
	assert.Equal(t, 6, strings.Count(svg, "<polyline"), "one line per series")
	assert.Equal(t, 12, strings.Count(svg, "<circle"), "one point per series and size")
	assert.Contains(t, svg, "objects (max 10000)")
}
