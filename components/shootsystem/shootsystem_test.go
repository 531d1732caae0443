package shootsystem

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/golden"
)

const shootNamespace = "shoot--dev--local"

// base is a small shoot: two pools, one a minor version behind, defaults everywhere else.
func base() Values {
	return Values{
		KubernetesVersion: "1.33.1",
		ServiceCIDR:       "100.64.0.0/13",
		PodCIDR:           "100.96.0.0/11",
		NodeCIDR:          "10.250.0.0/16",
		WorkerPools:       []WorkerPool{{Name: "local"}, {Name: "old", KubernetesVersion: "v1.32.4"}},
		VPN:               VPNConfig{Endpoint: "api.local.dev.internal.local.gardener.cloud"},
		KubeProxy:         KubeProxyConfig{Mode: ModeIPTables},
	}
}

// customised is an HA shoot with IPVS, node-local DNS, pinned images and a verified metrics API.
func customised() Values {
	v := base()
	v.KubeProxy.Mode = ModeIPVS
	v.NodeLocalDNS = NodeLocalDNSConfig{Enabled: true, UDPToUpstreamDNS: true}
	v.VPN.HighAvailability = true
	v.VPN.SecretName = "vpn-client-cert"
	v.MetricsServer = MetricsServerConfig{TLSSecretName: "metrics-server-tls", CABundle: render.GeneratedRef(shootNamespace, "ca-metrics-server", "ca.crt", true)}
	v.APIServerHost = "api.local.dev.internal.local.gardener.cloud"
	v.Images = map[string]string{"coredns": "v1.12.2", "kube-proxy": "registry.example.com/kube-proxy@sha256:0123"}
	return v
}

func TestManagedResourcesGolden(t *testing.T) {
	for name, v := range map[string]Values{"default": base(), "customised": customised()} {
		t.Run(name, func(t *testing.T) {
			objs, err := ManagedResources(v, "seed", shootNamespace)
			require.NoError(t, err)
			golden.Assert(t, name, objs)
		})
	}
}

// all flattens the parts' objects.
func all(t *testing.T, v Values) []*unstructured.Unstructured {
	t.Helper()
	parts, err := Parts(v)
	require.NoError(t, err)
	var out []*unstructured.Unstructured
	for _, p := range parts {
		out = append(out, p.Objects...)
	}
	return out
}

func find(objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	return nil
}

func mustFind(t *testing.T, objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	t.Helper()
	o := find(objs, kind, name)
	require.NotNil(t, o, "%s %s", kind, name)
	return o
}

func partNames(t *testing.T, v Values) []string {
	t.Helper()
	parts, err := Parts(withVPNNamespace(v))
	require.NoError(t, err)
	var names []string
	for _, p := range parts {
		names = append(names, p.Name)
	}
	return names
}

func TestManagedResourceNames(t *testing.T) {
	assert.Equal(t, []string{
		"shoot-core-coredns", "shoot-core-kube-proxy", "shoot-core-kube-proxy-local-v1.33.1", "shoot-core-kube-proxy-old-v1.32.4",
		"shoot-core-vpn-shoot", "shoot-core-metrics-server",
	}, partNames(t, base()))
	disabled := customised()
	disabled.KubeProxy.Disabled = true
	assert.Equal(t, []string{"shoot-core-coredns", "shoot-core-vpn-shoot", "shoot-core-metrics-server", "shoot-core-node-local-dns"}, partNames(t, disabled))
}

// A pool's kube-proxy ManagedResource and its Secret at one version supersede the same pool's at
// any other version, so that an update's deletion of the old ones reads as part of the update;
// nothing of another pool or another component is matched.
func TestKubeProxyPoolSupersedesItsOtherVersions(t *testing.T) {
	objs, err := ManagedResources(base(), "seed", shootNamespace)
	require.NoError(t, err)
	supersedes := map[string]*regexp.Regexp{}
	checksum := regexp.MustCompile(`-[0-9a-f]{8}$`)
	for _, o := range objs {
		name := o.Object.GetName()
		if o.Object.GetKind() == "Secret" {
			name = checksum.ReplaceAllString(name, "") // named after its contents
		}
		if o.Supersedes != nil && strings.Contains(name, "kube-proxy-") {
			supersedes[o.Object.GetKind()+" "+name] = o.Supersedes
		}
	}
	require.Len(t, supersedes, 4, "the ManagedResource and Secret of each of the two pools")
	for _, tc := range []struct {
		object, name string
		matches      bool
	}{
		{"ManagedResource shoot-core-kube-proxy-local-v1.33.1", "shoot-core-kube-proxy-local-v1.32.9", true},
		{"ManagedResource shoot-core-kube-proxy-local-v1.33.1", "shoot-core-kube-proxy-local-v1.34.0-rc.1", true},
		{"ManagedResource shoot-core-kube-proxy-local-v1.33.1", "shoot-core-kube-proxy-local-v1-v1.32.9", false},
		{"ManagedResource shoot-core-kube-proxy-local-v1.33.1", "shoot-core-kube-proxy-old-v1.32.4", false},
		{"ManagedResource shoot-core-kube-proxy-local-v1.33.1", "shoot-core-kube-proxy", false},
		{"ManagedResource shoot-core-kube-proxy-local-v1.33.1", "managedresource-shoot-core-kube-proxy-local-v1.32.9", false},
		{"Secret managedresource-shoot-core-kube-proxy-local-v1.33.1", "managedresource-shoot-core-kube-proxy-local-v1.32.9", true},
		{"Secret managedresource-shoot-core-kube-proxy-local-v1.33.1", "shoot-core-kube-proxy-local-v1.32.9", false},
		{"ManagedResource shoot-core-kube-proxy-old-v1.32.4", "shoot-core-kube-proxy-old-v1.31.7", true},
		{"ManagedResource shoot-core-kube-proxy-old-v1.32.4", "shoot-core-kube-proxy-local-v1.31.7", false},
	} {
		re, ok := supersedes[tc.object]
		require.True(t, ok, tc.object)
		assert.Equal(t, tc.matches, re.MatchString(tc.name), "%s supersedes %s", tc.object, tc.name)
	}

	v := base()
	v.KubeProxy.Disabled = true
	objs, err = ManagedResources(v, "seed", shootNamespace)
	require.NoError(t, err)
	for _, o := range objs {
		if o.Object.GetKind() == "ManagedResource" {
			assert.Nil(t, o.Supersedes, "without kube-proxy no ManagedResource is versioned: %s", o.Object.GetName())
		}
	}
}

func TestManagedResourcesForTheShootResourceManager(t *testing.T) {
	objs, err := ManagedResources(base(), "seed", shootNamespace)
	require.NoError(t, err)
	mrs := 0
	for _, o := range objs {
		assert.Equal(t, "seed", o.Cluster)
		assert.Equal(t, shootNamespace, o.Object.GetNamespace())
		if o.Object.GetKind() != "ManagedResource" {
			continue
		}
		mrs++
		_, hasClass, _ := unstructured.NestedString(o.Object.Object, "spec", "class")
		assert.False(t, hasClass, "the shoot's resource manager reconciles class-less ManagedResources (Gardener's docs/extensions/conventions.md)")
		assert.Equal(t, "gardener", o.Object.GetLabels()["origin"], "Gardener's docs/extensions/conventions.md")
	}
	assert.Equal(t, 6, mrs)
	// The control plane namespace defaults to the ManagedResources' namespace.
	vpn := mustFind(t, all(t, withVPNNamespace(base())), "Deployment", "vpn-shoot")
	assert.Contains(t, envOf(t, vpn, "vpn-shoot")["REVERSED_VPN_HEADER"], "vpn-seed-server."+shootNamespace+".svc")
}

func withVPNNamespace(v Values) Values {
	v.VPN.ControlPlaneNamespace = shootNamespace
	return v
}

func envOf(t *testing.T, workload *unstructured.Unstructured, container string) map[string]string {
	t.Helper()
	containers, _, _ := unstructured.NestedSlice(workload.Object, "spec", "template", "spec", "containers")
	for _, c := range containers {
		c := c.(map[string]any)
		if c["name"] != container {
			continue
		}
		out := map[string]string{}
		env, _ := c["env"].([]any)
		for _, e := range env {
			e := e.(map[string]any)
			if s, ok := e["value"].(string); ok {
				out[e["name"].(string)] = s
			}
		}
		return out
	}
	t.Fatalf("no container %s in %s", container, workload.GetName())
	return nil
}

func TestPriorityClasses(t *testing.T) {
	objs := all(t, withVPNNamespace(customised()))
	nonHA := all(t, withVPNNamespace(base()))
	tests := []struct {
		objs       []*unstructured.Unstructured
		kind, name string
		want       string
	}{
		{objs, "Deployment", "coredns", "system-cluster-critical"},              // Gardener's docs/development/priority-classes.md
		{nonHA, "Deployment", "vpn-shoot", "system-cluster-critical"},           // Gardener's docs/development/priority-classes.md
		{objs, "StatefulSet", "vpn-shoot", "system-cluster-critical"},           // Gardener's docs/development/priority-classes.md
		{objs, "DaemonSet", "kube-proxy-local-v1.33.1", "system-node-critical"}, // Gardener's docs/development/priority-classes.md
		{objs, "DaemonSet", "kube-proxy-old-v1.32.4", "system-node-critical"},   // Gardener's docs/development/priority-classes.md
		{objs, "DaemonSet", "node-local-dns", "system-node-critical"},           // node-critical, Gardener's docs/usage/advanced/node-readiness.md
		{objs, "Deployment", "metrics-server", "system-cluster-critical"},       // our choice
	}
	for _, tt := range tests {
		o := mustFind(t, tt.objs, tt.kind, tt.name)
		got, _, _ := unstructured.NestedString(o.Object, "spec", "template", "spec", "priorityClassName")
		assert.Equal(t, tt.want, got, tt.name)
	}
}

func TestClusterDNSIP(t *testing.T) {
	tests := []struct{ cidr, want, err string }{
		{"100.64.0.0/13", "100.64.0.10", ""},
		{"10.96.0.0/12", "10.96.0.10", ""},
		{"10.96.0.5/12", "10.96.0.10", ""},
		{"fd00:10:2::/112", "fd00:10:2::a", ""},
		{"10.0.0.0/29", "", "too small"},
		{"", "", "service network is required"},
		{"nope", "", `service network "nope"`},
	}
	for _, tt := range tests {
		got, err := ClusterDNSIP(tt.cidr)
		if tt.err != "" {
			assert.ErrorContains(t, err, tt.err, tt.cidr)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, tt.cidr)
	}
}

func TestCoreDNS(t *testing.T) {
	objs, err := CoreDNS(base())
	require.NoError(t, err)
	svc := mustFind(t, objs, "Service", "kube-dns")
	assert.Equal(t, "kube-system", svc.GetNamespace())
	ip, _, _ := unstructured.NestedString(svc.Object, "spec", "clusterIP")
	assert.Equal(t, "100.64.0.10", ip)
	ports, _, _ := unstructured.NestedSlice(svc.Object, "spec", "ports")
	assert.Equal(t, int64(8053), ports[0].(map[string]any)["targetPort"], "kube-dns forwards to 8053 (Gardener's docs/usage/networking/custom-dns-config.md)")
	assert.Equal(t, "kube-dns", svc.GetLabels()["k8s-app"], "the allow-dns policy selects k8s-app=kube-dns (Gardener's docs/operations/network_policies.md)")
	cm := mustFind(t, objs, "ConfigMap", "coredns")
	corefile, _, _ := unstructured.NestedString(cm.Object, "data", "Corefile")
	assert.Contains(t, corefile, "import custom/*.override", "Gardener's docs/usage/networking/custom-dns-config.md")
	assert.Contains(t, corefile, "import custom/*.server", "Gardener's docs/usage/networking/custom-dns-config.md")
	custom := mustFind(t, objs, "ConfigMap", "coredns-custom")
	assert.Equal(t, "true", custom.GetAnnotations()["resources.gardener.cloud/ignore"], "users' edits survive (Gardener's docs/concepts/resource-manager.md)")
	hpa := mustFind(t, objs, "HorizontalPodAutoscaler", "coredns")
	minReplicas, _, _ := unstructured.NestedInt64(hpa.Object, "spec", "minReplicas")
	maxReplicas, _, _ := unstructured.NestedInt64(hpa.Object, "spec", "maxReplicas")
	assert.Equal(t, []int64{2, 5}, []int64{minReplicas, maxReplicas}, "Gardener's docs/usage/autoscaling/dns-autoscaling.md")
	mustFind(t, objs, "PodDisruptionBudget", "coredns")
	mustFind(t, objs, "ClusterRole", "system:coredns")
	mustFind(t, objs, "ClusterRoleBinding", "system:coredns")
}

func TestKubeProxy(t *testing.T) {
	objs, err := KubeProxy(base())
	require.NoError(t, err)
	ds := mustFind(t, objs, "DaemonSet", "kube-proxy-old-v1.32.4")
	sel, _, _ := unstructured.NestedStringMap(ds.Object, "spec", "template", "spec", "nodeSelector")
	assert.Equal(t, map[string]string{"worker.gardener.cloud/pool": "old", "worker.gardener.cloud/kubernetes-version": "1.32.4"}, sel)
	assert.Equal(t, "true", ds.GetLabels()["node.gardener.cloud/critical-component"], "Gardener's docs/usage/advanced/node-readiness.md")
	containers, _, _ := unstructured.NestedSlice(ds.Object, "spec", "template", "spec", "containers")
	assert.Equal(t, "registry.k8s.io/kube-proxy:v1.32.4", containers[0].(map[string]any)["image"], "tagged by the pool's version")
	cm := mustFind(t, objs, "ConfigMap", "kube-proxy-config")
	cfg, _, _ := unstructured.NestedString(cm.Object, "data", "config.yaml")
	assert.Contains(t, cfg, "mode: iptables", "IPTables is the default (Gardener's KubeProxyConfig in docs/api-reference/core.md)")
	assert.Contains(t, cfg, "clusterCIDR: 100.96.0.0/11")

	ipvs := base()
	ipvs.KubeProxy.Mode = ModeIPVS
	objs, err = KubeProxy(ipvs)
	require.NoError(t, err)
	cfg, _, _ = unstructured.NestedString(mustFind(t, objs, "ConfigMap", "kube-proxy-config").Object, "data", "config.yaml")
	assert.Contains(t, cfg, "mode: ipvs")

	disabled := base()
	disabled.KubeProxy.Disabled = true
	objs, err = KubeProxy(disabled)
	require.NoError(t, err)
	assert.Empty(t, objs, "Gardener's KubeProxyConfig in docs/api-reference/core.md")
	for _, o := range all(t, withVPNNamespace(disabled)) {
		assert.False(t, strings.HasPrefix(o.GetName(), "kube-proxy"), "%s %s rendered with kube-proxy disabled", o.GetKind(), o.GetName())
	}
}

func TestNodeLocalDNSOnlyWhenEnabled(t *testing.T) {
	objs, err := NodeLocalDNS(base())
	require.NoError(t, err)
	assert.Empty(t, objs)
	assert.Nil(t, find(all(t, withVPNNamespace(base())), "DaemonSet", "node-local-dns"))

	v := base()
	v.NodeLocalDNS.Enabled = true
	objs, err = NodeLocalDNS(v)
	require.NoError(t, err)
	ds := mustFind(t, objs, "DaemonSet", "node-local-dns")
	assert.Equal(t, "kube-system", ds.GetNamespace())
	args, _, _ := unstructured.NestedSlice(ds.Object, "spec", "template", "spec", "containers")
	assert.Contains(t, args[0].(map[string]any)["args"], "169.254.20.10,100.64.0.10", "IPTables mode also answers on the kube-dns address")
	mustFind(t, objs, "Service", "kube-dns-upstream")
	corefile, _, _ := unstructured.NestedString(mustFind(t, objs, "ConfigMap", "node-local-dns").Object, "data", "Corefile")
	assert.Contains(t, corefile, "force_tcp", "TCP is forced by default (Gardener's NodeLocalDNS in docs/api-reference/core.md)")
	assert.Contains(t, corefile, "__PILLAR__UPSTREAM__SERVERS__")

	v.NodeLocalDNS.DisableForwardToUpstreamDNS = true
	v.KubeProxy.Mode = ModeIPVS
	objs, err = NodeLocalDNS(v)
	require.NoError(t, err)
	corefile, _, _ = unstructured.NestedString(mustFind(t, objs, "ConfigMap", "node-local-dns").Object, "data", "Corefile")
	assert.NotContains(t, corefile, "__PILLAR__UPSTREAM__SERVERS__", "Gardener's docs/usage/networking/custom-dns-config.md")
	assert.Contains(t, corefile, "bind 169.254.20.10\n")
}

func TestVPNShoot(t *testing.T) {
	objs, err := VPNShoot(withVPNNamespace(base()))
	require.NoError(t, err)
	d := mustFind(t, objs, "Deployment", "vpn-shoot")
	assert.Equal(t, "vpn-shoot", d.GetLabels()["app"], "Gardener's docs/operations/network_policies.md")
	env := envOf(t, d, "vpn-shoot")
	assert.Equal(t, "8132", env["OPENVPN_PORT"], "Gardener's docs/usage/advanced/control-plane-endpoints-and-ports.md")
	assert.Equal(t, "100.64.0.0/13", env["SERVICE_NETWORK"])

	objs, err = VPNShoot(withVPNNamespace(customised()))
	require.NoError(t, err)
	assert.Nil(t, find(objs, "Deployment", "vpn-shoot"))
	sts := mustFind(t, objs, "StatefulSet", "vpn-shoot")
	replicas, _, _ := unstructured.NestedInt64(sts.Object, "spec", "replicas")
	assert.Equal(t, int64(2), replicas, "two clients in HA (Gardener's docs/development/reversed-vpn-tunnel.md)")
	assert.Contains(t, envOf(t, sts, "vpn-shoot-s1")["REVERSED_VPN_HEADER"], "vpn-seed-server-1.")
}

func TestMetricsServer(t *testing.T) {
	objs, err := MetricsServer(base())
	require.NoError(t, err)
	api := mustFind(t, objs, "APIService", "v1beta1.metrics.k8s.io")
	svc, _, _ := unstructured.NestedString(api.Object, "spec", "service", "name")
	assert.Equal(t, "metrics-server", svc)
	insecure, _, _ := unstructured.NestedBool(api.Object, "spec", "insecureSkipTLSVerify")
	assert.True(t, insecure, "without a CA bundle")
	mustFind(t, objs, "Service", "metrics-server")
	mustFind(t, objs, "Deployment", "metrics-server")
	mustFind(t, objs, "RoleBinding", "metrics-server-auth-reader")

	objs, err = MetricsServer(customised())
	require.NoError(t, err)
	api = mustFind(t, objs, "APIService", "v1beta1.metrics.k8s.io")
	ca, _, _ := unstructured.NestedString(api.Object, "spec", "caBundle")
	assert.Equal(t, "${generated:shoot--dev--local/ca-metrics-server/ca.crt:base64}", ca)
	_, found, _ := unstructured.NestedBool(api.Object, "spec", "insecureSkipTLSVerify")
	assert.False(t, found)
}

// TestWorkloads checks what the API server would reject or what would never become ready: a
// selector that does not match the template, objects outside kube-system.
func TestWorkloads(t *testing.T) {
	for name, v := range map[string]Values{"default": base(), "customised": customised()} {
		for _, o := range all(t, withVPNNamespace(v)) {
			switch o.GetKind() {
			case "ClusterRole", "ClusterRoleBinding", "APIService":
				assert.Empty(t, o.GetNamespace())
			default:
				assert.Equal(t, "kube-system", o.GetNamespace(), "%s: %s %s", name, o.GetKind(), o.GetName())
			}
			switch o.GetKind() {
			case "Deployment", "DaemonSet", "StatefulSet":
				sel, _, _ := unstructured.NestedStringMap(o.Object, "spec", "selector", "matchLabels")
				tmpl, _, _ := unstructured.NestedStringMap(o.Object, "spec", "template", "metadata", "labels")
				assert.True(t, labels.SelectorFromSet(sel).Matches(labels.Set(tmpl)), "%s: %s %s", name, o.GetKind(), o.GetName())
			}
			_, err := yaml.Marshal(o.Object)
			assert.NoError(t, err)
		}
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Values)
		want   string
	}{
		{"no version", func(v *Values) { v.KubernetesVersion = "" }, "kubernetes version is required"},
		{"no service network", func(v *Values) { v.ServiceCIDR = "" }, "service network is required"},
		{"bad pod network", func(v *Values) { v.PodCIDR = "100.96.0.0" }, `pod network "100.96.0.0"`},
		{"no pod network with kube-proxy", func(v *Values) { v.PodCIDR = "" }, "kube-proxy needs the pod network"},
		{"bad mode", func(v *Values) { v.KubeProxy.Mode = "nftables" }, `kube-proxy mode "nftables"`},
		{"bad pool name", func(v *Values) { v.WorkerPools[0].Name = "Pool_1" }, `worker pool name "Pool_1" is invalid`},
		{"pool twice", func(v *Values) { v.WorkerPools[1].Name = "local" }, `worker pool "local" is listed twice`},
		{"unknown image", func(v *Values) { v.Images = map[string]string{"corednz": "v1"} }, `image "corednz" is not in the image vector`},
		{"no vpn endpoint", func(v *Values) { v.VPN.Endpoint = "" }, "vpn-shoot needs the endpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := base()
			tt.modify(&v)
			_, err := ManagedResources(v, "seed", shootNamespace)
			assert.ErrorContains(t, err, tt.want)
		})
	}
	_, err := ManagedResources(base(), "", shootNamespace)
	assert.ErrorContains(t, err, "cluster, namespace and name are required")
}

// With generated Secrets named, vpn-shoot's and metrics-server's Secrets are rendered with
// markers the engine fills in: data keys that stand for base64 already, not encoded again.
func TestSecretsFromGeneratedSecrets(t *testing.T) {
	assert.Nil(t, find(all(t, withVPNNamespace(base())), "Secret", "vpn-shoot-client"), "without generated Secrets, none")
	v := withVPNNamespace(base())
	v.VPN.Client = Generated{Namespace: "shoot--p--s", Name: "vpn-shoot-client"}
	v.VPN.CA = Generated{Namespace: "shoot--p--s", Name: "ca-vpn"}
	v.VPN.TLSAuth = Generated{Namespace: "shoot--p--s", Name: "vpn-seed-server-tlsauth"}
	v.MetricsServer.TLS = Generated{Namespace: "shoot--p--s", Name: "metrics-server"}
	objs := all(t, v)
	client := mustFind(t, objs, "Secret", "vpn-shoot-client")
	assert.Equal(t, "kube-system", client.GetNamespace())
	assert.Equal(t, map[string]any{
		"tls.crt": render.GeneratedRef("shoot--p--s", "vpn-shoot-client", "tls.crt", true),
		"tls.key": render.GeneratedRef("shoot--p--s", "vpn-shoot-client", "tls.key", true),
		"ca.crt":  render.GeneratedRef("shoot--p--s", "ca-vpn", "ca.crt", true),
	}, client.Object["data"])
	tlsauth := mustFind(t, objs, "Secret", "vpn-seed-server-tlsauth")
	assert.Equal(t, map[string]any{"vpn.tlsauth": render.GeneratedRef("shoot--p--s", "vpn-seed-server-tlsauth", "vpn.tlsauth", true)}, tlsauth.Object["data"])
	serving := mustFind(t, objs, "Secret", "metrics-server")
	assert.Contains(t, serving.Object["data"], "tls.key")
}
