package views

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/plan"
)

var update = flag.Bool("update", false, "rewrite golden files")

// samplePlan has one object of every action and every kind of change.
func samplePlan() *plan.Plan {
	p := &plan.Plan{
		FormatVersion: plan.FormatVersion,
		Landscape:     "local",
		Components: []*plan.Component{
			{Address: "component.manifests.base", Type: "manifests", Objects: []*plan.ObjectChange{
				{Cluster: "runtime", APIVersion: "v1", Ref: object.Ref{Kind: "Namespace", Name: "apps"}, Action: plan.NoOp, ResourceVersion: "12"},
				{Cluster: "runtime", APIVersion: "v1", Ref: object.Ref{Kind: "ConfigMap", Namespace: "apps", Name: "settings"}, Action: plan.Create, Reason: plan.Reason{Kind: plan.ReasonMissing}, Changes: []plan.FieldChange{
					{Path: ".data[mode]", After: "fast", HasAfter: true},
					{Path: ".data[endpoint]", Unknown: true, HasAfter: true},
				}},
				{Cluster: "runtime", APIVersion: "v1", Ref: object.Ref{Kind: "Secret", Namespace: "apps", Name: "token"}, Action: plan.Update, Reason: plan.Reason{Kind: plan.ReasonConfigChanged}, ResourceVersion: "40", Changes: []plan.FieldChange{
					{Path: ".data[token]", HasBefore: true, HasAfter: true, Sensitive: true},
				}},
			}},
			{Address: `component.manifests.web["a"]`, Type: "manifests", DependsOn: []string{"component.manifests.base"}, Objects: []*plan.ObjectChange{
				{Cluster: "runtime", APIVersion: "apps/v1", Ref: object.Ref{Group: "apps", Kind: "Deployment", Namespace: "apps", Name: "web"}, Action: plan.Update, Reason: plan.Reason{Kind: plan.ReasonConflict, Detail: "kube-controller-manager"}, ResourceVersion: "41",
					Conflicts: []plan.Conflict{{Path: ".spec.replicas", Manager: "kube-controller-manager"}},
					Changes: []plan.FieldChange{
						{Path: ".spec.replicas", Before: int64(1), After: int64(3), HasBefore: true, HasAfter: true},
						{Path: ".spec.template.spec.containers[name=web].args[0]", Before: "--old", HasBefore: true},
						{Path: ".metadata.labels[tier]", After: "front", HasAfter: true},
					}},
				{Cluster: "runtime", APIVersion: "v1", Ref: object.Ref{Kind: "Service", Namespace: "apps", Name: "web"}, Action: plan.Replace, Reason: plan.Reason{Kind: plan.ReasonImmutableField, Detail: ".spec.clusterIP"}, ResourceVersion: "42", Changes: []plan.FieldChange{
					{Path: ".spec.clusterIP", Before: "10.0.0.1", After: "10.0.0.2", HasBefore: true, HasAfter: true},
				}},
				{Cluster: "runtime", APIVersion: "v1", Ref: object.Ref{Kind: "ConfigMap", Namespace: "apps", Name: "drifted"}, Action: plan.Update, Reason: plan.Reason{Kind: plan.ReasonDrift}, ResourceVersion: "43",
					Drift: []plan.Conflict{{Path: ".data[k]", Manager: "kubectl-edit"}}, Changes: []plan.FieldChange{
						{Path: ".data[k]", Before: "edited", After: "v", HasBefore: true, HasAfter: true},
					}},
			}},
			{Address: "component.manifests.later", Type: "manifests", Action: plan.Read, Note: plan.ParseNote("rendered during apply: depends on values known only after apply (.objects)"), Objects: []*plan.ObjectChange{}},
			{Address: "component.manifests.old", Type: "manifests", Note: plan.ParseNote("removed from the landscape"), Objects: []*plan.ObjectChange{
				{Cluster: "runtime", APIVersion: "v1", Ref: object.Ref{Kind: "ConfigMap", Namespace: "apps", Name: "old"}, Action: plan.Delete, Reason: plan.Reason{Kind: plan.ReasonRemovedFromLandscape}, ResourceVersion: "44"},
				{Cluster: "runtime", APIVersion: "v1", Ref: object.Ref{Kind: "ConfigMap", Namespace: "apps", Name: "proxy-v1.31.1"}, Action: plan.Delete, Reason: plan.Reason{Kind: plan.ReasonSuperseded, Detail: "proxy-v1.31.3"}, ResourceVersion: "45"},
			}},
			{Address: "component.manifests.settings", Type: "manifests", MovedFrom: "component.manifests.config", Objects: []*plan.ObjectChange{
				{Cluster: "runtime", APIVersion: "v1", Ref: object.Ref{Kind: "ConfigMap", Namespace: "apps", Name: "tuning"}, Action: plan.Update, Reason: plan.Reason{Kind: plan.ReasonMoved, Detail: "component.manifests.config"}, ResourceVersion: "47", Changes: []plan.FieldChange{
					{Path: ".metadata.annotations[declarative-gardener.io/component]", Before: "component.manifests.config", After: "component.manifests.settings", HasBefore: true, HasAfter: true},
				}},
			}},
			{Address: "component.generated_secret.ca", Type: "generated_secret", Note: plan.ParseNote("imported: the key material of the existing Secret is adopted (import block)"), Objects: []*plan.ObjectChange{
				{Cluster: "runtime", APIVersion: "v1", Ref: object.Ref{Kind: "Secret", Namespace: "apps", Name: "ca"}, Action: plan.Update, Reason: plan.Reason{Kind: plan.ReasonImport, Detail: "runtime/Secret/apps/ca"}, ResourceVersion: "48", Changes: []plan.FieldChange{
					{Path: ".metadata.labels[declarative-gardener.io/landscape]", After: "local", HasAfter: true},
				}},
			}},
			{Address: "component.project.local", Type: "project", Objects: []*plan.ObjectChange{
				{Cluster: "virtual", APIVersion: "v1", Ref: object.Ref{Kind: "Namespace", Name: "garden-local"}, Action: plan.Update, Reason: plan.Reason{Kind: plan.ReasonReleased, Detail: "gardener-controller-manager"}, ResourceVersion: "46", Changes: []plan.FieldChange{
					{Path: ".metadata.annotations[declarative-gardener.io/component]", Before: "component.project.local", HasBefore: true},
					{Path: ".metadata.labels[declarative-gardener.io/landscape]", Before: "local", HasBefore: true},
				}},
			}},
		},
		Outputs:  []plan.Output{{Name: "password", Sensitive: true}, {Name: "namespace", Value: "apps"}, {Name: "address", Unknown: true}},
		Warnings: []string{"garden.local is not planned: garden components are not rendered by this version of gardener"},
		Notices:  []string{"shoot dev: maintenance window 22:00-23:00 UTC (next 2026-11-22T22:00:00Z): Control Plane: Updated Kubernetes version '1.31.1' to version 1.31.3. Reason: Automatic update of Kubernetes version configured"},
		Retired: []plan.Retirement{{Address: "shoot.trial", Ended: "2026-11-20T08:00:00Z", Reason: "the cluster lifetime of Quota garden-dev/trial, 7 days"}, {Address: "shoot.old", Ended: "2026-11-01T08:00:00Z", Reason: "the cluster lifetime of Quota garden-dev/trial, 7 days", Recorded: true},
			{Address: "component.project.idle", Ended: "2026-12-01T12:00:00Z", Reason: "project idle stale since 2026-09-02T12:00:00Z", EndedBy: "gardener-controller-manager"}},
		Forget: []string{"shoot.gone"},
		IndirectDeletions: []plan.IndirectDeletion{{Address: "component.shoot_system.dev", Cluster: "seed",
			Ref:        object.Ref{Group: "resources.gardener.cloud", Kind: "ManagedResource", Namespace: "shoot--local--dev", Name: "shoot-core-coredns"},
			Controller: "gardener-resource-manager", Deletes: "ConfigMap kube-system/coredns-custom"}},
		Moved: []plan.Move{{From: "component.manifests.config", To: "component.manifests.settings"}},
		Predictions: []plan.Prediction{
			{Address: `shoot.local["qa"]`, Actor: "gardener-controller-manager", Controller: "shoot-hibernation", Cluster: "virtual",
				Ref: object.Ref{Group: "core.gardener.cloud", Kind: "Shoot", Namespace: "garden-local", Name: "qa"}, Action: "update",
				At: "2026-11-23T08:00:00Z", Description: "hibernates the shoot by its schedule (spec.hibernation.enabled: true)"},
			{Address: `shoot.local["dev"]`, Actor: "gardener-controller-manager", Controller: "shoot-maintenance", Cluster: "virtual",
				Ref: object.Ref{Group: "core.gardener.cloud", Kind: "Shoot", Namespace: "garden-local", Name: "dev"}, Action: "update",
				At: "2026-11-22T22:00:00Z", Until: "2026-11-22T22:45:00Z", Description: "updates the Kubernetes version from 1.31.1 to 1.31.3"},
			{Address: "component.project.local", Actor: "gardener-controller-manager", Controller: "project", Cluster: "virtual",
				Ref: object.Ref{Kind: "Namespace", Name: "garden-local"}, Action: "create", Description: "creates the project's namespace"},
		},
	}
	p.Summarise()
	return p
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./engine/views -update to create %s", path)
	assert.Equal(t, string(want), string(got))
}

func TestPlanHuman(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, Plan(&buf, samplePlan(), PlanOptions{}))
	golden(t, "plan.txt", buf.Bytes())
	assert.Contains(t, buf.String(), "Plan: 1 to add, 6 to change, 1 to replace, 2 to destroy. 1 component(s) moved. 1 of the deletions superseded by new versions. 1 of the changes import existing objects. 1 of the changes release objects to Gardener's controllers. 1 component(s) rendered during apply.")

	buf.Reset()
	require.NoError(t, Plan(&buf, samplePlan(), PlanOptions{Color: true}))
	golden(t, "plan-color.txt", buf.Bytes())

	buf.Reset()
	empty := &plan.Plan{FormatVersion: plan.FormatVersion, Landscape: "local"}
	require.NoError(t, Plan(&buf, empty, PlanOptions{}))
	assert.Equal(t, "No changes. The landscape matches the live clusters.\n", buf.String())

	// What a later maintenance window will do is noted even when nothing changes now.
	buf.Reset()
	empty.Notices = []string{"shoot dev: maintenance window 22:00-23:00 UTC (next 2026-11-22T22:00:00Z): ..."}
	require.NoError(t, Plan(&buf, empty, PlanOptions{}))
	assert.Equal(t, "Note: shoot dev: maintenance window 22:00-23:00 UTC (next 2026-11-22T22:00:00Z): ...\nNo changes. The landscape matches the live clusters.\n", buf.String())

	// So is what Gardener's controllers will do, marked as theirs: no change of the plan's own.
	buf.Reset()
	empty.Notices = nil
	empty.Predictions = samplePlan().Predictions[:1]
	assert.False(t, empty.HasChanges(), "a prediction is not a change the plan applies")
	require.NoError(t, Plan(&buf, empty, PlanOptions{}))
	assert.Equal(t, "Predicted: gardener-controller-manager (shoot-hibernation) at 2026-11-23T08:00:00Z: update Shoot.core.gardener.cloud garden-local/qa (virtual): hibernates the shoot by its schedule (spec.hibernation.enabled: true)\nNo changes. The landscape matches the live clusters.\n", buf.String())

	// A retirement the state records already is no change; one it does not, or a record to
	// drop, is one even when no object changes.
	recorded := &plan.Plan{FormatVersion: plan.FormatVersion, Landscape: "local", Retired: []plan.Retirement{{Address: "shoot.trial", Ended: "2026-11-20T08:00:00Z", Reason: "r", Recorded: true}}}
	assert.False(t, recorded.HasChanges())
	recorded.Retired[0].Recorded = false
	assert.True(t, recorded.HasChanges())
	buf.Reset()
	require.NoError(t, Plan(&buf, recorded, PlanOptions{}))
	assert.Contains(t, buf.String(), "shoot.trial: lifetime ended at 2026-11-20T08:00:00Z (r); recorded so that it is not created again while its block stays")
	forget := &plan.Plan{FormatVersion: plan.FormatVersion, Landscape: "local", Forget: []string{"shoot.gone"}}
	assert.True(t, forget.HasChanges())
}

func TestPlanEscapesControlCharacters(t *testing.T) {
	p := samplePlan()
	p.Components[0].Objects[1].Changes[0].Path = ".data[evil\x1b[2J]"
	var buf bytes.Buffer
	require.NoError(t, Plan(&buf, p, PlanOptions{}))
	assert.NotContains(t, buf.String(), "\x1b")
	assert.Contains(t, buf.String(), `.data[evil\x1b[2J]`)
}

func TestPlanJSON(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, PlanJSON(&buf, samplePlan()))
	golden(t, "plan.json", buf.Bytes())
}

// Changes held until a maintenance window are listed with what they will do, both beside other
// changes and when they are all there is.
func TestPlanHeldChanges(t *testing.T) {
	held := &plan.Component{Address: "shoot.dev.kube_apiserver", Type: "kube_apiserver", Note: plan.ParseNote("1 change(s) held until the maintenance window 22:00-23:00 UTC"), Objects: []*plan.ObjectChange{
		{Cluster: "runtime", APIVersion: "apps/v1", Ref: object.Ref{Group: "apps", Kind: "Deployment", Namespace: "shoot--local--dev", Name: "kube-apiserver"},
			Action: plan.NoOp, Held: plan.Update, Reason: plan.Reason{Kind: plan.ReasonMaintenanceWindow}, ResourceVersion: "7", Changes: []plan.FieldChange{
				{Path: ".spec.template.spec.containers[name=kube-apiserver].image", Before: "kube-apiserver:v1.31.1", After: "kube-apiserver:v1.31.2", HasBefore: true, HasAfter: true},
			}},
	}}
	onlyHeld := &plan.Plan{FormatVersion: plan.FormatVersion, Landscape: "local", Components: []*plan.Component{held}}
	onlyHeld.Summarise()
	require.False(t, onlyHeld.HasChanges(), "a held change is not a change of this plan")
	var buf bytes.Buffer
	require.NoError(t, Plan(&buf, onlyHeld, PlanOptions{}))
	golden(t, "plan-held.txt", buf.Bytes())

	mixed := samplePlan()
	mixed.Components = append(mixed.Components, held)
	mixed.Summarise()
	buf.Reset()
	require.NoError(t, Plan(&buf, mixed, PlanOptions{}))
	assert.Contains(t, buf.String(), "6 to change, 1 to replace, 2 to destroy. 1 component(s) moved. 1 of the deletions superseded by new versions. 1 of the changes import existing objects. 1 of the changes release objects to Gardener's controllers. 1 component(s) rendered during apply. 1 held until their maintenance window.")
	assert.Contains(t, buf.String(), "~ Deployment.apps shoot--local--dev/kube-apiserver (runtime) held: will be updated in the maintenance window [maintenance_window]")
}

// A release that adds the owner its new controller needs says so (a seed's namespace an older
// version rendered, which gardener-controller-manager syncs only while the Seed controls it).
func TestPlanReleaseWithOwner(t *testing.T) {
	pl := &plan.Plan{FormatVersion: plan.FormatVersion, Landscape: "local", Components: []*plan.Component{
		{Address: "seed.local.seed_namespace", Type: "seed", Note: plan.ParseNote("removed from the landscape"), Objects: []*plan.ObjectChange{
			{Cluster: "virtual", APIVersion: "v1", Ref: object.Ref{Kind: "Namespace", Name: "seed-local"}, Action: plan.Update,
				Reason: plan.Reason{Kind: plan.ReasonReleased, Detail: "gardener-controller-manager"}, ResourceVersion: "47",
				Changes:         []plan.FieldChange{{Path: ".metadata.labels[declarative-gardener.io/landscape]", Before: "local", HasBefore: true}},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "core.gardener.cloud/v1beta1", Kind: "Seed", Name: "local", UID: "4c1f", Controller: ptr.To(true)}}},
		}},
	}}
	pl.Summarise()
	var buf bytes.Buffer
	require.NoError(t, Plan(&buf, pl, PlanOptions{}))
	assert.Contains(t, buf.String(), "  ~ Namespace seed-local (virtual) will be released to gardener-controller-manager: no longer rendered, not deleted; gardener removes only its label and annotations and forgets it [released:gardener-controller-manager]\n"+
		"      + owner reference to Seed local (uid 4c1f)\n"+
		"      - .metadata.labels[declarative-gardener.io/landscape] = \"local\"\n")
	js, err := json.Marshal(pl.Components[0].Objects[0])
	require.NoError(t, err)
	assert.Contains(t, string(js), `"owner_references":[{"apiVersion":"core.gardener.cloud/v1beta1","kind":"Seed","name":"local","uid":"4c1f","controller":true}]`)
}
