package kube

import (
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/render"
)

func TestSetWebhookCABundles(t *testing.T) {
	const pem = "-----BEGIN CERTIFICATE-----\nMIIBtest\n-----END CERTIFICATE-----\n"
	for _, tt := range []struct {
		name, in, want string
	}{
		{"pem is encoded", pem, base64.StdEncoding.EncodeToString([]byte(pem))},
		{"base64 is kept", "Zm9v", "Zm9v"},
		{"a marker is kept", render.GeneratedRef("garden", "ca", "ca.crt", true), render.GeneratedRef("garden", "ca", "ca.crt", true)},
		{"empty leaves it unset", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u := &unstructured.Unstructured{Object: map[string]any{"webhooks": []any{
				map[string]any{"name": "a", "clientConfig": map[string]any{}},
				map[string]any{"name": "b"},
			}}}
			require.NoError(t, SetWebhookCABundles(u, tt.in))
			hooks, _, _ := unstructured.NestedSlice(u.Object, "webhooks")
			for _, h := range hooks {
				got, _, _ := unstructured.NestedString(h.(map[string]any), "clientConfig", "caBundle")
				assert.Equal(t, tt.want, got)
			}
		})
	}
}
