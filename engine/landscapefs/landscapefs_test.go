package landscapefs

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tree builds a landscape directory with an outside directory beside it: files maps paths
// (relative to the parent of both) to contents, links maps link paths to their targets.
func tree(t *testing.T, files, links map[string]string) (landscape, outside string) {
	t.Helper()
	parent := t.TempDir()
	landscape, outside = filepath.Join(parent, "landscape"), filepath.Join(parent, "outside")
	require.NoError(t, os.MkdirAll(landscape, 0o755))
	require.NoError(t, os.MkdirAll(outside, 0o755))
	for name, content := range files {
		p := filepath.Join(parent, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	for name, target := range links {
		p := filepath.Join(parent, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.Symlink(target, p))
	}
	return landscape, outside
}

func TestConfinedPaths(t *testing.T) {
	landscape, outside := tree(t, map[string]string{
		"landscape/main.hcl":            "x",
		"landscape/sub/inner.txt":       "inner",
		"outside/secret.txt":            "secret",
		"landscape/charts/a/Chart.yaml": "name: a",
	}, map[string]string{
		"landscape/out.txt":           "../outside/secret.txt",
		"landscape/abs-out.txt":       "/",
		"landscape/in.txt":            "sub/inner.txt",
		"landscape/outdir":            "../outside",
		"landscape/charts/a/evil.txt": "../../../outside/secret.txt",
		"landscape/charts/b":          "../sub",
		"landscape/dangling":          "nowhere",
	})
	confined := New(landscape, Policy{Confined: true})
	open := New(landscape, Policy{})

	for _, name := range []string{"main.hcl", "sub/inner.txt", "in.txt", "sub/../main.hcl", "./main.hcl"} {
		_, err := confined.ReadFile(name)
		assert.NoError(t, err, "%s stays inside", name)
	}
	tests := map[string]string{
		filepath.Join(outside, "secret.txt"): "is an absolute path",
		"/etc/hostname":                      "is an absolute path",
		"../outside/secret.txt":              "leaves the landscape directory",
		"sub/../../outside/secret.txt":       "leaves the landscape directory",
		"out.txt":                            "outside the landscape directory",
		"abs-out.txt":                        "outside the landscape directory",
		"outdir/secret.txt":                  "outside the landscape directory",
	}
	for name, want := range tests {
		_, err := confined.ReadFile(name)
		require.Error(t, err, name)
		assert.ErrorIs(t, err, ErrOutside, name)
		assert.Contains(t, err.Error(), want, name)

		_, err = open.Path(name)
		assert.NoError(t, err, "%s: outside confined mode any path is the landscape's to name", name)
	}
	_, err := confined.ReadFile("dangling")
	assert.ErrorContains(t, err, "no file exists")
	_, err = open.ReadFile("out.txt")
	assert.NoError(t, err)

	// A chart directory with a link out anywhere in it is refused as a whole; links inside are
	// fine, followed as Helm follows them.
	_, err = confined.Tree("charts/a")
	assert.ErrorIs(t, err, ErrOutside)
	assert.ErrorContains(t, err, filepath.Join("charts", "a", "evil.txt"))
	_, err = confined.Tree("charts/b")
	assert.NoError(t, err)
	_, err = confined.Tree("sub")
	assert.NoError(t, err)
	_, err = open.Tree("charts/a")
	assert.NoError(t, err)
}

// A landscape directory that is itself a link (a git-sync checkout) confines to where it points.
func TestConfinedRootBehindALink(t *testing.T) {
	landscape, _ := tree(t, map[string]string{"landscape/rev-1/main.hcl": "x"}, nil)
	current := filepath.Join(filepath.Dir(landscape), "current")
	require.NoError(t, os.Symlink(filepath.Join(landscape, "rev-1"), current))
	_, err := New(current, Policy{Confined: true}).ReadFile("main.hcl")
	assert.NoError(t, err)
}

func TestOnlyRegularFilesAreRead(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	big := filepath.Join(dir, "big")
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(MaxFileSize+1)) // sparse: takes no disk space
	require.NoError(t, f.Close())

	tests := map[string]string{
		"/dev/zero": "not a regular file (it is a character device)",
		fifo:        "not a regular file (it is a FIFO)",
		dir:         "is a directory",
		big:         "larger than 16 MiB",
	}
	for path, want := range tests {
		done := make(chan error, 1)
		go func() { _, err := ReadRegular(path); done <- err }()
		select {
		case err := <-done:
			assert.ErrorContains(t, err, want, path)
		case <-time.After(5 * time.Second):
			t.Fatalf("reading %s did not return", path)
		}
	}
}

func TestKubeconfigs(t *testing.T) {
	const exec = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://example.com"}}]
users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: gke-gcloud-auth-plugin}}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`
	const provider = `apiVersion: v1
kind: Config
users: [{name: u, user: {auth-provider: {name: oidc}}}]
`
	const tokenFile = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://attacker.example.com", certificate-authority: ca.crt}}]
users: [{name: u, user: {tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token}}]
`
	const plain = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://example.com", certificate-authority: ca.crt}}]
users: [{name: u, user: {token: abc}}]
`
	landscape, outside := tree(t, map[string]string{
		"landscape/exec.yaml":      exec,
		"landscape/provider.yaml":  provider,
		"landscape/token.yaml":     tokenFile,
		"landscape/plain.yaml":     plain,
		"landscape/ca.crt":         "ca",
		"outside/kubeconfigs/seed": exec,
		"outside/other":            plain,
	}, nil)
	d := New(landscape, Policy{Confined: true, KubeconfigDirs: []string{filepath.Join(outside, "kubeconfigs")}})

	assert.NoError(t, d.CheckKubeconfig("missing.yaml"), "a missing kubeconfig runs nothing; connecting reports it")
	path, own, err := d.Kubeconfig("plain.yaml")
	require.NoError(t, err)
	assert.True(t, own)
	assert.Equal(t, filepath.Join(landscape, "plain.yaml"), path)
	assert.NoError(t, d.CheckKubeconfig("plain.yaml"))

	for name, want := range map[string]string{
		"exec.yaml":     `user "u" runs the exec credential plugin "gke-gcloud-auth-plugin"`,
		"provider.yaml": `user "u" uses the auth provider "oidc"`,
		"token.yaml":    `user "u": tokenFile /var/run/secrets/kubernetes.io/serviceaccount/token is outside the landscape directory`,
	} {
		err := d.CheckKubeconfig(name)
		assert.ErrorIs(t, err, ErrKubeconfigRefused, name)
		assert.ErrorContains(t, err, want, name)
		assert.NoError(t, New(landscape, Policy{}).CheckKubeconfig(name), "outside confined mode nothing is refused")
	}

	// The operator's kubeconfig directory is not confined: exec plugins keep working there.
	path, own, err = d.Kubeconfig(filepath.Join(outside, "kubeconfigs", "seed"))
	require.NoError(t, err)
	assert.False(t, own)
	assert.Equal(t, filepath.Join(outside, "kubeconfigs", "seed"), path)
	_, _, err = d.Kubeconfig(filepath.Join(outside, "other"))
	assert.ErrorIs(t, err, ErrOutside)
	assert.ErrorContains(t, err, "outside the landscape directory and the operator's kubeconfig directories")
	_, _, err = d.Kubeconfig("../outside/other")
	assert.ErrorIs(t, err, ErrOutside)
}

func TestKubeconfigInHomeDirectory(t *testing.T) {
	landscape, _ := tree(t, map[string]string{
		"landscape/main.hcl":   "",
		"home/.kube/config":    "apiVersion: v1\nkind: Config\n",
		"home/.kube/seeds/aws": "apiVersion: v1\nkind: Config\n",
	}, nil)
	home := filepath.Join(filepath.Dir(landscape), "home")
	t.Setenv("HOME", home)

	tests := []struct {
		name   string
		policy Policy
		path   string
		want   string
		err    error
	}{
		{"~ unconfined", Policy{}, "~/.kube/config", filepath.Join(home, ".kube/config"), nil},
		{"~ alone", Policy{}, "~", home, nil},
		{"~user is a name", Policy{}, "~other/config", filepath.Join(landscape, "~other/config"), nil},
		{"~ confined is outside", Policy{Confined: true}, "~/.kube/config", "", ErrOutside},
		{"~ confined in a kubeconfig dir", Policy{Confined: true, KubeconfigDirs: []string{filepath.Join(home, ".kube/seeds")}}, "~/.kube/seeds/aws", filepath.Join(home, ".kube/seeds/aws"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, own, err := New(landscape, tt.policy).Kubeconfig(tt.path)
			if tt.err != nil {
				assert.ErrorIs(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.False(t, own, "a kubeconfig in the home directory is the operator's")
			assert.Equal(t, tt.want, path)
		})
	}
}
