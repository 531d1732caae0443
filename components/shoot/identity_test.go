package shoot

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/declarative-gardener/gardener/engine/render"
)

// Gardener's own example of its schedules (pkg/utils/timewindow/schedule_test.go at Gardener
// v1.120.0): for the uid "uid" and the window 14:00-22:00 UTC, a minute inside the window is
// 15:10, one in the hour before it 12:55.
const (
	exampleUID   = "uid"
	exampleBegin = "140000+0000"
	exampleEnd   = "220000+0000"
)

// existingShoot is the Shoot dev as gardener-apiserver holds it once it exists: its uid, creation
// time and maintenance window.
func existingShoot(name, uid string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot",
		"spec": map[string]any{"maintenance": map[string]any{"timeWindow": map[string]any{"begin": exampleBegin, "end": exampleEnd}}},
	}}
	u.SetName(name)
	u.SetNamespace("garden-local")
	u.SetUID(types.UID(uid))
	u.SetCreationTimestamp(metav1.NewTime(time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)))
	return u
}

// observingShoots answers the render's reads with the given Shoots.
func observingShoots(shoots ...*unstructured.Unstructured) func(render.LiveRef) (*unstructured.Unstructured, error) {
	byName := map[string]*unstructured.Unstructured{}
	for _, s := range shoots {
		byName["shoots/"+s.GetNamespace()+"/"+s.GetName()] = s
	}
	return observingByName(byName)
}

// partsOfExisting are the parts of shoot name once its Shoot live exists, as a plan renders them.
func partsOfExisting(t *testing.T, name string, v Values, live *unstructured.Unstructured) map[string]render.Component {
	t.Helper()
	v.Name = name
	out, err := Type.Render(render.Input{Name: name, Now: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC), Observe: observingShoots(live)}, v)
	require.NoError(t, err)
	ps := map[string]render.Component{}
	for _, p := range out.Components {
		ps[p.Name] = p
	}
	return ps
}

// asApplied are parts as apply renders them once the Shoot dev exists, with Gardener's example
// uid and window, and once its kube-apiserver Service has the cluster IP of Gardener's
// apiserver-proxy tests (exampleClusterIP): a part that waits for either gets the objects it
// renders then.
func asApplied(t *testing.T, ps []render.Component) []render.Component {
	t.Helper()
	in := render.Input{Observe: observingApplied(existingShoot("dev", exampleUID))}
	out := make([]render.Component, len(ps))
	for i, p := range ps {
		if p.Await != nil {
			p.Objects, p.Await = awaitedObjects(t, p, in), nil
		}
		out[i] = p
	}
	return out
}

// observingApplied observes the Shoot dev (live, in whichever project namespace) and the
// kube-apiserver Service with exampleClusterIP, as apply does once both exist.
func observingApplied(live *unstructured.Unstructured) func(render.LiveRef) (*unstructured.Unstructured, error) {
	return func(ref render.LiveRef) (*unstructured.Unstructured, error) {
		switch {
		case ref.Resource == "shoots" && ref.Name == "dev":
			return live, nil
		case ref.Resource == "services" && ref.Name == "kube-apiserver":
			return apiServerService(ref.Namespace, exampleClusterIP), nil
		}
		return nil, nil
	}
}

// awaitedObjects are a part's objects; for a part rendered once the Shoot exists, those it renders
// from the reads of in.
func awaitedObjects(t *testing.T, p render.Component, in render.Input) []render.Object {
	t.Helper()
	if p.Await == nil {
		return p.Objects
	}
	out, err := p.Await.Render(in)
	require.NoError(t, err)
	require.NotNil(t, out, "%s renders once the Shoot exists", p.Name)
	return out.Objects
}

// exampleClusterIP is the kube-apiserver Service's cluster IP of Gardener's apiserver-proxy tests
// (pkg/component/networking/apiserverproxy at v1.120.0).
const exampleClusterIP = "10.2.170.21"

// apiServerService is a shoot's kube-apiserver Service in the seed with its cluster IP.
func apiServerService(namespace, clusterIP string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Service",
		"metadata": map[string]any{"name": "kube-apiserver", "namespace": namespace},
		"spec":     map[string]any{"clusterIP": clusterIP},
	}}
}

func withBackup(v *Values) { v.Seed.BackupProvider, v.Seed.BackupRegion = "aws", "eu-west-1" }

func etcdStore(t *testing.T, ps map[string]render.Component) map[string]any {
	t.Helper()
	store, ok, err := unstructured.NestedMap(find(t, ps["etcd_main"], "Etcd", "etcd-main").Object, "spec", "backup", "store")
	require.NoError(t, err)
	require.True(t, ok, "etcd-main has a backup store")
	return store
}

// TestEveryShootHasItsOwnBackupFolder: gardenlet writes a shoot's etcd-main snapshots to the
// folder <technical ID>--<uid>/etcd-main of the seed's bucket, and names the shoot's BackupEntry
// <technical ID>--<uid> (pkg/gardenlet/operation/botanist/etcd.go, GenerateBackupEntryName in
// pkg/utils/gardener/backupentry.go at Gardener v1.120.0). Two shoots of one seed never share a
// folder, and neither does a shoot created again under the name of a deleted one, so that no
// shoot restores or garbage-collects another's snapshots.
func TestEveryShootHasItsOwnBackupFolder(t *testing.T) {
	v := values(withBackup)
	dev := partsOfExisting(t, "dev", v, existingShoot("dev", "uid-dev"))
	qa := partsOfExisting(t, "qa", v, existingShoot("qa", "uid-qa"))
	devAgain := partsOfExisting(t, "dev", v, existingShoot("dev", "uid-dev-2"))

	assert.Equal(t, map[string]any{
		"provider": "aws", "container": "seed-local", "prefix": "shoot--local--dev--uid-dev/etcd-main",
		"secretRef": map[string]any{"name": "etcd-backup"},
	}, etcdStore(t, dev))
	assert.Equal(t, "shoot--local--qa--uid-qa/etcd-main", etcdStore(t, qa)["prefix"])
	assert.Equal(t, "shoot--local--dev--uid-dev-2/etcd-main", etcdStore(t, devAgain)["prefix"])
	prefixes := map[any]bool{}
	for _, ps := range []map[string]render.Component{dev, qa, devAgain} {
		prefixes[etcdStore(t, ps)["prefix"]] = true
		assert.Equal(t, "seed-local", etcdStore(t, ps)["container"], "one bucket per seed")
	}
	assert.Len(t, prefixes, 3, "no two shoots share a backup folder")

	find(t, dev["backup_entry"], "BackupEntry", "shoot--local--dev--uid-dev")
	find(t, qa["backup_entry"], "BackupEntry", "shoot--local--qa--uid-qa")
}

// TestStatusUIDNamesTheBackup: gardenlet keeps status.uid when a shoot's control plane moves,
// and prefers it to metadata.uid (GenerateBackupEntryName in pkg/utils/gardener/backupentry.go).
func TestStatusUIDNamesTheBackup(t *testing.T) {
	live := existingShoot("dev", "uid-now")
	require.NoError(t, unstructured.SetNestedField(live.Object, "uid-before", "status", "uid"))
	ps := partsOfExisting(t, "dev", values(withBackup), live)
	assert.Equal(t, "shoot--local--dev--uid-before/etcd-main", etcdStore(t, ps)["prefix"])
	find(t, ps["backup_entry"], "BackupEntry", "shoot--local--dev--uid-before")
}

// TestEtcdSchedulesInTheMaintenanceWindow: gardenlet defragments a shoot's etcds every third day
// at a minute of the maintenance window and takes etcd-main's full snapshot daily in the hour
// before it, both picked by the Shoot's uid (determineDefragmentationSchedule,
// determineBackupSchedule in pkg/gardenlet/operation/botanist/etcd.go at Gardener v1.120.0).
func TestEtcdSchedulesInTheMaintenanceWindow(t *testing.T) {
	v := values(withBackup)
	v.Maintenance = &Maintenance{TimeWindow: &struct {
		Begin string `json:"begin"`
		End   string `json:"end"`
	}{Begin: exampleBegin, End: exampleEnd}}
	ps := partsOfExisting(t, "dev", v, existingShoot("dev", exampleUID))
	for _, role := range []string{"main", "events"} {
		schedule, _, _ := unstructured.NestedString(find(t, ps["etcd_"+role], "Etcd", "etcd-"+role).Object, "spec", "etcd", "defragmentationSchedule")
		assert.Equal(t, "10 15 */3 * *", schedule, role)
	}
	full, _, _ := unstructured.NestedString(find(t, ps["etcd_main"], "Etcd", "etcd-main").Object, "spec", "backup", "fullSnapshotSchedule")
	assert.Equal(t, "55 12 * * *", full)
}

// TestANewShootsEtcdsWaitForItsShoot: before the apply that creates the Shoot, its uid is not
// known: the BackupEntry and the etcds are rendered during apply once the Shoot exists, from
// the live Shoot, and the plan says so instead of rendering a folder shared with others.
func TestANewShootsEtcdsWaitForItsShoot(t *testing.T) {
	ps := byName(t, newParts(t, values(withBackup)))
	for _, name := range []string{"backup_entry", "etcd_main", "etcd_events"} {
		p := ps[name]
		require.NotNil(t, p.Await, name)
		assert.Empty(t, p.Objects, name)
		assert.Contains(t, p.Await.For, "Shoot garden-local/dev, whose uid names the shoot's etcd backups", name)
		out, err := p.Await.Render(render.Input{Observe: observingShoots()})
		require.NoError(t, err)
		assert.Nil(t, out, "%s: nothing while the Shoot does not exist", name)
	}
	in := render.Input{Observe: observingShoots(existingShoot("dev", exampleUID))}
	find(t, render.Component{Objects: awaitedObjects(t, ps["backup_entry"], in)}, "BackupEntry", "shoot--local--dev--uid")
	main := find(t, render.Component{Objects: awaitedObjects(t, ps["etcd_main"], in)}, "Etcd", "etcd-main")
	prefix, _, _ := unstructured.NestedString(main.Object, "spec", "backup", "store", "prefix")
	assert.Equal(t, "shoot--local--dev--uid/etcd-main", prefix)
	schedule, _, _ := unstructured.NestedString(main.Object, "spec", "etcd", "defragmentationSchedule")
	assert.Equal(t, "10 15 */3 * *", schedule, "the live Shoot's window")

	assert.Contains(t, ps["etcd_main"].DependsOn, "backup_entry")
	assert.NotNil(t, byName(t, newParts(t, values(hibernated)))["etcd_main"].Await)

	// What the parts will render orders them in the plan: the etcds after etcd-druid's and the
	// VPA's CustomResourceDefinitions, the BackupEntry after the extensions' CRDs.
	shapes := func(name string) []string {
		var out []string
		for _, o := range ps[name].Await.Shapes {
			out = append(out, o.Object.GetKind()+" "+o.Object.GetNamespace())
			assert.Empty(t, o.Object.GetName(), "a shape names no object: the name may need the uid")
		}
		return out
	}
	assert.Subset(t, shapes("etcd_main"), []string{"Etcd shoot--local--dev", "VerticalPodAutoscaler shoot--local--dev"})
	assert.Equal(t, []string{"BackupEntry "}, shapes("backup_entry"))
}

// TestAUsersShootHasItsIdentity: a Shoot created through the API exists before its control plane
// is rendered, so nothing waits for it; only the apiserver-proxy waits for the API server's
// Service, which the control plane's first apply creates.
func TestAUsersShootHasItsIdentity(t *testing.T) {
	v := values(withBackup)
	live := apiShoot(t, v)
	live.SetUID("uid-user")
	out, err := RenderFromAPI(render.Input{Name: "dev", Now: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)}, live, APIContext{Project: v.Project, Seed: *v.Seed})
	require.NoError(t, err)
	ps := map[string]render.Component{}
	for _, p := range out.Components {
		if p.Name != apiServerProxyPart {
			require.Nil(t, p.Await, p.Name)
		}
		ps[p.Name] = p
	}
	assert.Equal(t, "shoot--local--dev--uid-user/etcd-main", etcdStore(t, ps)["prefix"])
}

// TestBackupMoveIsExplained: a landscape applied before the shoot's backups had their own folder
// has etcd-main writing to etcd-main of the seed's bucket, with the BackupEntry named after the
// technical ID alone. The plan updates the Etcd in place and says where the backups go, that the
// old ones stay, and that the old BackupEntry's deletion needs --allow-destroy.
func TestBackupMoveIsExplained(t *testing.T) {
	oldEtcd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "druid.gardener.cloud/v1alpha1", "kind": "Etcd",
		"metadata": map[string]any{"name": "etcd-main", "namespace": "shoot--local--dev"},
		"spec":     map[string]any{"backup": map[string]any{"store": map[string]any{"container": "seed-local", "prefix": "etcd-main"}}},
	}}
	oldEntry := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "extensions.gardener.cloud/v1alpha1", "kind": "BackupEntry", "metadata": map[string]any{"name": "shoot--local--dev"},
	}}
	render1 := func(etcdObj, entry *unstructured.Unstructured) []string {
		out, err := Type.Render(render.Input{Name: "dev", Now: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC), Observe: observingByName(map[string]*unstructured.Unstructured{
			"shoots/garden-local/dev":           existingShoot("dev", "uid-dev"),
			"etcds/shoot--local--dev/etcd-main": etcdObj,
			"backupentries//shoot--local--dev":  entry,
		})}, values(withBackup))
		require.NoError(t, err)
		return out.Notices
	}
	notices := strings.Join(render1(oldEtcd, oldEntry), "\n")
	assert.Contains(t, notices, "shoot dev: etcd-main's backups move from seed-local/etcd-main to the shoot's own folder seed-local/shoot--local--dev--uid-dev/etcd-main")
	assert.Contains(t, notices, "the snapshots in seed-local/etcd-main stay where they are (nothing deletes them")
	assert.Contains(t, notices, "the BackupEntry shoot--local--dev of the earlier naming is replaced by shoot--local--dev--uid-dev and its deletion")
	assert.Contains(t, notices, "needs --allow-destroy")

	moved := oldEtcd.DeepCopy()
	require.NoError(t, unstructured.SetNestedField(moved.Object, "shoot--local--dev--uid-dev/etcd-main", "spec", "backup", "store", "prefix"))
	assert.NotContains(t, strings.Join(render1(moved, nil), "\n"), "backups move", "nothing to say once they moved")
	assert.NotContains(t, strings.Join(render1(nil, nil), "\n"), "backups move", "nor for a new etcd")
}

// TestEtcdEvictionRequirements: the VPA of a production or infrastructure shoot's etcd-main never
// evicts to scale down, nor those of a Shoot with the scale-down-disabled annotation; the others
// evict only in the Shoot's maintenance window (getEvictionRequirement in
// pkg/gardenlet/operation/botanist/etcd.go at Gardener v1.120.0).
func TestEtcdEvictionRequirements(t *testing.T) {
	restriction := func(ps map[string]render.Component, role string) (string, string) {
		vpa := find(t, ps["etcd_"+role], "VerticalPodAutoscaler", "etcd-"+role)
		a := vpa.GetAnnotations()
		return a["eviction-requirements.autoscaling.gardener.cloud/downscale-restriction"], a["shoot.gardener.cloud/maintenance-window"]
	}
	live := existingShoot("dev", exampleUID)
	for _, tc := range []struct {
		purpose            string
		disabled           bool
		wantMain, wantEvts string
	}{
		{"evaluation", false, "in-maintenance-window-only", "in-maintenance-window-only"},
		{"production", false, "never", "in-maintenance-window-only"},
		{"infrastructure", false, "never", "in-maintenance-window-only"},
		{"development", true, "never", "never"},
	} {
		t.Run(tc.purpose, func(t *testing.T) {
			l := live.DeepCopy()
			if tc.disabled {
				l.SetAnnotations(map[string]string{AnnotationScaleDownDisabled: "true"})
			}
			ps := partsOfExisting(t, "dev", values(func(v *Values) { v.Purpose = tc.purpose }), l)
			main, mainWindow := restriction(ps, "main")
			events, eventsWindow := restriction(ps, "events")
			assert.Equal(t, tc.wantMain, main)
			assert.Equal(t, tc.wantEvts, events)
			if events == "in-maintenance-window-only" {
				assert.Equal(t, exampleBegin+","+exampleEnd, eventsWindow, "the Shoot's window")
			}
			if main == "never" {
				assert.Empty(t, mainWindow)
			}
		})
	}
}
