package catalog

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fidelity ledger (docs/fidelity.md and a page per component under docs/fidelity/) is what a
// Gardener engineer reads to decide whether to trust the engine; these tests keep it honest: the
// counts a page states are the entries it lists, the index repeats every page's counts, and every
// component the seed and shoot blocks deploy has a page.

var (
	fidelityDir   = filepath.Join("..", "..", "docs", "fidelity")
	fidelityIndex = filepath.Join("..", "..", "docs", "fidelity.md")
	countsLine    = regexp.MustCompile(`(?m)^Counts: (\d+) match[^·]*· (\d+) differ on purpose · (\d+) not modelled yet`)
	engineLine    = regexp.MustCompile("(?m)^Engine: (.*)$")
	enginePackage = regexp.MustCompile("`components/([a-z0-9]+)")
)

// ledgerSections are the sections whose entries a page counts, in the order of its Counts line.
var ledgerSections = []string{"Matches Gardener", "Differs on purpose", "Not modelled yet"}

type ledgerPage struct {
	file     string
	counts   [3]int
	packages []string
}

func readLedger(t *testing.T) []ledgerPage {
	t.Helper()
	entries, err := os.ReadDir(fidelityDir)
	require.NoError(t, err)
	var pages []ledgerPage
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(fidelityDir, e.Name()))
		require.NoError(t, err)
		text := string(data)
		page := ledgerPage{file: e.Name()}
		m := countsLine.FindStringSubmatch(text)
		if !assert.NotNil(t, m, "%s has a line \"Counts: N match · N differ on purpose · N not modelled yet\"", e.Name()) {
			continue
		}
		for i := range page.counts {
			page.counts[i], _ = strconv.Atoi(m[i+1])
		}
		for _, line := range engineLine.FindAllStringSubmatch(text, -1) {
			for _, p := range enginePackage.FindAllStringSubmatch(line[1], -1) {
				page.packages = append(page.packages, p[1])
			}
		}
		pages = append(pages, page)
	}
	require.NotEmpty(t, pages)
	return pages
}

// entriesPerSection counts the top-level list entries of each "## " section.
func entriesPerSection(text string) map[string]int {
	out := map[string]int{}
	section := ""
	for _, line := range strings.Split(text, "\n") {
		if title, ok := strings.CutPrefix(line, "## "); ok {
			section = strings.TrimSpace(title)
			out[section] += 0
			continue
		}
		if section != "" && strings.HasPrefix(line, "- ") {
			out[section]++
		}
	}
	return out
}

func TestFidelityPagesCountTheirEntries(t *testing.T) {
	for _, page := range readLedger(t) {
		data, err := os.ReadFile(filepath.Join(fidelityDir, page.file))
		require.NoError(t, err)
		entries := entriesPerSection(string(data))
		for i, section := range ledgerSections {
			if assert.Contains(t, entries, section, "%s has a section %q", page.file, section) {
				assert.Equal(t, page.counts[i], entries[section], "%s: the Counts line says %d for %q, the section lists %d entries", page.file, page.counts[i], section, entries[section])
			}
		}
		assert.Contains(t, entries, "Upgrading a landscape applied with the earlier rendering", "%s says how an applied landscape moves", page.file)
	}
}

func TestFidelityIndexListsEveryPage(t *testing.T) {
	data, err := os.ReadFile(fidelityIndex)
	require.NoError(t, err)
	index := string(data)
	for _, page := range readLedger(t) {
		row := regexp.MustCompile(`(?m)^\|[^\n]*\(fidelity/` + regexp.QuoteMeta(page.file) + `\)[^\n]*\| (\d+) \| (\d+) \| (\d+) \|\s*$`)
		m := row.FindStringSubmatch(index)
		if !assert.NotNil(t, m, "docs/fidelity.md has a table row linking fidelity/%s and ending in its three counts", page.file) {
			continue
		}
		for i := range page.counts {
			assert.Equal(t, strconv.Itoa(page.counts[i]), m[i+1], "docs/fidelity.md repeats the counts of %s", page.file)
		}
	}
}

// notLedgered are the packages the seed and shoot blocks import that deploy nothing of Gardener's
// on their own: building blocks whose objects are ledgered with the component that uses them.
var notLedgered = map[string]string{
	"component":                 "the component contract",
	"internal":                  "helpers",
	"images":                    "the image vector, ledgered with each component's image",
	"generatedsecret":           "generated Secrets, ledgered with the components that mount them",
	"managedresource":           "the envelope of ManagedResources, ledgered with their contents",
	"manifests":                 "raw objects, ledgered with the extension resources and the Cluster",
	"namespace":                 "Namespaces, ledgered with the shoot namespace and the seed flow",
	"helmrelease":               "charts the landscape brings, not Gardener's",
	"catalog":                   "the registry",
	"controllerdeployment":      "the garden's registration objects (the garden's components follow in a later issue)",
	"gardenercontrollermanager": "the durations of gardener-controller-manager's shoot loops, which plans predict; deployed by the garden block",
	"controllerregistration":    "the garden's registration objects (the garden's components follow in a later issue)",
}

// TestEverySeedAndShootComponentHasALedgerPage reads the imports of components/seed and
// components/shoot (what the seed and shoot blocks deploy) and expects every component package
// among them on some page's Engine line.
func TestEverySeedAndShootComponentHasALedgerPage(t *testing.T) {
	ledgered := map[string]bool{}
	for _, page := range readLedger(t) {
		for _, p := range page.packages {
			ledgered[p] = true
		}
	}
	var missing []string
	for _, block := range []string{"seed", "shoot"} {
		for _, pkg := range importedComponents(t, filepath.Join("..", block)) {
			if _, skip := notLedgered[pkg]; skip || ledgered[pkg] || pkg == block {
				continue
			}
			missing = append(missing, block+" → components/"+pkg)
		}
	}
	sort.Strings(missing)
	assert.Empty(t, missing, "components the seed and shoot blocks deploy without a page in docs/fidelity/ naming them on its Engine line")
}

// importedComponents are the components/<pkg> packages the non-test files of dir import.
func importedComponents(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range parsed.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			rest, ok := strings.CutPrefix(path, "github.com/declarative-gardener/gardener/components/")
			if !ok {
				continue
			}
			pkg, _, _ := strings.Cut(rest, "/")
			if !seen[pkg] {
				seen[pkg] = true
				out = append(out, pkg)
			}
		}
	}
	require.NotEmpty(t, out, "%s imports components", dir)
	return out
}
