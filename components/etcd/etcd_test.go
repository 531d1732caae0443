package etcd

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/declarative-gardener/gardener/components/crds"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/golden"
)

func cluster() cty.Value {
	return cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("runtime")})
}

var runtimeCluster = decode.Cluster{Name: "runtime"}

// values are the type's defaults with what v sets, as a composite builds them.
func values(v Values) Values { return rendertest.Overlay(Type.Defaults(), v) }

// shootValues are values for a shoot's control plane, whose etcds have no name prefix.
func shootValues(v Values) Values {
	v = values(v)
	v.NamePrefix = ""
	return v
}

func cases() map[string]Values {
	c := map[string]Values{
		"main":   {Cluster: runtimeCluster, Role: RoleMain},
		"events": {Cluster: runtimeCluster, Role: RoleEvents},
		"main-ha-backup": {
			Cluster: runtimeCluster, Role: RoleMain, HighAvailability: true, TopologyAwareRouting: true,
			StorageClass: "premium", StorageCapacity: "50Gi",
			Images: map[string]string{"etcd-wrapper": "v0.5.0"},
			Backup: backup("aws", "garden-backup", "virtual-garden-etcd-main-backup"),
		},
	}
	for name, v := range c {
		c[name] = values(v)
	}
	c["shoot-events-ha"] = shootValues(Values{Cluster: runtimeCluster, Namespace: "shoot--dev--a", Role: RoleEvents, HighAvailability: true, PriorityClassName: "gardener-system-500"})
	c["shoot-main-backup"] = shootValues(Values{
		Cluster: runtimeCluster, Namespace: "shoot--dev--a", Role: RoleMain, PriorityClassName: "gardener-system-500",
		DefragmentationSchedule: "10 15 */3 * *", TopologyAwareRouting: true, RuntimeKubernetesVersion: "1.32.2",
		Backup: shootBackup(),
	})
	c["shoot-main-hibernated"] = shootValues(Values{
		Cluster: runtimeCluster, Namespace: "shoot--dev--a", Role: RoleMain, HighAvailability: true,
		PriorityClassName: "gardener-system-500", Hibernated: true,
		Backup: shootBackup(),
	})
	return c
}

// shootBackup is a shoot's backup as the shoot composite configures it: the seed's bucket, the
// etcd-backup Secret of its BackupEntry, its own folder and a schedule before the window.
func shootBackup() *Backup {
	b := backup("aws", "seed-a", "etcd-backup")
	b.Prefix, b.FullSnapshotSchedule = "shoot--dev--a--0c5c6a2e-1d2b-4e5f-8a9b-0123456789ab", "55 12 * * *"
	return b
}

// backup is a backup block with its defaults, as a composite builds it.
func backup(provider, bucket, secret string) *Backup {
	b := BackupDefaults()
	b.Provider, b.BucketName, b.SecretRef = provider, bucket, secret
	return &b
}

func TestObjectsGolden(t *testing.T) {
	for name, v := range cases() {
		t.Run(name, func(t *testing.T) {
			objs, err := Objects(v)
			require.NoError(t, err)
			golden.Assert(t, name, objs)
		})
	}
}

// crdValidator checks objects against the schema of an embedded CRD: no field the schema would
// prune, no value it would reject.
func crdValidator(t *testing.T, name string) func(t *testing.T, obj map[string]any) {
	t.Helper()
	crd, err := crds.Get(name)
	require.NoError(t, err)
	internal := &apiextensions.JSONSchemaProps{}
	require.NoError(t, apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(crd.Spec.Versions[0].Schema.OpenAPIV3Schema, internal, nil))
	structural, err := structuralschema.NewStructural(internal)
	require.NoError(t, err)
	validator, _, err := validation.NewSchemaValidator(internal)
	require.NoError(t, err)
	return func(t *testing.T, obj map[string]any) {
		obj = runtime.DeepCopyJSON(obj)
		pruned := pruning.PruneWithOptions(obj, structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
		assert.Empty(t, pruned, "fields unknown to the CRD %s", name)
		assert.Empty(t, validation.ValidateCustomResource(field.NewPath(""), obj, validator))
	}
}

// TestObjectsValidateAgainstCRD checks every rendered Etcd and VerticalPodAutoscaler against the
// embedded CRDs.
func TestObjectsValidateAgainstCRD(t *testing.T) {
	etcds := crdValidator(t, "etcds.druid.gardener.cloud")
	vpas := crdValidator(t, "verticalpodautoscalers.autoscaling.k8s.io")
	for name, v := range cases() {
		t.Run(name, func(t *testing.T) {
			objs, err := Objects(v)
			require.NoError(t, err)
			require.Len(t, objs, 2)
			assert.Equal(t, "Etcd", objs[0].Object.GetKind())
			etcds(t, objs[0].Object.Object)
			assert.Equal(t, "VerticalPodAutoscaler", objs[1].Object.GetKind())
			vpas(t, objs[1].Object.Object)
		})
	}
}

func TestRenderOutputs(t *testing.T) {
	out, err := Type.RenderConfig(render.Input{Config: rendertest.ConfigOf(Type, map[string]cty.Value{
		"cluster": cluster(),
		"role":    cty.StringVal("events"),
	})})
	require.NoError(t, err)
	// Gardener's "Topology Aware Routing" docs/operations/topology_aware_routing.md: the client
	// Services consumed by virtual-garden-kube-apiserver.
	assert.Equal(t, "virtual-garden-etcd-events-client", out.Outputs["client_service"].AsString())
	assert.Equal(t, "https://virtual-garden-etcd-events-client.garden.svc:2379", out.Outputs["endpoint"].AsString())
	assert.Equal(t, "virtual-garden-etcd-events", out.Outputs["name"].AsString())
}

func spec(t *testing.T, v Values) map[string]any {
	t.Helper()
	objs, err := Objects(v)
	require.NoError(t, err)
	require.Equal(t, "Etcd", objs[0].Object.GetKind())
	s, ok, err := unstructured.NestedMap(objs[0].Object.Object, "spec")
	require.NoError(t, err)
	require.True(t, ok)
	return s
}

func TestDocumentedFacts(t *testing.T) {
	for _, tc := range []struct {
		name     string
		v        Values
		etcdName string
		replicas int64
		pvc      string
	}{
		// Gardener's "Gardener Operator" docs/concepts/operator.md, Gardener's docs/concepts/operator.md:
		// names and the PVC of the first member.
		{"main", values(Values{Role: RoleMain}), "virtual-garden-etcd-main", 1, "main-virtual-garden-etcd-virtual-garden-etcd-main-0"},
		{"events", values(Values{Role: RoleEvents}), "virtual-garden-etcd-events", 1, "virtual-garden-etcd-events-virtual-garden-etcd-events-0"},
		// Gardener's docs/concepts/operator.md: high availability means three members each.
		{"main HA", values(Values{Role: RoleMain, HighAvailability: true}), "virtual-garden-etcd-main", 3, "main-virtual-garden-etcd-virtual-garden-etcd-main-0"},
		{"events HA", values(Values{Role: RoleEvents, HighAvailability: true}), "virtual-garden-etcd-events", 3, "virtual-garden-etcd-events-virtual-garden-etcd-events-0"},
		// Shoot control planes: etcd-main, etcd-events (Gardener's "etcd" docs/concepts/etcd.md).
		{"shoot main", shootValues(Values{Role: RoleMain}), "etcd-main", 1, "main-etcd-etcd-main-0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := Objects(tc.v)
			require.NoError(t, err)
			u := objs[0].Object
			assert.Equal(t, tc.etcdName, u.GetName())
			assert.Equal(t, "garden", u.GetNamespace())
			s := spec(t, tc.v)
			assert.Equal(t, tc.replicas, s["replicas"])
			// Gardener's "Priority Classes" docs/development/priority-classes.md: virtual-garden-etcd-* run
			// with gardener-garden-system-500.
			assert.Equal(t, "gardener-garden-system-500", s["priorityClassName"])
			assert.Equal(t, tc.pvc, s["volumeClaimTemplate"].(string)+"-"+tc.etcdName+"-0")
			_, peer := s["etcd"].(map[string]any)["peerUrlTls"]
			assert.Equal(t, tc.v.HighAvailability, peer, "peer TLS exactly with several members")
		})
	}
}

// TestHibernation checks that a hibernated etcd has no members but keeps everything else, its
// volume claim template and storage in particular, so that it wakes up with its data
// (Gardener's "Shoot Hibernation" docs/usage/shoot/shoot_hibernate.md, "Component Checklist"
// docs/development/component-checklist.md).
func TestHibernation(t *testing.T) {
	for _, ha := range []bool{false, true} {
		awake := shootValues(Values{Role: RoleMain, HighAvailability: ha})
		asleep := awake
		asleep.Hibernated = true
		want, got := spec(t, awake), spec(t, asleep)
		assert.Equal(t, Replicas(ha), want["replicas"])
		assert.Equal(t, int64(0), got["replicas"])
		delete(want, "replicas")
		delete(got, "replicas")
		assert.Equal(t, want, got, "only the replicas differ")
	}
}

func TestBackupPolicy(t *testing.T) {
	s := spec(t, values(Values{Role: RoleMain, Backup: backup("gcp", "b", "creds")}))
	b := s["backup"].(map[string]any)
	// Gardener's "Backup and Restore" docs/concepts/backup-restore.md: daily full snapshots, deltas
	// every 5 minutes or after 100 MiB, exponential garbage collection every 12 hours, written as
	// gardenlet's Go client serializes the durations (pkg/component/etcd/etcd/etcd.go at Gardener
	// v1.120.0).
	assert.Equal(t, "0 0 * * *", b["fullSnapshotSchedule"])
	assert.Equal(t, "5m0s", b["deltaSnapshotPeriod"])
	assert.Equal(t, "100Mi", b["deltaSnapshotMemoryLimit"])
	assert.Equal(t, "Exponential", b["garbageCollectionPolicy"])
	assert.Equal(t, "12h0m0s", b["garbageCollectionPeriod"])
	// gardener-operator's folder of the virtual garden's main etcd, then etcd-main
	// (etcdMainBackupBucketNameAndPrefix in pkg/operator/controller/garden/garden at Gardener
	// v1.120.0); the Secret is the Etcd's own, named without a namespace.
	assert.Equal(t, map[string]any{
		"provider": "gcp", "container": "b", "prefix": "virtual-garden-etcd-main/etcd-main",
		"secretRef": map[string]any{"name": "creds"},
	}, b["store"])
	assert.Equal(t, "allowed", s["labels"].(map[string]any)["networking.gardener.cloud/to-public-networks"])
}

// TestShootBackupFolder: a shoot's snapshots go to its BackupEntry's folder, then etcd-main
// (pkg/component/etcd/etcd/etcd.go, pkg/gardenlet/operation/botanist/etcd.go at Gardener
// v1.120.0).
func TestShootBackupFolder(t *testing.T) {
	store := spec(t, shootValues(Values{Role: RoleMain, Backup: shootBackup()}))["backup"].(map[string]any)["store"].(map[string]any)
	assert.Equal(t, "shoot--dev--a--0c5c6a2e-1d2b-4e5f-8a9b-0123456789ab/etcd-main", store["prefix"])
	assert.Equal(t, "seed-a", store["container"])
	assert.Equal(t, map[string]any{"name": "etcd-backup"}, store["secretRef"])
	assert.Equal(t, "x/etcd-main", StorePrefix("x", RoleMain))
}

func TestNoBackupWithoutConfiguration(t *testing.T) {
	b := spec(t, values(Values{Role: RoleMain}))["backup"].(map[string]any)
	assert.NotContains(t, b, "store")
	assert.NotContains(t, b, "fullSnapshotSchedule")
	assert.NotContains(t, b, "deltaSnapshotPeriod")
	// Gardener configures the sidecar's garbage collection and compression without a store too
	// (pkg/component/etcd/etcd/etcd.go at Gardener v1.120.0).
	assert.Equal(t, "12h0m0s", b["garbageCollectionPeriod"])
	assert.Equal(t, map[string]any{"enabled": true, "policy": "gzip"}, b["compression"])
}

func TestStorageDefaults(t *testing.T) {
	assert.Equal(t, "25Gi", spec(t, values(Values{Role: RoleMain}))["storageCapacity"])
	assert.Equal(t, "10Gi", spec(t, values(Values{Role: RoleEvents}))["storageCapacity"])
	assert.NotContains(t, spec(t, values(Values{Role: RoleEvents})), "storageClass")
}

// TestSelector: Gardener's Etcd selector is app etcd-statefulset, the role and
// gardener.cloud/role controlplane, all of them pod labels (pkg/component/etcd/etcd/etcd.go at
// Gardener v1.120.0), the same for the virtual garden's and a shoot's.
func TestSelector(t *testing.T) {
	for _, v := range []Values{values(Values{Role: RoleMain, HighAvailability: true}), shootValues(Values{Role: RoleEvents})} {
		s := spec(t, v)
		selector := s["selector"].(map[string]any)["matchLabels"].(map[string]any)
		assert.Equal(t, map[string]any{"app": "etcd-statefulset", "role": v.Role, "gardener.cloud/role": "controlplane"}, selector)
		labels := s["labels"].(map[string]any)
		for k, val := range selector {
			assert.Equal(t, val, labels[k], k)
		}
	}
}

func TestNames(t *testing.T) {
	assert.Equal(t, "virtual-garden-etcd-main-client", ClientServiceName(DefaultNamePrefix, RoleMain))
	assert.Equal(t, "etcd-events-client", ClientServiceName("", RoleEvents))
	assert.Equal(t, "https://etcd-main-client.shoot--a--b.svc:2379", Endpoint("", RoleMain, "shoot--a--b"))
	assert.Equal(t, "https://virtual-garden-etcd-main-client.garden.svc:2379", Endpoint(DefaultNamePrefix, RoleMain, DefaultNamespace))
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    Values
		err  string
	}{
		{"unknown role", values(Values{Role: "audit"}), `role "audit" is not one of main, events`},
		{"backup of events", values(Values{Role: RoleEvents, Backup: backup("aws", "b", "s")}), "only the main etcd is backed up"},
		{"incomplete backup", values(Values{Role: RoleMain, Backup: backup("aws", "", "")}), "backup needs a provider, a bucket name and a secret ref"},
		{"unknown image", values(Values{Role: RoleMain, Images: map[string]string{"etcd": "v1"}}), `etcd images: image "etcd" is not in the image vector`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Objects(tc.v)
			assert.ErrorContains(t, err, tc.err)
		})
	}
}

func TestRenderRejectsUnknownAttributes(t *testing.T) {
	_, err := Type.RenderConfig(render.Input{Config: cty.ObjectVal(map[string]cty.Value{
		"cluster": cluster(), "role": cty.StringVal("main"), "replicas": cty.NumberIntVal(5),
	})})
	assert.ErrorContains(t, err, "replicas")
}
