package secrets

import (
	"encoding/base64"
	"fmt"
	"maps"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// newSecret is the desired v1 Secret of req holding data. Only the fields gardener decides are
// set, so that the object built from a reused Secret equals the one built when it was generated.
// The Secret is not immutable (unlike Gardener's, whose names change with every generation,
// Gardener's docs/development/secrets_management.md): gardener keeps one stable name per Secret, so
// new material is an update.
func newSecret(req Request, data map[string][]byte, annotations map[string]string) *unstructured.Unstructured {
	encoded := make(map[string]any, len(data))
	for _, k := range slices.Sorted(maps.Keys(data)) {
		// The API server returns data in standard base64, so re-encoding decoded live data
		// yields the live strings byte for byte.
		encoded[k] = base64.StdEncoding.EncodeToString(data[k])
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "Secret",
		"type":       req.Class.SecretType(),
		"data":       encoded,
	}}
	u.SetName(req.Name)
	u.SetNamespace(req.Namespace)
	u.SetLabels(map[string]string{ClassLabel: string(req.Class)})
	u.SetAnnotations(annotations)
	return u
}

// generatedAnnotations are the annotations of freshly generated material.
func generatedAnnotations(configHash string, issuedAt, validUntil time.Time) map[string]string {
	a := map[string]string{
		ConfigHashAnnotation: configHash,
		IssuedAtAnnotation:   issuedAt.UTC().Format(time.RFC3339),
	}
	if !validUntil.IsZero() {
		a[ValidUntilAnnotation] = validUntil.UTC().Format(time.RFC3339)
	}
	return a
}

// liveSecret is what Generate reads from an existing Secret.
type liveSecret struct {
	class       Class
	configHash  string
	annotations map[string]string // gardener's own, to carry over on reuse
	data        map[string][]byte
}

// readLive reads an existing Secret. Errors name keys, never values.
func readLive(u *unstructured.Unstructured) (*liveSecret, error) {
	if u.GetAPIVersion() != "v1" || u.GetKind() != "Secret" {
		return nil, fmt.Errorf("it is a %s %s, not a v1 Secret", u.GetAPIVersion(), u.GetKind())
	}
	raw, _, err := unstructured.NestedMap(u.Object, "data")
	if err != nil {
		return nil, fmt.Errorf("its data is not a map")
	}
	data := make(map[string][]byte, len(raw))
	for k, v := range raw {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("its data key %s is not a string", k)
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("its data key %s is not base64", k)
		}
		data[k] = b
	}
	annotations := map[string]string{}
	for _, k := range []string{ConfigHashAnnotation, IssuedAtAnnotation, ValidUntilAnnotation} {
		if v, ok := u.GetAnnotations()[k]; ok {
			annotations[k] = v
		}
	}
	return &liveSecret{
		class:       Class(u.GetLabels()[ClassLabel]),
		configHash:  annotations[ConfigHashAnnotation],
		annotations: annotations,
		data:        data,
	}, nil
}
