package cluster

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "sigs.k8s.io/json"
)

// decodeList must give the maps the dynamic client's decoding gives: numbers as int64 where they
// are integers, keys as sent, and items of a typed list with the list's kind and apiVersion.
func TestDecodeListMatchesTheDynamicClient(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		continue_ string
	}{
		{name: "typed list", body: `{"apiVersion":"v1","kind":"ConfigMapList","metadata":{"resourceVersion":"7"},"items":[
			{"metadata":{"name":"a","namespace":"x","labels":{"l":"x"}},"data":{"k":"v"}},
			{"metadata":{"name":"b","namespace":"x","generation":3},"binaryData":null}]}`},
		{name: "custom resources keep their own kind", body: `{"apiVersion":"example.com/v1","kind":"ThingList","metadata":{"continue":"next-page"},"items":[
			{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"a"},"spec":{"replicas":3,"ratio":0.5,"big":9007199254740993,"Name":"case","name":"sensitive","list":[1,"two",{"three":3.0}],"empty":{}}}]}`,
			continue_: "next-page"},
		{name: "no items", body: `{"apiVersion":"v1","kind":"SecretList","metadata":{},"items":[]}`},
		{name: "null items", body: `{"apiVersion":"v1","kind":"SecretList","metadata":{},"items":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, next, err := decodeList([]byte(tt.body))
			require.NoError(t, err)
			assert.Equal(t, tt.continue_, next)
			var want unstructured.UnstructuredList
			require.NoError(t, runtime.DecodeInto(unstructured.UnstructuredJSONScheme, []byte(tt.body), &want))
			require.Len(t, items, len(want.Items))
			for i := range want.Items {
				assert.Equal(t, want.Items[i].Object, items[i].Object)
			}
		})
	}
}

func TestDecodeListRejectsWhatIsNoList(t *testing.T) {
	for _, body := range []string{``, `[]`, `{"kind":"ConfigMapList","items":{}}`, `{"kind":"ConfigMapList","items":[1]}`,
		`{"apiVersion":"v1","kind":"Status","status":"Failure","reason":"NotFound","code":404}`} {
		_, _, err := decodeList([]byte(body))
		assert.Error(t, err, body)
	}
}

// BenchmarkDecodeList decodes a LIST of 300 Secrets in one pass and as the dynamic client does.
func BenchmarkDecodeList(b *testing.B) {
	var items []any
	for i := range 300 {
		items = append(items, map[string]any{
			"metadata": map[string]any{"name": fmt.Sprintf("secret-%03d", i), "namespace": "garden", "resourceVersion": "12345",
				"labels": map[string]any{"declarative-gardener.io/landscape": "local"}, "managedFields": []any{map[string]any{
					"manager": "gardener", "operation": "Apply", "fieldsType": "FieldsV1",
					"fieldsV1": map[string]any{"f:data": map[string]any{"f:ca.crt": map[string]any{}, "f:tls.key": map[string]any{}}}}}},
			"type": "kubernetes.io/tls",
			"data": map[string]any{"ca.crt": strings.Repeat("QUJD", 300), "tls.key": strings.Repeat("REVG", 200)},
		})
	}
	body, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "SecretList", "metadata": map[string]any{}, "items": items})
	require.NoError(b, err)
	b.Run("one pass", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := decodeList(body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("dynamic client", func(b *testing.B) {
		for b.Loop() {
			var list unstructured.UnstructuredList
			if err := kjson.UnmarshalCaseSensitivePreserveInts(body, &list); err != nil { // as its serializer decodes
				b.Fatal(err)
			}
		}
	})
}
