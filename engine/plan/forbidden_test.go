package plan

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/diff"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/openapi"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/rendering"
)

// specDiffer compares the top-level fields of .spec and reports those named in immutable as
// immutable, the way engine/diff's table does.
type specDiffer struct{ immutable map[string]bool }

func (specDiffer) Fields(context.Context, *unstructured.Unstructured) ([]diff.Change, error) {
	return nil, nil
}

func (s specDiffer) Diff(desired, live *unstructured.Unstructured, _ bool) (*diff.Result, error) {
	r := &diff.Result{Action: diff.NoOp}
	want, _, _ := unstructured.NestedMap(desired.Object, "spec")
	have, _, _ := unstructured.NestedMap(live.Object, "spec")
	for _, k := range sortedKeys(want, have) {
		if reflect.DeepEqual(want[k], have[k]) {
			continue
		}
		path := ".spec." + k
		r.Changes = append(r.Changes, diff.Change{Path: path, Old: have[k], New: want[k]})
		if s.immutable[k] {
			r.Immutable = append(r.Immutable, path)
		}
	}
	if len(r.Changes) > 0 {
		r.Action = diff.Update
	}
	return r, nil
}

func sortedKeys(maps ...map[string]any) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range maps {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

func gardenObject(apiVersion, kind, ns, name string, spec map[string]any) *unstructured.Unstructured {
	md := map[string]any{"name": name}
	if ns != "" {
		md["namespace"] = ns
	}
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": md, "spec": spec}}
}

// planOne plans one object of the component at addr against one live object (nil: none).
func planOne(t *testing.T, addr config.InstanceAddress, desired, current *unstructured.Unstructured, differ Differ) (*Result, error) {
	t.Helper()
	var objs []*unstructured.Unstructured
	if current != nil {
		objs = append(objs, current)
	}
	return Build(context.Background(), Options{
		Landscape: "test", Order: []config.InstanceAddress{addr},
		Rendered: map[config.InstanceAddress]*rendering.Rendered{addr: {Address: addr, Type: "shoot", Objects: []render.Object{{Cluster: "virtual", Object: desired}}}},
		Clusters: map[string]observe.Cluster{"virtual": &fakeCluster{objects: objs}},
		Differs:  func(string) (Differ, error) { return differ, nil },
	})
}

func TestBuildRefusesToReplaceGardenerClusters(t *testing.T) {
	const addr = config.InstanceAddress(`shoot.local["dev"]`)
	immutable := specDiffer{immutable: map[string]bool{"region": true, "type": true, "handler": true}}
	tests := []struct {
		name    string
		live    *unstructured.Unstructured
		desired *unstructured.Unstructured
		unowned bool
		// wantErr is how the error ends.
		wantErr  string
		wantPlan string
	}{
		{
			name:    "a Shoot's region",
			live:    gardenObject("core.gardener.cloud/v1beta1", "Shoot", "garden-local", "dev", map[string]any{"region": "local"}),
			desired: gardenObject("core.gardener.cloud/v1beta1", "Shoot", "garden-local", "dev", map[string]any{"region": "eu-1"}),
			wantErr: `shoot.local["dev"]: Shoot.core.gardener.cloud garden-local/dev in cluster virtual: .spec.region (from "local" to "eu-1") is immutable in Gardener; a changed value cannot be applied and replacing the Shoot would delete the cluster: restore the old value or declare a new shoot`,
		},
		{
			name:    "several fields at once",
			live:    gardenObject("core.gardener.cloud/v1beta1", "Shoot", "garden-local", "dev", map[string]any{"region": "local", "type": "local"}),
			desired: gardenObject("core.gardener.cloud/v1beta1", "Shoot", "garden-local", "dev", map[string]any{"region": "eu-1", "type": "aws"}),
			wantErr: `: .spec.region (from "local" to "eu-1") and .spec.type (from "local" to "aws") are immutable in Gardener; a changed value cannot be applied and replacing the Shoot would delete the cluster: restore the old value or declare a new shoot`,
		},
		{
			name:    "a Shoot that is not the landscape's yet",
			live:    gardenObject("core.gardener.cloud/v1beta1", "Shoot", "garden-local", "dev", map[string]any{"region": "local"}),
			desired: gardenObject("core.gardener.cloud/v1beta1", "Shoot", "garden-local", "dev", map[string]any{"region": "eu-1"}),
			unowned: true,
			wantErr: "replacing the Shoot would delete the cluster: restore the old value or declare a new shoot",
		},
		{
			name:    "a Seed",
			live:    gardenObject("core.gardener.cloud/v1beta1", "Seed", "", "local", map[string]any{"type": "local"}),
			desired: gardenObject("core.gardener.cloud/v1beta1", "Seed", "", "local", map[string]any{"type": "aws"}),
			wantErr: `shoot.local["dev"]: Seed.core.gardener.cloud local in cluster virtual: .spec.type (from "local" to "aws") is immutable in Gardener; a changed value cannot be applied and replacing the Seed would delete the seed with the shoot control planes it hosts: restore the old value or declare a new seed`,
		},
		{
			name:    "a Project",
			live:    gardenObject("core.gardener.cloud/v1beta1", "Project", "", "local", map[string]any{"type": "a"}),
			desired: gardenObject("core.gardener.cloud/v1beta1", "Project", "", "local", map[string]any{"type": "b"}),
			wantErr: "replacing the Project would delete its namespace with every shoot and secret in it: restore the old value or declare a new project",
		},
		{
			name:    "a Garden",
			live:    gardenObject("operator.gardener.cloud/v1alpha1", "Garden", "", "local", map[string]any{"type": "a"}),
			desired: gardenObject("operator.gardener.cloud/v1alpha1", "Garden", "", "local", map[string]any{"type": "b"}),
			wantErr: "replacing the Garden would delete the garden with its virtual garden and everything in it: restore the old value or declare a new garden",
		},
		{
			name:    "a ManagedSeed",
			live:    gardenObject("seedmanagement.gardener.cloud/v1alpha1", "ManagedSeed", "garden", "m", map[string]any{"type": "a"}),
			desired: gardenObject("seedmanagement.gardener.cloud/v1alpha1", "ManagedSeed", "garden", "m", map[string]any{"type": "b"}),
			wantErr: "replacing the ManagedSeed would delete its gardenlet and the seed it registers: restore the old value or declare a new managed seed",
		},
		{
			name:    "an engine-managed shoot's Infrastructure",
			live:    gardenObject("extensions.gardener.cloud/v1alpha1", "Infrastructure", "shoot--local--dev", "infrastructure", map[string]any{"region": "local"}),
			desired: gardenObject("extensions.gardener.cloud/v1alpha1", "Infrastructure", "shoot--local--dev", "infrastructure", map[string]any{"region": "eu-1"}),
			wantErr: "replacing the Infrastructure would delete the shoot's cloud infrastructure: restore the old value or declare a new shoot",
		},
		{
			name:    "a BackupEntry",
			live:    gardenObject("extensions.gardener.cloud/v1alpha1", "BackupEntry", "", "e", map[string]any{"region": "local"}),
			desired: gardenObject("extensions.gardener.cloud/v1alpha1", "BackupEntry", "", "e", map[string]any{"region": "eu-1"}),
			wantErr: "replacing the BackupEntry would delete the shoot's etcd backups: restore the old value",
		},
		{
			name:     "an ExposureClass is replaced like any object",
			live:     gardenObject("core.gardener.cloud/v1beta1", "ExposureClass", "", "e", map[string]any{"handler": "internet"}),
			desired:  gardenObject("core.gardener.cloud/v1beta1", "ExposureClass", "", "e", map[string]any{"handler": "intranet"}),
			wantPlan: "replace immutable_field:.spec.handler",
		},
		{
			name:     "a mutable change of a Shoot",
			live:     gardenObject("core.gardener.cloud/v1beta1", "Shoot", "garden-local", "dev", map[string]any{"region": "local", "purpose": "evaluation"}),
			desired:  gardenObject("core.gardener.cloud/v1beta1", "Shoot", "garden-local", "dev", map[string]any{"region": "local", "purpose": "production"}),
			wantPlan: "update config_changed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			current := tt.live
			if tt.unowned {
				current.SetResourceVersion("7")
			} else {
				current = live(t, current, string(addr))
			}
			res, err := planOne(t, addr, tt.desired, current, immutable)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.True(t, strings.HasSuffix(err.Error(), tt.wantErr), "the error ends with %q: %v", tt.wantErr, err)
				assert.NotContains(t, err.Error(), "adopting it would replace it")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantPlan, actions(res.Plan)[string(addr)+" "+objectRef(tt.desired)])
		})
	}
}

func objectRef(u *unstructured.Unstructured) string {
	gvk := u.GroupVersionKind()
	s := gvk.Kind + "." + gvk.Group + " "
	if u.GetNamespace() != "" {
		s += u.GetNamespace() + "/"
	}
	return s + u.GetName()
}

// shootDoc is a minimal OpenAPI document of core.gardener.cloud/v1beta1 Shoot, without
// transition rules, like the local control plane's stand-in CRD.
const shootDoc = `{"components": {"schemas": {"test.core.gardener.cloud.v1beta1.Shoot": {
  "type": "object",
  "x-kubernetes-group-version-kind": [{"group": "core.gardener.cloud", "version": "v1beta1", "kind": "Shoot"}],
  "properties": {
    "apiVersion": {"type": "string"}, "kind": {"type": "string"},
    "metadata": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
    "spec": {"type": "object", "properties": {
      "region": {"type": "string"},
      "provider": {"type": "object", "properties": {"type": {"type": "string"}}},
      "kubernetes": {"type": "object", "properties": {"version": {"type": "string"}}}}}}}}}}`

type staticFetcher map[string]string

func (f staticFetcher) OpenAPIV3Index(context.Context) (map[string]string, error) {
	out := map[string]string{}
	for p := range f {
		out[p] = "/openapi/v3/" + p + "?hash=1"
	}
	return out, nil
}

func (f staticFetcher) OpenAPIV3(_ context.Context, p string) ([]byte, error) {
	return []byte(f[p]), nil
}

// TestBuildRefusesAShootRegionChange goes through engine/diff's table of Gardener immutable
// fields: the schema announces nothing, the table knows the region.
func TestBuildRefusesAShootRegionChange(t *testing.T) {
	const addr = config.InstanceAddress(`shoot.local["dev"]`)
	differ := diff.New(openapi.New(staticFetcher{"apis/core.gardener.cloud/v1beta1": shootDoc}, ""), "gardener")
	shoot := func(region, version string) *unstructured.Unstructured {
		return gardenObject("core.gardener.cloud/v1beta1", "Shoot", "garden-local", "dev", map[string]any{
			"region": region, "provider": map[string]any{"type": "local"}, "kubernetes": map[string]any{"version": version},
		})
	}
	_, err := planOne(t, addr, shoot("eu-1", "1.33.0"), live(t, shoot("local", "1.33.0"), string(addr)), differ)
	require.Error(t, err)
	assert.Equal(t, `shoot.local["dev"]: Shoot.core.gardener.cloud garden-local/dev in cluster virtual: .spec.region (from "local" to "eu-1") is immutable in Gardener; a changed value cannot be applied and replacing the Shoot would delete the cluster: restore the old value or declare a new shoot`, err.Error())

	res, err := planOne(t, addr, shoot("local", "1.34.0"), live(t, shoot("local", "1.33.0"), string(addr)), differ)
	require.NoError(t, err)
	o := res.Plan.Components[0].Objects[0]
	assert.Equal(t, Update, o.Action, "an unchanged region does not stop other changes")
	assert.NotEqual(t, ReasonImmutableField, o.Reason.Kind) // the live object has no managedFields: a conflict
}

func TestForbiddenReplacementHidesSecrets(t *testing.T) {
	red := render.NewRedactor([]string{"hunter22"})
	r := &diff.Result{
		Changes:   []diff.Change{{Path: ".spec.region", Old: "hunter22", New: "eu-1"}, {Path: ".spec.networking.ipFamilies[0]", Old: "IPv4", New: "IPv6"}},
		Immutable: []string{".spec.networking.ipFamilies", ".spec.region"},
	}
	ref := object.RefOf(gardenObject("core.gardener.cloud/v1beta1", "Shoot", "garden-local", "dev", nil))
	err := forbiddenReplacement("shoot.local", "virtual", ref, r, red, nil)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "hunter22")
	assert.Contains(t, err.Error(), ": .spec.networking.ipFamilies and .spec.region are immutable in Gardener;", "a list's items and secret values are not shown")
	assert.NoError(t, forbiddenReplacement("shoot.local", "virtual", ref, &diff.Result{Changes: r.Changes}, red, nil), "no immutable field, no error")
}
