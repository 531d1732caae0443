package projectcontroller

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// The first template whose selector matches the Project's labels applies; an empty selector
// matches every Project (quotaConfigurationForProject in
// pkg/controllermanager/controller/project/project/reconciler.go at v1.120.0).
func TestQuotaFor(t *testing.T) {
	s := Settings{Quotas: []Quota{
		{Hard: map[string]string{"count/secrets": "10"}, ProjectSelector: map[string]string{"tier": "trial"}},
		{Hard: map[string]string{"count/secrets": "800"}},
	}}
	for _, tt := range []struct {
		name   string
		labels map[string]string
		want   string
	}{
		{"selected", map[string]string{"tier": "trial", "team": "a"}, "10"},
		{"the catch-all", map[string]string{"tier": "prod"}, "800"},
		{"without labels", nil, "800"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, s.QuotaFor(tt.labels).Hard["count/secrets"])
		})
	}
	assert.Nil(t, Settings{}.QuotaFor(nil), "no templates, no ResourceQuota")
}

func TestConfig(t *testing.T) {
	s := Defaults
	s.Quotas = []Quota{{Hard: map[string]string{"count/secrets": "800"}, Annotations: map[string]string{"a": "b"}}}
	assert.Equal(t, map[string]any{
		"concurrentSyncs": 5, "minimumLifetimeDays": 30, "staleGracePeriodDays": 14, "staleExpirationTimeDays": 90, "staleSyncPeriod": "12h",
		"quotas": []any{map[string]any{
			"config": map[string]any{
				"apiVersion": "v1", "kind": "ResourceQuota", "metadata": map[string]any{"annotations": map[string]any{"a": "b"}},
				"spec": map[string]any{"hard": map[string]any{"count/secrets": "800"}},
			},
			"projectSelector": map[string]any{},
		}},
	}, s.Config(5))
}

// The output's value has the declared type and reads back as the settings it was made from.
func TestValueRoundTrips(t *testing.T) {
	s := Settings{MinimumLifetimeDays: 1, StaleGracePeriodDays: 2, StaleExpirationTimeDays: 3, StaleSyncPeriod: "1h",
		Quotas: []Quota{{Hard: map[string]string{"count/secrets": "1"}, Labels: map[string]string{}, Annotations: map[string]string{}, ProjectSelector: map[string]string{"a": "b"}}}}
	v := s.Value()
	assert.True(t, v.Type().Equals(OutputType))
	data, err := ctyjson.SimpleJSONValue{Value: v}.MarshalJSON()
	require.NoError(t, err)
	var back Settings
	require.NoError(t, json.Unmarshal(data, &back), "a project decodes the output from its JSON form")
	assert.Equal(t, s, back)
	assert.Equal(t, time.Hour, s.SyncPeriod())
	assert.Equal(t, 12*time.Hour, Settings{StaleSyncPeriod: "often"}.SyncPeriod(), "the default for what does not parse")
}
