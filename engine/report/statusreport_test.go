package report

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/declarative-gardener/gardener/engine/render"
)

var installationsGVR = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "controllerinstallations"}

// installation is a ControllerInstallation as gardener-controller-manager creates it, with the
// given conditions.
func installation(conds ...map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "core.gardener.cloud/v1beta1", "kind": "ControllerInstallation",
		"metadata": map[string]any{"name": "provider-local-x7k2p", "resourceVersion": "7", "finalizers": []any{"core.gardener.cloud/controllerinstallation"}},
		"spec":     map[string]any{"registrationRef": map[string]any{"name": "provider-local"}, "seedRef": map[string]any{"name": "local"}},
	}}
	if len(conds) > 0 {
		list := make([]any, len(conds))
		for i, c := range conds {
			list[i] = c
		}
		u.Object["status"] = map[string]any{"conditions": list}
	}
	return u
}

func condition(typ, status, reason, message, at string) map[string]any {
	return map[string]any{"type": typ, "status": status, "reason": reason, "message": message, "lastTransitionTime": at, "lastUpdateTime": at}
}

func TestWriteConditions(t *testing.T) {
	const (
		before = "2026-11-27T08:00:00Z"
		now    = "2026-11-27T08:01:00Z"
	)
	report := render.StatusReport{Cluster: "virtual", APIVersion: "core.gardener.cloud/v1beta1", Kind: "ControllerInstallation", Name: "provider-local-x7k2p"}
	installed := Condition{Type: "Installed", Status: True, Reason: "InstallationSuccessful", Message: "The controller was successfully installed in the seed cluster."}
	healthy := Condition{Type: "Healthy", Status: True, Reason: "ControllerHealthy", Message: "The controller running in the seed cluster is healthy."}
	tests := []struct {
		name  string
		live  *unstructured.Unstructured // nil: the installation does not exist
		conds []Condition
		// conflicts is how many status writes the server refuses with a conflict first.
		conflicts int
		// want are the conditions after the write; nil when nothing is written.
		want    []any
		wantErr error
	}{
		{
			name:  "first report: each condition with both times now",
			live:  installation(),
			conds: []Condition{installed, healthy},
			want: []any{
				condition("Installed", "True", "InstallationSuccessful", "The controller was successfully installed in the seed cluster.", now),
				condition("Healthy", "True", "ControllerHealthy", "The controller running in the seed cluster is healthy.", now),
			},
		},
		{
			name: "nothing changes: nothing written",
			live: installation(
				condition("Installed", "True", "InstallationSuccessful", "The controller was successfully installed in the seed cluster.", before),
				condition("Healthy", "True", "ControllerHealthy", "The controller running in the seed cluster is healthy.", before)),
			conds: []Condition{installed, healthy},
		},
		{
			name: "a status changes: its times move, the other condition and another controller's stay",
			live: installation(
				condition("Installed", "True", "InstallationSuccessful", "The controller was successfully installed in the seed cluster.", before),
				condition("Healthy", "True", "ControllerHealthy", "The controller running in the seed cluster is healthy.", before),
				condition("Other", "False", "Mine", "another controller's", before)),
			conds: []Condition{installed, {Type: "Healthy", Status: False, Reason: "ControllerNotHealthy", Message: "condition ResourcesHealthy of managed resource garden/provider-local-x7k2p is False: pods crash"}},
			want: []any{
				condition("Installed", "True", "InstallationSuccessful", "The controller was successfully installed in the seed cluster.", before),
				condition("Healthy", "False", "ControllerNotHealthy", "condition ResourcesHealthy of managed resource garden/provider-local-x7k2p is False: pods crash", now),
				condition("Other", "False", "Mine", "another controller's", before),
			},
		},
		{
			name:  "only the message changes: lastTransitionTime stays",
			live:  installation(condition("Required", "True", "ExtensionObjectsExist", "extension objects still exist in the seed: [Infrastructure/local]", before)),
			conds: []Condition{{Type: "Required", Status: True, Reason: "ExtensionObjectsExist", Message: "extension objects still exist in the seed: [Infrastructure/local Worker/local]"}},
			want: []any{map[string]any{"type": "Required", "status": "True", "reason": "ExtensionObjectsExist",
				"message":            "extension objects still exist in the seed: [Infrastructure/local Worker/local]",
				"lastTransitionTime": before, "lastUpdateTime": now}},
		},
		{
			name:      "a conflict reads again and writes",
			live:      installation(),
			conds:     []Condition{installed},
			conflicts: 1,
			want:      []any{condition("Installed", "True", "InstallationSuccessful", "The controller was successfully installed in the seed cluster.", now)},
		},
		{
			name:    "the installation is gone",
			conds:   []Condition{installed},
			wantErr: ErrNotFound,
		},
		{
			name: "no conditions: nothing read, nothing written",
			live: installation(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var objects []runtime.Object
			if tt.live != nil {
				objects = append(objects, tt.live)
			}
			client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
				map[schema.GroupVersionResource]string{installationsGVR: "ControllerInstallationList"}, objects...)
			conflicts := tt.conflicts
			client.PrependReactor("patch", "controllerinstallations", func(a k8stesting.Action) (bool, runtime.Object, error) {
				if conflicts > 0 {
					conflicts--
					return true, nil, apierrors.NewConflict(installationsGVR.GroupResource(), "provider-local-x7k2p", nil)
				}
				return false, nil, nil
			})
			w := &Writer{Clients: map[string]dynamic.Interface{"virtual": client}, Now: func() time.Time { return t1 }}

			err := w.WriteConditions(context.Background(), report, tt.conds)
			if tt.wantErr != nil {
				assert.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)

			var patches []k8stesting.PatchAction
			for _, a := range client.Actions() {
				if p, ok := a.(k8stesting.PatchAction); ok {
					patches = append(patches, p)
				}
			}
			if tt.want == nil {
				assert.Empty(t, patches, "nothing is written")
				if len(tt.conds) == 0 {
					assert.Empty(t, client.Actions(), "nothing is read")
				}
				return
			}
			require.Len(t, patches, tt.conflicts+1)
			for _, p := range patches {
				assert.Equal(t, "status", p.GetSubresource(), "through the status subresource")
				var body map[string]any
				require.NoError(t, json.Unmarshal(p.GetPatch(), &body))
				assert.Equal(t, map[string]any{"resourceVersion": "7"}, body["metadata"], "under the resourceVersion read, and no finalizer")
				status, _ := body["status"].(map[string]any)
				assert.Equal(t, []string{"conditions"}, keys(status), "conditions only")
			}
			live, err := client.Resource(installationsGVR).Get(context.Background(), "provider-local-x7k2p", metav1.GetOptions{})
			require.NoError(t, err)
			got, _, _ := unstructured.NestedSlice(live.Object, "status", "conditions")
			assert.Equal(t, tt.want, got)
			assert.Equal(t, []string{"core.gardener.cloud/controllerinstallation"}, live.GetFinalizers(), "the finalizers as they were")
		})
	}
}

func TestFromRender(t *testing.T) {
	assert.Equal(t, []Condition{{Type: "Valid", Status: True, Reason: "RegistrationValid", Message: "chart could be rendered successfully."}},
		FromRender([]render.Condition{{Type: "Valid", Status: "True", Reason: "RegistrationValid", Message: "chart could be rendered successfully."}}))
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
