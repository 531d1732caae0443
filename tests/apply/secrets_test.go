package apply_test

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/engine/apply"
	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/views"
	"github.com/declarative-gardener/gardener/tests/landscapetest"
)

const generatedSecrets = `
component "generated_secret" "ca" {
  cluster     = cluster.runtime
  namespace   = "gen-secrets"
  class       = "ca"
  common_name = "gen-secrets-ca"
  depends_on  = [component.manifests.namespace]
}

component "generated_secret" "server" {
  cluster     = cluster.runtime
  namespace   = "gen-secrets"
  class       = "server-cert"
  common_name = "api"
  dns_names   = ["api.gen-secrets.svc"]
  validity    = "720h"
  ca          = component.generated_secret.ca
}

component "generated_secret" "token" {
  cluster    = cluster.runtime
  namespace  = "gen-secrets"
  class      = "token"
  depends_on = [component.manifests.namespace]
}

component "manifests" "bundle" {
  cluster   = cluster.runtime
  namespace = "gen-secrets"
  objects = [{
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = "ca-bundle" }
    data       = { "ca.crt" = component.generated_secret.server.ca_certificate }
  }]
}
`

func planWith(t *testing.T, cfg *rest.Config, dir string, mutate func(o *apply.LandscapeOptions)) *plan.Plan {
	t.Helper()
	o := apply.LandscapeOptions{Planner: landscapetest.Options(dir, landscapetest.Connector(cfg, cluster.Options{}))}
	if mutate != nil {
		mutate(&o)
	}
	return landscapetest.Plan(t, o.Planner).Result.Plan
}

func secretData(t *testing.T, cfg *rest.Config, name, key string) []byte {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	s, err := cs.CoreV1().Secrets("gen-secrets").Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	return s.Data[key]
}

func TestGeneratedSecretsAreReusedRenewedAndRotated(t *testing.T) {
	cfg := runtimeConfig(t)
	dir := landscapetest.Dir(t, landscape("gen-secrets", generatedSecrets))
	_, err := applyLandscape(t, cfg, dir, nil)
	require.NoError(t, err)

	// The server certificate is signed by the CA, and the CA bundle reached the ConfigMap.
	caPEM, certPEM := secretData(t, cfg, "ca", "ca.crt"), secretData(t, cfg, "server", "tls.crt")
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(caPEM))
	block, _ := pem.Decode(certPEM)
	require.NotNil(t, block)
	cert, err := x509.ParseCertificate(block.Bytes)
	require.NoError(t, err)
	_, err = cert.Verify(x509.VerifyOptions{Roots: pool, DNSName: "api.gen-secrets.svc", KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	require.NoError(t, err)
	assert.Equal(t, x509.ECDSA, cert.PublicKeyAlgorithm, "certificates get ECDSA P-256 keys by default")
	token := secretData(t, cfg, "token", "token")

	// A second plan never shows generated secrets changing.
	for range 2 {
		assert.False(t, planWith(t, cfg, dir, nil).HasChanges())
	}

	// gardener render writes the objects as apply sends them: the generated token is the one
	// the cluster holds, and the files come in apply order.
	out := landscapetest.Plan(t, landscapetest.Options(dir, landscapetest.Connector(cfg, cluster.Options{})))
	rendered := filepath.Join(t.TempDir(), "rendered")
	files, err := views.WriteManifests(rendered, out.Result.Desired, out.Graph.Order())
	require.NoError(t, err)
	var names []string
	for _, f := range files {
		names = append(names, f.Path)
	}
	sort.Strings(names)
	require.Len(t, names, 5)
	assert.Contains(t, names[0], "component.manifests.namespace", "the namespace sorts first")
	for _, f := range files {
		if f.Component != "component.generated_secret.token" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(rendered, f.Path))
		require.NoError(t, err)
		var secret corev1.Secret
		require.NoError(t, yaml.Unmarshal(bytes.TrimPrefix(data, []byte("---\n")), &secret))
		assert.Equal(t, token, secret.Data["token"])
	}

	// 25 days into the server certificate's 30: past 80%, it is renewed; the CA is not.
	later := planWith(t, cfg, dir, func(o *apply.LandscapeOptions) { o.Planner.Now = time.Now().Add(25 * 24 * time.Hour) })
	assert.Equal(t, 1, later.Summary.Change, "only the server certificate changes: %+v", later.Summary)
	for _, c := range later.Components {
		if c.Action != plan.NoOp {
			assert.Equal(t, "component.generated_secret.server", c.Address)
			assert.Contains(t, c.Note.Text, "renewed")
			for _, ch := range c.Objects[0].Changes {
				if ch.Path == ".data[tls.key]" || ch.Path == ".data[tls.crt]" {
					assert.True(t, ch.Sensitive, "generated values are never shown")
				}
			}
		}
	}

	// Rotating tokens changes exactly the token.
	_, err = applyLandscape(t, cfg, dir, func(o *apply.LandscapeOptions) { o.Planner.Rotate = map[string]bool{"token": true} })
	require.NoError(t, err)
	assert.NotEqual(t, token, secretData(t, cfg, "token", "token"))
	assert.Equal(t, caPEM, secretData(t, cfg, "ca", "ca.crt"))
	assert.False(t, planWith(t, cfg, dir, nil).HasChanges())

	// Rotating the CA renews the certificate it signed and updates the bundle.
	_, err = applyLandscape(t, cfg, dir, func(o *apply.LandscapeOptions) { o.Planner.Rotate = map[string]bool{"ca": true} })
	require.NoError(t, err)
	newCA := secretData(t, cfg, "ca", "ca.crt")
	assert.NotEqual(t, caPEM, newCA)
	assert.Equal(t, newCA, secretData(t, cfg, "server", "ca.crt"))
	assert.False(t, planWith(t, cfg, dir, nil).HasChanges())

	// Asking for an RSA key regenerates the server certificate, and only it, with one.
	landscapetest.Write(t, dir, landscape("gen-secrets", strings.Replace(generatedSecrets, `validity    = "720h"`, `validity    = "720h"
  key_algorithm = "rsa"`, 1)))
	toRSA := planWith(t, cfg, dir, nil)
	require.Equal(t, 1, toRSA.Summary.Change, "%+v", toRSA.Summary)
	for _, c := range toRSA.Components {
		if c.Action != plan.NoOp {
			assert.Equal(t, "component.generated_secret.server", c.Address)
			assert.Contains(t, c.Note.Text, "configuration changed")
		}
	}
	_, err = applyLandscape(t, cfg, dir, nil)
	require.NoError(t, err)
	block, _ = pem.Decode(secretData(t, cfg, "server", "tls.crt"))
	require.NotNil(t, block)
	rsaCert, err := x509.ParseCertificate(block.Bytes)
	require.NoError(t, err)
	assert.Equal(t, x509.RSA, rsaCert.PublicKeyAlgorithm)
	assert.Equal(t, newCA, secretData(t, cfg, "ca", "ca.crt"), "the CA keeps its ECDSA key")
	assert.False(t, planWith(t, cfg, dir, nil).HasChanges())
}
