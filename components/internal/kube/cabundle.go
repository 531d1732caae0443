package kube

import (
	"encoding/base64"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// SetWebhookCABundles sets clientConfig.caBundle of every webhook of a webhook configuration: PEM
// is base64-encoded, anything else (base64, an engine marker for a generated CA) is taken as it
// is, which is why it is set on the unstructured object: a marker is no valid []byte for the typed
// field. An empty caBundle leaves the field unset.
func SetWebhookCABundles(u *unstructured.Unstructured, caBundle string) error {
	if caBundle == "" {
		return nil
	}
	if strings.HasPrefix(strings.TrimSpace(caBundle), "-----BEGIN") {
		caBundle = base64.StdEncoding.EncodeToString([]byte(caBundle))
	}
	webhooks, _, err := unstructured.NestedSlice(u.Object, "webhooks")
	if err != nil {
		return fmt.Errorf("%s %s: %w", u.GetKind(), u.GetName(), err)
	}
	for _, w := range webhooks {
		if err := unstructured.SetNestedField(w.(map[string]any), caBundle, "clientConfig", "caBundle"); err != nil {
			return fmt.Errorf("%s %s: %w", u.GetKind(), u.GetName(), err)
		}
	}
	return unstructured.SetNestedSlice(u.Object, webhooks, "webhooks")
}
