package shoot

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
)

// apiServerArgs are the kube-apiserver container's flags of a shoot's control plane.
func apiServerArgs(t *testing.T, ps map[string]render.Component) []string {
	t.Helper()
	d := find(t, ps["kube_apiserver"], "Deployment", "kube-apiserver")
	containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	var args []string
	for _, a := range containers[0].(map[string]any)["args"].([]any) {
		args = append(args, a.(string))
	}
	return args
}

// The shoot's kube-apiserver gets what gardenlet gives it (DefaultKubeAPIServer and
// DeployKubeAPIServer in pkg/gardenlet/operation/botanist/kubeapiserver.go at Gardener v1.120.0):
// the Service in a part before it, whose cluster IP it advertises; the kubelet client certificate
// signed by the kubelet CA; the VPN's proxy certificate, or the vpn-seed-client certificate with
// high availability; a serving certificate for loopback and the kubernetes Service's cluster IP;
// Gardener's Shoot defaults.
func TestKubeAPIServerWiring(t *testing.T) {
	ps := parts(t, values(nil))
	seq := order(t, ps)
	before(t, seq, "kube_apiserver_service", "kube_apiserver")
	require.Len(t, ps["kube_apiserver_service"].Objects, 1)
	assert.Equal(t, "Service", ps["kube_apiserver_service"].Objects[0].Object.GetKind())
	assert.Nil(t, rendertest.Find(ps["kube_apiserver"].Objects, "Service", "kube-apiserver"), "the Service is the other part's")

	args := apiServerArgs(t, ps)
	// The Service's cluster IP as the shoot sees it, mapped into 240.0.0.0/8
	// (setAPIServerServiceClusterIPs in pkg/gardenlet/operation/botanist/kubeapiserverexposure.go).
	advertised := render.LiveValue(render.LiveRef{
		Cluster: "seed1", Version: "v1", Resource: "services", Namespace: "shoot--local--dev", Name: "kube-apiserver", Paths: []string{"spec.clusterIP"},
		As: render.AsShootAPIServerAddress,
	})
	assert.Contains(t, args, "--advertise-address="+advertised)
	resolved, ok, err := render.ResolveLive(advertised, func(ref render.LiveRef) (*unstructured.Unstructured, error) {
		return apiServerService(ref.Namespace, exampleClusterIP), nil
	})
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "240.2.170.21", resolved)
	for _, want := range []string{"--allow-privileged=true", "--anonymous-auth=false", "--event-ttl=1h0m0s", "--max-requests-inflight=400",
		"--max-mutating-requests-inflight=200", "--v=2", "--enable-admission-plugins=NodeRestriction",
		"--egress-selector-config-file=/etc/kubernetes/egress/egress-selector-configuration.yaml",
		"--kubelet-client-certificate=/srv/kubernetes/apiserver-kubelet/tls.crt"} {
		assert.Contains(t, args, want)
	}

	kubelet := ps["kube_apiserver_kubelet_tls"].Secret
	require.NotNil(t, kubelet)
	assert.Equal(t, render.SecretSpec{Cluster: "seed1", Namespace: "shoot--local--dev", Name: "kube-apiserver-kubelet", Class: "client-cert",
		CommonName: "system:kube-apiserver:kubelet", CA: "ca-kubelet"}, *kubelet)
	proxy := ps["kube_apiserver_http_proxy_tls"].Secret
	require.NotNil(t, proxy)
	assert.Equal(t, "kube-apiserver-http-proxy", proxy.CommonName)
	assert.Equal(t, "ca-vpn", proxy.CA)
	assert.NotContains(t, ps, "vpn_seed_client_tls")

	server := ps["kube_apiserver_tls"].Secret
	assert.Equal(t, []string{"127.0.0.1", "::1", "10.4.0.1"}, server.IPAddresses, "loopback and the kubernetes Service's cluster IP")
	assert.Contains(t, server.DNSNames, "localhost")
	assert.Contains(t, server.DNSNames, "kubernetes.default.svc")
	assert.Contains(t, server.DNSNames, "shoot--local--dev", "the technical ID")
	assert.Equal(t, "system:kube-aggregator", ps["kube_aggregator_tls"].Secret.CommonName)
	token := ps["kube_apiserver_health_check_token"].Secret
	assert.Equal(t, "token", token.Class)
	assert.Equal(t, 128, token.Length)

	var cpu string
	d := find(t, ps["kube_apiserver"], "Deployment", "kube-apiserver")
	containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	cpu, _, _ = unstructured.NestedString(containers[0].(map[string]any), "resources", "requests", "cpu")
	assert.Equal(t, "250m", cpu, "gardenlet's request for a shoot's kube-apiserver")
}

func TestKubeAPIServerWithHighAvailabilityVPN(t *testing.T) {
	ps := parts(t, values(ha("node")))
	client := ps["vpn_seed_client_tls"].Secret
	require.NotNil(t, client)
	assert.Equal(t, "vpn-seed-client", client.CommonName)
	assert.Equal(t, "ca-vpn", client.CA)
	assert.NotContains(t, ps, "kube_apiserver_http_proxy_tls")
	d := find(t, ps["kube_apiserver"], "Deployment", "kube-apiserver")
	containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	var names []string
	for _, c := range containers {
		names = append(names, c.(map[string]any)["name"].(string))
	}
	assert.Equal(t, []string{"kube-apiserver", "vpn-client-0", "vpn-client-1", "vpn-path-controller"}, names)
	assert.True(t, slices.Contains(ps["kube_apiserver"].DependsOn, "vpn_seed_client_tls"))
	assert.NotNil(t, rendertest.Find(ps["kube_apiserver"].Objects, "RoleBinding", "kube-apiserver-vpn-client-init"))
}

func TestWorkerlessKubeAPIServer(t *testing.T) {
	ps := parts(t, values(workerless))
	args := apiServerArgs(t, ps)
	assert.Contains(t, args, "--runtime-config=apps/v1=false,autoscaling/v2=false,batch/v1=false,discovery.k8s.io/v1=false,policy/v1=false,storage.k8s.io/v1/csinodes=false")
	for _, a := range args {
		assert.NotContains(t, a, "--allow-privileged", "no nodes, no privileged pods")
		assert.NotContains(t, a, "--kubelet-")
		assert.NotContains(t, a, "--egress-selector-config-file")
	}
	assert.NotContains(t, ps, "kube_apiserver_kubelet_tls")
	assert.Equal(t, []string{"127.0.0.1", "::1"}, ps["kube_apiserver_tls"].Secret.IPAddresses)
	assert.NotContains(t, ps["kube_apiserver_tls"].Secret.DNSNames, "kubernetes.default")
}

// The kubelets authorize the API server's client certificate through RBAC in the shoot, which
// the shoot's resource manager applies once it runs.
func TestKubeAPIServerShootResources(t *testing.T) {
	ps := parts(t, values(nil))
	p := ps["kube_apiserver_shoot_resources"]
	assert.Equal(t, []string{"gardener_resource_manager", "kube_apiserver"}, p.DependsOn)
	assert.NotNil(t, rendertest.Find(p.Objects, "ManagedResource", "shoot-core-kube-apiserver"))
	assert.NotContains(t, parts(t, values(workerless)), "kube_apiserver_shoot_resources")
}
