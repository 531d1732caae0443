package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/declarative-gardener/gardener/components/catalog"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/internal/bounded"
)

// stateBlock keeps the state in a cluster, as the daemon requires; nothing connects to it,
// since the hostile landscapes fail before.
const stateBlock = `landscape "l" {
  state {
    backend = "kubernetes"
    cluster = cluster.c
  }
}

cluster "c" {
  kubeconfig = "missing-kubeconfig"
}
`

// A hostile landscape does not crash the daemon: each cycle ends within a second, in bounded
// memory, with the landscape reported invalid and where; the daemon runs confined although its
// planner options do not say so, and a link out of the landscape directory stays a link out in
// its snapshot (copying what it points to would hand the outside file to the landscape).
func TestHostileLandscapesAreReportedInvalid(t *testing.T) {
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "token"), []byte("s3cr3t-token"), 0o600))
	laughs := `a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]` + "\n"
	for _, c := range "bcdefghi" {
		p := string(c - 1)
		laughs += fmt.Sprintf("%c: &%c [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n", c, c, p, p, p, p, p, p, p, p, p)
	}
	tests := []struct {
		name  string
		files map[string]string
		links map[string]string
		want  []string
	}{
		{
			name:  "billion laughs",
			files: map[string]string{"main.hcl": stateBlock + "locals {\n  bomb = yamldecode(file(\"laughs.yaml\"))\n}\n", "laughs.yaml": laughs},
			want:  []string{"main.hcl line 12", "aliases expand the document"},
		},
		{
			name:  "nesting",
			files: map[string]string{"main.hcl": stateBlock + "locals {\n  deep = " + strings.Repeat("(", 200000) + "1" + strings.Repeat(")", 200000) + "\n}\n"},
			want:  []string{"main.hcl line 12", "Nesting too deep"},
		},
		{
			name:  "an absolute path",
			files: map[string]string{"main.hcl": stateBlock + "locals {\n  token = file(\"" + filepath.Join(outside, "token") + "\")\n}\n"},
			want:  []string{"main.hcl line 12", "absolute path", "confined mode"},
		},
		{
			name:  "a link out",
			files: map[string]string{"main.hcl": stateBlock + "locals {\n  token = file(\"token\")\n}\n"},
			links: map[string]string{"token": filepath.Join(outside, "token")},
			want:  []string{"main.hcl line 12", "symbolic link", "confined mode"},
		},
		{
			name:  "a landscape file linked out",
			files: map[string]string{"main.hcl": stateBlock},
			links: map[string]string{"more.hcl": filepath.Join(outside, "token")},
			want:  []string{"more.hcl", "Outside the landscape directory"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tt.files {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
			}
			for name, target := range tt.links {
				require.NoError(t, os.Symlink(target, filepath.Join(dir, name)))
			}
			d := New(Options{
				Dir: dir, WorkDir: t.TempDir(), Policy: PolicyAuto, Resync: time.Hour,
				Planner: func(dir string) planner.Options {
					return planner.Options{Dir: dir, Schemas: catalog.Schemas(), Renderers: catalog.Renderers(), Inputs: config.InputSources{}}
				},
				Status:  StatusStore{Client: fake.NewSimpleClientset(), Namespace: "garden", Name: "status"},
				Metrics: NewMetrics(prometheus.NewRegistry()), Log: logr.Discard(),
			})
			for range 2 { // and the next cycle too: the daemon stays up
				s := bounded.Run(t, bounded.Default, func() Status { return d.Cycle(context.Background()) })
				require.Equal(t, PhaseInvalid, s.Phase, "%s: %s", s.Message, s.Errors)
				errs := strings.Join(strings.Fields(s.Errors), " ") // unwrapped
				for _, want := range tt.want {
					assert.Contains(t, errs, want)
				}
				assert.NotContains(t, s.Errors, "s3cr3t")
				assert.NotContains(t, s.Errors, d.snapshot, "errors name the landscape directory, not the snapshot")
			}
		})
	}
}

// The snapshot keeps a link out of the landscape directory a link, and neither copies nor hashes
// what it points to; links inside are copied as files, as a ConfigMap volume needs.
func TestSnapshotKeepsLinksOutAsLinks(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "token"), []byte("s3cr3t"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(`landscape "l" {}`), 0o644))
	require.NoError(t, os.Symlink("main.hcl", filepath.Join(dir, "alias.hcl")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "token"), filepath.Join(dir, "token")))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "outdir")))

	snap, fp, err := Snapshot(dir, t.TempDir())
	require.NoError(t, err)
	for _, name := range []string{"token", "outdir"} {
		info, err := os.Lstat(filepath.Join(snap, name))
		require.NoError(t, err)
		assert.NotZero(t, info.Mode()&os.ModeSymlink, "%s stays a link", name)
	}
	_, err = os.Lstat(filepath.Join(snap, "outdir", "token"))
	require.NoError(t, err)
	entries, err := os.ReadDir(snap)
	require.NoError(t, err)
	assert.Len(t, entries, 4, "nothing of the outside directory is copied")
	info, err := os.Lstat(filepath.Join(snap, "alias.hcl"))
	require.NoError(t, err)
	assert.True(t, info.Mode().IsRegular(), "a link inside is copied")

	require.NoError(t, os.WriteFile(filepath.Join(outside, "token"), []byte("changed"), 0o600))
	again, err := Fingerprint(dir)
	require.NoError(t, err)
	assert.Equal(t, fp, again, "what a link out points to is not read")
}
