package seed

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/render"
)

func gardenObject(kind, name string, fields map[string]any) unstructured.Unstructured {
	obj := map[string]any{"apiVersion": "core.gardener.cloud/v1beta1", "kind": kind, "metadata": map[string]any{"name": name}}
	for k, v := range fields {
		obj[k] = v
	}
	return unstructured.Unstructured{Object: obj}
}

func installation(name, seed string, statuses ...string) unstructured.Unstructured {
	var conds []any
	for i, typ := range []string{"Valid", "Installed", "Healthy", "Progressing"} {
		if i < len(statuses) {
			conds = append(conds, map[string]any{"type": typ, "status": statuses[i], "message": typ + " says so"})
		}
	}
	return gardenObject("ControllerInstallation", name, map[string]any{
		"spec":   map[string]any{"seedRef": map[string]any{"name": seed}},
		"status": map[string]any{"conditions": conds},
	})
}

func bucket(name, seed string, lastError map[string]any) unstructured.Unstructured {
	fields := map[string]any{"spec": map[string]any{"seedName": seed}}
	if lastError != nil {
		fields["status"] = map[string]any{"lastError": lastError}
	}
	return gardenObject("BackupBucket", name, fields)
}

func listing(buckets, installations []unstructured.Unstructured) render.Input {
	return render.Input{List: func(ref render.ListRef) ([]unstructured.Unstructured, error) {
		if ref.Cluster != "virtual" {
			return nil, errors.New("wrong cluster " + ref.Cluster)
		}
		switch ref.Resource {
		case "backupbuckets":
			return buckets, nil
		case "controllerinstallations":
			return installations, nil
		}
		return nil, errors.New("unexpected list " + ref.Key())
	}}
}

// The seed's BackupBucketsReady and ExtensionsReady, derived as gardener-controller-manager
// derives them (S4:12396-12402), from the objects of this seed only.
func TestConditions(t *testing.T) {
	healthy := []string{"True", "True", "True", "False"}
	tests := []struct {
		name          string
		buckets       []unstructured.Unstructured
		installations []unstructured.Unstructured
		want          []string
	}{
		{"no buckets, no installations", nil, nil, []string{
			"ExtensionsReady True (AllExtensionsReady): All 0 extensions installed into the seed are ready and healthy.",
		}},
		{"healthy", []unstructured.Unstructured{bucket("b", "local", nil)}, []unstructured.Unstructured{
			installation("provider-local-local", "local", healthy...), installation("other-seed", "other", "False"),
		}, []string{
			"BackupBucketsReady True (BackupBucketsAvailable): Backup Buckets are available.",
			"ExtensionsReady True (AllExtensionsReady): All 1 extensions installed into the seed are ready and healthy.",
		}},
		{"a bucket with an error, installations not ready", []unstructured.Unstructured{
			bucket("a", "local", nil), bucket("b", "local", map[string]any{"description": "access denied"}), bucket("c", "other", map[string]any{"description": "elsewhere"}),
		}, []unstructured.Unstructured{
			installation("z-rolling", "local", "True", "True", "True", "True"),
			installation("a-new", "local"),
			installation("m-unhealthy", "local", "True", "True", "False", "False"),
		}, []string{
			"BackupBucketsReady False (BackupBucketsError): Backup Buckets have errors: b: access denied",
			"ExtensionsReady False (NotAllExtensionsReady): Extensions are not ready: a-new: Valid is not reported yet; " +
				"m-unhealthy: Healthy is False (Healthy says so); z-rolling: Progressing is True (Progressing says so)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := conditions(listing(tt.buckets, tt.installations), "local", "virtual")
			require.NoError(t, err)
			var lines []string
			for _, c := range got {
				lines = append(lines, c.String())
			}
			assert.Equal(t, tt.want, lines)
		})
	}
}

// Without clusters (graph, validate) there is nothing to report.
func TestConditionsWithoutClusters(t *testing.T) {
	got, err := conditions(render.Input{}, "local", "virtual")
	require.NoError(t, err)
	assert.Empty(t, got)
}
