package crds

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEveryCRDDecodesUnderItsName(t *testing.T) {
	names := Names()
	require.NotEmpty(t, names)
	assert.Contains(t, names, "etcds.druid.gardener.cloud")
	assert.Contains(t, names, "managedresources.resources.gardener.cloud")
	for _, name := range names {
		crd, err := Get(name)
		require.NoError(t, err, name)
		assert.Equal(t, name, crd.Spec.Names.Plural+"."+crd.Spec.Group)
	}
}

func TestUnknownCRD(t *testing.T) {
	_, err := Get("nothings.example.com")
	assert.ErrorContains(t, err, "is not embedded")
	_, err = Get("nodot")
	assert.ErrorContains(t, err, "not <plural>.<group>")
}

// Get hands out copies of the CRD it decoded once: a caller changing its copy changes no other.
func TestGetReturnsCopiesOfOneDecoding(t *testing.T) {
	Preload()
	a, err := Get("etcds.druid.gardener.cloud")
	require.NoError(t, err)
	a.Labels = map[string]string{"changed": "by a caller"}
	a.Spec.Versions[0].Name = "changed"
	b, err := Get("etcds.druid.gardener.cloud")
	require.NoError(t, err)
	assert.NotContains(t, b.Labels, "changed")
	assert.NotEqual(t, "changed", b.Spec.Versions[0].Name)
	assert.Equal(t, "etcds", b.Spec.Names.Plural)
}
