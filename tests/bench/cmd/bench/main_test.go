package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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

func TestParseSizesAndParts(t *testing.T) {
	sizes, err := parseSizes(" 10, 100,,1000 ")
	require.NoError(t, err)
	assert.Equal(t, []int{10, 100, 1000}, sizes)
	for _, bad := range []string{"ten", "0", "-5"} {
		_, err := parseSizes(bad)
		assert.Error(t, err, bad)
	}

	parts, err := parseParts("offline, local")
	require.NoError(t, err)
	assert.Equal(t, map[string]bool{partOffline: true, partLocal: true}, parts)
	_, err = parseParts("offline,kubectl")
	assert.ErrorContains(t, err, `part "kubectl"`)
	_, err = parseParts(" , ")
	assert.Error(t, err, "no part at all")
}

func TestMedianIsTheMiddleRun(t *testing.T) {
	tests := []struct {
		name   string
		values []float64
		want   float64
	}{
		{"three runs, out of order", []float64{3, 1, 2}, 2},
		{"an outlier does not move it", []float64{1.1, 9, 1.2}, 1.2},
		{"even count: the mean of the middle two", []float64{4, 1, 2, 3}, 2.5},
		{"nothing measured", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			values := append([]float64(nil), tt.values...)
			assert.InDelta(t, tt.want, median(values), 1e-9)
			assert.Equal(t, tt.values, values, "the runs keep their order")
		})
	}
}

func TestFloorRatiosCompareApplyWithTheWriteFloorAndTheCriticalPath(t *testing.T) {
	r := Result{GardenerApply: 40, WriteFloor: 10, CriticalPath: 10}
	vsFloor, vsFloorAndPath := r.FloorRatios()
	assert.InDelta(t, 4.0, vsFloor, 1e-9)
	assert.InDelta(t, 2.0, vsFloorAndPath, 1e-9, "the target: apply within 2x of the write floor plus the critical path")

	r.CriticalPath = 0
	_, vsFloorAndPath = r.FloorRatios()
	assert.Zero(t, vsFloorAndPath, "without a critical path (the scale part did not run) there is no such ratio")
	r.GardenerApply = 0
	vsFloor, _ = r.FloorRatios()
	assert.Zero(t, vsFloor, "a write floor alone compares with nothing")
}

// applyOutput is the end of gardener apply's output: progress lines, then the summary.
const applyOutput = `✓ garden.scale.garden_namespace: done after 100ms
✓ seed.s1.istio: done after 1m2.3s

Component                       Result   Time
garden.scale.garden_namespace   applied  100ms
garden.scale.etcd_main          applied  4.5s
seed.s1.istio                   applied  1m2.3s
shoot.on_s1["shoot-000"].ns     applied  -

Apply complete! Objects: 12 added, 0 changed, 0 replaced, 0 destroyed.
`

func TestComponentTimesReadTheApplySummary(t *testing.T) {
	times, err := componentTimes(applyOutput)
	require.NoError(t, err)
	assert.Equal(t, map[string]time.Duration{
		"garden.scale.garden_namespace": 100 * time.Millisecond,
		"garden.scale.etcd_main":        4500 * time.Millisecond,
		"seed.s1.istio":                 62300 * time.Millisecond,
		`shoot.on_s1["shoot-000"].ns`:   0,
	}, times)

	_, err = componentTimes("Apply cancelled.\n")
	assert.ErrorContains(t, err, "no component summary")
	_, err = componentTimes("\nComponent  Result  Time\na  applied  soon\n")
	assert.ErrorContains(t, err, `time "soon"`)
}

func TestCriticalPathIsTheLongestChainByComponentTime(t *testing.T) {
	graph := []byte(`{"nodes": [
		{"address": "ns", "dependencies": []},
		{"address": "ca", "dependencies": ["ns"]},
		{"address": "etcd", "dependencies": ["ns", "ca"]},
		{"address": "apiserver", "dependencies": ["etcd", "ca"]},
		{"address": "dns", "dependencies": ["ns"]},
		{"address": "untimed", "dependencies": ["ns"]}
	]}`)
	deps, err := graphDependencies(graph)
	require.NoError(t, err)
	times := map[string]time.Duration{"ns": time.Second, "ca": 2 * time.Second, "etcd": 10 * time.Second, "apiserver": 5 * time.Second, "dns": 15 * time.Second}

	total, path := criticalPath(deps, times)
	assert.Equal(t, 18*time.Second, total, "ns + ca + etcd + apiserver: 1 + 2 + 10 + 5, longer than ns + dns (16)")
	assert.Equal(t, []string{"ns", "ca", "etcd", "apiserver"}, path)

	total, path = criticalPath(map[string][]string{"a": {"b"}, "b": {"a"}}, map[string]time.Duration{"a": time.Second, "b": time.Second})
	assert.Equal(t, 2*time.Second, total, "a cycle is cut where it closes, not followed forever")
	assert.Len(t, path, 2)

	_, err = graphDependencies([]byte("not json"))
	assert.Error(t, err)
}

func TestEstimateRSSNeverGrowsSlowerThanTheShoots(t *testing.T) {
	tests := []struct {
		name   string
		before []sizedRSS
		n      int
		want   float64
		ok     bool
	}{
		{"nothing measured: no estimate", nil, 10, 0, false},
		{"one size: in proportion", []sizedRSS{{100, 1000}}, 1000, 10000, true},
		{"sublinear growth so far still counts as linear", []sizedRSS{{10, 300}, {100, 1000}}, 1000, 10000, true},
		{"superlinear growth keeps its exponent", []sizedRSS{{10, 100}, {100, 10000}}, 1000, 1000000, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := estimateRSS(tt.before, tt.n)
			assert.Equal(t, tt.ok, ok)
			assert.InDelta(t, tt.want, got, tt.want*1e-9)
		})
	}
}

func TestReadOfflinePlanCountsObjectsAndSecretsLeftToApply(t *testing.T) {
	plan := `# garden.scale.ca (created: no secret exists yet; generated at apply): 1 to add
  + Secret garden/ca
      data.ca.crt: (sensitive)
# garden.scale.ns: 1 to add
  + Namespace garden
# shoot.on_s1["shoot-000"].ca (created: no secret exists yet; generated at apply): 1 to add

Plan: 3 to add, 0 to change, 0 to replace, 0 to destroy. 3 component(s) rendered during apply.
`
	objects, generated, err := readOfflinePlan(strings.NewReader(plan))
	require.NoError(t, err)
	assert.Equal(t, 3, objects)
	assert.Equal(t, 2, generated)

	_, _, err = readOfflinePlan(strings.NewReader("Error: something failed\n"))
	assert.ErrorContains(t, err, "no summary line")
}

func sampleOffline() []OfflineResult {
	return []OfflineResult{
		{Shoots: 10, Full: OfflinePlan{Seconds: 1, PeakRSSMiB: 300, Objects: 2500, SecretsGeneratedAtApply: 200}, Targeted: OfflinePlan{Seconds: 0.5, PeakRSSMiB: 200}},
		{Shoots: 100, Full: OfflinePlan{Seconds: 5, PeakRSSMiB: 1000, Objects: 17000}, Targeted: OfflinePlan{Seconds: 0.6, PeakRSSMiB: 250}},
		{Shoots: 1000, Full: OfflinePlan{Seconds: 60, PeakRSSMiB: 8000, Objects: 170000}, Targeted: OfflinePlan{Seconds: 0.9, PeakRSSMiB: 400}},
		{Shoots: 10000, Full: OfflinePlan{Skipped: "not run: its peak memory would be about 80000 MiB"}, Targeted: OfflinePlan{Seconds: 2, PeakRSSMiB: 900}},
	}
}

func TestOfflineRatiosAreLinearityFromTheBaseAndTargetedAgainstTheSmallest(t *testing.T) {
	perShoot, targeted := OfflineRatios(sampleOffline())
	assert.Equal(t, []float64{0, 1, 1.2, 0}, perShoot, "per shoot against 100 shoots (5 s / 100); none below the base nor for a size not measured")
	require.Len(t, targeted, 4)
	assert.InDeltaSlice(t, []float64{1, 1.2, 1.8, 4}, targeted, 1e-9, "against the one-shoot plan at 10 shoots")
}

func TestOfflineTableSaysWhyASizeWasNotMeasured(t *testing.T) {
	text := offlineTable(sampleOffline())
	lines := strings.Split(text, "\n")
	columns := len(strings.Split(lines[0], "|"))
	for _, l := range lines[1:6] {
		assert.Len(t, strings.Split(l, "|"), columns, "every row has the header's columns: %s", l)
	}
	assert.Equal(t, "| 10 | 2500 | 1.00s | 300 | 100.0ms | - | 0.50s | 200 | 1.0x | 200 |", lines[2])
	assert.Equal(t, "| 1000 | 170000 | 60.00s | 8000 | 60.0ms | 1.2x | 0.90s | 400 | 1.8x | 0 |", lines[4])
	assert.Equal(t, "| 10000 | - | - | - | - | - | 2.00s | 900 | 4.0x | - |", lines[5])
	assert.Contains(t, text, "- 10000 shoots, full plan: not run: its peak memory would be about 80000 MiB")
}

func TestOfflinePlotHasTimeAndMemoryPanelsOnLogAxes(t *testing.T) {
	svg := offlinePlot(sampleOffline())
	assert.True(t, strings.HasPrefix(svg, "<svg "))
	assert.True(t, strings.HasSuffix(svg, "</svg>\n"))
	for _, text := range []string{">wall time (s)</text>", ">peak memory (MiB)</text>", ">full plan</text>", ">one-shoot targeted plan</text>", ">10000</text>"} {
		assert.Contains(t, svg, text)
	}
	assert.Equal(t, 4, strings.Count(svg, "<polyline"), "full and targeted in each of the two panels")
	assert.Equal(t, 2*(3+4), strings.Count(svg, "<circle"), "a point per measured plan in each panel: 3 full, 4 targeted")
	assert.Contains(t, svg, "not measured (see results.md): full plan at 10000 shoots")
	assert.Contains(t, svg, `width="850"`, "both panels and the right margin fit")
}

func TestLocalTableComparesTheMedians(t *testing.T) {
	l := LocalResult{Objects: 445, GardenerNoOpPlans: []float64{0.4, 0.3, 0.5}, KubectlDiffs: []float64{3.1, 3.3, 3.0}, PeakRSSMiB: 120}
	assert.InDelta(t, 0.4, l.NoOpPlan(), 1e-9)
	assert.InDelta(t, 3.1, l.KubectlDiff(), 1e-9)
	assert.InDelta(t, 7.75, l.Ratio(), 1e-9)
	lines := strings.Split(strings.TrimSpace(localTable(l)), "\n")
	require.Len(t, lines, 3)
	assert.Contains(t, lines[0], "gardener no-op plan (median of 3)")
	assert.Equal(t, "| 445 | 0.40s | 3.10s | 7.8x | 0.40s, 0.30s, 0.50s | 3.10s, 3.30s, 3.00s | 120 |", lines[2])

	// --local-runs 5: the medians of five.
	l = LocalResult{Objects: 445, GardenerNoOpPlans: []float64{0.4, 0.3, 0.9, 0.2, 0.3}, KubectlDiffs: []float64{3.1, 3.3, 3.0, 9, 3.2}}
	assert.InDelta(t, 0.3, l.NoOpPlan(), 1e-9)
	assert.InDelta(t, 3.2, l.KubectlDiff(), 1e-9)
	assert.Contains(t, localTable(l), "gardener no-op plan (median of 5) | kubectl diff --server-side (median of 5)")
}

func TestFloorTableListsTheCriticalPath(t *testing.T) {
	results := []Result{{Shoots: 10, Objects: 1918, GardenerApply: 40, KubectlApply: 44, WriteFloor: 8, WriteFloorPasses: 3, CriticalPath: 12,
		CriticalPathComponents: []string{"garden.scale.ns", "garden.scale.etcd_main"}}}
	text := floorTable(results)
	assert.Contains(t, text, "| 10 | 1918 | 40.00s | 8.00s | 3 | 12.00s | 5.0x | 2.0x | 1.1x |")
	assert.Contains(t, text, "Critical path at 10 shoots (12.00s): garden.scale.ns → garden.scale.etcd_main")

	text = floorTable([]Result{{Shoots: 10, Objects: 1918, WriteFloor: 8, WriteFloorPasses: 2}})
	assert.Contains(t, text, "| 10 | 1918 | - | 8.00s | 2 | - | - | - | - |", "the write floor part alone: the rest is not measured")
}

func TestMarkdownHasASectionPerPartThatRan(t *testing.T) {
	md := markdown(Results{Offline: sampleOffline()})
	assert.Contains(t, md, "## Offline plans of landscapes/scale")
	assert.Contains(t, md, "(offline.svg)")
	assert.NotContains(t, md, "landscapes/local")
	assert.NotContains(t, md, "live planes")

	md = markdown(Results{Scale: sampleResults(), Local: &LocalResult{Objects: 445, GardenerNoOpPlans: []float64{1}, KubectlDiffs: []float64{10}}})
	assert.Contains(t, md, "## No-op plan of landscapes/local")
	assert.Contains(t, md, "## landscapes/scale on live planes")
	assert.Contains(t, md, "### Apply from empty against the write floor")
	assert.NotContains(t, md, "Offline")
}

func TestPlotLeavesOutSeriesNoSizeHas(t *testing.T) {
	results := sampleResults()
	results[0].WriteFloor, results[1].WriteFloor = 5, 50
	svg := plot(results)
	assert.Contains(t, svg, ">write floor</text>")
	assert.Equal(t, 7, strings.Count(svg, "<polyline"))

	svg = plot([]Result{{Shoots: 10, Objects: 1918, WriteFloor: 8}})
	assert.Equal(t, 1, strings.Count(svg, "<polyline"), "the write floor part alone")
	assert.NotContains(t, svg, ">gardener apply</text>")
}

func TestMeminfoFieldReadsKilobytesAsMebibytes(t *testing.T) {
	data := []byte("Name:\tgardener\nVmPeak:\t 2048000 kB\nVmRSS:\t  1048576 kB\n")
	v, err := meminfoField(data, "VmRSS")
	require.NoError(t, err)
	assert.InDelta(t, 1024.0, v, 1e-9)
	_, err = meminfoField(data, "MemAvailable")
	assert.ErrorContains(t, err, "no MemAvailable field")
	_, err = meminfoField([]byte("VmRSS: 12 pages\n"), "VmRSS")
	assert.Error(t, err)
}

func TestSplitDocumentsAtSeparatorLinesOnly(t *testing.T) {
	docs := splitDocuments("---\na: 1\n---\nb: |\n  x---\n  ---\n---\n\n---\nc: 3\n")
	assert.Equal(t, []string{"a: 1", "b: |\n  x---\n  ---", "c: 3\n"}, docs, "a separator inside a block scalar is indented and stays")
}

func TestFoundationsFirstKeepsOrder(t *testing.T) {
	obj := func(apiVersion, kind, name string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion(apiVersion)
		u.SetKind(kind)
		u.SetName(name)
		return u
	}
	objects := []*unstructured.Unstructured{
		obj("v1", "ConfigMap", "a"), obj("v1", "Namespace", "ns1"), obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", "etcds.druid.gardener.cloud"),
		obj("druid.gardener.cloud/v1alpha1", "Etcd", "main"), obj("v1", "Namespace", "ns2"),
	}
	first, rest := foundationsFirst(objects)
	names := func(us []*unstructured.Unstructured) (n []string) {
		for _, u := range us {
			n = append(n, u.GetName())
		}
		return n
	}
	assert.Equal(t, []string{"ns1", "etcds.druid.gardener.cloud", "ns2"}, names(first))
	assert.Equal(t, []string{"a", "main"}, names(rest))
}
