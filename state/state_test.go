package state

import (
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/internal/bounded"
)

func TestKinds(t *testing.T) {
	s := sample("x")
	s.Components["component.y.z"] = &Component{Objects: []Object{
		{Cluster: "seed", Group: "druid.gardener.cloud", Kind: "Etcd", Namespace: "a", Name: "main"},
		{Cluster: "runtime", Group: "apps", Kind: "Deployment", Namespace: "b", Name: "x"},
	}}
	tests := []struct {
		cluster string
		want    []schema.GroupKind
	}{
		{"runtime", []schema.GroupKind{{Kind: "Namespace"}, {Kind: "Service"}, {Group: "apps", Kind: "Deployment"}}},
		{"seed", []schema.GroupKind{{Group: "druid.gardener.cloud", Kind: "Etcd"}}},
		{"none", []schema.GroupKind{}},
	}
	for _, tt := range tests {
		t.Run(tt.cluster, func(t *testing.T) {
			assert.Equal(t, tt.want, s.Kinds(tt.cluster))
		})
	}
}

func TestAddressesSorted(t *testing.T) {
	assert.Equal(t, []string{"component.helm_release.cert_manager", `shoot.dev["a"]`}, sample("x").Addresses())
}

func TestLockedErrorMessage(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name string
		err  *LockedError
		want string
	}{
		{"lease", &LockedError{ID: "abc", Holder: "alice@h pid 1", Operation: "apply", Acquired: at, Expires: at.Add(time.Minute)},
			"state is locked by alice@h pid 1 for apply since 2026-01-02T03:04:05Z (lock ID abc, expires 2026-01-02T03:05:05Z unless renewed); if its holder is gone, release it with force-unlock abc"},
		{"file, waited", &LockedError{ID: "abc", Holder: "bob", Operation: "state rm", Acquired: at, Waited: 1500 * time.Millisecond},
			"state is locked by bob for state rm since 2026-01-02T03:04:05Z (lock ID abc); waited 1.5s; if its holder is gone, release it with force-unlock abc"},
		{"unknown holder", &LockedError{ID: "abc"},
			"state is locked (lock ID abc); if its holder is gone, release it with force-unlock abc"},
		{"whoever writes the lock cannot control the terminal or add lines", &LockedError{ID: "id\x1b[2J", Holder: "eve\x1b]0;owned\a\rforged\nline\u202e", Operation: "apply\x1b[31m"},
			`state is locked by eve\x1b]0;owned\a\rforged\nline\u202e for apply\x1b[31m (lock ID id\x1b[2J); if its holder is gone, release it with force-unlock id\x1b[2J`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.err.Error())
		})
	}
}

func TestNewUUID(t *testing.T) {
	id := newUUID()
	assert.Regexp(t, regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`), id)
	assert.NotEqual(t, id, newUUID())
}

func TestDefaultHolder(t *testing.T) {
	assert.Regexp(t, `^.+@.+ pid \d+$`, DefaultHolder())
}

func TestSplit(t *testing.T) {
	tests := []struct {
		data string
		size int
		want []string
	}{
		{"", 3, []string{""}},
		{"abc", 3, []string{"abc"}},
		{"abcd", 3, []string{"abc", "d"}},
		{"abcdefg", 3, []string{"abc", "def", "g"}},
	}
	for _, tt := range tests {
		var got []string
		for _, p := range split([]byte(tt.data), tt.size) {
			got = append(got, string(p))
		}
		assert.Equal(t, tt.want, got, tt.data)
	}
}

func TestNameSlug(t *testing.T) {
	tests := []struct{ landscape, want string }{
		{"local", "local"},
		{"eu-1", "eu-1"},
		{"My_Land.scape", "my-land-scape-"},
	}
	for _, tt := range tests {
		got := nameSlug(tt.landscape)
		assert.True(t, len(got) >= len(tt.want) && got[:len(tt.want)] == tt.want, "%s: %s", tt.landscape, got)
	}
	assert.NotEqual(t, nameSlug("a_b"), nameSlug("a-b"), "names that map to the same slug stay apart")
	assert.NotEqual(t, nameSlug("A-b"), nameSlug("a-b"))
}

// A state Secret is gzip: a small one must not make gardener decompress gigabytes.
func TestStateDecompressionIsCapped(t *testing.T) {
	bomb := bounded.GzipBomb(`{"format_version":1,"pad":"`, 512<<20, `"}`)
	require.Less(t, len(bomb), 1<<20, "the bomb fits a Secret")
	err := bounded.Run(t, bounded.Default, func() error { _, err := gunzip(bomb); return err })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "decompresses to more than 64 MiB")

	small, err := gzipBytes([]byte(`{"format_version":1}`))
	require.NoError(t, err)
	raw, err := gunzip(small)
	require.NoError(t, err)
	assert.Equal(t, `{"format_version":1}`, string(raw))
}
