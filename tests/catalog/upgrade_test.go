package catalog

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/components/dependencywatchdog"
	"github.com/declarative-gardener/gardener/components/etcddruid"
	"github.com/declarative-gardener/gardener/components/istio"
	"github.com/declarative-gardener/gardener/components/kubeapiserver"
	"github.com/declarative-gardener/gardener/components/nginxingress"
	"github.com/declarative-gardener/gardener/components/vpa"
	"github.com/declarative-gardener/gardener/components/vpnseedserver"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/tests/upgradetest"
)

// immutableChanges are the objects of an earlier rendering (testdata/before-issue-27: the workloads
// as the catalog rendered them before issue 27) that a plan replaces when it moves to the objects
// rendered now, with the immutable fields that change, by "Kind/name" (upgradetest.Actions).
func immutableChanges(t *testing.T, beforeFile string, objs []render.Object) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for id, action := range upgradetest.Actions(t, beforeFile, objs) {
		if fields, ok := strings.CutPrefix(action, "replace "); ok {
			out[id] = strings.Fields(fields)
		}
	}
	return out
}

// The seed system components a landscape applied before issue 27 runs move to Gardener's rendering:
// dependency-watchdog's and nginx-ingress's Deployments are replaced for their selectors (a plan
// names immutable_field:.spec.selector as the reason), etcd-druid's and the VPA's workloads change
// in place (docs/fidelity/*.md, "Upgrading a landscape applied with the earlier rendering").
func TestSeedSystemComponentsUpgrade(t *testing.T) {
	rendered := func(objs []render.Object, err error) []render.Object {
		t.Helper()
		require.NoError(t, err)
		return objs
	}
	dwd := dependencywatchdog.Type.Defaults()
	dwd.Cluster.Name = "seed"
	ngx := nginxingress.Type.Defaults()
	ngx.Cluster.Name, ngx.Istio = "seed", &nginxingress.Istio{GatewayLabels: map[string]string{"app": "istio-ingressgateway"}, Domains: []string{"*.ingress.example.com"}}
	druid := etcddruid.Type.Defaults()
	druid.Cluster.Name = "seed"
	v := vpa.Type.Defaults()
	v.Cluster.Name = "seed"
	for _, tt := range []struct {
		fixture string
		objs    []render.Object
		want    map[string][]string
	}{
		{"dependency-watchdog", rendered(dependencywatchdog.Objects(dwd)), map[string][]string{
			"Deployment/dependency-watchdog-prober": {".spec.selector"},
			"Deployment/dependency-watchdog-weeder": {".spec.selector"},
		}},
		{"nginx-ingress", rendered(nginxingress.Objects(ngx)), map[string][]string{
			"Deployment/nginx-ingress-controller":  {".spec.selector"},
			"Deployment/nginx-ingress-k8s-backend": {".spec.selector"},
		}},
		{"etcd-druid", rendered(etcddruid.Objects(druid)), map[string][]string{}},
		{"vpa", rendered(vpa.Objects(v)), map[string][]string{}},
	} {
		t.Run(tt.fixture, func(t *testing.T) {
			assert.Equal(t, tt.want, immutableChanges(t, "testdata/before-issue-27/"+tt.fixture+".yaml", tt.objs))
		})
	}
}

// The shoot contract's components a landscape applied before issue 27 runs move to Gardener's
// rendering: the highly available vpn-seed-server's StatefulSet is replaced because it names no
// governing Service any more (spec.serviceName is immutable); the single server's Deployment and
// the Istio ingress gateway's Deployment, Service and PodDisruptionBudget change in place
// (docs/fidelity/vpn-seed-server.md, docs/fidelity/istio.md, "Upgrading a landscape applied with
// the earlier rendering").
func TestContractComponentsUpgrade(t *testing.T) {
	rendered := func(objs []render.Object, err error) []render.Object {
		t.Helper()
		require.NoError(t, err)
		return objs
	}
	vpn := func(ha bool) vpnseedserver.Values {
		v := vpnseedserver.Type.Defaults()
		v.Cluster.Name, v.Namespace, v.HighAvailability = "seed", "shoot--dev--a", ha
		v.ShootNetworks = vpnseedserver.Networks{Pods: "100.96.0.0/11", Services: "100.64.0.0/13", Nodes: "10.250.0.0/16"}
		return v
	}
	gw := istio.GatewayDefaults()
	gw.Namespace, gw.Labels, gw.VPN = "istio-ingress", map[string]string{"app": "istio-ingressgateway", "istio": "ingressgateway"}, true
	gw.Ports = []istio.Port{{Name: "tcp", Port: 443, TargetPort: 9443}, {Name: "tls-tunnel", Port: 8132, TargetPort: 8132}}
	ist := istio.Type.Defaults()
	ist.Cluster.Name, ist.GatewaysOnly, ist.IngressGateways = "seed", true, []istio.Gateway{gw}
	for _, tt := range []struct {
		fixture string
		objs    []render.Object
		want    map[string][]string
	}{
		{"vpn-seed-server-ha", rendered(vpnseedserver.Objects(vpn(true))), map[string][]string{"StatefulSet/vpn-seed-server": {".spec.serviceName"}}},
		{"vpn-seed-server", rendered(vpnseedserver.Objects(vpn(false))), map[string][]string{}},
		{"istio-ingressgateway", rendered(istio.Objects(ist)), map[string][]string{}},
	} {
		t.Run(tt.fixture, func(t *testing.T) {
			assert.Equal(t, tt.want, immutableChanges(t, "testdata/before-issue-27/"+tt.fixture+".yaml", tt.objs))
		})
	}
}

// The API servers a landscape applied before issue 27 runs move to Gardener's rendering: the
// virtual garden's Deployment is replaced for its selector (app=kubernetes, as gardener-operator
// labels it), the shoot's changes in place (docs/fidelity/kube-apiserver.md,
// docs/fidelity/virtual-garden-kube-apiserver.md).
func TestKubeAPIServersUpgrade(t *testing.T) {
	rendered := func(v kubeapiserver.Values) []render.Object {
		t.Helper()
		objs, err := kubeapiserver.Objects(v)
		require.NoError(t, err)
		return objs
	}
	garden := kubeapiserver.Type.Defaults()
	garden.Cluster.Name, garden.KubernetesVersion = "runtime", "1.31.4"
	garden.DNSDomains, garden.ServiceNetwork = []string{"garden.example.com"}, "100.64.0.0/13"
	garden.SNI = false // the Istio objects, whose schema the differ lacks offline, change in place
	shoot := garden
	shoot.NamePrefix, shoot.Namespace, shoot.Workerless = "", "shoot--dev--a", false
	shoot.Kubelet = &kubeapiserver.KubeletAccess{CASecretName: "ca-kubelet", ClientSecretName: kubeapiserver.KubeletClientSecretName}
	shoot.VPN = &kubeapiserver.VPN{CASecretName: "ca-vpn", HTTPProxySecretName: kubeapiserver.HTTPProxySecretName, Pods: "100.96.0.0/11"}
	assert.Equal(t, map[string][]string{"Deployment/virtual-garden-kube-apiserver": {".spec.selector"}},
		immutableChanges(t, "testdata/before-issue-27/virtual-garden-kube-apiserver.yaml", rendered(garden)))
	assert.Equal(t, map[string][]string{}, immutableChanges(t, "testdata/before-issue-27/kube-apiserver.yaml", rendered(shoot)))
}
