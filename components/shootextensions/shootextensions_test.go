package shootextensions

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/crds"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/internal/golden"
)

func full() Values {
	return Values{
		Cluster: decode.Cluster{Name: "seed"}, Project: "dev", Name: "a", UID: "0a1b2c3d", KubernetesVersion: "1.32.2", Purpose: "evaluation",
		CloudProfileName: "aws", SeedName: "aws-eu1",
		Provider: Provider{
			Type: "aws", Region: "eu-west-1", SSHPublicKey: "ssh-ed25519 AAAA example",
			InfrastructureConfig: map[string]any{"apiVersion": "aws.provider.extensions.gardener.cloud/v1alpha1", "kind": "InfrastructureConfig", "networks": map[string]any{"vpc": map[string]any{"cidr": "10.250.0.0/16"}}},
			ControlPlaneConfig:   map[string]any{"apiVersion": "aws.provider.extensions.gardener.cloud/v1alpha1", "kind": "ControlPlaneConfig"},
		},
		Networking: Networking{Type: "calico", Pods: "100.96.0.0/11", Services: "100.64.0.0/13", Nodes: "10.250.0.0/16"},
		Workers: []WorkerPool{
			{Name: "cpu-worker", MachineType: "m5.large", ImageName: "gardenlinux", ImageVersion: "1592.1.0", Minimum: 3, Maximum: 5, MaxSurge: "1", MaxUnavailable: "0",
				Zones: []string{"eu-west-1b", "eu-west-1c"}, VolumeSize: "50Gi", VolumeType: "gp3", ContainerRuntimes: []string{"gvisor"},
				Labels: map[string]string{"team": "x"}, Taints: []Taint{{Key: "dedicated", Value: "x", Effect: "NoSchedule"}}},
			{Name: "arm", MachineType: "m6g.large", ImageName: "gardenlinux", ImageVersion: "1592.1.0", Architecture: "arm64", Minimum: 1, Maximum: 1, MaxSurge: "10%",
				KubernetesVersion: "1.31.6", SystemComponents: ptr.To(false), Annotations: map[string]string{"note": "arm"}},
		},
		DNS: DNS{Domain: "a.dev.example.com", ProviderType: "aws-route53", InternalDomain: "internal.example.com", InternalProviderType: "aws-route53", Address: "203.0.113.10"},
		Extensions: []Extension{
			{Type: "shoot-dns-service", ProviderConfig: map[string]any{"apiVersion": "service.dns.extensions.gardener.cloud/v1alpha1", "kind": "DNSConfig"}},
			{Type: "shoot-cert-service", Lifecycle: Lifecycle{Reconcile: BeforeKubeAPIServer}},
			{Type: "shoot-oidc-service", Disabled: true},
		},
		Backup:   &Backup{ProviderType: "aws", Region: "eu-west-1", BucketName: "seed-bucket"},
		Exposure: &Exposure{ProviderType: "aws", Region: "eu-central-1"},
	}
}

func workerless() Values {
	return Values{
		Cluster: decode.Cluster{Name: "seed"}, Project: "dev", Name: "wl", KubernetesVersion: "1.32.2",
		Provider:   Provider{Type: "local", Region: "local"},
		Extensions: []Extension{{Type: "local-ext-shoot"}},
	}
}

func TestObjectsGolden(t *testing.T) {
	for name, v := range map[string]Values{"full": full(), "workerless": workerless()} {
		t.Run(name, func(t *testing.T) {
			objs, err := Objects(v)
			require.NoError(t, err)
			golden.Assert(t, name, objs)
		})
	}
}

// TestObjectsValidateAgainstCRDs checks every built resource against its embedded CRD: the
// scope matches, no field would be pruned and no value rejected.
func TestObjectsValidateAgainstCRDs(t *testing.T) {
	for name, v := range map[string]Values{"full": full(), "workerless": workerless()} {
		objs, err := Objects(v)
		require.NoError(t, err)
		for _, o := range objs {
			u := o.Object
			t.Run(name+"/"+u.GetKind()+"/"+u.GetName(), func(t *testing.T) {
				assert.Equal(t, "seed", o.Cluster)
				plural := strings.ToLower(u.GetKind()) + "s"
				if u.GetKind() == "BackupEntry" {
					plural = "backupentries"
				}
				crd, err := crds.Get(plural + ".extensions.gardener.cloud")
				require.NoError(t, err)
				assert.Equal(t, crd.Spec.Scope == apiextensionsv1.ClusterScoped, u.GetNamespace() == "", "scope")
				internal := &apiextensions.JSONSchemaProps{}
				require.NoError(t, apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(crd.Spec.Versions[0].Schema.OpenAPIV3Schema, internal, nil))
				structural, err := structuralschema.NewStructural(internal)
				require.NoError(t, err)
				validator, _, err := validation.NewSchemaValidator(internal)
				require.NoError(t, err)
				obj := runtime.DeepCopyJSON(u.Object)
				pruned := pruning.PruneWithOptions(obj, structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
				assert.Empty(t, pruned, "fields unknown to the CRD")
				assert.Empty(t, validation.ValidateCustomResource(field.NewPath(""), obj, validator))
			})
		}
	}
}

// TestLegacyNamesAreKept: resources an earlier version created as infrastructure, control-plane and
// control-plane-exposure keep those names; the others get the shoot's.
func TestLegacyNamesAreKept(t *testing.T) {
	names := func(legacy LegacyNames) []string {
		v := full()
		v.LegacyNames = legacy
		infra, err := Infrastructure(v)
		require.NoError(t, err)
		cps, err := ControlPlanes(v)
		require.NoError(t, err)
		var out []string
		for _, o := range append(infra, cps...) {
			out = append(out, o.Object.GetKind()+" "+o.Object.GetName())
		}
		return out
	}
	assert.Equal(t, []string{"Infrastructure a", "ControlPlane a", "ControlPlane a-exposure"}, names(LegacyNames{}))
	assert.Equal(t, []string{"Infrastructure infrastructure", "ControlPlane control-plane", "ControlPlane control-plane-exposure"},
		names(LegacyNames{Infrastructure: true, ControlPlane: true}))
	assert.Equal(t, []string{"Infrastructure infrastructure", "ControlPlane a", "ControlPlane a-exposure"}, names(LegacyNames{Infrastructure: true}))
}

func spec(t *testing.T, u *unstructured.Unstructured, path ...string) any {
	t.Helper()
	v, found, err := unstructured.NestedFieldNoCopy(u.Object, append([]string{"spec"}, path...)...)
	require.NoError(t, err)
	require.True(t, found, strings.Join(path, "."))
	return v
}

func TestDocumentedFacts(t *testing.T) {
	objs, err := Objects(full())
	require.NoError(t, err)
	ns := "shoot--dev--a"
	// Gardener's "Cluster" docs/extensions/cluster.md: Cluster named like the namespace, without one;
	// core v1beta1 objects.
	c := rendertest.MustFind(t, objs, "Cluster", ns)
	assert.Empty(t, c.GetNamespace())
	assert.Equal(t, "core.gardener.cloud/v1beta1", spec(t, c, "shoot", "apiVersion"))
	assert.Equal(t, "garden-dev", spec(t, c, "shoot", "metadata", "namespace"))
	// The Cluster comes first (Gardener's docs/extensions/cluster.md, "Extension"
	// docs/extensions/resources/extension.md).
	assert.Equal(t, "Cluster", objs[0].Object.GetKind())

	// Named after the shoot as gardenlet names them (DefaultInfrastructure, DefaultControlPlane in
	// pkg/gardenlet/operation/botanist, "-exposure" in pkg/component/extensions/controlplane at
	// Gardener v1.120.0).
	infra := rendertest.MustFind(t, objs, "Infrastructure", "a")
	assert.Equal(t, ns, infra.GetNamespace())
	assert.Equal(t, "aws", spec(t, infra, "type"))
	assert.Equal(t, "cloudprovider", spec(t, infra, "secretRef", "name"))

	cp := rendertest.MustFind(t, objs, "ControlPlane", "a")
	assert.Equal(t, "normal", spec(t, cp, "purpose"))
	exp := rendertest.MustFind(t, objs, "ControlPlane", "a-exposure")
	assert.Equal(t, "exposure", spec(t, exp, "purpose"))
	assert.Equal(t, "eu-central-1", spec(t, exp, "region"), "Gardener's docs/extensions/resources/controlplane-exposure.md: the seed's region")

	network := rendertest.MustFind(t, objs, "Network", "a")
	assert.Equal(t, "calico", spec(t, network, "type"))
	assert.Equal(t, "100.96.0.0/11", spec(t, network, "podCIDR"))

	for _, pool := range []string{"cpu-worker", "arm"} {
		assert.Equal(t, "provision", spec(t, rendertest.MustFind(t, objs, "OperatingSystemConfig", pool+"-init"), "purpose"))
		assert.Equal(t, "reconcile", spec(t, rendertest.MustFind(t, objs, "OperatingSystemConfig", pool+"-original"), "purpose"))
	}
	// gardenlet writes inline file content base64-encoded with the encoding b64
	// (pkg/component/extensions/operatingsystemconfig/nodeinit/nodeinit.go in gardener/gardener
	// v1.120.0); the OperatingSystemConfig CRD requires the encoding.
	inlineFiles := map[string]string{"cpu-worker-init": "/var/lib/gardener-node-agent/init.sh", "cpu-worker-original": "/var/lib/kubelet/config/kubelet"}
	for osc, path := range inlineFiles {
		var inline map[string]any
		for _, f := range spec(t, rendertest.MustFind(t, objs, "OperatingSystemConfig", osc), "files").([]any) {
			if f.(map[string]any)["path"] == path {
				inline = f.(map[string]any)["content"].(map[string]any)["inline"].(map[string]any)
			}
		}
		require.NotNil(t, inline, "%s: file %s", osc, path)
		assert.Equal(t, "b64", inline["encoding"], osc)
		decoded, err := base64.StdEncoding.DecodeString(inline["data"].(string))
		require.NoError(t, err, osc)
		assert.NotEmpty(t, decoded, osc)
	}

	w := rendertest.MustFind(t, objs, "Worker", "a")
	pools := spec(t, w, "pools").([]any)
	require.Len(t, pools, 2)
	p0 := pools[0].(map[string]any)
	assert.Equal(t, int64(3), p0["minimum"])
	assert.Equal(t, int64(5), p0["maximum"])
	// Gardener's "Worker" docs/extensions/resources/worker.md, Gardener's "ContainerRuntime"
	// docs/extensions/resources/containerruntime.md: Gardener's node labels.
	labels := p0["labels"].(map[string]any)
	assert.Equal(t, "cpu-worker", labels["worker.gardener.cloud/pool"])
	assert.Equal(t, "containerd", labels["worker.gardener.cloud/cri-name"])
	assert.Equal(t, "true", labels["containerruntime.worker.gardener.cloud/gvisor"])
	assert.Equal(t, "false", pools[1].(map[string]any)["labels"].(map[string]any)["worker.gardener.cloud/system-components"])
	assert.Equal(t, "10%", pools[1].(map[string]any)["maxSurge"])

	rt := rendertest.MustFind(t, objs, "ContainerRuntime", "gvisor-cpu-worker")
	assert.Equal(t, "cpu-worker", spec(t, rt, "workerPool", "name"))

	// Gardener's "DNS Record" docs/extensions/resources/dnsrecord.md, Gardener's "Control Plane
	// Endpoints And Ports" docs/usage/advanced/control-plane-endpoints-and-ports.md: internal record
	// to the load balancer, external CNAME to internal.
	internal := rendertest.MustFind(t, objs, "DNSRecord", "a-internal")
	assert.Equal(t, "api.a.dev.internal.example.com", spec(t, internal, "name"))
	assert.Equal(t, "A", spec(t, internal, "recordType"))
	external := rendertest.MustFind(t, objs, "DNSRecord", "a-external")
	assert.Equal(t, "api.a.dev.example.com", spec(t, external, "name"))
	assert.Equal(t, "CNAME", spec(t, external, "recordType"))
	assert.Equal(t, []any{"api.a.dev.internal.example.com"}, spec(t, external, "values"))

	// Gardener's docs/extensions/resources/extension.md: one Extension per type, named like it;
	// disabled ones left out.
	rendertest.MustFind(t, objs, "Extension", "shoot-dns-service")
	rendertest.MustFind(t, objs, "Extension", "shoot-cert-service")
	assert.Nil(t, rendertest.Find(objs, "Extension", "shoot-oidc-service"))

	be := rendertest.MustFind(t, objs, "BackupEntry", ns+"--0a1b2c3d")
	assert.Empty(t, be.GetNamespace())
	assert.Equal(t, "seed-bucket", spec(t, be, "bucketName"))
}

func TestWorkerless(t *testing.T) {
	objs, err := Objects(workerless())
	require.NoError(t, err)
	kinds := map[string]int{}
	for _, o := range objs {
		kinds[o.Object.GetKind()]++
	}
	// Gardener's "Workerless Shoots" docs/usage/shoot/shoot_workerless.md: no infrastructure, network,
	// control plane or machines.
	assert.Equal(t, map[string]int{"Cluster": 1, "Extension": 1}, kinds)
}

func TestExtensionsByLifecycle(t *testing.T) {
	for step, want := range map[string][]string{
		BeforeKubeAPIServer: {"shoot-cert-service"},
		AfterKubeAPIServer:  {"shoot-dns-service"}, // the default (Gardener's docs/extensions/registration.md)
		AfterWorker:         nil,
		"":                  {"shoot-dns-service", "shoot-cert-service"},
	} {
		objs, err := Extensions(full(), step)
		require.NoError(t, err)
		var got []string
		for _, o := range objs {
			got = append(got, o.Object.GetName())
		}
		assert.Equal(t, want, got, step)
	}
	assert.Equal(t, BeforeKubeAPIServer, Extension{}.DeleteStep())
}

func TestNames(t *testing.T) {
	assert.Equal(t, "shoot--foo--bar", TechnicalID("foo", "bar"))
	assert.Equal(t, "shoot--foo--bar", BackupEntryName("shoot--foo--bar", ""))
	assert.Equal(t, "osc-result-pool-01-init", UserDataSecretName("pool-01"))
}

func TestErrors(t *testing.T) {
	for name, mutate := range map[string]func(*Values){
		"no name":            func(v *Values) { v.Name = "" },
		"no cluster":         func(v *Values) { v.Cluster.Name = "" },
		"no provider type":   func(v *Values) { v.Provider.Type = "" },
		"no networking":      func(v *Values) { v.Networking.Type = "" },
		"pool twice":         func(v *Values) { v.Workers = append(v.Workers, v.Workers[0]) },
		"pool without image": func(v *Values) { v.Workers[0].ImageVersion = "" },
		"max below min":      func(v *Values) { v.Workers[0].Maximum = 1 },
		"extension twice":    func(v *Values) { v.Extensions = append(v.Extensions, v.Extensions[0]) },
		"bad lifecycle":      func(v *Values) { v.Extensions[0].Lifecycle.Delete = AfterWorker },
		"incomplete backup":  func(v *Values) { v.Backup.BucketName = "" },
		"incomplete dns":     func(v *Values) { v.DNS.Address = "" },
		"no k8s version":     func(v *Values) { v.KubernetesVersion = ""; v.Workers[0].KubernetesVersion = "" },
	} {
		t.Run(name, func(t *testing.T) {
			v := full()
			mutate(&v)
			_, err := Objects(v)
			assert.Error(t, err)
		})
	}
}
