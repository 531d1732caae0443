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
