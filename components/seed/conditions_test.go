package seed

import (
	"errors"
	"testing"
	"time"

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
// derives them (Gardener's "Gardener Controller Manager" docs/concepts/controller-manager.md), from
// the objects of this seed only.
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
			got, revisit, err := conditions(listing(tt.buckets, tt.installations), "local", "virtual", 0)
			require.NoError(t, err)
			assert.Zero(t, revisit, "without a threshold nothing changes by time alone")
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
	got, _, err := conditions(render.Input{}, "local", "virtual", time.Minute)
	require.NoError(t, err)
	assert.Empty(t, got)
}

// With a conditionThreshold, a failing bucket turns a True BackupBucketsReady Progressing first
// and False once the threshold has passed since the live condition turned Progressing
// (Gardener's docs/concepts/controller-manager.md); from any other state it is False at once. The
// rendering names the time it turns False, and healthy buckets need no live Seed.
func TestBackupBucketsConditionThreshold(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	seed := func(status, since string) *unstructured.Unstructured {
		if status == "" {
			return nil
		}
		u := gardenObject("Seed", "local", map[string]any{"status": map[string]any{"conditions": []any{
			map[string]any{"type": "GardenletReady", "status": "True", "lastTransitionTime": "2026-11-01T00:00:00Z"},
			map[string]any{"type": "BackupBucketsReady", "status": status, "lastTransitionTime": since},
		}}})
		return &u
	}
	failing := []unstructured.Unstructured{bucket("b", "local", map[string]any{"description": "access denied"})}
	tests := []struct {
		name         string
		buckets      []unstructured.Unstructured
		live         *unstructured.Unstructured
		status       string
		turnsFalseAt string
	}{
		{"a new error on a ready seed starts the threshold now", failing, seed("True", "2026-11-01T00:00:00Z"), "Progressing", "2026-11-22T10:05:00Z"},
		{"no condition written yet: False at once", failing, seed("", ""), "False", ""},
		{"Unknown: False at once", failing, seed("Unknown", "2026-11-22T09:59:00Z"), "False", ""},
		{"Progressing since an unreadable time: False", failing, seed("Progressing", "yesterday"), "False", ""},
		{"Progressing for 2 of 5 minutes", failing, seed("Progressing", "2026-11-22T09:58:00Z"), "Progressing", "2026-11-22T10:03:00Z"},
		{"Progressing for 5 minutes: False", failing, seed("Progressing", "2026-11-22T09:55:00Z"), "False", ""},
		{"False stays False", failing, seed("False", "2026-11-22T09:59:00Z"), "False", ""},
		{"healthy buckets are True at once", []unstructured.Unstructured{bucket("b", "local", nil)}, seed("Progressing", "2026-11-22T09:59:00Z"), "True", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := listing(tt.buckets, nil)
			in.Now = now
			reads := 0
			in.Observe = func(ref render.LiveRef) (*unstructured.Unstructured, error) {
				reads++
				assert.Equal(t, render.LiveRef{Cluster: "virtual", Group: "core.gardener.cloud", Version: "v1beta1", Resource: "seeds", Name: "local"}, ref)
				return tt.live, nil
			}
			got, revisit, err := conditions(in, "local", "virtual", 5*time.Minute)
			require.NoError(t, err)
			require.NotEmpty(t, got)
			assert.Equal(t, ConditionBackupBucketsReady, got[0].Type)
			assert.Equal(t, tt.status, got[0].Status, got[0].String())
			if tt.turnsFalseAt == "" {
				assert.Zero(t, revisit)
			} else {
				assert.Equal(t, tt.turnsFalseAt, revisit.Format(time.RFC3339))
				assert.Contains(t, got[0].Message, "Backup Buckets have errors: b: access denied; False from "+tt.turnsFalseAt+" if they persist (condition threshold 5m0s)")
			}
			if tt.status == "True" {
				assert.Zero(t, reads, "healthy buckets need no live Seed")
			}
		})
	}
}
