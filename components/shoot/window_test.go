package shoot

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/render"
)

func maintenanceWith(confined bool, begin, end string) *Maintenance {
	return &Maintenance{ConfineSpecUpdateRollout: confined, TimeWindow: &struct {
		Begin string `json:"begin"`
		End   string `json:"end"`
	}{Begin: begin, End: end}}
}

func shootWithWindow(begin, end, previous string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{
		"maintenance": map[string]any{"timeWindow": map[string]any{"begin": begin, "end": end}},
	}}}
	if previous != "" {
		u.SetAnnotations(map[string]string{AnnotationPreviousWindow: previous})
	}
	return u
}

func TestDecideWindow(t *testing.T) {
	noon := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	at2230 := time.Date(2026, 11, 21, 22, 30, 0, 0, time.UTC)
	old := render.MaintenanceWindow{Begin: "220000+0000", End: "230000+0000"}
	moved := render.MaintenanceWindow{Begin: "030000+0000", End: "040000+0000"}
	for _, tc := range []struct {
		name         string
		m            *Maintenance
		live         *unstructured.Unstructured
		now          time.Time
		want         render.MaintenanceWindow
		wantPrevious string
	}{
		{name: "the landscape's window", m: maintenanceWith(false, "030000+0000", "040000+0000"), live: shootWithWindow("220000+0000", "230000+0000", ""), now: noon, want: moved},
		{name: "no window in the landscape: the one Gardener picked for the Shoot (Gardener's MaintenanceTimeWindow in docs/api-reference/core.md)", m: nil, live: shootWithWindow("220000+0000", "230000+0000", ""), now: noon, want: old},
		{
			name: "confined, window changed: the old window until the upcoming maintenance (Gardener's docs/usage/shoot/shoot_maintenance.md)",
			m:    maintenanceWith(true, "030000+0000", "040000+0000"), live: shootWithWindow("220000+0000", "230000+0000", ""), now: noon,
			want: old, wantPrevious: "220000+0000-230000+0000",
		},
		{
			name: "confined, the Shoot took the new window already: the annotation keeps the old one",
			m:    maintenanceWith(true, "030000+0000", "040000+0000"), live: shootWithWindow("030000+0000", "040000+0000", "220000+0000-230000+0000"), now: noon,
			want: old, wantPrevious: "220000+0000-230000+0000",
		},
		{
			name: "confined, in the old window: the upcoming maintenance happens there, the new window counts from then on",
			m:    maintenanceWith(true, "030000+0000", "040000+0000"), live: shootWithWindow("030000+0000", "040000+0000", "220000+0000-230000+0000"), now: at2230,
			want: old,
		},
		{
			name: "confined, after the maintenance: the new window",
			m:    maintenanceWith(true, "030000+0000", "040000+0000"), live: shootWithWindow("030000+0000", "040000+0000", ""), now: noon,
			want: moved,
		},
		{name: "a new shoot: its window", m: maintenanceWith(true, "030000+0000", "040000+0000"), now: noon, want: moved},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := decideWindow(tc.m, tc.live, tc.now)
			assert.Equal(t, tc.want, got.window)
			assert.Equal(t, tc.wantPrevious, got.previous)
		})
	}
}

// A confined shoot whose window the landscape moved holds its control plane's changes until the
// old window once more, and says so on the Shoot.
func TestConfinedShootHoldsInTheOldWindowAfterAChange(t *testing.T) {
	b, err := newBuilder("dev", values(func(v *Values) { v.Maintenance = maintenanceWith(true, "030000+0000", "040000+0000") }))
	if !assert.NoError(t, err) {
		return
	}
	b.window = decideWindow(b.v.Maintenance, shootWithWindow("220000+0000", "230000+0000", ""), time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC))
	if !assert.NoError(t, b.build()) {
		return
	}
	for _, p := range b.parts {
		switch {
		case p.Name == "shoot":
			assert.Nil(t, p.Window, "the Shoot takes the new window at once")
			assert.Equal(t, "220000+0000-230000+0000", p.Objects[0].Object.GetAnnotations()[AnnotationPreviousWindow])
			spec, _, _ := unstructured.NestedString(p.Objects[0].Object.Object, "spec", "maintenance", "timeWindow", "begin")
			assert.Equal(t, "030000+0000", spec)
		case p.Name == "kube_apiserver":
			if assert.NotNil(t, p.Window) {
				assert.Equal(t, "220000+0000", p.Window.Begin, "held until the old window")
			}
		}
	}
}
