package main

import (
	"fmt"
	"math"
	"strings"
)

// secs formats seconds, or "-" for a figure not measured (zero).
func secs(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fs", v)
}

// times formats a ratio, or "-" for one not measured (zero).
func times(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1fx", v)
}

// mib formats a memory figure in MiB, or "-" for one not measured (zero).
func mib(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", v)
}

// markdown is results.md: a section per part that ran.
func markdown(res Results) string {
	var b strings.Builder
	b.WriteString("# Benchmark results\n")
	if len(res.Offline) > 0 {
		b.WriteString("\n## Offline plans of landscapes/scale\n\n")
		b.WriteString(offlineTable(res.Offline))
		b.WriteString("\n![offline plans: time and peak memory against shoots](offline.svg)\n")
	}
	if res.Local != nil {
		b.WriteString("\n## No-op plan of landscapes/local\n\n")
		b.WriteString(localTable(*res.Local))
	}
	if len(res.Scale) > 0 {
		b.WriteString("\n## landscapes/scale on live planes\n\n")
		b.WriteString(table(res.Scale))
		b.WriteString("\n### Apply from empty against the write floor\n\n")
		b.WriteString(floorTable(res.Scale))
		b.WriteString("\n![time against objects](plot.svg)\n")
	}
	return b.String()
}

// table is the live results as a Markdown table, with the ratios the targets are stated in.
func table(results []Result) string {
	var b strings.Builder
	b.WriteString("| shoots | objects | gardener plan (empty) | gardener apply | gardener render (empty) | kubectl apply --server-side | gardener no-op plan | kubectl diff --server-side | LIST floor | plan after one change | no-op plan / LIST floor | kubectl diff / no-op plan | kubectl apply / gardener apply | (render + kubectl apply) / gardener apply | peak RSS (MiB) |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range results {
		noopList, diffNoop, applyApply, renderedApply := r.Ratios()
		peak := 0.0
		for _, v := range r.RSS {
			peak = max(peak, v)
		}
		fmt.Fprintf(&b, "| %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			r.Shoots, r.Objects, secs(r.GardenerPlanEmpty), secs(r.GardenerApply), secs(r.GardenerRenderEmpty), secs(r.KubectlApply), secs(r.GardenerNoOpPlan),
			secs(r.KubectlDiff), secs(r.ListFloor), secs(r.GardenerChangePlan), times(noopList), times(diffNoop), times(applyApply), times(renderedApply), mib(peak))
	}
	return b.String()
}

// floorTable compares gardener's apply from empty with the write floor and the critical path,
// and lists each size's critical path.
func floorTable(results []Result) string {
	var b strings.Builder
	b.WriteString("| shoots | objects | gardener apply | write floor | write floor passes | critical path | apply / write floor | apply / (write floor + critical path) | kubectl apply / gardener apply |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range results {
		vsFloor, vsFloorAndPath := r.FloorRatios()
		_, _, applyApply, _ := r.Ratios()
		passes := "-"
		if r.WriteFloorPasses > 0 {
			passes = fmt.Sprint(r.WriteFloorPasses)
		}
		fmt.Fprintf(&b, "| %d | %d | %s | %s | %s | %s | %s | %s | %s |\n", r.Shoots, r.Objects, secs(r.GardenerApply), secs(r.WriteFloor), passes,
			secs(r.CriticalPath), times(vsFloor), times(vsFloorAndPath), times(applyApply))
	}
	for _, r := range results {
		if len(r.CriticalPathComponents) > 0 {
			fmt.Fprintf(&b, "\nCritical path at %d shoots (%s): %s\n", r.Shoots, secs(r.CriticalPath), strings.Join(r.CriticalPathComponents, " → "))
		}
	}
	return b.String()
}

// localTable is landscapes/local's no-op plan against kubectl diff, with every run.
func localTable(l LocalResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| objects | gardener no-op plan (median of %d) | kubectl diff --server-side (median of %d) | kubectl diff / no-op plan | no-op plans | kubectl diffs | peak RSS (MiB) |\n",
		len(l.GardenerNoOpPlans), len(l.KubectlDiffs))
	b.WriteString("|---:|---:|---:|---:|---|---|---:|\n")
	list := func(v []float64) string {
		var s []string
		for _, x := range v {
			s = append(s, secs(x))
		}
		return strings.Join(s, ", ")
	}
	fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %s |\n", l.Objects, secs(l.NoOpPlan()), secs(l.KubectlDiff()), times(l.Ratio()),
		list(l.GardenerNoOpPlans), list(l.KubectlDiffs), mib(l.PeakRSSMiB))
	return b.String()
}

// OfflineRatios are the comparisons of the offline series: the full plan's time per shoot
// against its time per shoot at the linearity base (the smallest size of at least 100 shoots;
// 1.0 is linear), and the targeted plan's time against the smallest size's.
func OfflineRatios(results []OfflineResult) (perShootVsBase, targetedVsSmallest []float64) {
	base, smallest := 0.0, 0.0
	for _, r := range results {
		if base == 0 && r.Shoots >= 100 && r.Full.Measured() {
			base = r.Full.Seconds / float64(r.Shoots)
		}
		if smallest == 0 && r.Targeted.Measured() {
			smallest = r.Targeted.Seconds
		}
	}
	for _, r := range results {
		perShoot := 0.0
		if r.Shoots >= 100 && r.Full.Measured() {
			perShoot = ratio(r.Full.Seconds/float64(r.Shoots), base)
		}
		targeted := 0.0
		if r.Targeted.Measured() {
			targeted = ratio(r.Targeted.Seconds, smallest)
		}
		perShootVsBase = append(perShootVsBase, perShoot)
		targetedVsSmallest = append(targetedVsSmallest, targeted)
	}
	return perShootVsBase, targetedVsSmallest
}

// offlineTable is the offline series, its ratios, and why a size was not measured.
func offlineTable(results []OfflineResult) string {
	var b strings.Builder
	b.WriteString("| shoots | objects | full plan | full plan peak RSS (MiB) | full plan per shoot | per shoot / at the base | targeted plan | targeted plan peak RSS (MiB) | targeted / at the smallest size | secrets generated at apply |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	perShoot, targeted := OfflineRatios(results)
	var notes []string
	for i, r := range results {
		objects, generated, each := "-", "-", "-"
		if r.Full.Measured() {
			objects, generated = fmt.Sprint(r.Full.Objects), fmt.Sprint(r.Full.SecretsGeneratedAtApply)
			each = fmt.Sprintf("%.1fms", 1000*r.Full.Seconds/float64(r.Shoots))
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Shoots, objects, secs(r.Full.Seconds), mib(r.Full.PeakRSSMiB), each,
			times(perShoot[i]), secs(r.Targeted.Seconds), mib(r.Targeted.PeakRSSMiB), times(targeted[i]), generated)
		for _, p := range []struct {
			name string
			plan OfflinePlan
		}{{"full", r.Full}, {"targeted", r.Targeted}} {
			if p.plan.Skipped != "" {
				notes = append(notes, fmt.Sprintf("- %d shoots, %s plan: %s", r.Shoots, p.name, p.plan.Skipped))
			}
		}
	}
	b.WriteString("\nThe base of \"per shoot\" is the smallest size of at least 100 shoots (1.0x is linear); \"targeted / at the smallest size\" compares the one-shoot plan with the same plan at the smallest size.\n")
	if len(notes) > 0 {
		b.WriteString("\n" + strings.Join(notes, "\n") + "\n")
	}
	return b.String()
}

// plot draws wall time against object count for the live measurements as an SVG line chart; a
// measurement no size has is left out.
func plot(results []Result) string {
	all := []struct {
		name, color string
		value       func(Result) float64
	}{
		{"render + kubectl apply", "#9467bd", func(r Result) float64 { return ratioSum(r.GardenerRenderEmpty, r.KubectlApply) }},
		{"kubectl apply --server-side", "#d62728", func(r Result) float64 { return r.KubectlApply }},
		{"gardener apply", "#2ca02c", func(r Result) float64 { return r.GardenerApply }},
		{"write floor", "#8c564b", func(r Result) float64 { return r.WriteFloor }},
		{"kubectl diff --server-side", "#ff7f0e", func(r Result) float64 { return r.KubectlDiff }},
		{"gardener no-op plan", "#1f77b4", func(r Result) float64 { return r.GardenerNoOpPlan }},
		{"LIST floor", "#7f7f7f", func(r Result) float64 { return r.ListFloor }},
	}
	series := all[:0:0]
	for _, s := range all {
		for _, r := range results {
			if s.value(r) > 0 {
				series = append(series, s)
				break
			}
		}
	}
	const w, h, left, bottom, top, right = 720.0, 420.0, 60.0, 40.0, 20.0, 220.0
	maxX, maxY := 1.0, 1.0
	for _, r := range results {
		maxX = max(maxX, float64(r.Objects))
		for _, s := range series {
			maxY = max(maxY, s.value(r))
		}
	}
	x := func(v float64) float64 { return left + v/maxX*(w-left-right) }
	y := func(v float64) float64 { return h - bottom - v/maxY*(h-bottom-top) }
	var b strings.Builder
	svgHeader(&b, w, h)
	axes(&b, left, w-right, top, h-bottom)
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="middle">objects (max %.0f)</text>`+"\n", (left+w-right)/2, h-8, maxX)
	fmt.Fprintf(&b, `<text x="14" y="%.0f" transform="rotate(-90 14 %.0f)" text-anchor="middle">seconds (max %.1f)</text>`+"\n", (h-bottom+top)/2, (h-bottom+top)/2, maxY)
	for i, s := range series {
		var points [][2]float64
		for _, r := range results {
			if v := s.value(r); v > 0 {
				points = append(points, [2]float64{x(float64(r.Objects)), y(v)})
			}
		}
		line(&b, points, s.color, "")
		legend(&b, w-right+10, top+10+float64(i)*18, s.color, "", s.name)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// ratioSum is a+b when both were measured, else zero.
func ratioSum(a, b float64) float64 {
	if a == 0 || b == 0 {
		return 0
	}
	return a + b
}

// offlinePlot draws the offline series on logarithmic axes: wall time (left panel) and peak
// memory (right panel) against shoots, for the full and the targeted plan. On such axes a
// straight line of slope 1 is linear growth, and a flat one constant cost. Sizes not measured
// are left out and named below the panels.
func offlinePlot(results []OfflineResult) string {
	type series struct {
		name, color, dash string
		plan              func(OfflineResult) OfflinePlan
	}
	all := []series{
		{"full plan", "#1f77b4", "", func(r OfflineResult) OfflinePlan { return r.Full }},
		{"one-shoot targeted plan", "#d62728", "6,4", func(r OfflineResult) OfflinePlan { return r.Targeted }},
	}
	panels := []struct {
		title string
		value func(OfflinePlan) float64
	}{
		{"wall time (s)", func(p OfflinePlan) float64 { return p.Seconds }},
		{"peak memory (MiB)", func(p OfflinePlan) float64 { return p.PeakRSSMiB }},
	}
	const h, panelW, left, right, top, bottom = 420.0, 340.0, 70.0, 30.0, 30.0, 90.0
	const w = 2*(left+panelW) + right
	minX, maxX := math.Inf(1), math.Inf(-1)
	for _, r := range results {
		minX, maxX = math.Min(minX, float64(r.Shoots)), math.Max(maxX, float64(r.Shoots))
	}
	var b strings.Builder
	svgHeader(&b, w, h)
	lx0, lx1 := decades(minX, maxX)
	for pi, panel := range panels {
		x0 := left + float64(pi)*(panelW+left)
		minY, maxY := math.Inf(1), math.Inf(-1)
		for _, r := range results {
			for _, s := range all {
				if p := s.plan(r); p.Measured() {
					minY, maxY = math.Min(minY, panel.value(p)), math.Max(maxY, panel.value(p))
				}
			}
		}
		ly0, ly1 := decades(minY, maxY)
		x := func(v float64) float64 { return x0 + (math.Log10(v)-lx0)/(lx1-lx0)*panelW }
		y := func(v float64) float64 { return h - bottom - (math.Log10(v)-ly0)/(ly1-ly0)*(h-bottom-top) }
		axes(&b, x0, x0+panelW, top, h-bottom)
		for e := lx0; e <= lx1; e++ {
			fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle">%s</text>`+"\n", x(math.Pow(10, e)), h-bottom+16, decadeLabel(e))
		}
		for e := ly0; e <= ly1; e++ {
			fmt.Fprintf(&b, `<text x="%.0f" y="%.1f" text-anchor="end">%s</text>`+"\n", x0-6, y(math.Pow(10, e))+4, decadeLabel(e))
		}
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="middle">shoots</text>`+"\n", x0+panelW/2, h-bottom+34)
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="middle">%s</text>`+"\n", x0+panelW/2, top-10, panel.title)
		for _, s := range all {
			var points [][2]float64
			for _, r := range results {
				if p := s.plan(r); p.Measured() && panel.value(p) > 0 {
					points = append(points, [2]float64{x(float64(r.Shoots)), y(panel.value(p))})
				}
			}
			line(&b, points, s.color, s.dash)
		}
	}
	for i, s := range all {
		legend(&b, left+float64(i)*240, h-bottom+56, s.color, s.dash, s.name)
	}
	var skipped []string
	for _, r := range results {
		for _, s := range all {
			if p := s.plan(r); !p.Measured() {
				skipped = append(skipped, fmt.Sprintf("%s at %d shoots", s.name, r.Shoots))
			}
		}
	}
	if len(skipped) > 0 {
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f">not measured (see results.md): %s</text>`+"\n", left, h-8, strings.Join(skipped, ", "))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// decades is the range of whole powers of ten around [lo, hi], as exponents, at least one decade
// wide; [0, 1] when nothing was measured.
func decades(lo, hi float64) (float64, float64) {
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || lo <= 0 {
		return 0, 1
	}
	a, b := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if b <= a {
		b = a + 1
	}
	return a, b
}

// decadeLabel writes 10^e plainly (0.1, 1, 10, 1000, 10000).
func decadeLabel(e float64) string {
	return fmt.Sprint(math.Pow(10, e))
}

func svgHeader(b *strings.Builder, w, h float64) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", w, h)
	fmt.Fprintf(b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
}

// axes draws the x axis at y1 and the y axis at x0.
func axes(b *strings.Builder, x0, x1, y0, y1 float64) {
	fmt.Fprintf(b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="black"/>`+"\n", x0, y1, x1, y1)
	fmt.Fprintf(b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="black"/>`+"\n", x0, y1, x0, y0)
}

// line draws a series: a polyline through its points and a dot at each.
func line(b *strings.Builder, points [][2]float64, color, dash string) {
	if len(points) == 0 {
		return
	}
	var coords []string
	for _, p := range points {
		coords = append(coords, fmt.Sprintf("%.1f,%.1f", p[0], p[1]))
	}
	fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>`+"\n", color, dashAttr(dash), strings.Join(coords, " "))
	for _, p := range points {
		fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", p[0], p[1], color)
	}
}

// legend draws a series' key: a short line in its colour and its name.
func legend(b *strings.Builder, x, y float64, color, dash, name string) {
	fmt.Fprintf(b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="%s" stroke-width="2"%s/>`+"\n", x, y, x+20, y, color, dashAttr(dash))
	fmt.Fprintf(b, `<text x="%.0f" y="%.0f">%s</text>`+"\n", x+26, y+4, name)
}

func dashAttr(dash string) string {
	if dash == "" {
		return ""
	}
	return fmt.Sprintf(` stroke-dasharray="%s"`, dash)
}
