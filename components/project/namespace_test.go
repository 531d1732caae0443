package project

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/object"
)

// What the project renders of its namespace, which is gardener-controller-manager's
// (reconcileNamespaceForProject in pkg/controllermanager/controller/project/project/reconciler.go
// at Gardener v1.120.0): nothing for a namespace the controller creates or has taken, the
// adoption labels for an existing one, and the stale check's opt-out only on an existing one.
func TestNamespaceObject(t *testing.T) {
	ours := func(u *unstructured.Unstructured) *unstructured.Unstructured {
		require.NoError(t, inventory.Stamp(u, "local", "component.project.local", nil))
		return u
	}
	skipAnnotation := map[string]string{SkipStaleCheckAnnotation: "true"}
	for _, tc := range []struct {
		name      string
		namespace string // the block's namespace attribute
		skip      bool
		live      *unstructured.Unstructured
		// wantLabels and wantAnnotations are the rendered namespace's; nil labels: none rendered.
		wantLabels, wantAnnotations map[string]string
		wantNotice, wantErr         string
	}{
		{name: "a new namespace: the controller creates it"},
		{name: "a new namespace, opted out: the annotation waits for the controller's namespace", skip: true,
			wantNotice: "the namespace garden-local gets the annotation project.gardener.cloud/skip-stale-check=true with the first apply after gardener-controller-manager created it"},
		{name: "the controller's namespace", live: gcmNamespace(nil)},
		{name: "the controller's namespace, opted out", live: gcmNamespace(nil), skip: true, wantLabels: projectLabels, wantAnnotations: skipAnnotation},
		{name: "the controller's namespace, opted out no longer", live: ours(gcmNamespace(skipAnnotation)), wantLabels: projectLabels},
		{name: "the controller's namespace, opted out by someone else", live: gcmNamespace(skipAnnotation)},
		{name: "adopted by the controller", live: liveNamespace("garden-local", projectLabels, map[string]string{AnnotationKeepAfterProjectDeletion: "true"}, true)},
		{name: "an earlier version's, not adopted yet", live: ours(liveNamespace("garden-local", projectLabels, nil, false)), wantLabels: projectLabels},
		{name: "an existing labelled namespace", live: liveNamespace("garden-local", projectLabels, nil, false), wantLabels: projectLabels},
		{name: "an existing namespace the landscape names", namespace: "garden-local", live: liveNamespace("garden-local", nil, nil, false), wantLabels: projectLabels},
		{name: "an existing namespace the landscape names, opted out", namespace: "garden-local", skip: true, live: liveNamespace("garden-local", nil, nil, false),
			wantLabels: projectLabels, wantAnnotations: skipAnnotation},
		{name: "someone else's namespace of the default name", live: liveNamespace("garden-local", nil, nil, false),
			wantErr: "the namespace garden-local exists without the labels gardener.cloud/role=project and project.gardener.cloud/name=local"},
		{name: "another project's namespace", namespace: "garden-local", live: liveNamespace("garden-local", map[string]string{LabelRole: LabelRoleProject, LabelProjectName: "other"}, nil, false),
			wantErr: "the namespace garden-local belongs to project other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := values(Values{Cluster: cluster, Name: "local", Namespace: tc.namespace, Owner: owner("john")})
			if tc.skip {
				v.Stale = &Stale{Skip: true}
			}
			got, notice, err := namespaceObject(v, "component.project.local", live{namespace: tc.live})
			if tc.wantErr != "" {
				assert.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Contains(t, notice, tc.wantNotice)
			if tc.wantNotice == "" {
				assert.Empty(t, notice)
			}
			if tc.wantLabels == nil {
				assert.Nil(t, got)
				return
			}
			require.NotNil(t, got)
			assert.Equal(t, "garden-local", got.GetName())
			assert.Equal(t, tc.wantLabels, got.GetLabels(), "the labels always go with it: an apply without them would remove those only the engine owns")
			assert.Equal(t, tc.wantAnnotations, got.GetAnnotations())
		})
	}
}

// What earlier versions rendered for a project, and the controller keeps now, is handed over:
// the namespace, the members' RBAC by projectrbac's names, the ResourceQuota gardener; nothing
// of another project.
func TestHandedOver(t *testing.T) {
	h := handedOver("virtual", "local", "garden-local")
	handed := func(group, kind, namespace, name string) bool {
		for _, x := range h {
			if x.Cluster == "virtual" && x.Group == group && x.Kind == kind && x.Namespace == namespace && x.Name.MatchString(name) {
				assert.Equal(t, "gardener-controller-manager", x.Controller)
				return true
			}
		}
		return false
	}
	for _, ref := range []object.Ref{
		{Kind: "Namespace", Name: "garden-local"},
		{Kind: "ResourceQuota", Namespace: "garden-local", Name: "gardener"},
		{Group: rbacGroup, Kind: "ClusterRole", Name: "gardener.cloud:system:project:local"},
		{Group: rbacGroup, Kind: "ClusterRole", Name: "gardener.cloud:system:project-member:local"},
		{Group: rbacGroup, Kind: "ClusterRole", Name: "gardener.cloud:system:project-uam:local"},
		{Group: rbacGroup, Kind: "ClusterRoleBinding", Name: "gardener.cloud:system:project-viewer:local"},
		{Group: rbacGroup, Kind: "ClusterRole", Name: "gardener.cloud:extension:project:local:foo"},
		{Group: rbacGroup, Kind: "RoleBinding", Namespace: "garden-local", Name: "gardener.cloud:system:project-serviceaccountmanager"},
		{Group: rbacGroup, Kind: "RoleBinding", Namespace: "garden-local", Name: "gardener.cloud:extension:project:local:foo"},
	} {
		assert.True(t, handed(ref.Group, ref.Kind, ref.Namespace, ref.Name), "%s", ref)
	}
	for _, ref := range []object.Ref{
		{Kind: "Namespace", Name: "garden-local2"},
		{Kind: "ResourceQuota", Namespace: "garden-local", Name: "other"},
		{Group: rbacGroup, Kind: "ClusterRole", Name: "gardener.cloud:system:project:local2"},
		{Group: rbacGroup, Kind: "ClusterRole", Name: "gardener.cloud:extension:project:other:foo"},
		{Group: rbacGroup, Kind: "RoleBinding", Namespace: "garden-other", Name: "gardener.cloud:system:project-member"},
		{Group: rbacGroup, Kind: "Role", Namespace: "garden-local", Name: "gardener.cloud:system:project-member"},
	} {
		assert.False(t, handed(ref.Group, ref.Kind, ref.Namespace, ref.Name), "%s", ref)
	}
}
