// Package tools_test checks the targets that run the pinned checkers: make vuln passes
// govulncheck's verdict through, and says plainly when its database cannot be reached.
package tools_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// vulnDB writes a vulnerability database in the layout of https://go.dev/security/vuln/database
// into a new directory: empty, or with one made-up entry for fmt.Fprintf in every Go release.
func vulnDB(t *testing.T, withEntry bool) string {
	t.Helper()
	dir := t.TempDir()
	const modified = "2026-11-01T00:00:00Z"
	write := func(name string, v any) {
		data, err := json.Marshal(v)
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
	}
	write("index/db.json", map[string]string{"modified": modified})
	modules, vulns := []any{}, []any{}
	if withEntry {
		modules = append(modules, map[string]any{"path": "stdlib", "modified": modified,
			"vulns": []any{map[string]string{"id": "GO-2099-0001", "modified": modified, "fixed": "99.0.0"}}})
		vulns = append(vulns, map[string]any{"id": "GO-2099-0001", "modified": modified, "aliases": []string{}})
		write("ID/GO-2099-0001.json", map[string]any{
			"schema_version": "1.3.1", "id": "GO-2099-0001", "modified": modified, "published": modified,
			"summary": "made up for the test of make vuln", "details": "Not a real vulnerability.",
			"references": []any{}, "database_specific": map[string]string{"url": "https://pkg.go.dev/vuln/GO-2099-0001"},
			"affected": []any{map[string]any{
				"package":            map[string]string{"name": "stdlib", "ecosystem": "Go"},
				"ranges":             []any{map[string]any{"type": "SEMVER", "events": []any{map[string]string{"introduced": "0"}, map[string]string{"fixed": "99.0.0"}}}},
				"ecosystem_specific": map[string]any{"imports": []any{map[string]any{"path": "fmt", "symbols": []string{"Fprintf"}}}},
			}},
		})
	}
	write("index/modules.json", modules)
	write("index/vulns.json", vulns)
	return "file://" + dir
}

// makeVuln runs make vuln on internal/termsafe (small, and it calls fmt.Fprintf).
func makeVuln(t *testing.T, db string) (string, error) {
	t.Helper()
	cmd := exec.Command("make", "--no-print-directory", "-C", "../..", "vuln", "VULNDB="+db, "VULNPKGS=./internal/termsafe")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestMakeVuln(t *testing.T) {
	if testing.Short() {
		t.Skip("builds govulncheck")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	tests := []struct {
		name, db string
		fails    bool
		says     string
	}{
		{"clean", vulnDB(t, false), false, "No vulnerabilities found."},
		{"a vulnerability on a path the code takes", vulnDB(t, true), true, "Vulnerability #1: GO-2099-0001"},
		// .invalid never resolves (RFC 6761), online or not, as vuln.go.dev does not here.
		{"database out of reach", "https://vuln.invalid", true, "vuln: govulncheck cannot reach or read its vulnerability database https://vuln.invalid, so nothing was checked."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := makeVuln(t, tt.db)
			if tt.fails {
				assert.Error(t, err, out)
			} else {
				assert.NoError(t, err, out)
			}
			assert.Contains(t, out, tt.says)
			if tt.name != "database out of reach" {
				assert.NotContains(t, out, "cannot reach", "a verdict is not an unreachable database")
			}
		})
	}
}
