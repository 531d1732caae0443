package secrets

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func encryptionRequest(resources ...string) Request {
	return Request{Name: "kube-apiserver-etcd-encryption-configuration", Namespace: "garden", Class: ClassEncryptionConfig, Resources: resources}
}

func encryptionKeysOf(t *testing.T, res *Result) []encryptionKey {
	t.Helper()
	keys, err := encryptionKeys(secretData(t, res.Secret))
	require.NoError(t, err)
	return keys
}

func TestEncryptionConfigLifecycle(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	created := generate(t, encryptionRequest("secrets", "configmaps"), nil, now, false)
	assert.Equal(t, Created, created.Action)
	data := secretData(t, created.Secret)
	assert.Contains(t, string(data[DataKeyEncryptionConfig]), "kind: EncryptionConfiguration")
	assert.Contains(t, string(data[DataKeyEncryptionConfig]), "resources:\n  - configmaps\n  - secrets\n", "resources are sorted")
	assert.Contains(t, string(data[DataKeyEncryptionConfig]), "identity: {}", "data written before encryption stays readable")
	first := encryptionKeysOf(t, created)
	require.Len(t, first, 1)

	reused := generate(t, encryptionRequest("configmaps", "secrets"), created.Secret, now.Add(time.Hour), false)
	assert.Equal(t, Reused, reused.Action, "the same resources in another order are the same configuration")

	changed := generate(t, encryptionRequest("secrets", "configmaps", "shootstates.core.gardener.cloud"), created.Secret, now.Add(time.Hour), false)
	assert.Equal(t, Regenerated, changed.Action)
	assert.Equal(t, first, encryptionKeysOf(t, changed), "a change of the resources keeps the key that encrypted the data")
	assert.Contains(t, string(secretData(t, changed.Secret)[DataKeyEncryptionConfig]), "shootstates.core.gardener.cloud")

	rotated := generate(t, encryptionRequest("secrets", "configmaps", "shootstates.core.gardener.cloud"), changed.Secret, now.Add(48*time.Hour), true)
	assert.Equal(t, Rotated, rotated.Action)
	keys := encryptionKeysOf(t, rotated)
	require.Len(t, keys, 2)
	assert.NotEqual(t, first[0], keys[0], "a new key encrypts from now on")
	assert.Equal(t, first[0], keys[1], "the old key still decrypts")
	for _, k := range keys {
		assert.NotContains(t, rotated.Reason, k.Secret)
	}
}

func TestEncryptionConfigRequests(t *testing.T) {
	_, err := Generate(Request{Name: "x", Class: ClassEncryptionConfig}, nil, own, time.Now(), false, seeded(1))
	assert.ErrorContains(t, err, "the resources to encrypt are required")
	_, err = Generate(Request{Name: "x", Class: ClassToken, Resources: []string{"secrets"}}, nil, own, time.Now(), false, seeded(1))
	assert.ErrorContains(t, err, "resources apply only to encryption configurations")
	_, err = Generate(Request{Name: "x", Class: ClassEncryptionConfig, Resources: []string{"secrets"}, Length: 16}, nil, own, time.Now(), false, seeded(1))
	assert.ErrorContains(t, err, "key length of an encryption configuration is fixed")
}

func TestEncryptionConfigUnreadableIsRegenerated(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	created := generate(t, encryptionRequest("secrets"), nil, now, false)
	broken := created.Secret.DeepCopy()
	setData(broken, DataKeyEncryptionConfig, encode([]byte("kind: Nonsense")))
	res := generate(t, encryptionRequest("secrets"), broken, now, false)
	assert.Equal(t, Regenerated, res.Action)
	assert.Contains(t, res.Reason, "holds no AES-CBC key")
	assert.Len(t, encryptionKeysOf(t, res), 1)
}
