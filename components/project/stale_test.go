package project

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
)

var staleNow = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func daysAgo(d int) string { return staleNow.AddDate(0, 0, -d).Format(time.RFC3339) }

// staleWorld is the virtual garden the stale check reads: the live Project "local", its
// namespace, and the lists of shoots, backup entries and bindings.
type staleWorld struct {
	project   map[string]any // metadata and status of the live Project; nil: not created yet
	namespace map[string]string
	lists     map[string][]unstructured.Unstructured
}

func (w staleWorld) input(t *testing.T, config string) render.Input {
	return render.Input{
		Name: "local", Config: rendertest.JSONConfigOf(t, Type, config), Now: staleNow,
		Observe: func(ref render.LiveRef) (*unstructured.Unstructured, error) {
			switch {
			case ref.Resource == "projects" && w.project != nil:
				return &unstructured.Unstructured{Object: w.project}, nil
			case ref.Resource == "namespaces":
				ns := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": ref.Name,
					"labels": map[string]any{LabelRole: LabelRoleProject, LabelProjectName: "local"}}}}
				ns.SetAnnotations(w.namespace)
				return ns, nil
			}
			return nil, nil
		},
		List: func(ref render.ListRef) ([]unstructured.Unstructured, error) {
			var out []unstructured.Unstructured
			for _, item := range w.lists[ref.Resource] {
				if ref.Namespace == "" || item.GetNamespace() == ref.Namespace {
					out = append(out, item)
				}
			}
			return out, nil
		},
	}
}

func liveProject(created string, status map[string]any, annotations map[string]any) map[string]any {
	meta := map[string]any{"name": "local", "creationTimestamp": created}
	if annotations != nil {
		meta["annotations"] = annotations
	}
	return map[string]any{"apiVersion": APIVersion, "kind": Kind, "metadata": meta, "status": status}
}

func item(namespace, name string, fields map[string]any) unstructured.Unstructured {
	obj := map[string]any{"metadata": map[string]any{"name": name, "namespace": namespace}}
	for k, v := range fields {
		obj[k] = v
	}
	return unstructured.Unstructured{Object: obj}
}

// The stale check of the Stale Projects controller (Gardener's "Gardener Controller Manager"
// docs/concepts/controller-manager.md): what keeps a project in use, when it becomes stale, and
// when it is deleted.
func TestStaleProjects(t *testing.T) {
	old := liveProject(daysAgo(100), map[string]any{"lastActivityTimestamp": daysAgo(40)}, nil)
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
	tests := []struct {
		name       string
		world      staleWorld
		config     string
		stale      bool
		notice     string
		lifetime   time.Time
		revisit    time.Time
		annotation string
	}{
		{name: "not created yet", world: staleWorld{}},
		{name: "younger than the minimum lifetime", world: staleWorld{project: liveProject(daysAgo(10), nil, nil)}, revisit: staleNow.AddDate(0, 0, 20)},
		{name: "active within the minimum lifetime", world: staleWorld{project: liveProject(daysAgo(100), map[string]any{"lastActivityTimestamp": daysAgo(5)}, nil)},
			revisit: staleNow.AddDate(0, 0, 25)},
		{name: "opted out on the namespace", world: staleWorld{project: old, namespace: map[string]string{SkipStaleCheckAnnotation: "true"}}},
		{name: "opted out in the landscape", world: staleWorld{project: old}, config: `"stale": {"skip": true}`},
		{name: "a shoot", world: staleWorld{project: old, lists: map[string][]unstructured.Unstructured{"shoots": {item("garden-local", "s", nil)}}}},
		{name: "a backup entry", world: staleWorld{project: old, lists: map[string][]unstructured.Unstructured{"backupentries": {item("garden-local", "e", nil)}}}},
		{name: "a secret in use by a shoot elsewhere", world: staleWorld{project: old, lists: usesOurSecret}},
		{name: "a quota in use by a shoot elsewhere", world: staleWorld{project: old, lists: usesOurQuota}},
		{name: "a binding no shoot uses", world: staleWorld{project: old, lists: map[string][]unstructured.Unstructured{
			"credentialsbindings": usesOurSecret["credentialsbindings"],
		}}, stale: true, annotation: staleNow.Format(time.RFC3339), revisit: staleNow.AddDate(0, 0, 14),
			notice: "project local is stale since 2026-11-22T12:00:00Z: no shoots, backup entries, or secrets and quotas in use by shoots in garden-local, and no activity since 2026-10-13T12:00:00Z; " +
				"unless it is used again, it is deleted 90 days after that (the grace period of 14 days ends at 2026-12-06T12:00:00Z)"},
		{name: "stale past the grace period", world: staleWorld{project: liveProject(daysAgo(100), map[string]any{"lastActivityTimestamp": daysAgo(40)},
			map[string]any{StaleSinceAnnotation: daysAgo(20)})},
			stale: true, annotation: daysAgo(20), lifetime: staleNow.AddDate(0, 0, 70),
			notice: "project local is stale since 2026-11-02T12:00:00Z: no shoots, backup entries, or secrets and quotas in use by shoots in garden-local, and no activity since 2026-10-13T12:00:00Z; " +
				"unless it is used again, it is deleted at 2027-01-31T12:00:00Z"},
		{name: "Gardener's timestamps, its auto-delete time later", world: staleWorld{project: liveProject(daysAgo(100), map[string]any{
			"lastActivityTimestamp": daysAgo(40), "staleSinceTimestamp": daysAgo(30), "staleAutoDeleteTimestamp": staleNow.AddDate(0, 0, 100).Format(time.RFC3339),
		}, nil)}, config: `"stale": {"minimum_lifetime_days": 7, "grace_period_days": 7, "expiration_days": 60}`,
			stale: true, annotation: daysAgo(30), lifetime: staleNow.AddDate(0, 0, 100)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			config := `{"cluster": {"name": "virtual"}, "owner": {"name": "john.doe@example.com"}`
			if tt.config != "" {
				config += ", " + tt.config
			}
			out, err := Type.RenderConfig(tt.world.input(t, config+"}"))
			require.NoError(t, err)
			var project *unstructured.Unstructured
			for _, o := range out.Objects {
				if o.Object.GetKind() == Kind {
					project = o.Object
				}
			}
			require.NotNil(t, project)
			assert.Equal(t, tt.annotation, project.GetAnnotations()[StaleSinceAnnotation])
			if !tt.stale {
				assert.Empty(t, out.Notices)
				assert.Empty(t, out.Conditions)
				if strings.HasPrefix(tt.name, "opted out") {
					assert.Nil(t, out.Lifetime, "a project opted out has no lifetime")
				} else {
					require.NotNil(t, out.Lifetime, "a deletion as stale stays recorded")
					assert.Zero(t, out.Lifetime.Ends, "no end is known")
				}
				assert.Equal(t, tt.revisit, out.Revisit)
				return
			}
			require.Len(t, out.Notices, 1)
			if tt.notice != "" {
				assert.Equal(t, tt.notice, out.Notices[0])
			}
			assert.Equal(t, []render.Condition{{Type: "Stale", Status: "True", Reason: "NotInUse", Message: out.Notices[0]}}, out.Conditions)
			if tt.lifetime.IsZero() {
				require.NotNil(t, out.Lifetime)
				assert.Zero(t, out.Lifetime.Ends, "no auto-delete time within the grace period")
				assert.Equal(t, tt.revisit, out.Revisit)
			} else {
				require.NotNil(t, out.Lifetime)
				assert.Equal(t, tt.lifetime, out.Lifetime.Ends)
				assert.Equal(t, tt.lifetime, out.Revisit, "the daemon plans again at the auto-delete time")
				assert.Contains(t, out.Lifetime.Reason, "project local stale since")
			}
		})
	}
}

// Opting out in the landscape also annotates the namespace, so that gardener-controller-manager
// skips the project too (Gardener's docs/concepts/controller-manager.md).
func TestSkipAnnotatesTheNamespace(t *testing.T) {
	out, err := Type.RenderConfig(staleWorld{}.input(t, `{"cluster": {"name": "virtual"}, "owner": {"name": "a@example.com"}, "stale": {"skip": true}}`))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{SkipStaleCheckAnnotation: "true"}, out.Objects[0].Object.GetAnnotations())
}
