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

func withWindow(v *Values) {
	v.Maintenance = &Maintenance{TimeWindow: &struct {
		Begin string `json:"begin"`
		End   string `json:"end"`
	}{Begin: "220000+0000", End: "230000+0000"}}
}

// liveShootAt is the live Shoot dev with these versions, maintained last at maintained (never
// when empty).
func liveShootAt(k8s, image, maintained string, annotations ...string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot",
		"metadata": map[string]any{"name": "dev", "namespace": "garden-local"},
		"spec": map[string]any{
			"kubernetes": map[string]any{"version": k8s},
			"provider": map[string]any{"workers": []any{map[string]any{"name": "local", "machine": map[string]any{
				"image": map[string]any{"name": "local", "version": image},
			}}}},
		},
	}}
	if maintained != "" {
		_ = unstructured.SetNestedField(u.Object, maintained, "status", "lastMaintenance", "triggeredTime")
	}
	if len(annotations) == 2 {
		u.SetAnnotations(map[string]string{annotations[0]: annotations[1]})
	}
	return u
}

// The shoot block never maintains: the Shoot carries the higher of the landscape's and the live
// versions, the control plane the Shoot's, or, in a plan for a later time, the Shoot as
// gardener-controller-manager's maintenance will have left it; its runs are predicted in the
// interval it picks its instant from.
func TestDecideVersions(t *testing.T) {
	at := func(s string) time.Time { return mustTime(t, s) }
	const (
		update = "maintenance: All maintenance operations successful. Control Plane: Updated Kubernetes version from \"1.31.1\" to \"1.31.3\". Reason: Kubernetes version expired - force update required, " +
			"Worker pool \"local\": Updated machine image \"local\" from \"1.0.0\" to \"1.0.2\". Reason: Automatic update of the machine image version is configured (image update strategy: patch); " +
			"asks for a reconciliation (gardener.cloud/operation=reconcile, tasks deployInfrastructure, deployDNSRecordInternal, deployDNSRecordExternal, deployDNSRecordIngress, restartControlPlanePods)"
		// toDeprecated: the next window takes the deprecated 1.31.4, the only later patch
		// (getVersionForAutoUpdate prefers versions that are not deprecated, then takes those).
		toDeprecated = "maintenance: All maintenance operations successful. Control Plane: Updated Kubernetes version from \"1.31.3\" to \"1.31.4\". Reason: Automatic update of Kubernetes version configured; " +
			"asks for a reconciliation (gardener.cloud/operation=reconcile, tasks deployInfrastructure, deployDNSRecordInternal, deployDNSRecordExternal, deployDNSRecordIngress, restartControlPlanePods)"
	)
	type prediction struct{ at, until, description string }
	for _, tc := range []struct {
		name     string
		live     *unstructured.Unstructured
		observed string
		now      string
		// wantShoot and wantControlPlane are the Kubernetes and image versions.
		wantShoot, wantControlPlane [2]string
		wantPredictions             []prediction
		wantNote                    string
	}{
		{
			name: "outside the window nothing changes; the next window is predicted", live: liveShootAt("1.31.1", "1.0.0", ""),
			now: "2026-11-21T12:00:00Z", wantShoot: [2]string{"1.31.1", "1.0.0"}, wantControlPlane: [2]string{"1.31.1", "1.0.0"},
			wantPredictions: []prediction{{"2026-11-21T22:00:00Z", "2026-11-21T22:45:00Z", update}},
		},
		{
			name: "inside the window the engine does not maintain: the loop picks its instant", live: liveShootAt("1.31.1", "1.0.0", ""),
			now: "2026-11-21T22:30:00Z", wantShoot: [2]string{"1.31.1", "1.0.0"}, wantControlPlane: [2]string{"1.31.1", "1.0.0"},
			wantPredictions: []prediction{{"2026-11-21T22:00:00Z", "2026-11-21T22:45:00Z", update}},
		},
		{
			name: "maintained by the loop: the Shoot and the control plane keep the raised versions although the landscape says 1.31.1",
			live: liveShootAt("1.31.3", "1.0.2", "2026-11-21T22:13:00Z"), now: "2026-11-21T22:30:00Z",
			wantShoot: [2]string{"1.31.3", "1.0.2"}, wantControlPlane: [2]string{"1.31.3", "1.0.2"},
			wantPredictions: []prediction{{"2026-11-22T22:00:00Z", "2026-11-22T22:45:00Z", toDeprecated}},
		},
		{
			name: "plan --at after the window: the control plane runs what the loop will have raised, the Shoot keeps the live versions",
			live: liveShootAt("1.31.1", "1.0.0", ""), observed: "2026-11-21T12:00:00Z", now: "2026-11-21T23:00:00Z",
			wantShoot: [2]string{"1.31.1", "1.0.0"}, wantControlPlane: [2]string{"1.31.3", "1.0.2"},
			wantPredictions: []prediction{
				{"2026-11-21T22:00:00Z", "2026-11-21T22:45:00Z", update},
				{"2026-11-22T22:00:00Z", "2026-11-22T22:45:00Z", toDeprecated},
			},
			wantNote: "gardener-controller-manager's maintenance: Kubernetes 1.31.1 -> 1.31.3, pool local image local 1.0.0 -> 1.0.2",
		},
		{
			name: "plan --at inside the window: maybe done, maybe not; the control plane waits for the Shoot",
			live: liveShootAt("1.31.1", "1.0.0", ""), observed: "2026-11-21T12:00:00Z", now: "2026-11-21T22:30:00Z",
			wantShoot: [2]string{"1.31.1", "1.0.0"}, wantControlPlane: [2]string{"1.31.1", "1.0.0"},
			wantPredictions: []prediction{{"2026-11-21T22:00:00Z", "2026-11-21T22:45:00Z", update}},
		},
		{
			name: "the maintain operation: the loop maintains at once", live: liveShootAt("1.31.1", "1.0.0", "", AnnotationOperation, OperationMaintain),
			now: "2026-11-21T12:00:00Z", wantShoot: [2]string{"1.31.1", "1.0.0"}, wantControlPlane: [2]string{"1.31.1", "1.0.0"},
			wantPredictions: []prediction{{"", "", update}},
		},
		{
			name: "a new shoot created outside its window waits for it", now: "2026-11-21T12:00:00Z",
			wantShoot: [2]string{"1.31.1", "1.0.0"}, wantControlPlane: [2]string{"1.31.1", "1.0.0"},
			wantPredictions: []prediction{{"2026-11-21T22:00:00Z", "2026-11-21T22:45:00Z", update}},
		},
		{
			name: "a new shoot created inside its window is maintained at once (the loop's create event)", now: "2026-11-21T22:10:00Z",
			wantShoot: [2]string{"1.31.1", "1.0.0"}, wantControlPlane: [2]string{"1.31.1", "1.0.0"},
			wantPredictions: []prediction{{"", "", update}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := values(withWindow)
			b, err := newBuilder("dev", v)
			require.NoError(t, err)
			now := at(tc.now)
			in := render.Input{Now: now, Observe: observing(map[string]*unstructured.Unstructured{"cloudprofiles": cloudProfile("2026-11-21T00:00:00Z")})}
			if tc.observed != "" {
				in.ObservedAt = at(tc.observed)
			}
			m, err := b.decideVersions(in, tc.live, maintenanceTasks(true, false))
			require.NoError(t, err)
			require.NotNil(t, b.shootValues)
			assert.Equal(t, tc.wantShoot, [2]string{b.shootValues.Kubernetes.Version, b.shootValues.Workers[0].MachineImage.Version}, "Shoot")
			assert.Equal(t, tc.wantControlPlane, [2]string{b.v.Kubernetes.Version, b.v.Workers[0].MachineImage.Version}, "control plane")
			var got []prediction
			for _, p := range m.predictions {
				got = append(got, prediction{formatOrEmpty(p.at), formatOrEmpty(p.until), p.description})
			}
			assert.Equal(t, tc.wantPredictions, got)
			assert.Equal(t, tc.wantNote, m.note())
		})
	}
}

func formatOrEmpty(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// observing answers Observe with the given objects by resource.
func observing(objects map[string]*unstructured.Unstructured) func(render.LiveRef) (*unstructured.Unstructured, error) {
	return func(ref render.LiveRef) (*unstructured.Unstructured, error) { return objects[ref.Resource], nil }
}

// A landscape version above the live one is a deliberate upgrade; a live version above the
// landscape's stays, and so does a live image version the landscape leaves out.
func TestRaiseToLive(t *testing.T) {
	for _, tc := range []struct {
		name              string
		declared, live    [2]string
		want              [2]string
		omitDeclaredImage bool
	}{
		{name: "maintenance raised both", declared: [2]string{"1.31.1", "1.0.0"}, live: [2]string{"1.31.3", "1.0.2"}, want: [2]string{"1.31.3", "1.0.2"}},
		{name: "the landscape upgrades", declared: [2]string{"1.32.0", "1.1.0"}, live: [2]string{"1.31.3", "1.0.2"}, want: [2]string{"1.32.0", "1.1.0"}},
		{name: "an image version the landscape leaves out", declared: [2]string{"1.31.1", ""}, live: [2]string{"1.31.1", "1.0.2"}, want: [2]string{"1.31.1", "1.0.2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := newBuilder("dev", values(func(v *Values) {
				v.Kubernetes.Version = tc.declared[0]
				v.Workers[0].MachineImage.Version = tc.declared[1]
			}))
			require.NoError(t, err)
			b.raiseToLive(liveShootAt(tc.live[0], tc.live[1], ""))
			assert.Equal(t, tc.want, [2]string{b.v.Kubernetes.Version, b.v.Workers[0].MachineImage.Version})
		})
	}
}

// Feature gates the loop removed when it raised the version are left out of the Shoot, with a
// notice; with the landscape's own version they are the API's to judge.
func TestLeaveOutWhatMaintenanceRemoved(t *testing.T) {
	withGate := func(v *Values) {
		v.Kubernetes.KubeControllerManager = &struct {
			NodeCIDRMaskSize       *int32          `json:"node_cidr_mask_size"`
			NodeMonitorGracePeriod string          `json:"node_monitor_grace_period"`
			FeatureGates           map[string]bool `json:"feature_gates"`
		}{FeatureGates: map[string]bool{"ZeroLimitedNominalConcurrencyShares": true}}
	}
	b, err := newBuilder("dev", values(withGate))
	require.NoError(t, err)
	b.raiseToLive(liveShootAt("1.32.0", "1.0.0", ""))
	notices := b.leaveOutWhatMaintenanceRemoved()
	assert.Equal(t, []string{`maintenance raised the shoot to Kubernetes 1.32.0: Removed feature gates from "spec.kubernetes.kubeControllerManager.featureGates" because they are not supported in Kubernetes version "1.32.0": ZeroLimitedNominalConcurrencyShares; the Shoot leaves them out, remove them from the landscape`}, notices)
	assert.Empty(t, b.v.Kubernetes.KubeControllerManager.FeatureGates)

	declared, err := newBuilder("dev", values(func(v *Values) { withGate(v); v.Kubernetes.Version = "1.32.0" }))
	require.NoError(t, err)
	assert.Empty(t, declared.leaveOutWhatMaintenanceRemoved())
	assert.Len(t, declared.v.Kubernetes.KubeControllerManager.FeatureGates, 1)
}

// The Shoot object carries the Shoot's versions, the control plane and the extensions Cluster
// the predicted ones.
func TestShootAndControlPlaneVersions(t *testing.T) {
	b, err := newBuilder("dev", values(withWindow))
	require.NoError(t, err)
	now := time.Date(2026, 11, 21, 23, 0, 0, 0, time.UTC)
	out, err := b.render(render.Input{Now: now, ObservedAt: now.Add(-11 * time.Hour), Observe: observingByName(map[string]*unstructured.Unstructured{
		"shoots/garden-local/dev": liveShootAt("1.31.1", "1.0.0", ""),
		"cloudprofiles//local":    cloudProfile("2026-11-21T00:00:00Z"),
	})})
	require.NoError(t, err)
	shoot := partObject(t, out, "shoot", "Shoot")
	v, _, _ := unstructured.NestedString(shoot.Object, "spec", "kubernetes", "version")
	assert.Equal(t, "1.31.1", v, "the engine does not write what the loop will raise")
	assert.NotContains(t, shoot.GetAnnotations(), AnnotationOperation)
	cluster := partObject(t, out, "cluster", "Cluster")
	v, _, _ = unstructured.NestedString(cluster.Object, "spec", "shoot", "spec", "kubernetes", "version")
	assert.Equal(t, "1.31.3", v, "the control plane follows the Shoot as the loop will have left it")
	var maintenance []render.Prediction
	for _, p := range out.Predictions {
		if p.Controller == "shoot-maintenance" {
			maintenance = append(maintenance, p)
		}
	}
	require.Len(t, maintenance, 2)
	assert.Equal(t, time.Date(2026, 11, 21, 22, 0, 0, 0, time.UTC), maintenance[0].At)
	assert.Equal(t, time.Date(2026, 11, 21, 22, 45, 0, 0, time.UTC), maintenance[0].Until)
}

// Versions maintenance raised are written with the live values, and yielded: a run of the loop
// between the plan's reading and the apply's writing stays (render.Object.Yield).
func TestRaisedVersionsAreYielded(t *testing.T) {
	b, err := newBuilder("dev", values(withWindow))
	require.NoError(t, err)
	out, err := b.render(render.Input{Now: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC), Observe: observingByName(map[string]*unstructured.Unstructured{
		"shoots/garden-local/dev": liveShootAt("1.31.3", "1.0.2", "2026-11-21T22:13:00Z"),
	})})
	require.NoError(t, err)
	for _, p := range out.Components {
		if p.Name == "shoot" {
			assert.Equal(t, []string{"spec.kubernetes.version", "spec.provider.workers[name=local].machine.image.version"}, p.Objects[0].Yield)
		}
	}
}
