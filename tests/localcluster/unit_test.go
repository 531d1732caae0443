package localcluster

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"
)

func parseCert(t *testing.T, data []byte) *x509.Certificate {
	t.Helper()
	block, _ := pem.Decode(data)
	require.NotNil(t, block)
	cert, err := x509.ParseCertificate(block.Bytes)
	require.NoError(t, err)
	return cert
}

func TestCredentialsServingCertificateVerifiesForEveryName(t *testing.T) {
	creds, err := newCredentials(time.Now())
	require.NoError(t, err)
	ca := parseCert(t, creds.caCertPEM)
	serving := parseCert(t, creds.servingCertPEM)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	for _, name := range []string{"127.0.0.1", "localhost", kubernetesServiceIP, "kubernetes.default.svc.cluster.local"} {
		_, err := serving.Verify(x509.VerifyOptions{DNSName: name, Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
		assert.NoError(t, err, name)
	}
	_, err = serving.Verify(x509.VerifyOptions{DNSName: "example.com", Roots: pool})
	assert.Error(t, err)
	assert.Len(t, creds.adminToken, 64)

	other, err := newCredentials(time.Now())
	require.NoError(t, err)
	assert.NotEqual(t, creds.adminToken, other.adminToken, "every plane gets its own token")
}

func TestCredentialsWriteOwnerOnly(t *testing.T) {
	creds, err := newCredentials(time.Now())
	require.NoError(t, err)
	files, err := creds.write(filepath.Join(t.TempDir(), "pki"))
	require.NoError(t, err)
	for _, path := range []string{files.caCert, files.caKey, files.servingCert, files.servingKey, files.saPublic, files.saPrivate, files.tokens} {
		info, err := os.Stat(path)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), path)
	}
	tokens, err := os.ReadFile(files.tokens)
	require.NoError(t, err)
	assert.Equal(t, creds.adminToken+`,admin,admin,"system:masters"`+"\n", string(tokens))
}

func TestFreePortsAreDistinct(t *testing.T) {
	ports, err := freePorts(20)
	require.NoError(t, err)
	seen := map[int]bool{}
	for _, p := range ports {
		assert.False(t, seen[p], "port %d returned twice", p)
		assert.Positive(t, p)
		seen[p] = true
	}
}

func TestTopology(t *testing.T) {
	tests := []struct {
		seeds int
		want  []string
	}{
		{0, []string{"runtime", "virtual-garden"}},
		{2, []string{"runtime", "virtual-garden", "seed-1", "seed-2"}},
	}
	for _, tt := range tests {
		var names []string
		for _, p := range Topology(tt.seeds) {
			names = append(names, p.Name)
			assert.Equal(t, p.Name != VirtualGardenPlane, p.Workloads, p.Name)
			assert.Equal(t, p.Name == VirtualGardenPlane, p.GardenerAPI, p.Name)
			if p.Name == VirtualGardenPlane {
				assert.Equal(t, TopologyControllers(), p.GardenerControllers, "every test shares Gardener's controllers")
			} else {
				assert.Nil(t, p.GardenerControllers, p.Name)
			}
		}
		assert.Equal(t, tt.want, names)
	}
}

// The shared topology's overlay is well-formed and sets exactly what it documents, under the keys
// Gardener reads (ControllerManagerConfiguration, Gardener v1.120.0): landscapes/local's project
// quota (which tests/garden compares with what the landscape renders) and the two wall-clock loops.
func TestTopologyControllerManagerOverlay(t *testing.T) {
	quotas := []any{map[string]any{
		"config": map[string]any{"apiVersion": "v1", "kind": "ResourceQuota", "spec": map[string]any{"hard": map[string]any{
			"count/credentialsbindings.security.gardener.cloud": "10", "count/secrets": "800", "count/shoots.core.gardener.cloud": "100",
		}}},
		"projectSelector": map[string]any{},
	}}
	local, err := overlayConfig((&Plane{}).gardenerControllerManagerConfig(), LocalLandscapeControllerManagerOverlay)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"project": map[string]any{"quotas": quotas}}, local["controllers"])

	shared, err := overlayConfig((&Plane{}).gardenerControllerManagerConfig(), TopologyControllerManagerOverlay)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{
		"project":          map[string]any{"quotas": quotas},
		"seed":             map[string]any{"monitorPeriod": "24h"},
		"shootHibernation": map[string]any{"triggerDeadlineDuration": "0s"},
	}, shared["controllers"])
}

func TestValidatePlanes(t *testing.T) {
	assert.NoError(t, validatePlanes(Topology(1)))
	assert.ErrorContains(t, validatePlanes([]PlaneOptions{{Name: "a"}, {Name: "a"}}), `plane "a" declared twice`)
	assert.ErrorContains(t, validatePlanes([]PlaneOptions{{}}), "without a name")
}

func TestFindBinDirNamesMissingBinariesAndTheFix(t *testing.T) {
	t.Setenv(BinDirEnv, t.TempDir())
	_, err := FindBinDir()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "kube-apiserver")
	assert.Contains(t, err.Error(), "make tools")
}

func TestWriteKubeconfigHasAContextPerPlane(t *testing.T) {
	var planes []*Plane
	for i, name := range []string{"runtime", "virtual-garden", "seed-1"} {
		creds, err := newCredentials(time.Now())
		require.NoError(t, err)
		planes = append(planes, &Plane{opts: PlaneOptions{Name: name}, creds: creds, apiServerPort: 6443 + i})
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, writeKubeconfig(path, planes))

	cfg, err := clientcmd.LoadFromFile(path)
	require.NoError(t, err)
	assert.Equal(t, "runtime", cfg.CurrentContext)
	require.Len(t, cfg.Contexts, 3)
	for _, p := range planes {
		ctx := cfg.Contexts[p.Name()]
		require.NotNil(t, ctx, p.Name())
		assert.Equal(t, p.Server(), cfg.Clusters[ctx.Cluster].Server)
		assert.Equal(t, p.creds.adminToken, cfg.AuthInfos[ctx.AuthInfo].Token)
		assert.Equal(t, p.creds.caCertPEM, cfg.Clusters[ctx.Cluster].CertificateAuthorityData)
	}
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
}

// The stages are well-formed.
func TestGardenerStagesCoverEveryKindOnce(t *testing.T) {
	stages, err := gardenerStages()
	require.NoError(t, err)
	perKind := map[schema.GroupVersionKind]int{}
	for _, s := range stages {
		var doc struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Name string `json:"name"`
			} `json:"metadata"`
			Spec struct {
				ResourceRef struct {
					APIGroup string `json:"apiGroup"`
					Kind     string `json:"kind"`
				} `json:"resourceRef"`
				Selector struct {
					MatchAnnotations map[string]string `json:"matchAnnotations"`
					MatchExpressions []struct {
						Key      string   `json:"key"`
						Operator string   `json:"operator"`
						Values   []string `json:"values"`
					} `json:"matchExpressions"`
				} `json:"selector"`
				Next struct {
					Patches []struct {
						Subresource string `json:"subresource"`
						Root        string `json:"root"`
						Type        string `json:"type"`
						Template    string `json:"template"`
					} `json:"patches"`
				} `json:"next"`
			} `json:"spec"`
		}
		require.NoError(t, yaml.UnmarshalStrict(s.yaml, &doc, yaml.DisallowUnknownFields), string(s.yaml))
		assert.Equal(t, "kwok.x-k8s.io/v1alpha1", doc.APIVersion)
		assert.Equal(t, "Stage", doc.Kind)
		assert.NotEmpty(t, doc.Metadata.Name)
		require.NotEmpty(t, doc.Spec.Selector.MatchExpressions, doc.Metadata.Name)
		assert.Equal(t, ".metadata.deletionTimestamp", doc.Spec.Selector.MatchExpressions[0].Key, "objects in deletion are left alone: %s", doc.Metadata.Name)
		require.NotEmpty(t, doc.Spec.Next.Patches, doc.Metadata.Name)
		for _, p := range doc.Spec.Next.Patches {
			assert.Equal(t, "merge", p.Type, doc.Metadata.Name)
			assert.Contains(t, []string{"status", "metadata", "data"}, p.Root, doc.Metadata.Name) // data: the token requestor's Secret
			assert.Equal(t, p.Root == "status", p.Subresource == "status", "status is patched through its subresource: %s", doc.Metadata.Name)
			assert.NotEmpty(t, p.Template, doc.Metadata.Name)
		}
		perKind[s.gvk]++
	}
	assert.Equal(t, 1, perKind[schema.GroupVersionKind{Group: "druid.gardener.cloud", Version: "v1alpha1", Kind: "Etcd"}])
	assert.Equal(t, 1, perKind[schema.GroupVersionKind{Group: "resources.gardener.cloud", Version: "v1alpha1", Kind: "ManagedResource"}])
	assert.Equal(t, 1, perKind[schema.GroupVersionKind{Version: "v1", Kind: "Service"}], "load balancers get addresses")
	assert.Equal(t, 1, perKind[schema.GroupVersionKind{Version: "v1", Kind: "Secret"}], "shoot token requests get tokens")
	for _, kind := range ExtensionKinds {
		// one stage reports success for the current generation, one honours a reconcile request
		assert.Equal(t, 2, perKind[schema.GroupVersionKind{Group: "extensions.gardener.cloud", Version: "v1alpha1", Kind: kind}], kind)
	}
}

func TestServedStageKinds(t *testing.T) {
	stages, err := gardenerStages()
	require.NoError(t, err)
	crd := func(group, kind string, established bool, versions ...string) *apiextensionsv1.CustomResourceDefinition {
		c := &apiextensionsv1.CustomResourceDefinition{}
		c.Spec.Group = group
		c.Spec.Names.Kind = kind
		for _, v := range versions {
			c.Spec.Versions = append(c.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: v, Served: true})
		}
		if established {
			c.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue}}
		}
		return c
	}
	got := servedStageKinds(stages, []*apiextensionsv1.CustomResourceDefinition{
		crd("extensions.gardener.cloud", "Worker", true, "v1alpha1"),
		crd("druid.gardener.cloud", "Etcd", true, "v1alpha1"),
		crd("resources.gardener.cloud", "ManagedResource", false, "v1alpha1"), // not yet established
		crd("extensions.gardener.cloud", "Network", true, "v1beta9"),          // a version no stage targets
		crd("example.com", "Widget", true, "v1"),                              // no stage at all
	}, []schema.GroupVersion{{Group: "core.gardener.cloud", Version: "v1beta1"}}) // gardener-apiserver's
	assert.Equal(t, []schema.GroupVersionKind{
		{Version: "v1", Kind: "Secret"},  // built in: always served
		{Version: "v1", Kind: "Service"}, // built in: always served
		{Group: "druid.gardener.cloud", Version: "v1alpha1", Kind: "Etcd"},
		{Group: "extensions.gardener.cloud", Version: "v1alpha1", Kind: "Worker"},
	}, got)
}

func TestSplitYAMLDocumentsDropsCommentOnlyDocuments(t *testing.T) {
	docs := splitYAMLDocuments([]byte("# header\n---\na: 1\n---\n# only a comment\n---\nb: 2\n"))
	require.Len(t, docs, 2)
	assert.Equal(t, "a: 1", strings.TrimSpace(string(docs[0])))
	assert.Equal(t, "b: 2", strings.TrimSpace(string(docs[1])))
}

func TestTailFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	require.NoError(t, os.WriteFile(path, []byte("1\n2\n3\n4\n"), 0o600))
	assert.Equal(t, "3\n4", tailFile(path, 2))
	assert.Contains(t, tailFile(filepath.Join(t.TempDir(), "missing"), 2), "log unreadable")
}
