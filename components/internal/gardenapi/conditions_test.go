package gardenapi

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestLiveCondition(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"conditions": []any{
		"not a condition",
		map[string]any{"type": "Required", "status": "True", "message": "in use", "lastTransitionTime": "2026-11-22T10:00:00Z"},
		map[string]any{"type": "Healthy", "status": "False", "lastTransitionTime": "yesterday"},
		map[string]any{"type": "Required", "status": "False"},
	}}}}
	tests := []struct {
		name  string
		obj   *unstructured.Unstructured
		typ   string
		want  Condition
		found bool
	}{
		{"the first of its type", obj, "Required", Condition{Status: "True", Message: "in use", LastTransitionTime: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}, true},
		{"an unreadable transition time is zero", obj, "Healthy", Condition{Status: "False"}, true},
		{"a type not reported", obj, "Installed", Condition{}, false},
		{"no object", nil, "Required", Condition{}, false},
		{"no status", &unstructured.Unstructured{Object: map[string]any{}}, "Required", Condition{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found := LiveCondition(tt.obj, tt.typ)
			assert.Equal(t, tt.found, found)
			assert.Equal(t, tt.want, got)
		})
	}
}
