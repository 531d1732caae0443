package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/declarative-gardener/gardener/tests/landscapetest"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// kubeconfigLandscape is landscapes/local, whose garden reaches the virtual garden through the cluster
// block virtual_garden (context virtual-garden of KUBECONFIG) and whose shoots are declared there
// in the project namespace garden-local.
var kubeconfigLandscape = filepath.Join("..", "..", "landscapes", "local")

// TestKubeconfigOfTheVirtualGarden: the kubeconfig of the virtual garden is the cluster block's,
// reduced to its context and made self-contained, and it works against the API server.
func TestKubeconfigOfTheVirtualGarden(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a local control plane")
	}
	lc := localcluster.Start(t, localcluster.PlaneOptions{Name: localcluster.VirtualGardenPlane})
	// The operator's kubeconfig: the plane's, with its CA certificate in a file, as many
	// kubeconfigs have it, and a second context that must not be handed out.
	raw, err := clientcmd.LoadFromFile(lc.Kubeconfig())
	require.NoError(t, err)
	dir := t.TempDir()
	for name, c := range raw.Clusters {
		require.NotEmpty(t, c.CertificateAuthorityData)
		ca := filepath.Join(dir, name+".crt")
		require.NoError(t, os.WriteFile(ca, c.CertificateAuthorityData, 0o600))
		c.CertificateAuthority, c.CertificateAuthorityData = ca, nil
	}
	raw.Clusters["elsewhere"] = &clientcmdapi.Cluster{Server: "https://elsewhere.example:6443"}
	raw.AuthInfos["elsewhere"] = &clientcmdapi.AuthInfo{Token: "not-for-the-garden"}
	raw.Contexts["runtime"] = &clientcmdapi.Context{Cluster: "elsewhere", AuthInfo: "elsewhere"}
	kubeconfig := filepath.Join(dir, "config")
	require.NoError(t, clientcmd.WriteToFile(*raw, kubeconfig))
	t.Setenv("KUBECONFIG", kubeconfig)

	out, errOut, err := run(t, "kubeconfig", kubeconfigLandscape, "garden")
	require.NoError(t, err, errOut)
	got, err := clientcmd.Load([]byte(out))
	require.NoError(t, err)
	assert.Equal(t, "virtual-garden", got.CurrentContext)
	assert.Len(t, got.Contexts, 1, "only the virtual garden's context")
	assert.NotContains(t, out, "not-for-the-garden")
	require.Len(t, got.Clusters, 1)
	for _, c := range got.Clusters {
		assert.Empty(t, c.CertificateAuthority, "certificate files are inlined")
		assert.NotEmpty(t, c.CertificateAuthorityData)
	}

	// It is a working kubeconfig of the virtual garden, also when written to a file.
	path := filepath.Join(t.TempDir(), "virtual-garden.yaml")
	stdout, errOut, err := run(t, "kubeconfig", kubeconfigLandscape, "garden.local", "--output", path)
	require.NoError(t, err, errOut)
	assert.Equal(t, "Wrote the kubeconfig of the virtual garden of virtual_garden (cluster virtual_garden), with your own credential for it to "+path+".\n", stdout)
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	require.NoError(t, err)
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	_, err = cs.CoreV1().Namespaces().Get(context.Background(), "default", metav1.GetOptions{})
	require.NoError(t, err)
}

// shootPrerequisites are what gardener-apiserver admits the Shoot dev of landscapes/local with:
// the registration of its extension types, its project, cloud profile and seed.
const shootPrerequisites = `
apiVersion: core.gardener.cloud/v1beta1
kind: ControllerRegistration
metadata: {name: kubeconfig-test-local}
spec:
  resources:
  - {kind: Infrastructure, type: local}
  - {kind: ControlPlane, type: local}
  - {kind: DNSRecord, type: local}
---
apiVersion: v1
kind: Namespace
metadata:
  name: garden-local
  labels: {gardener.cloud/role: project, project.gardener.cloud/name: local}
---
apiVersion: core.gardener.cloud/v1beta1
kind: Project
metadata: {name: local}
spec: {namespace: garden-local}
---
apiVersion: core.gardener.cloud/v1beta1
kind: CloudProfile
metadata: {name: local}
spec:
  type: local
  kubernetes: {versions: [{version: 1.31.1}]}
  machineImages: [{name: local, versions: [{version: 1.0.0}]}]
  machineTypes: [{name: local, cpu: "2", memory: 4Gi}]
  regions: [{name: local}]
---
apiVersion: core.gardener.cloud/v1beta1
kind: Seed
metadata: {name: local}
spec:
  provider: {type: local, region: local}
  networks: {nodes: 10.0.0.0/16, pods: 10.1.0.0/16, services: 10.2.0.0/16}
  ingress: {domain: ingress.local.example.com, controller: {kind: nginx}}
  dns: {provider: {type: local, secretRef: {name: dns, namespace: garden}}}
---
apiVersion: core.gardener.cloud/v1beta1
kind: Shoot
metadata: {name: dev, namespace: garden-local}
spec:
  cloudProfile: {kind: CloudProfile, name: local}
  kubernetes: {version: 1.31.1}
  networking: {services: 10.4.0.0/16}
  provider: {type: local}
  region: local
  seedName: local
  dns: {domain: dev.local.example.com}
`

// TestKubeconfigOfAShoot asks the real gardener-apiserver for the admin kubeconfig of shoot.dev
// of landscapes/local. The Shoot, its advertised address and the CAs the subresource signs with
// and trusts are put in place as the engine publishes them when it applies the shoot
// (components/shoot/report.go): the InternalSecret dev.ca-client and the Secret dev.ca-cluster.
func TestKubeconfigOfAShoot(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a local control plane")
	}
	lc := localcluster.Start(t, localcluster.PlaneOptions{Name: localcluster.VirtualGardenPlane, GardenerAPI: true})
	client, err := dynamic.NewForConfig(lc.Plane(localcluster.VirtualGardenPlane).RESTConfig())
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, doc := range strings.Split(shootPrerequisites, "\n---\n") {
		landscapetest.CreateYAML(ctx, t, client, doc)
	}
	shoots := client.Resource(shootsGVR).Namespace("garden-local")
	shoot, err := shoots.Get(ctx, "dev", metav1.GetOptions{})
	require.NoError(t, err)
	require.NoError(t, unstructured.SetNestedSlice(shoot.Object, []any{map[string]any{"name": "external", "url": "https://api.dev.local.example.com"}}, "status", "advertisedAddresses"))
	_, err = shoots.UpdateStatus(ctx, shoot, metav1.UpdateOptions{})
	require.NoError(t, err)
	caCert, caKey := testCA(t)
	landscapetest.CreateYAML(ctx, t, client, `
apiVersion: core.gardener.cloud/v1beta1
kind: InternalSecret
metadata: {name: dev.ca-client, namespace: garden-local}
type: Opaque
stringData:
  ca.crt: |
`+indent(caCert, "    ")+`
  ca.key: |
`+indent(caKey, "    "))
	landscapetest.CreateYAML(ctx, t, client, `
apiVersion: v1
kind: Secret
metadata: {name: dev.ca-cluster, namespace: garden-local}
type: Opaque
stringData:
  ca.crt: |
`+indent(caCert, "    "))

	t.Setenv("KUBECONFIG", lc.Kubeconfig())
	out, errOut, err := run(t, "kubeconfig", kubeconfigLandscape, "shoot.dev", "--expiration", "15m")
	require.NoError(t, err, errOut)
	got, err := clientcmd.Load([]byte(out))
	require.NoError(t, err)
	require.Len(t, got.Clusters, 1)
	for _, c := range got.Clusters {
		assert.Equal(t, "https://api.dev.local.example.com", c.Server, "the advertised address")
		assert.Equal(t, caCert, string(c.CertificateAuthorityData), "the cluster CA bundle")
	}
	require.Len(t, got.AuthInfos, 1)
	for _, user := range got.AuthInfos {
		block, _ := pem.Decode(user.ClientCertificateData)
		require.NotNil(t, block)
		cert, err := x509.ParseCertificate(block.Bytes)
		require.NoError(t, err)
		assert.Equal(t, []string{"system:masters"}, cert.Subject.Organization)
		assert.WithinDuration(t, time.Now().Add(15*time.Minute), cert.NotAfter, 2*time.Minute, "valid for --expiration")
		ca, _ := pem.Decode([]byte(caCert))
		caParsed, err := x509.ParseCertificate(ca.Bytes)
		require.NoError(t, err)
		assert.NoError(t, cert.CheckSignatureFrom(caParsed), "signed by the shoot's client CA")
	}

	_, errOut, err = run(t, "kubeconfig", kubeconfigLandscape, "shoot.nope")
	assert.Equal(t, exitCode(1), err)
	assert.Equal(t, "Error: the landscape has no shoot shoot.nope\n", errOut)
	_, errOut, err = run(t, "kubeconfig", kubeconfigLandscape, "shoot.dev", "--expiration", "1m")
	assert.Equal(t, exitCode(1), err)
	assert.Contains(t, errOut, "--expiration 1m0s is shorter than the 10 minutes")
}

var shootsGVR = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots"}

// testCA is a self-signed CA certificate and its key, PEM-encoded.
func testCA(t *testing.T) (certPEM, keyPEM string) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048) // gardener-apiserver reads PKCS #1 RSA keys
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ca-client"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return prefix + strings.Join(lines, "\n"+prefix) + "\n"
}
