package main

import (
	"context"
	"encoding/json"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/engine/plan"
)

// chromium finds the headless browser the graph page is tested in: Debian's chromium package.
// Without it the test skips, except in CI (CI=true), which must install it (.ci/run).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed; CI installs it (apt-get install chromium), see docs/development.md")
	}
	t.Skip("chromium is not installed (apt-get install chromium)")
	return ""
}

// browse loads the page in headless chromium with the script appended to its body, which runs
// after the page's own, and returns the JSON the script writes into a <pre id="test-result">
// element of the DOM chromium prints once the page has loaded. No request leaves the machine:
// the page loads nothing, and chromium's own background requests are turned off.
func browse(t *testing.T, page, script string, result any) string {
	t.Helper()
	bin := chromium(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "graph.html")
	withScript := strings.Replace(page, "</body>", "<script>\n"+script+"\n</script>\n</body>", 1)
	require.NoError(t, os.WriteFile(file, []byte(withScript), 0o600))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--window-size=1400,900", "--user-data-dir="+filepath.Join(dir, "profile"),
		"--dump-dom", "file://"+file)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	dom, err := cmd.Output()
	require.NoError(t, err, "chromium: %s", stderr.String())
	m := regexp.MustCompile(`(?s)<pre id="test-result">(.*?)</pre>`).FindSubmatch(dom)
	require.NotNil(t, m, "the page's script did not finish; chromium said: %s", stderr.String())
	require.NoError(t, json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), result))
	return string(dom)
}

// pageProbe is what the probe script reports about the page.
type pageProbe struct {
	Title        string         `json:"title"`
	Summary      string         `json:"summary"`
	Nodes        []string       `json:"nodes"`
	Edges        int            `json:"edges"`
	Legend       string         `json:"legend"`
	Matches      []string       `json:"matches"`
	Dimmed       int            `json:"dimmed"`
	MatchText    string         `json:"matchText"`
	Centred      bool           `json:"centred"`
	Cleared      int            `json:"cleared"`
	Selected     string         `json:"selected"`
	Upstream     []string       `json:"upstream"`
	Downstream   []string       `json:"downstream"`
	Faded        int            `json:"faded"`
	Details      string         `json:"details"`
	ZoomIn       bool           `json:"zoomIn"`
	Wheel        bool           `json:"wheel"`
	Panned       bool           `json:"panned"`
	Actions      map[string]int `json:"actions"`
	Labels       []string       `json:"labels"`
	ActionLegend string         `json:"actionLegend"`
}

// probeScript acts as a reviewer would (search, click a component, zoom, pan) through the page's
// own controls and events, and reports what the page shows.
const probeScript = `
(function () {
  function all(sel) { return Array.prototype.slice.call(document.querySelectorAll(sel)); }
  function addrs(sel) { return all(sel).map(function (e) { return e.getAttribute("data-address"); }); }
  var r = {};
  r.title = document.getElementById("title").textContent;
  r.summary = document.getElementById("summary").textContent;
  r.nodes = addrs("#nodes g.node");
  r.edges = all("#edges path.edge").length;
  r.legend = document.getElementById("legend").textContent;
  var search = document.getElementById("search");
  search.value = QUERY;
  search.dispatchEvent(new Event("input", { bubbles: true }));
  r.matches = addrs("#nodes g.node.match");
  r.dimmed = all("#nodes g.node.dimmed").length;
  r.matchText = document.getElementById("matches").textContent;
  var shown = document.getElementById("viewport").getAttribute("transform");
  search.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
  r.centred = document.getElementById("viewport").getAttribute("transform") !== shown;
  search.value = "";
  search.dispatchEvent(new Event("input", { bubbles: true }));
  r.cleared = all("#nodes g.node.match, #nodes g.node.dimmed").length;
  var node = document.querySelector('#nodes g.node[data-address="' + SELECT + '"]');
  node.dispatchEvent(new MouseEvent("click", { bubbles: true }));
  r.selected = addrs("#nodes g.node.selected").join(",");
  r.upstream = addrs("#nodes g.node.upstream");
  r.downstream = addrs("#nodes g.node.downstream");
  r.faded = all("#nodes g.node.faded").length;
  r.details = document.getElementById("details").textContent;
  var viewport = document.getElementById("viewport");
  var before = viewport.getAttribute("transform");
  document.getElementById("zoom-in").click();
  r.zoomIn = viewport.getAttribute("transform") !== before;
  before = viewport.getAttribute("transform");
  var svg = document.getElementById("graph");
  svg.dispatchEvent(new WheelEvent("wheel", { deltaY: 200, clientX: 300, clientY: 300, bubbles: true, cancelable: true }));
  r.wheel = viewport.getAttribute("transform") !== before;
  before = viewport.getAttribute("transform");
  svg.dispatchEvent(new PointerEvent("pointerdown", { clientX: 100, clientY: 100, bubbles: true }));
  window.dispatchEvent(new PointerEvent("pointermove", { clientX: 160, clientY: 140, bubbles: true }));
  window.dispatchEvent(new PointerEvent("pointerup", { clientX: 160, clientY: 140, bubbles: true }));
  r.panned = viewport.getAttribute("transform") !== before;
  r.actions = {};
  all("#nodes g.node").forEach(function (g) {
    var a = g.getAttribute("data-action");
    if (a) { r.actions[a] = (r.actions[a] || 0) + 1; }
  });
  r.labels = all("#nodes g.node text").map(function (e) { return e.textContent; });
  r.actionLegend = all("#legend h3").map(function (e) { return e.textContent; }).join("|");
  var pre = document.createElement("pre");
  pre.id = "test-result";
  pre.textContent = JSON.stringify(r);
  document.body.appendChild(pre);
}());
`

func probe(t *testing.T, page, query, selectAddr string) pageProbe {
	t.Helper()
	q, err := json.Marshal(query)
	require.NoError(t, err)
	s, err := json.Marshal(selectAddr)
	require.NoError(t, err)
	script := strings.NewReplacer("QUERY", string(q), "SELECT", string(s)).Replace(probeScript)
	var r pageProbe
	browse(t, page, script, &r)
	return r
}

// textGraph reads `gardener graph`'s text form: the instances in order and each one's direct
// dependencies, whatever their arrow.
func textGraph(t *testing.T, args ...string) (order []string, deps map[string][]string) {
	t.Helper()
	out, errOut, err := runGraph(t, args...)
	require.NoError(t, err, errOut)
	deps = map[string][]string{}
	arrow := regexp.MustCompile(` (<-|<~|<<) `)
	for _, line := range strings.Split(out, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := arrow.Split(line, -1)
		order = append(order, fields[0])
		for _, group := range fields[1:] {
			deps[fields[0]] = append(deps[fields[0]], strings.Split(group, ", ")...)
		}
	}
	return order, deps
}

// reach lists what start reaches through next, start excluded.
func reach(start string, next map[string][]string) []string {
	seen := map[string]bool{}
	todo := []string{start}
	for len(todo) > 0 {
		n := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for _, m := range next[n] {
			if !seen[m] {
				seen[m] = true
				todo = append(todo, m)
			}
		}
	}
	var out []string
	for m := range seen {
		out = append(out, m)
	}
	return out
}

// The graph page of landscapes/local, loaded in a headless browser, shows every instance of the
// landscape and every edge; a search highlights the matching components and dims the others; a
// click on one highlights everything it is applied after and everything applied after it, and
// shows its details; the buttons, the wheel and a drag zoom and pan.
func TestGraphPageInABrowser(t *testing.T) {
	local := filepath.Join("..", "..", "landscapes", "local")
	page, errOut, err := runGraph(t, "--format", "html", local)
	require.NoError(t, err, errOut)
	order, deps := textGraph(t, local)
	dependents := map[string][]string{}
	edges := 0
	for n, ds := range deps {
		for _, d := range ds {
			dependents[d] = append(dependents[d], n)
			edges++
		}
	}

	r := probe(t, page, "shoot.dev.", "seed.local")
	assert.Equal(t, order, r.Nodes, "one node per instance, in apply order")
	assert.Equal(t, "Landscape local: "+itoa(len(order))+" components", r.Title)
	assert.Equal(t, edges, r.Edges, "one path per edge")
	assert.Contains(t, r.Legend, "declared: a reference or depends_on in the landscape")
	assert.Contains(t, r.Legend, "implied: ")
	assert.Contains(t, r.Legend, "follows: ")

	var want []string
	for _, n := range order {
		if strings.Contains(n, "shoot.dev.") {
			want = append(want, n)
		}
	}
	require.NotEmpty(t, want)
	assert.Equal(t, want, r.Matches, "the search highlights the matching components")
	assert.Equal(t, len(order)-len(want), r.Dimmed, "and dims the others")
	assert.Equal(t, itoa(len(want))+" matches", r.MatchText)
	assert.True(t, r.Centred, "Enter moves the view to the first match")
	assert.Zero(t, r.Cleared, "an empty search shows everything again")

	assert.Equal(t, "seed.local", r.Selected)
	assert.ElementsMatch(t, reach("seed.local", deps), r.Upstream, "everything seed.local is applied after")
	assert.ElementsMatch(t, reach("seed.local", dependents), r.Downstream, "everything applied after seed.local")
	assert.Equal(t, len(order)-1-len(r.Upstream)-len(r.Downstream), r.Faded)
	assert.Contains(t, r.Details, "seed.local")
	assert.Contains(t, r.Details, "declared inseed.hcl:")
	assert.Contains(t, r.Details, "Applied after ("+itoa(len(deps["seed.local"]))+" directly, "+itoa(len(r.Upstream))+" in all)")
	assert.Contains(t, r.Details, "Applied before ("+itoa(len(dependents["seed.local"]))+" directly, "+itoa(len(r.Downstream))+" in all)")
	assert.True(t, r.ZoomIn, "the zoom button zooms")
	assert.True(t, r.Wheel, "the wheel zooms")
	assert.True(t, r.Panned, "a drag pans")
	assert.Empty(t, r.Actions, "without a plan, no actions")
	assert.Empty(t, r.Summary)
}

// With a saved plan, each component shows its planned action, as a colour (its class) and as the
// plan's symbol before its address.
func TestGraphPageShowsAPlan(t *testing.T) {
	dir, snap := scenario("update")
	planFile := filepath.Join(t.TempDir(), "plan.bin")
	_, errOut, err := run(t, "plan", dir, "--observed", snap, "--out", planFile)
	require.NoError(t, err, errOut)
	saved, err := plan.ReadFile(planFile)
	require.NoError(t, err)
	page, errOut, err := runGraph(t, "--format", "html", "--plan", planFile, dir)
	require.NoError(t, err, errOut)
	golden(t, "graph/update-plan.html.golden", page)

	r := probe(t, page, "app", "component.manifests.app")
	wantActions := map[string]int{}
	for _, c := range saved.Plan.Components {
		wantActions[string(c.Action)]++
	}
	assert.Equal(t, map[string]int{"update": 1, "no-op": 1}, wantActions, "the scenario updates one component")
	assert.Equal(t, wantActions, r.Actions)
	assert.Contains(t, r.Labels, "~ component.manifests.app")
	assert.Contains(t, r.Labels, "component.manifests.namespace")
	assert.Contains(t, r.Details, "planupdate: 2 to change")
	assert.Contains(t, r.ActionLegend, "Plan")
	assert.Equal(t, "Plan: 0 to add, 2 to change, 0 to replace, 0 to destroy.", r.Summary)
}

// A composite (garden, seed, shoot) renders nothing of its own: the page shows it doing what its
// parts do, here in an offline plan of landscapes/local, which creates everything.
func TestGraphPageShowsWhatACompositesPartsDo(t *testing.T) {
	local := filepath.Join("..", "..", "landscapes", "local")
	planFile := filepath.Join(t.TempDir(), "plan.bin")
	_, errOut, err := run(t, "plan", local, "--offline", "--out", planFile)
	require.NoError(t, err, errOut)
	page, errOut, err := runGraph(t, "--format", "html", "--plan", planFile, local)
	require.NoError(t, err, errOut)
	saved, err := plan.ReadFile(planFile)
	require.NoError(t, err)
	adds := 0
	for _, c := range saved.Plan.Components {
		if strings.HasPrefix(c.Address, "shoot.dev.") {
			for _, o := range c.Objects {
				if o.Action == plan.Create {
					adds++
				}
			}
		}
	}
	require.Positive(t, adds)

	r := probe(t, page, "shoot.dev", "shoot.dev")
	assert.Contains(t, r.Labels, "+ shoot.dev", "the shoot is created, as its parts are")
	assert.Contains(t, r.Labels, "+ seed.local")
	assert.Contains(t, r.Labels, "+ garden.local")
	assert.Contains(t, r.Details, "plancreate: "+itoa(adds)+" to add")
	assert.Contains(t, r.Details, "notethe actions of its parts")
	assert.NotContains(t, r.Actions, "not planned", "the plan has every instance")
	assert.Zero(t, r.Actions["no-op"], "an offline plan changes every component")
	assert.Positive(t, r.Actions["render-during-apply"])
}

func TestGraphPageErrors(t *testing.T) {
	dir, snap := scenario("update")
	_, _, err := runGraph(t, "--plan", "plan.bin", dir)
	assert.EqualError(t, err, "--plan shows a plan's actions in the html format only")

	planFile := filepath.Join(t.TempDir(), "plan.bin")
	_, errOut, err := run(t, "plan", dir, "--observed", snap, "--out", planFile)
	require.NoError(t, err, errOut)
	other, _ := scenario("noop")
	_, errOut, err = runGraph(t, "--format", "html", "--plan", planFile, other)
	assert.Equal(t, exitCode(1), err)
	assert.Contains(t, errOut, `is a plan of landscape "golden-update", not of "golden-noop"`)

	_, errOut, err = runGraph(t, "--format", "html", "--plan", filepath.Join(t.TempDir(), "missing.bin"), dir)
	assert.Equal(t, exitCode(1), err)
	assert.Contains(t, errOut, "missing.bin")
}

func itoa(n int) string { return strconv.Itoa(n) }
