package apply

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/rendering"
	"github.com/declarative-gardener/gardener/engine/report"
)

var installationsGVR = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "controllerinstallations"}

// installationReport reports Healthy on the ControllerInstallation name from the live ConfigMap
// garden/<name> in the seed (standing in for its ManagedResource): True when its data says
// healthy, False otherwise, Unknown when it is missing. read records the inputs it was called
// with.
func installationReport(name string, read *[]render.Input) render.StatusReport {
	return render.StatusReport{
		Cluster: "virtual", APIVersion: "core.gardener.cloud/v1beta1", Kind: "ControllerInstallation", Name: name,
		Conditions: func(in render.Input) ([]render.Condition, error) {
			*read = append(*read, in)
			mr, err := in.Observed(render.LiveRef{Cluster: "seed", Version: "v1", Resource: "configmaps", Namespace: "garden", Name: name})
			switch {
			case err != nil:
				return nil, err
			case mr == nil:
				return []render.Condition{{Type: "Healthy", Status: "Unknown", Reason: "SeedReadError", Message: "not found"}}, nil
			}
			if healthy, _, _ := unstructured.NestedString(mr.Object, "data", "healthy"); healthy != "true" {
				return []render.Condition{{Type: "Healthy", Status: "False", Reason: "ControllerNotHealthy", Message: "pods crash"}}, nil
			}
			return []render.Condition{{Type: "Healthy", Status: "True", Reason: "ControllerHealthy", Message: "The controller running in the seed cluster is healthy."}}, nil
		},
	}
}

func TestSyncReportsWritesStatusReports(t *testing.T) {
	const part = "component.extension.provider_local.installation_local"
	ci := func(name string, healthy string) runtime.Object {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "core.gardener.cloud/v1beta1", "kind": "ControllerInstallation", "metadata": map[string]any{"name": name, "resourceVersion": "1"},
		}}
		if healthy != "" {
			u.Object["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Healthy", "status": healthy, "reason": "ControllerHealthy",
				"message": "The controller running in the seed cluster is healthy.", "lastTransitionTime": "2026-11-27T08:00:00Z", "lastUpdateTime": "2026-11-27T08:00:00Z"}}}
		}
		return u
	}
	mr := func(name, healthy string) runtime.Object {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name, "namespace": "garden"}, "data": map[string]any{"healthy": healthy},
		}}
	}
	tests := []struct {
		name string
		// planned are the reports the plan rendered, awaited those of parts the apply rendered
		// (with applied set).
		planned, awaited []string
		applied          bool
		garden, seed     []runtime.Object
		// failRead makes every read of the seed fail.
		failRead bool
		destroy  bool
		// want are the Healthy statuses of the installations afterwards, "" for none.
		want     map[string]string
		writes   int
		warnings []string
	}{
		{
			name:    "a plan without changes: conditions from what is live now",
			planned: []string{"provider-local-x7k2p"},
			garden:  []runtime.Object{ci("provider-local-x7k2p", "")},
			seed:    []runtime.Object{mr("provider-local-x7k2p", "true")},
			want:    map[string]string{"provider-local-x7k2p": "True"},
			writes:  1,
		},
		{
			name:    "after an apply: the reports of the parts it rendered too",
			planned: []string{"provider-local-x7k2p"},
			awaited: []string{"networking-calico-b4n8q"},
			applied: true,
			garden:  []runtime.Object{ci("provider-local-x7k2p", ""), ci("networking-calico-b4n8q", "")},
			seed:    []runtime.Object{mr("provider-local-x7k2p", "true"), mr("networking-calico-b4n8q", "false")},
			want:    map[string]string{"provider-local-x7k2p": "True", "networking-calico-b4n8q": "False"},
			writes:  2,
		},
		{
			name:    "parts rendered during apply are not reported without the apply's result",
			awaited: []string{"networking-calico-b4n8q"},
			garden:  []runtime.Object{ci("networking-calico-b4n8q", "")},
			seed:    []runtime.Object{mr("networking-calico-b4n8q", "true")},
			want:    map[string]string{"networking-calico-b4n8q": ""},
		},
		{
			name:    "nothing changes: nothing written",
			planned: []string{"provider-local-x7k2p"},
			garden:  []runtime.Object{ci("provider-local-x7k2p", "True")},
			seed:    []runtime.Object{mr("provider-local-x7k2p", "true")},
			want:    map[string]string{"provider-local-x7k2p": "True"},
		},
		{
			name:    "a destroy reports nothing",
			planned: []string{"provider-local-x7k2p"},
			applied: true,
			destroy: true,
			garden:  []runtime.Object{ci("provider-local-x7k2p", "")},
			want:    map[string]string{"provider-local-x7k2p": ""},
		},
		{
			name:    "an installation gardener-controller-manager deleted: no warning",
			planned: []string{"provider-local-x7k2p"},
			seed:    []runtime.Object{mr("provider-local-x7k2p", "true")},
		},
		{
			name:     "a read that fails: a warning, nothing written",
			planned:  []string{"provider-local-x7k2p"},
			garden:   []runtime.Object{ci("provider-local-x7k2p", "")},
			failRead: true,
			want:     map[string]string{"provider-local-x7k2p": ""},
			warnings: []string{"report the status of ControllerInstallation provider-local-x7k2p: read seed//v1/configmaps/garden/provider-local-x7k2p: the seed is down"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			garden := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
				map[schema.GroupVersionResource]string{installationsGVR: "ControllerInstallationList"}, tt.garden...)
			seed := dynamicfake.NewSimpleDynamicClient(runtime.NewScheme(), tt.seed...)
			if tt.failRead {
				seed.PrependReactor("get", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
					return true, nil, errors.New("the seed is down")
				})
			}
			var read []render.Input
			reports := func(names []string) []render.StatusReport {
				var out []render.StatusReport
				for _, n := range names {
					out = append(out, installationReport(n, &read))
				}
				return out
			}
			out := &planner.Outcome{
				Rendered: map[config.InstanceAddress]*rendering.Rendered{part: {Address: part, StatusReports: reports(tt.planned)}},
				Result:   &plan.Result{Plan: &plan.Plan{Landscape: "local", Destroy: tt.destroy}},
			}
			var applied *Result
			if tt.applied {
				applied = &Result{StatusReports: map[string][]render.StatusReport{"component.extension.networking_calico.installation_local": reports(tt.awaited)}}
			}
			w := &report.Writer{Clients: map[string]dynamic.Interface{"virtual": garden, "seed": seed}}
			var warnings []string
			SyncReports(context.Background(), out, w, applied, func(err error) { warnings = append(warnings, err.Error()) })

			assert.Equal(t, tt.warnings, warnings)
			for name, want := range tt.want {
				live, err := garden.Resource(installationsGVR).Get(context.Background(), name, metav1.GetOptions{})
				require.NoError(t, err)
				got := ""
				list, _, _ := unstructured.NestedSlice(live.Object, "status", "conditions")
				for _, c := range list {
					if m := c.(map[string]any); m["type"] == "Healthy" {
						got = m["status"].(string)
					}
				}
				assert.Equal(t, want, got, "Healthy of %s", name)
			}
			writes := 0
			for _, a := range garden.Actions() {
				if p, ok := a.(k8stesting.PatchAction); ok {
					assert.Equal(t, "status", p.GetSubresource())
					writes++
				}
			}
			assert.Equal(t, tt.writes, writes, "status writes")
			for _, in := range read {
				assert.Equal(t, "local", in.Landscape)
				assert.Contains(t, []string{part, "component.extension.networking_calico.installation_local"}, in.Address)
			}
		})
	}
}
