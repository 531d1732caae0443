package secrets

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/declarative-gardener/gardener/engine/inventory"
)

// written is a live Secret holding first's material (the right class label and config hash, which
// anyone who knows the landscape can compute), with the given lineage label (none when empty), UID
// and managed fields.
func written(first *Result, lineage, uid string, managed ...metav1.ManagedFieldsEntry) *unstructured.Unstructured {
	u := first.Secret.DeepCopy()
	if lineage != "" {
		labels := u.GetLabels()
		labels[inventory.LineageLabel] = lineage
		u.SetLabels(labels)
	}
	u.SetUID(types.UID("uid-" + uid))
	u.SetManagedFields(managed)
	return u
}

// Key material is reused only from a Secret the landscape generated itself: written by the
// engine's server-side apply and carrying the landscape's lineage (or, from before lineages, recorded
// in the state under its UID). Everything else is regenerated and the result says why.
func TestGenerateReusesOnlyTheLandscapesOwnMaterial(t *testing.T) {
	req := caRequest("ca")
	first := generate(t, req, nil, t0, false)
	byEngine := managedData("gardener", metav1.ManagedFieldsOperationApply, DataKeyCACert, DataKeyCAKey)
	tests := []struct {
		name    string
		live    *unstructured.Unstructured
		prov    Provenance
		foreign string // "" when reused
	}{
		{"the landscape's own", written(first, testLineage, "1", byEngine), own, ""},
		{"planted with kubectl: the right label and hash, but another field manager",
			written(first, testLineage, "1", managedData("kubectl-create", metav1.ManagedFieldsOperationUpdate, DataKeyCACert, DataKeyCAKey)), own,
			"its data was written by kubectl-create, not by gardener's server-side apply"},
		{"a key changed in place", written(first, testLineage, "1",
			managedData("gardener", metav1.ManagedFieldsOperationApply, DataKeyCACert), managedData("kubectl-edit", metav1.ManagedFieldsOperationUpdate, DataKeyCAKey)), own,
			"its data was written by kubectl-edit, not by gardener's server-side apply"},
		{"written by the engine's name, but not with a server-side apply", written(first, testLineage, "1",
			managedData("gardener", metav1.ManagedFieldsOperationUpdate, DataKeyCACert, DataKeyCAKey)), own,
			"its data was written by gardener (Update), not by gardener's server-side apply"},
		{"no managed fields at all", written(first, testLineage, "1"), own,
			"its data was written by no field manager, not by gardener's server-side apply"},
		{"another lineage", written(first, "1d0b5e3a-other", "1", byEngine), own,
			"it carries lineage 1d0b5e3a-other, not this landscape's lineage " + testLineage},
		{"before the first apply nothing is the landscape's", written(first, "1d0b5e3a-other", "1", byEngine), Provenance{},
			"it carries lineage 1d0b5e3a-other and this landscape has no state yet"},
		{"no lineage and not recorded", written(first, "", "1", byEngine), own,
			"it carries no lineage and the landscape's state does not record it"},
		{"no lineage, the state records another object of that name", written(first, "", "1", byEngine), Provenance{Lineage: testLineage, RecordedUID: "uid-2"},
			"it carries no lineage and the landscape's state does not record it"},
		{"generated before lineages: the state records it under its UID", written(first, "", "1", byEngine), Provenance{Lineage: testLineage, RecordedUID: "uid-1"}, ""},
		{"without a state the field manager decides", written(first, "1d0b5e3a-other", "1", byEngine), Provenance{Stateless: true}, ""},
		{"without a state a planted Secret is still foreign", written(first, "", "1", managedData("kubectl-create", metav1.ManagedFieldsOperationUpdate, DataKeyCACert, DataKeyCAKey)), Provenance{Stateless: true},
			"its data was written by kubectl-create, not by gardener's server-side apply"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Generate(req, tt.live, tt.prov, t0.Add(time.Hour), false, seeded(9))
			require.NoError(t, err)
			assert.Equal(t, tt.foreign, res.Foreign)
			if tt.foreign == "" {
				assert.Equal(t, Reused, res.Action, res.Reason)
				assert.Equal(t, first.Material.Data, res.Material.Data)
				return
			}
			assert.Equal(t, Regenerated, res.Action)
			assert.Equal(t, "regenerated: foreign key material was found and not used: "+tt.foreign, res.Reason)
			assert.NotEqual(t, first.Material.Data[DataKeyCAKey], res.Material.Data[DataKeyCAKey], "the planted key is not used")
			assert.NotEqual(t, first.Material.Data[DataKeyCACert], res.Material.Data[DataKeyCACert])
		})
	}
}

// An encryption configuration keeps the keys of its live Secret, since data in etcd is encrypted
// with them; keys someone else chose are never kept.
func TestForeignEncryptionKeysAreNotKept(t *testing.T) {
	req := encryptionRequest("secrets")
	first := generate(t, req, nil, t0, false)
	planted := written(first, "", "1", managedData("kubectl-create", metav1.ManagedFieldsOperationUpdate, DataKeyEncryptionConfig))
	res, err := Generate(encryptionRequest("secrets", "configmaps"), planted, own, t0.Add(time.Hour), false, seeded(3))
	require.NoError(t, err)
	assert.Equal(t, Regenerated, res.Action)
	assert.NotEmpty(t, res.Foreign)
	keys := encryptionKeysOf(t, res)
	require.Len(t, keys, 1, "only a fresh key")
	assert.NotEqual(t, encryptionKeysOf(t, first)[0], keys[0])
}

// An import block adopts material the landscape did not generate: it is reused whoever wrote it
// and without the class label and config hash a generated Secret carries (which the reused
// Secret gets), as long as it is usable, current and asked for no rotation.
func TestImportedMaterialIsReused(t *testing.T) {
	req := caRequest("ca")
	other := generate(t, caRequest("made-elsewhere"), nil, t0, false)
	planted := func(mutate func(u *unstructured.Unstructured)) *unstructured.Unstructured {
		u := written(other, "", "1", managedData("planter", metav1.ManagedFieldsOperationUpdate, DataKeyCACert, DataKeyCAKey))
		u.SetName("ca")
		u.SetLabels(nil)
		u.SetAnnotations(nil)
		if mutate != nil {
			mutate(u)
		}
		return u
	}
	imported := Provenance{Lineage: testLineage, Imported: true}
	tests := []struct {
		name   string
		live   *unstructured.Unstructured
		prov   Provenance
		now    time.Time
		rotate bool
		action Action
		reason string
	}{
		{"made elsewhere, imported", planted(nil), imported, t0.Add(time.Hour), false, Reused, "imported: the key material of the existing Secret is adopted (import block)"},
		{"another lineage, imported", planted(func(u *unstructured.Unstructured) {
			u.SetLabels(map[string]string{inventory.LineageLabel: "1d0b5e3a-other"})
		}), imported, t0.Add(time.Hour), false, Reused, "imported: the key material of the existing Secret is adopted (import block)"},
		{"not imported", planted(nil), own, t0.Add(time.Hour), false, Regenerated, "regenerated: foreign key material was found and not used: its data was written by planter, not by gardener's server-side apply"},
		{"imported but broken", planted(func(u *unstructured.Unstructured) { setData(u, DataKeyCAKey, encode([]byte("not a key"))) }), imported, t0.Add(time.Hour), false, Regenerated, ""},
		{"imported and rotated", planted(nil), imported, t0.Add(time.Hour), true, Rotated, "rotated: rotation of the ca secrets was requested"},
		{"imported and expired", planted(nil), imported, t0.Add(30 * 365 * 24 * time.Hour), false, Renewed, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Generate(req, tt.live, tt.prov, tt.now, tt.rotate, seeded(9))
			require.NoError(t, err)
			assert.Equal(t, tt.action, res.Action, res.Reason)
			if tt.reason != "" {
				assert.Equal(t, tt.reason, res.Reason)
			}
			if tt.action != Reused {
				assert.NotEqual(t, other.Material.Data[DataKeyCAKey], res.Material.Data[DataKeyCAKey])
				return
			}
			assert.Empty(t, res.Foreign)
			assert.Equal(t, other.Material.Data, res.Material.Data, "the imported material is kept byte for byte")
			assert.Equal(t, string(ClassCA), res.Secret.GetLabels()[ClassLabel])
			generated := generate(t, req, nil, t0, false)
			assert.Equal(t, generated.Secret.GetAnnotations()[ConfigHashAnnotation], res.Secret.GetAnnotations()[ConfigHashAnnotation], "it carries the landscape's config hash from now on")
		})
	}
}
