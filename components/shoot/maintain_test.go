package shoot

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/render"
)

// cloudProfile is a live CloudProfile offering Kubernetes 1.31.1 to 1.31.4 (1.31.4 deprecated,
// 1.31.1 expiring on expires) and images local 1.0.0 to 1.1.0 (patch strategy).
func cloudProfile(expires string) *unstructured.Unstructured {
	k8s := []any{
		map[string]any{"version": "1.31.1", "classification": "supported"},
		map[string]any{"version": "1.31.3", "classification": "supported"},
		map[string]any{"version": "1.31.4", "classification": "deprecated"},
	}
	if expires != "" {
		k8s[0].(map[string]any)["expirationDate"] = expires
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "core.gardener.cloud/v1beta1", "kind": "CloudProfile", "metadata": map[string]any{"name": "local"},
		"spec": map[string]any{
			"kubernetes": map[string]any{"versions": k8s},
			"machineImages": []any{map[string]any{"name": "local", "updateStrategy": "patch", "versions": []any{
				map[string]any{"version": "1.0.0"}, map[string]any{"version": "1.0.2"}, map[string]any{"version": "1.1.0"},
			}}},
		},
	}}
}

// observing answers Observe with the given objects by resource.
func observing(objects map[string]*unstructured.Unstructured) func(render.LiveRef) (*unstructured.Unstructured, error) {
	return func(ref render.LiveRef) (*unstructured.Unstructured, error) { return objects[ref.Resource], nil }
}

func withWindow(v *Values) {
	v.Maintenance = &Maintenance{TimeWindow: &struct {
		Begin string `json:"begin"`
		End   string `json:"end"`
	}{Begin: "220000+0000", End: "230000+0000"}}
}

func TestMaintainVersions(t *testing.T) {
	inside := time.Date(2026, 11, 21, 22, 30, 0, 0, time.UTC)
	outside := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	liveAt := func(k8s, image string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{
			"kubernetes": map[string]any{"version": k8s},
			"provider": map[string]any{"workers": []any{map[string]any{"name": "local", "machine": map[string]any{
				"image": map[string]any{"name": "local", "version": image},
			}}}},
		}}}
	}
	for _, tc := range []struct {
		name             string
		mutate           func(*Values)
		now              time.Time
		profile          *unstructured.Unstructured
		live             *unstructured.Unstructured
		wantK8s, wantImg string
		wantPoolK8s      string
		wantChanges      int
		wantUpcoming     []string
		wantFailure      string
		wantNext         time.Time
		// wantMaintained is the window recorded as maintained when versions change; the
		// 2026-11-21 window by default.
		wantMaintained string
	}{
		{
			name: "inside the window: the latest supported patch and the latest image patch", mutate: withWindow, now: inside, profile: cloudProfile(""),
			wantK8s: "1.31.3", wantImg: "1.0.2", wantChanges: 2,
		},
		{
			name: "outside the window: nothing changes, the plan says what the next window does", mutate: withWindow, now: outside, profile: cloudProfile(""),
			wantK8s: "1.31.1", wantImg: "1.0.0", wantNext: time.Date(2026, 11, 21, 22, 0, 0, 0, time.UTC),
			wantUpcoming: []string{
				"maintenance window 22:00-23:00 UTC (next 2026-11-21T22:00:00Z): Control Plane: Updated Kubernetes version '1.31.1' to version 1.31.3. Reason: Automatic update of Kubernetes version configured",
				`maintenance window 22:00-23:00 UTC (next 2026-11-21T22:00:00Z): Worker pool "local": Updated image from 'local' version '1.0.0' to version 1.0.2. Reason: Automatic update of the machine image version is configured (image update strategy: patch)`,
			},
		},
		{
			name: "versions maintenance raised stay, outside the window too", mutate: withWindow, now: outside, profile: cloudProfile(""),
			live: liveAt("1.31.3", "1.0.2"), wantK8s: "1.31.3", wantImg: "1.0.2", wantNext: time.Date(2026, 11, 21, 22, 0, 0, 0, time.UTC),
			// Above 1.31.3 only deprecated versions qualify: "update to the latest deprecated
			// version" (Gardener's "Shoot Kubernetes and Operating System Versioning in Gardener"
			// docs/usage/shoot-operations/shoot_versions.md).
			wantUpcoming: []string{"maintenance window 22:00-23:00 UTC (next 2026-11-21T22:00:00Z): Control Plane: Updated Kubernetes version '1.31.3' to version 1.31.4. Reason: Automatic update of Kubernetes version configured"},
		},
		{
			name: "without automatic updates only expired versions move, by force", now: inside, profile: cloudProfile("2026-11-01T00:00:00Z"),
			mutate: func(v *Values) {
				withWindow(v)
				v.Maintenance.AutoUpdate = &AutoUpdate{}
			},
			wantK8s: "1.31.3", wantImg: "1.0.0", wantChanges: 1,
		},
		{
			name: "the window Gardener picked for the live Shoot counts when the landscape names none", now: inside, profile: cloudProfile(""),
			live: func() *unstructured.Unstructured {
				u := liveAt("1.31.1", "1.0.0")
				_ = unstructured.SetNestedField(u.Object, "220000+0000", "spec", "maintenance", "timeWindow", "begin")
				_ = unstructured.SetNestedField(u.Object, "230000+0000", "spec", "maintenance", "timeWindow", "end")
				return u
			}(),
			wantK8s: "1.31.3", wantImg: "1.0.2", wantChanges: 2,
		},
		{
			name: "maintained in this window already: further steps wait for the next window (Gardener's docs/usage/shoot/shoot_maintenance.md, docs/usage/shoot-operations/shoot_versions.md)", mutate: withWindow, now: inside, profile: cloudProfile(""),
			live: func() *unstructured.Unstructured {
				u := liveAt("1.31.1", "1.0.0")
				u.SetAnnotations(map[string]string{AnnotationMaintained: "2026-11-21T22:00:00Z"})
				return u
			}(),
			wantK8s: "1.31.1", wantImg: "1.0.0", wantNext: time.Date(2026, 11, 22, 22, 0, 0, 0, time.UTC),
			wantUpcoming: []string{
				"maintenance window 22:00-23:00 UTC (next 2026-11-22T22:00:00Z): Control Plane: Updated Kubernetes version '1.31.1' to version 1.31.3. Reason: Automatic update of Kubernetes version configured",
				`maintenance window 22:00-23:00 UTC (next 2026-11-22T22:00:00Z): Worker pool "local": Updated image from 'local' version '1.0.0' to version 1.0.2. Reason: Automatic update of the machine image version is configured (image update strategy: patch)`,
			},
		},
		{
			name: "the maintain operation maintains outside the window (Gardener's docs/usage/shoot-operations/shoot_operations.md)", mutate: withWindow, now: outside, profile: cloudProfile(""),
			live: func() *unstructured.Unstructured {
				u := liveAt("1.31.1", "1.0.0")
				u.SetAnnotations(map[string]string{AnnotationOperation: OperationMaintain})
				return u
			}(),
			wantK8s: "1.31.3", wantImg: "1.0.2", wantChanges: 2, wantMaintained: "2026-11-20T22:00:00Z",
		},
		{
			name: "the maintain operation maintains although this window did already", mutate: withWindow, now: inside, profile: cloudProfile(""),
			live: func() *unstructured.Unstructured {
				u := liveAt("1.31.1", "1.0.0")
				u.SetAnnotations(map[string]string{AnnotationMaintained: "2026-11-21T22:00:00Z", AnnotationOperation: OperationMaintain})
				return u
			}(),
			wantK8s: "1.31.3", wantImg: "1.0.2", wantChanges: 2,
		},
		{
			name: "the reconcile operation does not maintain", mutate: withWindow, now: outside, profile: cloudProfile(""),
			live: func() *unstructured.Unstructured {
				u := liveAt("1.31.1", "1.0.0")
				u.SetAnnotations(map[string]string{AnnotationOperation: OperationReconcile})
				return u
			}(),
			wantK8s: "1.31.1", wantImg: "1.0.0", wantNext: time.Date(2026, 11, 21, 22, 0, 0, 0, time.UTC),
			wantUpcoming: []string{
				"maintenance window 22:00-23:00 UTC (next 2026-11-21T22:00:00Z): Control Plane: Updated Kubernetes version '1.31.1' to version 1.31.3. Reason: Automatic update of Kubernetes version configured",
				`maintenance window 22:00-23:00 UTC (next 2026-11-21T22:00:00Z): Worker pool "local": Updated image from 'local' version '1.0.0' to version 1.0.2. Reason: Automatic update of the machine image version is configured (image update strategy: patch)`,
			},
		},
		{
			name: "a pool's own Kubernetes version is maintained like the control plane's (Gardener's docs/usage/shoot-operations/worker_pool_k8s_versions.md)", now: inside, profile: cloudProfile(""),
			mutate: func(v *Values) {
				withWindow(v)
				v.Workers[0].KubernetesVersion = "1.31.1"
			},
			wantK8s: "1.31.3", wantImg: "1.0.2", wantChanges: 3, wantPoolK8s: "1.31.3",
		},
		{
			name: "no window known (a new shoot without time_window): nothing to maintain yet", now: inside, profile: cloudProfile(""),
			wantK8s: "1.31.1", wantImg: "1.0.0",
		},
		{
			name: "no cloud profile yet (applied from empty): nothing to maintain against", mutate: withWindow, now: inside,
			wantK8s: "1.31.1", wantImg: "1.0.0",
		},
		{
			name: "an expired version with nowhere to go fails the maintenance, not the plan", mutate: func(v *Values) { withWindow(v); v.Kubernetes.Version = "1.31.4" }, now: inside,
			profile: func() *unstructured.Unstructured {
				p := cloudProfile("")
				versions, _, _ := unstructured.NestedSlice(p.Object, "spec", "kubernetes", "versions")
				versions[2].(map[string]any)["expirationDate"] = "2026-11-01T00:00:00Z"
				_ = unstructured.SetNestedSlice(p.Object, versions, "spec", "kubernetes", "versions")
				return p
			}(),
			wantK8s: "1.31.4", wantImg: "1.0.2", wantChanges: 1, wantFailure: "Control Plane: kubernetes version 1.31.4 is expired",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := newBuilder("dev", values(tc.mutate))
			require.NoError(t, err)
			objects := map[string]*unstructured.Unstructured{"cloudprofiles": tc.profile, "shoots": tc.live}
			if tc.profile == nil {
				delete(objects, "cloudprofiles")
			}
			if tc.live == nil {
				delete(objects, "shoots")
			}
			b.window = decideWindow(b.v.Maintenance, tc.live, tc.now)
			b.operation = decideOperation(tc.live)
			m, err := b.maintainVersions(render.Input{Now: tc.now, Observe: observing(objects)}, tc.live)
			require.NoError(t, err)
			assert.Equal(t, tc.wantK8s, b.v.Kubernetes.Version)
			assert.Equal(t, tc.wantImg, b.v.Workers[0].MachineImage.Version)
			assert.Equal(t, tc.wantPoolK8s, b.v.Workers[0].KubernetesVersion)
			assert.Len(t, m.changes, tc.wantChanges, "%v", m.changes)
			if tc.wantChanges > 0 {
				want := tc.wantMaintained
				if want == "" {
					want = "2026-11-21T22:00:00Z"
				}
				assert.Equal(t, want, m.maintained, "the window is recorded as maintained")
			}
			assert.Equal(t, tc.wantUpcoming, m.upcoming)
			assert.Equal(t, tc.wantNext, m.next)
			if tc.wantFailure != "" {
				require.Len(t, m.failures, 1)
				assert.Contains(t, m.failures[0], tc.wantFailure)
			} else {
				assert.Empty(t, m.failures)
			}
		})
	}
}

func TestMaintenanceSummary(t *testing.T) {
	k8s := "Control Plane: Updated Kubernetes version '1.26.4' to version 1.27.1. Reason: Kubernetes version expired - force update required"
	pool := `Worker pool "x": either the machine image 'gardenlinux' is reaching end of life`
	assert.Empty(t, maintenance{}.summary(), "nothing done, nothing to say")
	// Gardener's docs/usage/shoot/shoot_maintenance.md
	assert.Equal(t, "All maintenance operations successful. "+k8s, maintenance{changes: []string{k8s}}.summary())
	// Gardener's docs/usage/shoot/shoot_maintenance.md
	assert.Equal(t, "(1/2) maintenance operations successful: "+k8s+". Failed: "+pool, maintenance{changes: []string{k8s}, failures: []string{pool}}.summary())
	assert.Equal(t, "(0/1) maintenance operations successful. Failed: "+pool, maintenance{failures: []string{pool}}.summary())
}
