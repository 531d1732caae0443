package shard_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/components/catalog"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/shard"
)

// The local landscape has one seed with three shoots on it: they, the seed and their parts are
// the seed's shard; the garden, projects and extensions are the garden shard's.
func TestBySeedSplitsTheLocalLandscape(t *testing.T) {
	res, diags := config.Load(filepath.Join("..", "..", "landscapes", "local"), catalog.Schemas(), config.InputSources{})
	require.False(t, diags.HasErrors(), "%v", diags)
	a := shard.BySeed(res.Evaluated)

	assert.Equal(t, []string{"seed.local"}, a.Shards())
	assert.Equal(t, []string{"seed.local", "shoot.dev", "shoot.ops", "shoot.qa"}, a.Instances("seed.local"))
	assert.Contains(t, a.Instances(shard.Garden), "garden.local")
	for _, tt := range []struct {
		addr, shard string
		declared    bool
	}{
		{"seed.local", "seed.local", true},
		{"shoot.dev", "seed.local", true},
		{"shoot.dev.kube_apiserver", "seed.local", true},
		{"seed.local.nginx_ingress", "seed.local", true},
		{"garden.local", shard.Garden, true},
		{"component.project.local", shard.Garden, true},
		{"shoot.removed", "", false},
		{"not an address", "", false},
	} {
		got, ok := a.Place(tt.addr)
		assert.Equal(t, tt.declared, ok, tt.addr)
		assert.Equal(t, tt.shard, got, tt.addr)
	}
}

func TestBySeedWithoutLandscape(t *testing.T) {
	a := shard.BySeed(nil)
	assert.Empty(t, a.Shards())
	_, ok := a.Place("seed.a")
	assert.False(t, ok)
}
