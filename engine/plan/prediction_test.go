package plan

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/render"
)

func TestPredictionOf(t *testing.T) {
	at := time.Date(2026, 11, 23, 9, 0, 0, 0, time.FixedZone("CET", 3600))
	tests := []struct {
		name string
		in   render.Prediction
		want Prediction
	}{
		{
			name: "a trigger at a time, in UTC",
			in: render.Prediction{Actor: "gardener-controller-manager", Controller: "shoot-hibernation", Cluster: "virtual",
				APIVersion: "core.gardener.cloud/v1beta1", Kind: "Shoot", Namespace: "garden-local", Name: "qa",
				Action: "update", At: at, Description: "hibernates the shoot"},
			want: Prediction{Address: `shoot.local["qa"]`, Actor: "gardener-controller-manager", Controller: "shoot-hibernation", Cluster: "virtual",
				Ref:    object.Ref{Group: "core.gardener.cloud", Kind: "Shoot", Namespace: "garden-local", Name: "qa"},
				Action: "update", At: "2026-11-23T08:00:00Z", Description: "hibernates the shoot"},
		},
		{
			name: "an interval the controller picks the instant in",
			in:   render.Prediction{Actor: "gardener-controller-manager", Cluster: "virtual", APIVersion: "core.gardener.cloud/v1beta1", Kind: "Shoot", Name: "dev", Action: "update", At: at, Until: at.Add(45 * time.Minute)},
			want: Prediction{Address: `shoot.local["qa"]`, Actor: "gardener-controller-manager", Cluster: "virtual", Ref: object.Ref{Group: "core.gardener.cloud", Kind: "Shoot", Name: "dev"}, Action: "update", At: "2026-11-23T08:00:00Z", Until: "2026-11-23T08:45:00Z"},
		},
		{
			name: "as soon as it reconciles, in the core group",
			in:   render.Prediction{Actor: "gardener-controller-manager", Controller: "project", Cluster: "virtual", APIVersion: "v1", Kind: "Namespace", Name: "garden-local", Action: "create"},
			want: Prediction{Address: `shoot.local["qa"]`, Actor: "gardener-controller-manager", Controller: "project", Cluster: "virtual", Ref: object.Ref{Kind: "Namespace", Name: "garden-local"}, Action: "create"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, predictionOf(`shoot.local["qa"]`, tt.in))
		})
	}
}
