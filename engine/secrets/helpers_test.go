package secrets

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"maps"
	mathrand "math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/inventory"
)

// t0 is the time of the first generation in every test.
var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// testBits keeps RSA keys small in tests: 3072-bit keys take a noticeable time to generate.
const testBits = 2048

// seeded is a deterministic random source.
func seeded(seed byte) io.Reader { return mathrand.NewChaCha8([32]byte{seed}) }

// caRequest is a CA request with test-sized keys.
func caRequest(cn string) Request {
	return Request{Name: cn, Namespace: "garden", Class: ClassCA, CommonName: cn, Length: testBits}
}

// serverRequest is a server certificate request signed by ca.
func serverRequest(ca *Material) Request {
	return Request{
		Name: "etcd-server", Namespace: "shoot--p--s", Class: ClassServerCert, CommonName: "etcd-main",
		DNSNames: []string{"etcd-main-client", "etcd-main-client.shoot--p--s.svc"}, IPAddresses: []string{"10.0.0.1", "::1"},
		Length: testBits, CA: ca,
	}
}

// clientRequest is a client certificate request signed by ca.
func clientRequest(ca *Material) Request {
	return Request{
		Name: "kube-apiserver-etcd-client", Namespace: "shoot--p--s", Class: ClassClientCert,
		CommonName: "kube-apiserver", Organization: []string{"system:masters"}, Length: testBits, CA: ca,
	}
}

// testLineage is the lineage of the tests' landscape.
const testLineage = "0b9a7c1e-5d2f-4e8a-9c3b-7f6e5d4c3b2a"

// own is the provenance of the tests' landscape.
var own = Provenance{Lineage: testLineage}

// applied is a Secret as the cluster holds it once the engine applied it: labelled with the
// landscape's lineage, its data written by the engine's server-side apply (nil stays nil).
func applied(u *unstructured.Unstructured) *unstructured.Unstructured {
	if u == nil {
		return nil
	}
	c := u.DeepCopy()
	labels := c.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[inventory.LineageLabel] = testLineage
	c.SetLabels(labels)
	data, _, _ := unstructured.NestedMap(c.Object, "data")
	c.SetManagedFields([]metav1.ManagedFieldsEntry{managedData("gardener", metav1.ManagedFieldsOperationApply, slices.Collect(maps.Keys(data))...)})
	return c
}

// managedData is a managedFields entry of manager owning the data keys.
func managedData(manager string, op metav1.ManagedFieldsOperationType, keys ...string) metav1.ManagedFieldsEntry {
	fields := map[string]any{}
	for _, k := range keys {
		fields["f:"+k] = map[string]any{}
	}
	raw, _ := json.Marshal(map[string]any{"f:data": fields})
	return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, APIVersion: "v1", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: raw}}
}

// generate calls Generate for the tests' landscape, with existing as the engine applied it, and
// fails the test on error.
func generate(t *testing.T, req Request, existing *unstructured.Unstructured, now time.Time, rotate bool) *Result {
	t.Helper()
	res, err := Generate(req, applied(existing), own, now, rotate, seeded(7))
	require.NoError(t, err)
	return res
}

// newTestCA generates a CA and returns its Material.
func newTestCA(t *testing.T, cn string) *Material {
	t.Helper()
	return generate(t, caRequest(cn), nil, t0, false).Material
}

// secretData decodes the data of a Secret object.
func secretData(t *testing.T, u *unstructured.Unstructured) map[string][]byte {
	t.Helper()
	raw, _, err := unstructured.NestedStringMap(u.Object, "data")
	require.NoError(t, err)
	out := map[string][]byte{}
	for k, v := range raw {
		b, err := base64.StdEncoding.DecodeString(v)
		require.NoError(t, err)
		out[k] = b
	}
	return out
}

// certOf parses the certificate under key of a Secret object.
func certOf(t *testing.T, u *unstructured.Unstructured, key string) *x509.Certificate {
	t.Helper()
	cert, err := parseCertificate(secretData(t, u), key)
	require.NoError(t, err)
	return cert
}

// setData replaces one data key of a Secret object (raw, not encoded, so tests can also break the
// encoding).
func setData(u *unstructured.Unstructured, key, encoded string) {
	data := u.Object["data"].(map[string]any)
	data[key] = encoded
}

// encode is base64 as the API server writes it.
func encode(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// pemType is the type of the first PEM block of b.
func pemType(t *testing.T, b []byte) string {
	t.Helper()
	block, _ := pem.Decode(b)
	require.NotNil(t, block)
	return block.Type
}
