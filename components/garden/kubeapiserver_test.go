package garden

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/components/kubeapiserver"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The virtual garden's API server asks gardener-admission-controller's seed authorizer about
// gardenlets' requests (newKubeAPIServer in pkg/operator/controller/garden/garden/components.go at
// Gardener v1.120.0), with ca-gardener, which signs the admission controller's serving
// certificate. Where the garden's webhooks are off, because their pods never run (the local
// control plane), it does not ask: nothing would answer.
func TestVirtualGardenSeedAuthorizer(t *testing.T) {
	ps := partsOf(t, values(nil))
	kapi := ps["virtual_garden_kube_apiserver"]
	assert.True(t, slices.Contains(kapi.DependsOn, "ca_gardener"), "the kubeconfig carries the generated CA")
	kubeconfigs := rendertest.MustFind(t, kapi.Objects, "Secret", kubeapiserver.AuthorizationKubeconfigsSecretName)
	kubeconfig, _, _ := unstructured.NestedString(kubeconfigs.Object, "stringData", "seed-authorizer-kubeconfig.yaml")
	assert.Contains(t, kubeconfig, "server: https://gardener-admission-controller/webhooks/auth/seed")
	assert.Contains(t, kubeconfig, "certificate-authority-data: "+render.GeneratedRef(Namespace, secretGardenerCA, "ca.crt", true))
	authz := authorizationConfig(t, kapi)
	config, _, _ := unstructured.NestedString(authz.Object, "data", "config.yaml")
	assert.Contains(t, config, "name: seed-authorizer")
	assert.Equal(t, "system:kube-aggregator", ps["kube_aggregator_tls"].Secret.CommonName)
	assert.NotContains(t, ps["kube_apiserver_tls"].Secret.DNSNames, "kubernetes.default", "a virtual garden has no pods that call it so")

	local := partsOf(t, values(func(v *Values) { v.AdmissionWebhooks = false }))["virtual_garden_kube_apiserver"]
	assert.Nil(t, rendertest.Find(local.Objects, "Secret", kubeapiserver.AuthorizationKubeconfigsSecretName))
	authz = authorizationConfig(t, local)
	config, _, _ = unstructured.NestedString(authz.Object, "data", "config.yaml")
	assert.NotContains(t, config, "Webhook")
	assert.False(t, slices.Contains(local.DependsOn, "ca_gardener"))
}

// The virtual garden's API server is that of a cluster without nodes, labelled app=kubernetes.
func TestVirtualGardenKubeAPIServer(t *testing.T) {
	kapi := partsOf(t, values(nil))["virtual_garden_kube_apiserver"]
	d := rendertest.MustFind(t, kapi.Objects, "Deployment", "virtual-garden-kube-apiserver")
	selector, _, _ := unstructured.NestedStringMap(d.Object, "spec", "selector", "matchLabels")
	assert.Equal(t, map[string]string{"app": "kubernetes", "role": "apiserver"}, selector)
	containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	var args []string
	for _, a := range containers[0].(map[string]any)["args"].([]any) {
		args = append(args, a.(string))
	}
	require.NotEmpty(t, args)
	assert.Contains(t, args, "--runtime-config=apps/v1=false,autoscaling/v2=false,batch/v1=false,discovery.k8s.io/v1=false,policy/v1=false,storage.k8s.io/v1/csinodes=false")
	for _, a := range args {
		assert.False(t, strings.HasPrefix(a, "--event-ttl"), "a Garden has no default event TTL")
	}
}

// authorizationConfig is the API server's unique authorization ConfigMap in p.
func authorizationConfig(t *testing.T, p render.Component) *unstructured.Unstructured {
	t.Helper()
	for _, o := range p.Objects {
		if o.Object.GetKind() == "ConfigMap" && strings.HasPrefix(o.Object.GetName(), kubeapiserver.AuthorizationConfigMapPrefix+"-") {
			return o.Object
		}
	}
	t.Fatal("no authorization configuration")
	return nil
}
