package project

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/decode"
)

// The stale check of the Stale Projects controller (Reconciler.reconcile in
// pkg/controllermanager/controller/project/stale/reconciler.go at Gardener v1.120.0, with its
// default 30, 14 and 90 days and 12h): what keeps a project in use, what the controller writes
// and when, and when it deletes the project, which ends the instance's lifetime by the controller.
func TestStaleProjects(t *testing.T) {
	old := liveProject(daysAgo(100), map[string]any{"lastActivityTimestamp": daysAgo(40)})
	// A shoot in garden-other uses a binding in garden-other whose Secret lives in garden-local.
	usesOurSecret := map[string][]unstructured.Unstructured{
		"shoots": {item("garden-other", "s", map[string]any{"spec": map[string]any{"credentialsBindingName": "b"}})},
		"credentialsbindings": {item("garden-other", "b", map[string]any{
			"credentialsRef": map[string]any{"kind": "Secret", "namespace": "garden-local", "name": "creds"},
		})},
	}
	usesOurQuota := map[string][]unstructured.Unstructured{
		"shoots": {item("garden-other", "s", map[string]any{"spec": map[string]any{"secretBindingName": "b"}})},
		"secretbindings": {item("garden-other", "b", map[string]any{
			"secretRef": map[string]any{"namespace": "garden-other", "name": "creds"},
			"quotas":    []any{map[string]any{"namespace": "garden-local", "name": "trial"}},
		})},
	}
	at := func(d int) time.Time { return now.AddDate(0, 0, d) }
	markedStale := fmt.Sprintf("update %s..%s marks the project stale", now.Format(time.RFC3339), now.Add(12*time.Hour).Format(time.RFC3339))
	tests := []struct {
		name    string
		project *unstructured.Unstructured
		ns      map[string]string
		lists   map[string][]unstructured.Unstructured
		config  string
		// want are the predictions as "action at..until description-prefix".
		want    []string
		revisit time.Time
		ends    time.Time // zero: none known
		noCheck bool      // outside the check: no lifetime at all
		stale   bool
	}{
		{name: "not created yet"},
		{name: "younger than the minimum lifetime", project: liveProject(daysAgo(10), nil), revisit: at(20)},
		{name: "active within the minimum lifetime", project: liveProject(daysAgo(100), map[string]any{"lastActivityTimestamp": daysAgo(5)}), revisit: at(25)},
		{name: "opted out on the namespace", project: old, ns: map[string]string{SkipStaleCheckAnnotation: "true"}, noCheck: true},
		{name: "opted out in the landscape", project: old, config: `"stale": {"skip": true}`, noCheck: true},
		{name: "a shoot", project: old, lists: map[string][]unstructured.Unstructured{"shoots": {item("garden-local", "s", nil)}}},
		{name: "a backup entry", project: old, lists: map[string][]unstructured.Unstructured{"backupentries": {item("garden-local", "e", nil)}}},
		{name: "a secret in use by a shoot elsewhere", project: old, lists: usesOurSecret},
		{name: "a quota in use by a shoot elsewhere", project: old, lists: usesOurQuota},
		{name: "in use again after it was stale", project: liveProject(daysAgo(100), map[string]any{"staleSinceTimestamp": daysAgo(3)}), lists: usesOurSecret,
			want: []string{fmt.Sprintf("update %s..%s marks the project as no longer stale (in use by secret creds of a binding in use)", now.Format(time.RFC3339), now.Add(12*time.Hour).Format(time.RFC3339))}},
		{name: "a binding no shoot uses: stale from the next check", project: old, lists: map[string][]unstructured.Unstructured{"credentialsbindings": usesOurSecret["credentialsbindings"]},
			want: []string{
				markedStale,
				fmt.Sprintf("update %s..%s sets status.staleAutoDeleteTimestamp to %s, once the project has been stale for the grace period of 14 days", at(14).Format(time.RFC3339), at(14).Add(12*time.Hour).Format(time.RFC3339), at(90).Format(time.RFC3339)),
				fmt.Sprintf("delete %s..%s deletes the stale project (confirmed with confirmation.gardener.cloud/deletion=true), 90 days after it became stale; its namespace is deleted with it", at(90).Format(time.RFC3339), at(90).Add(12*time.Hour).Format(time.RFC3339)),
			},
			revisit: at(14), stale: true},
		{name: "stale within the grace period", project: liveProject(daysAgo(100), map[string]any{"staleSinceTimestamp": daysAgo(10)}),
			want: []string{
				fmt.Sprintf("update %s..%s sets status.staleAutoDeleteTimestamp to %s", at(4).Format(time.RFC3339), at(4).Add(12*time.Hour).Format(time.RFC3339), at(80).Format(time.RFC3339)),
				fmt.Sprintf("delete %s..%s deletes the stale project", at(80).Format(time.RFC3339), at(80).Add(12*time.Hour).Format(time.RFC3339)),
			},
			revisit: at(4), ends: at(80), stale: true},
		{name: "stale past the grace period, its auto-delete time set", project: liveProject(daysAgo(100), map[string]any{"staleSinceTimestamp": daysAgo(20), "staleAutoDeleteTimestamp": at(70).Format(time.RFC3339)}),
			ns:      map[string]string{AnnotationKeepAfterProjectDeletion: "true"},
			want:    []string{fmt.Sprintf("delete %s..%s deletes the stale project (confirmed with confirmation.gardener.cloud/deletion=true), 90 days after it became stale; the namespace stays, without the project's labels", at(70).Format(time.RFC3339), at(70).Add(12*time.Hour).Format(time.RFC3339))},
			revisit: at(70), ends: at(70), stale: true},
		{name: "its auto-delete time moved later", project: liveProject(daysAgo(100), map[string]any{"staleSinceTimestamp": daysAgo(30), "staleAutoDeleteTimestamp": at(100).Format(time.RFC3339)}),
			want:    []string{fmt.Sprintf("delete %s..%s", at(100).Format(time.RFC3339), at(100).Add(12*time.Hour).Format(time.RFC3339))},
			revisit: at(100), ends: at(100), stale: true},
		{name: "the controller manager's own days", project: liveProject(daysAgo(100), map[string]any{"staleSinceTimestamp": daysAgo(3)}),
			config: `"project_controller": {"minimum_lifetime_days": 7, "stale_grace_period_days": 1, "stale_expiration_time_days": 2, "stale_sync_period": "1h", "quotas": []}`,
			want: []string{
				fmt.Sprintf("update %s..%s sets status.staleAutoDeleteTimestamp to %s", now.Format(time.RFC3339), now.Add(time.Hour).Format(time.RFC3339), at(-1).Format(time.RFC3339)),
				fmt.Sprintf("delete %s..%s deletes the stale project (confirmed with confirmation.gardener.cloud/deletion=true), 2 days after it became stale", at(-1).Format(time.RFC3339), at(-1).Add(time.Hour).Format(time.RFC3339)),
			},
			ends: at(-1), stale: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			config := `{"cluster": {"name": "virtual"}, "owner": {"name": "john.doe@example.com"}`
			if tt.config != "" {
				config += ", " + tt.config
			}
			w := newWorld().with("namespaces", gcmNamespace(tt.ns))
			if tt.project != nil {
				w.with("projects", tt.project)
			}
			for resource, items := range tt.lists {
				w.listing(resource, items...)
			}
			in := w.input(t, config+"}")
			var v Values
			require.NoError(t, decode.Into(in.Config, &v))
			v.Name = "local"
			st, err := checkStale(in, v, live{project: tt.project, namespace: gcmNamespace(tt.ns)})
			require.NoError(t, err)
			var got []string
			for _, p := range st.predictions {
				assert.Equal(t, "project-stale", p.Controller)
				assert.Equal(t, "Project", p.Kind)
				got = append(got, fmt.Sprintf("%s %s..%s %s", p.Action, p.At.Format(time.RFC3339), p.Until.Format(time.RFC3339), p.Description))
			}
			require.Len(t, got, len(tt.want), "%q", got)
			for i := range tt.want {
				assert.Contains(t, got[i], tt.want[i])
			}
			assert.Equal(t, tt.revisit, st.revisit)
			if tt.noCheck {
				assert.Nil(t, st.lifetime, "a project outside the check has no lifetime")
				return
			}
			require.NotNil(t, st.lifetime, "a deletion as stale stays recorded")
			assert.Equal(t, "gardener-controller-manager", st.lifetime.EndedBy, "the controller deletes it, not the engine")
			assert.Equal(t, tt.ends, st.lifetime.Ends)
			assert.Equal(t, tt.stale, st.condition != nil)
		})
	}
}
