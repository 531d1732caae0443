package localcluster

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
)

// validateCRD runs the API server's own CRD validation (structural schema included) offline.
func validateCRD(t *testing.T, doc []byte) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crd, err := decodeCRD(doc)
	require.NoError(t, err)
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
	internal := &apiextensions.CustomResourceDefinition{}
	require.NoError(t, apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, internal, nil))
	errs := validation.ValidateCustomResourceDefinition(context.Background(), internal)
	assert.Empty(t, errs, "%s: %v", crd.Name, errs.ToAggregate())
	return crd
}

// TestGardenerAPICRDsAreOperatorKinds: gardener-apiserver serves every other Gardener kind; the
// CRDs left are gardener-operator's, which are CRDs in Gardener too.
func TestGardenerAPICRDsAreOperatorKinds(t *testing.T) {
	got := map[string]apiextensionsv1.ResourceScope{}
	for _, doc := range GardenerAPICRDs() {
		crd := validateCRD(t, doc)
		got[crd.Spec.Group+"/"+crd.Spec.Names.Kind] = crd.Spec.Scope
		assert.Equal(t, "gardener-local-stand-in", crd.Labels["app.kubernetes.io/part-of"], crd.Name)
	}
	assert.Equal(t, map[string]apiextensionsv1.ResourceScope{
		"operator.gardener.cloud/Garden":    apiextensionsv1.ClusterScoped,
		"operator.gardener.cloud/Extension": apiextensionsv1.ClusterScoped,
	}, got)
}

func TestSeedCRDsAreValid(t *testing.T) {
	kinds := map[string]bool{}
	for _, doc := range SeedCRDs() {
		crd := validateCRD(t, doc)
		kinds[crd.Spec.Group+"/"+crd.Spec.Names.Kind] = true
	}
	assert.True(t, kinds["druid.gardener.cloud/Etcd"])
	assert.True(t, kinds["resources.gardener.cloud/ManagedResource"])
	for _, kind := range []string{"Infrastructure", "ControlPlane", "Network", "Worker", "OperatingSystemConfig", "DNSRecord", "Extension", "BackupBucket", "BackupEntry"} {
		assert.True(t, kinds["extensions.gardener.cloud/"+kind], kind)
	}
}

func TestSeedCRDLookup(t *testing.T) {
	doc, err := SeedCRD("etcds.druid.gardener.cloud")
	require.NoError(t, err)
	assert.Contains(t, string(doc), "kind: Etcd")
	_, err = SeedCRD("nope.example.com")
	assert.ErrorContains(t, err, "is not embedded")
}
