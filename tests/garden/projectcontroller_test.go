package garden

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"

	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/state"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// projectsLandscape is a landscape of projects on a virtual garden whose
// gardener-controller-manager runs with projectControllerOverlay: the project blocks read the same
// settings (local.project_controller) for their predictions.
const projectsLandscape = `
landscape "projects" {
  state {
    backend = "local"
  }
}

cluster "virtual_garden" {
  context = "virtual-garden"
}

locals {
  # gardener-controller-manager's project settings, as the virtual garden runs it.
  project_controller = {
    minimum_lifetime_days      = 30
    stale_grace_period_days    = 14
    stale_expiration_time_days = 90
    stale_sync_period          = "12h"
    quotas = [{
      hard             = { "count/secrets" = "800", "count/configmaps" = "10" }
      labels           = {}
      annotations      = {}
      project_selector = {}
    }]
  }
}

component "project" "local" {
  cluster            = cluster.virtual_garden
  project_controller = local.project_controller

  owner {
    name = "admin@local.gardener.cloud"
  }

  member "ops@local.gardener.cloud" {
    kind = "Group"
    role = "admin"
  }

  member "auditor@local.gardener.cloud" {
    role = "viewer"
  }
}
`

// projectControllerOverlay configures the virtual garden's gardener-controller-manager as
// projectsLandscape says it runs: one ResourceQuota template for every project.
const projectControllerOverlay = `
controllers:
  project:
    quotas:
    - config:
        spec:
          hard: {count/secrets: "800", count/configmaps: "10"}
      projectSelector: {}
`

// The real gardener-controller-manager of Gardener v1.120.0 on a virtual garden of its own: a
// project the engine applies gets status.phase Ready from it, with its namespace, the members'
// RBAC and the quota of its configuration, none of them written by the engine; the second plan
// changes nothing and predicts nothing, so the predictions name what the controller did; and a
// project an earlier version of gardener applied (namespace, RBAC and ResourceQuota labelled as the
// landscape's and recorded in its state) is handed over: nothing is deleted, the engine's label
// goes, and the state forgets them.
func TestProjectsWithGardenerControllerManager(t *testing.T) {
	c := localcluster.Start(t, localcluster.PlaneOptions{
		Name: localcluster.VirtualGardenPlane, GardenerAPI: true,
		GardenerControllers: &localcluster.GardenerControllers{ControllerManagerOverlay: projectControllerOverlay},
	})
	t.Setenv("KUBECONFIG", c.Kubeconfig())
	ctx := context.Background()
	vg := c.Plane(localcluster.VirtualGardenPlane)
	cs, err := kubernetes.NewForConfig(vg.RESTConfig())
	require.NoError(t, err)
	projects := dyn(t, vg).Resource(projectsGVR)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(projectsLandscape), 0o644))

	// The plan renders the Project alone and predicts the controller's objects.
	pl := planAt(t, dir, time.Now())
	var rendered []string
	for _, comp := range pl.Components {
		for _, o := range comp.Objects {
			rendered = append(rendered, string(o.Action)+" "+o.Ref.Kind+" "+o.Ref.Name)
		}
	}
	assert.Equal(t, []string{"create Project local"}, rendered)
	assert.Equal(t, []string{"create: creates the project namespace with the labels gardener.cloud/role=project and project.gardener.cloud/name=local, " +
		"the annotations namespace.gardener.cloud/created-by-project-controller=true and namespace.gardener.cloud/project=the Project's uid, and the Project as its controller; it deletes the namespace with the Project"},
		predictionsOf(pl, "Namespace", "garden-local"))
	assert.Equal(t, []string{"create: creates the ClusterRoleBinding of the project's admin role for User admin@local.gardener.cloud, Group ops@local.gardener.cloud"},
		predictionsOf(pl, "ClusterRoleBinding", "gardener.cloud:system:project-member:local"))

	applyAt(t, dir, time.Now())
	project, err := projects.Get(ctx, "local", metav1.GetOptions{})
	require.NoError(t, err)
	phase, _, _ := unstructured.NestedString(project.Object, "status", "phase")
	assert.Equal(t, "Ready", phase, "gardener-controller-manager's phase")
	assert.Contains(t, project.GetFinalizers(), "gardener")
	ns, err := cs.CoreV1().Namespaces().Get(ctx, "garden-local", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "true", ns.Annotations["namespace.gardener.cloud/created-by-project-controller"], "gardener-controller-manager created it")
	assert.Equal(t, string(project.GetUID()), ns.Annotations["namespace.gardener.cloud/project"])
	assert.NotContains(t, ns.Labels, inventory.LandscapeLabel)
	members, err := cs.RbacV1().ClusterRoleBindings().Get(ctx, "gardener.cloud:system:project-member:local", metav1.GetOptions{})
	require.NoError(t, err)
	require.Len(t, members.Subjects, 2)
	assert.Equal(t, []string{"admin@local.gardener.cloud", "ops@local.gardener.cloud"}, []string{members.Subjects[0].Name, members.Subjects[1].Name})
	viewers, err := cs.RbacV1().RoleBindings("garden-local").Get(ctx, "gardener.cloud:system:project-viewer", metav1.GetOptions{})
	require.NoError(t, err)
	require.Len(t, viewers.Subjects, 1)
	assert.Equal(t, "auditor@local.gardener.cloud", viewers.Subjects[0].Name)
	quota, err := cs.CoreV1().ResourceQuotas("garden-local").Get(ctx, "gardener", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "800", quota.Spec.Hard.Name("count/secrets", "").String())
	assert.Equal(t, "10", quota.Spec.Hard.Name("count/configmaps", "").String())

	// Nothing left to do, and nothing left to predict: the predictions matched what the
	// controller wrote.
	pl = planAt(t, dir, time.Now())
	assert.False(t, pl.HasChanges(), "%s", planText(t, pl))
	assert.Empty(t, pl.Predictions, "%s", planText(t, pl))

	handOver(t, c, dir)
}

// handOver plays a landscape applied by an earlier version of gardener: the objects it rendered
// for project legacy (testdata/project-earlier-version.yaml) applied as the engine applied them
// (server-side apply as the field manager gardener, stamped as the landscape's) and recorded in
// its state. The current version renders only the Project: it releases the namespace, RBAC and
// ResourceQuota to gardener-controller-manager (those still labelled as the landscape's; the
// controller strips the labels of the built-in roles itself) and deletes none of them.
func handOver(t *testing.T, c *localcluster.Cluster, dir string) {
	ctx := context.Background()
	vg := c.Plane(localcluster.VirtualGardenPlane)
	vdyn := dyn(t, vg)
	const component = "component.project.legacy"
	backend := state.NewLocal(filepath.Join(dir, "gardener.state"))
	st, err := backend.Read(ctx)
	require.NoError(t, err)
	recorded := &state.Component{Address: component, Type: "project"}
	var earlier []*unstructured.Unstructured
	data, err := os.ReadFile("testdata/project-earlier-version.yaml")
	require.NoError(t, err)
	decoder := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := decoder.Decode(&u.Object); err != nil {
			break
		}
		if len(u.Object) == 0 {
			continue
		}
		require.NoError(t, inventory.Stamp(u, "projects", component, nil))
		gvk := u.GroupVersionKind()
		gvr := schema.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: resourceOf(gvk.Kind)}
		applied, err := vdyn.Resource(gvr).Namespace(u.GetNamespace()).Apply(ctx, u.GetName(), u, metav1.ApplyOptions{FieldManager: inventory.FieldManager, Force: true})
		require.NoError(t, err, "%s %s", gvk.Kind, u.GetName())
		ref := object.RefOf(applied)
		recorded.Objects = append(recorded.Objects, state.Object{Cluster: "virtual_garden", Group: ref.Group, Version: gvk.Version, Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name, UID: string(applied.GetUID())})
		earlier = append(earlier, applied)
	}
	require.Len(t, earlier, 14, "the Project, its namespace, 4 ClusterRoles and their 4 bindings, 3 RoleBindings and the quota")
	st.Components[component] = recorded
	require.NoError(t, backend.Write(ctx, st))

	f, err := os.OpenFile(filepath.Join(dir, "main.hcl"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`
component "project" "legacy" {
  cluster            = cluster.virtual_garden
  project_controller = local.project_controller

  owner {
    name = "admin@local.gardener.cloud"
  }
}
`)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	pl := planAt(t, dir, time.Now())
	released := map[string]string{}
	for _, comp := range pl.Components {
		for _, o := range comp.Objects {
			assert.NotEqual(t, plan.Delete, o.Action, "%s %s: nothing of the earlier version is deleted\n%s", o.Ref.Kind, o.Ref.Name, planText(t, pl))
			if o.Reason.Kind == plan.ReasonReleased {
				released[o.Ref.Kind+" "+o.Ref.Name] = o.Reason.Detail
			}
		}
	}
	assert.Equal(t, "gardener-controller-manager", released["Namespace garden-legacy"], "%s", planText(t, pl))
	assert.Equal(t, "gardener-controller-manager", released["ResourceQuota gardener"], "%s", planText(t, pl))
	assert.Positive(t, pl.Summary.Released)

	applyAt(t, dir, time.Now())
	for _, u := range earlier {
		gvk := u.GroupVersionKind()
		gvr := schema.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: resourceOf(gvk.Kind)}
		live, err := vdyn.Resource(gvr).Namespace(u.GetNamespace()).Get(ctx, u.GetName(), metav1.GetOptions{})
		require.NoError(t, err, "%s %s is not deleted", gvk.Kind, u.GetName())
		if gvk.Kind == "Project" {
			assert.Equal(t, "projects", live.GetLabels()[inventory.LandscapeLabel], "the Project stays the landscape's")
			continue
		}
		assert.NotContains(t, live.GetLabels(), inventory.LandscapeLabel, "%s %s is released", gvk.Kind, u.GetName())
		assert.NotContains(t, live.GetAnnotations(), inventory.ComponentAnnotation, "%s %s is released", gvk.Kind, u.GetName())
	}
	ns, err := kubernetes.NewForConfigOrDie(vg.RESTConfig()).CoreV1().Namespaces().Get(ctx, "garden-legacy", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "project", ns.Labels["gardener.cloud/role"], "the project labels stay: the release removed only the engine's own")
	assert.Equal(t, "legacy", ns.Labels["project.gardener.cloud/name"])
	st, err = backend.Read(ctx)
	require.NoError(t, err)
	require.Contains(t, st.Components, component)
	var kinds []string
	for _, o := range st.Components[component].Objects {
		kinds = append(kinds, o.Kind)
	}
	assert.Equal(t, []string{"Project"}, kinds, "the state forgets what it released")

	pl = planAt(t, dir, time.Now())
	assert.False(t, pl.HasChanges(), "%s", planText(t, pl))
}

// resourceOf is the resource of the kinds of the earlier version's project objects.
func resourceOf(kind string) string {
	return map[string]string{
		"Project": "projects", "Namespace": "namespaces", "ClusterRole": "clusterroles", "ClusterRoleBinding": "clusterrolebindings",
		"RoleBinding": "rolebindings", "ResourceQuota": "resourcequotas",
	}[kind]
}
