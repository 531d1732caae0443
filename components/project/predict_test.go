package project

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/golden"
)

// predictionsText lists predictions one a line, as the golden files hold them.
func predictionsText(ps []render.Prediction) []byte {
	var b strings.Builder
	for _, p := range ps {
		ref := p.Kind + " " + p.Name
		if p.Namespace != "" {
			ref = p.Kind + " " + p.Namespace + "/" + p.Name
		}
		when := "when it reconciles"
		if !p.At.IsZero() {
			when = p.At.Format(time.RFC3339) + ".." + p.Until.Format(time.RFC3339)
		}
		fmt.Fprintf(&b, "%s (%s) %s %s [%s] in %s: %s\n", p.Actor, p.Controller, p.Action, ref, when, p.Cluster, p.Description)
	}
	return []byte(b.String())
}

// owned makes the Project local an object's controller, as the project controller does.
func owned(u *unstructured.Unstructured) *unstructured.Unstructured {
	u.Object["metadata"].(map[string]any)["ownerReferences"] = []any{map[string]any{
		"apiVersion": APIVersion, "kind": Kind, "name": "local", "uid": "6f1c", "controller": true, "blockOwnerDeletion": false,
	}}
	return u
}

// withCatchAllQuota gives a configuration the controller manager's settings with one quota
// template for every project.
func withCatchAllQuota(config string) string {
	return strings.TrimSuffix(config, "}") + `, "project_controller": {"minimum_lifetime_days": 30, "stale_grace_period_days": 14, "stale_expiration_time_days": 90, "stale_sync_period": "12h",
  "quotas": [{"hard": {"count/shoots.core.gardener.cloud": "100", "count/secrets": "800"}, "labels": {}, "annotations": {}, "project_selector": {}}]}}`
}

// converged is the virtual garden after gardener-controller-manager reconciled the project of
// config: the Project Ready, its namespace, ResourceQuota and RBAC as the controller writes them.
func converged(t *testing.T, config string) *world {
	t.Helper()
	w := newWorld().with("projects", liveProject(daysAgo(1), map[string]any{"phase": "Ready"})).with("namespaces", gcmNamespace(nil))
	in := w.input(t, config)
	var v Values
	require.NoError(t, decode.Into(in.Config, &v))
	v.Name = "local"
	spec := projectOf(t, v).Object["spec"].(map[string]any)
	for _, o := range projectRBAC("local", "garden-local", spec["owner"].(map[string]any), spec["members"].([]any)) {
		data, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o.object)
		require.NoError(t, err)
		_, _, resource := rbacMeta(o.object)
		w.with(resource, owned(&unstructured.Unstructured{Object: data}))
	}
	if tmpl := v.settings().QuotaFor(v.Labels); tmpl != nil {
		w.with("resourcequotas", owned(liveQuota(tmpl.Hard, tmpl.Labels)))
	}
	return w
}

// earlierVersion is the virtual garden of a project applied by an earlier version of gardener: it
// rendered the namespace, the members' RBAC (its rules in another order, the owner among the uam
// role's subjects) and the ResourceQuota from the project's own template, all labelled as the
// landscape's and none controlled by the Project, which gardener-controller-manager has not
// reconciled yet.
func earlierVersion(t *testing.T) *world {
	t.Helper()
	stamp := func(u *unstructured.Unstructured) *unstructured.Unstructured {
		require.NoError(t, inventory.Stamp(u, "local", "component.project.local", nil))
		return u
	}
	u := func(kind, namespace, name string, fields map[string]any) *unstructured.Unstructured {
		obj := map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "metadata": map[string]any{"name": name}}
		if namespace != "" {
			obj["metadata"].(map[string]any)["namespace"] = namespace
		}
		for k, v := range fields {
			obj[k] = v
		}
		return stamp(&unstructured.Unstructured{Object: obj})
	}
	john := map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "john.doe@example.com"}
	w := converged(t, withCatchAllQuota(minimal))
	w.with("projects", liveProject(daysAgo(1), nil))
	w.with("namespaces", stamp(liveNamespace("garden-local", projectLabels, nil, false)))
	w.with("clusterroles", u("ClusterRole", "", "gardener.cloud:system:project-member:local", map[string]any{"rules": []any{
		map[string]any{"apiGroups": []any{"core.gardener.cloud"}, "resources": []any{"projects"}, "resourceNames": []any{"local"}, "verbs": []any{"get", "patch", "update", "delete"}},
		map[string]any{"apiGroups": []any{""}, "resources": []any{"namespaces"}, "resourceNames": []any{"garden-local"}, "verbs": []any{"get"}},
	}}))
	w.with("clusterrolebindings", u("ClusterRoleBinding", "", "gardener.cloud:system:project-uam:local", map[string]any{
		"roleRef": map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "gardener.cloud:system:project-uam:local"}, "subjects": []any{john},
	}))
	delete(w.objects["rolebindings"], "garden-local/gardener.cloud:system:project-viewer")
	w.with("resourcequotas", stamp(liveQuota(map[string]string{"count/shoots.core.gardener.cloud": "50", "count/configmaps": "10"}, nil)))
	w.listing("rolebindings", *u("RoleBinding", "garden-local", "gardener.cloud:extension:project:local:old", nil))
	return w
}

// The predictions of gardener-controller-manager's project controller, golden: for a new project
// everything it creates; for a project an earlier version of gardener applied, what it changes on
// the objects it takes over.
func TestPredictionsGolden(t *testing.T) {
	for name, tc := range map[string]struct {
		w      *world
		config string
	}{
		"predictions-new":     {newWorld(), customised},
		"predictions-earlier": {earlierVersion(t), withCatchAllQuota(minimal)},
	} {
		t.Run(name, func(t *testing.T) {
			out, err := Type.RenderConfig(tc.w.input(t, tc.config))
			require.NoError(t, err)
			golden.AssertBytes(t, name+".txt", predictionsText(out.Predictions))
		})
	}
}

// Once gardener-controller-manager has done its work, nothing is left to predict: a second plan
// shows no predictions of a young project's controllers.
func TestConvergedProjectHasNoPredictions(t *testing.T) {
	// The customised project under the name the converged world's objects have.
	customisedLocal := strings.Replace(customised, `"name": "dev",`, "", 1)
	for name, config := range map[string]string{"minimal": minimal, "customised": customisedLocal, "with a quota": withCatchAllQuota(minimal)} {
		t.Run(name, func(t *testing.T) {
			out, err := Type.RenderConfig(converged(t, config).input(t, config))
			require.NoError(t, err)
			assert.Empty(t, predictionsText(out.Predictions))
		})
	}
}
