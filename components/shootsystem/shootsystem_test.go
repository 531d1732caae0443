package shootsystem

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/internal/unique"
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
		APIServerHost:     "api.local.dev.internal.local.gardener.cloud",
		ClusterCA:         Generated{Namespace: shootNamespace, Name: "ca"},
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
		"shoot-core-namespaces", "shoot-core-coredns", "shoot-core-kube-proxy", "shoot-core-kube-proxy-local-v1.33.1", "shoot-core-kube-proxy-old-v1.32.4",
		"shoot-core-vpn-shoot", "shoot-core-metrics-server",
	}, partNames(t, base()))
	disabled := customised()
	disabled.KubeProxy.Disabled = true
	assert.Equal(t, []string{"shoot-core-namespaces", "shoot-core-coredns", "shoot-core-vpn-shoot", "shoot-core-metrics-server", "shoot-core-node-local-dns"}, partNames(t, disabled))
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
		// NewForShoot in pkg/utils/managedresources at gardener/gardener v1.120.0.
		inject, _, _ := unstructured.NestedStringMap(o.Object.Object, "spec", "injectLabels")
		assert.Equal(t, map[string]string{"shoot.gardener.cloud/no-cleanup": "true"}, inject, o.Object.GetName())
		keep, found, _ := unstructured.NestedBool(o.Object.Object, "spec", "keepObjects")
		assert.True(t, found)
		assert.Equal(t, o.Object.GetName() == "shoot-core-namespaces", keep, "%s: only the namespace labels stay", o.Object.GetName())
	}
	assert.Equal(t, 7, mrs)
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

// TestCoreDNS: CoreDNS as gardenlet deploys it (pkg/component/networking/coredns at gardener/gardener
// v1.120.0).
func TestCoreDNS(t *testing.T) {
	objs, err := CoreDNS(base())
	require.NoError(t, err)
	svc := mustFind(t, objs, "Service", "kube-dns")
	assert.Equal(t, "kube-system", svc.GetNamespace())
	ip, _, _ := unstructured.NestedString(svc.Object, "spec", "clusterIP")
	assert.Equal(t, "100.64.0.10", ip)
	ports, _, _ := unstructured.NestedSlice(svc.Object, "spec", "ports")
	assert.Equal(t, int64(8053), ports[0].(map[string]any)["targetPort"], "kube-dns forwards to 8053 (Gardener's docs/usage/networking/custom-dns-config.md)")
	assert.Equal(t, map[string]string{"k8s-app": "kube-dns", "kubernetes.io/cluster-service": "true", "kubernetes.io/name": "CoreDNS"}, svc.GetLabels())
	cm := mustFind(t, objs, "ConfigMap", "coredns")
	corefile, _, _ := unstructured.NestedString(cm.Object, "data", "Corefile")
	assert.Contains(t, corefile, "import custom/*.override", "Gardener's docs/usage/networking/custom-dns-config.md")
	assert.Contains(t, corefile, "import custom/*.server", "Gardener's docs/usage/networking/custom-dns-config.md")
	assert.Contains(t, corefile, `    name regex (^(?:[^\.]+\.)+)svc\.cluster\.local\.svc\.cluster\.local {1}svc.cluster.local`, "the search path rewrite")
	custom := mustFind(t, objs, "ConfigMap", "coredns-custom")
	assert.Equal(t, "true", custom.GetAnnotations()["resources.gardener.cloud/ignore"], "users' edits survive (Gardener's docs/concepts/resource-manager.md)")
	hpa := mustFind(t, objs, "HorizontalPodAutoscaler", "coredns")
	minReplicas, _, _ := unstructured.NestedInt64(hpa.Object, "spec", "minReplicas")
	maxReplicas, _, _ := unstructured.NestedInt64(hpa.Object, "spec", "maxReplicas")
	assert.Equal(t, []int64{2, 5}, []int64{minReplicas, maxReplicas}, "Gardener's docs/usage/autoscaling/dns-autoscaling.md")
	mustFind(t, objs, "PodDisruptionBudget", "coredns")
	mustFind(t, objs, "ClusterRole", "system:coredns")
	mustFind(t, objs, "ClusterRoleBinding", "system:coredns")

	var d appsv1.Deployment
	typed(t, mustFind(t, objs, "Deployment", "coredns"), &d)
	assert.Equal(t, map[string]string{"origin": "gardener", "gardener.cloud/role": "system-component", "k8s-app": "kube-dns", "high-availability-config.resources.gardener.cloud/type": "server"}, d.Labels)
	assert.Equal(t, map[string]string{"origin": "gardener", "gardener.cloud/role": "system-component", "k8s-app": "kube-dns"}, d.Spec.Template.Labels)
	c := d.Spec.Template.Spec.Containers[0]
	assert.Equal(t, "/ready", c.ReadinessProbe.HTTPGet.Path)
	assert.Equal(t, int32(8181), c.ReadinessProbe.HTTPGet.Port.IntVal)
	assert.Equal(t, [5]int32{1, 1, 30, 2, 10}, [5]int32{c.ReadinessProbe.SuccessThreshold, c.ReadinessProbe.FailureThreshold, c.ReadinessProbe.InitialDelaySeconds, c.ReadinessProbe.TimeoutSeconds, c.ReadinessProbe.PeriodSeconds})
	assert.Equal(t, "/health", c.LivenessProbe.HTTPGet.Path)
	assert.Equal(t, []corev1.EnvVar{{Name: "KUBERNETES_SERVICE_HOST", Value: "api.local.dev.internal.local.gardener.cloud."}}, c.Env, "the FQDN")
	assert.Equal(t, ptr.To(true), c.SecurityContext.ReadOnlyRootFilesystem)

	var np networkingv1.NetworkPolicy
	typed(t, mustFind(t, objs, "NetworkPolicy", "gardener.cloud--allow-dns"), &np)
	assert.Equal(t, "kube-system", np.Namespace)
	assert.Equal(t, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}, np.Spec.PolicyTypes)
	assert.Equal(t, `{"matchExpressions":[{"key":"k8s-app","operator":"In","values":["kube-dns"]}]}`, jsonOf(t, np.Spec.PodSelector))
	var egress, ingress []string
	for _, p := range np.Spec.Egress[0].Ports {
		egress = append(egress, fmt.Sprintf("%s/%d", *p.Protocol, p.Port.IntVal))
	}
	for _, p := range np.Spec.Ingress[0].Ports {
		ingress = append(ingress, fmt.Sprintf("%s/%d", *p.Protocol, p.Port.IntVal))
	}
	assert.Equal(t, []string{"TCP/443", "TCP/53", "UDP/53"}, egress, "to the API server and upstream DNS")
	assert.Equal(t, []string{"TCP/9153", "TCP/8053", "UDP/8053"}, ingress)
	var blocks []string
	for _, peer := range np.Spec.Ingress[0].From {
		if peer.IPBlock != nil {
			blocks = append(blocks, peer.IPBlock.CIDR)
		}
	}
	assert.Equal(t, []string{"10.250.0.0/16", "100.96.0.0/11"}, blocks, "from the node and pod networks")
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	out, err := json.Marshal(v)
	require.NoError(t, err)
	return string(out)
}

// findPrefix is the object of kind whose name starts with prefix, for objects named after a
// checksum of their data.
func findPrefix(t *testing.T, objs []*unstructured.Unstructured, kind, prefix string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == kind && regexp.MustCompile("^"+regexp.QuoteMeta(prefix)+"-[0-9a-f]{8}$").MatchString(o.GetName()) {
			return o
		}
	}
	t.Fatalf("no %s %s-<checksum>", kind, prefix)
	return nil
}

func typed(t *testing.T, u *unstructured.Unstructured, out any) {
	t.Helper()
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out))
}

// TestKubeProxy: kube-proxy as gardenlet deploys it (pkg/component/kubernetes/proxy and
// pkg/gardenlet/operation/botanist/kubeproxy.go at gardener/gardener v1.120.0).
func TestKubeProxy(t *testing.T) {
	objs, err := KubeProxy(withVPNNamespace(base()))
	require.NoError(t, err)
	// Its kubeconfig: the API server's internal domain, the cluster CA, the projected token.
	secret := findPrefix(t, objs, "Secret", "kube-proxy")
	text, _, _ := unstructured.NestedString(secret.Object, "stringData", "kubeconfig")
	var kubeconfig struct {
		Clusters []struct{ Cluster map[string]string }
		Users    []struct{ User map[string]string }
	}
	require.NoError(t, yaml.Unmarshal([]byte(text), &kubeconfig))
	assert.Equal(t, map[string]string{"server": "https://api.local.dev.internal.local.gardener.cloud", "certificate-authority-data": render.GeneratedRef(shootNamespace, "ca", "ca.crt", true)}, kubeconfig.Clusters[0].Cluster)
	assert.Equal(t, map[string]string{"tokenFile": "/var/run/secrets/kubernetes.io/serviceaccount/token"}, kubeconfig.Users[0].User)
	_, immutable := secret.Object["immutable"]
	assert.False(t, immutable, "it holds the generated CA, which the engine renews in place")
	// Its configuration names the kubeconfig.
	cm := findPrefix(t, objs, "ConfigMap", "kube-proxy-config")
	assert.Equal(t, true, cm.Object["immutable"])
	cfgText, _, _ := unstructured.NestedString(cm.Object, "data", "config.yaml")
	var cfg map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(cfgText), &cfg))
	assert.Equal(t, map[string]any{"kubeconfig": "/var/lib/kube-proxy-kubeconfig/kubeconfig"}, cfg["clientConnection"])
	assert.Equal(t, "iptables", cfg["mode"], "IPTables is the default (Gardener's KubeProxyConfig in docs/api-reference/core.md)")
	assert.Equal(t, "100.96.0.0/11", cfg["clusterCIDR"])
	assert.Equal(t, "0.0.0.0:10249", cfg["metricsBindAddress"])
	assert.Equal(t, map[string]any{"maxPerCore": float64(524288)}, cfg["conntrack"])
	svc := mustFind(t, objs, "Service", "kube-proxy")
	clusterIP, _, _ := unstructured.NestedString(svc.Object, "spec", "clusterIP")
	assert.Equal(t, "None", clusterIP)
	sa := mustFind(t, objs, "ServiceAccount", "kube-proxy")
	assert.Equal(t, false, sa.Object["automountServiceAccountToken"], "the resource manager mounts a projected token")
	mustFind(t, objs, "ClusterRoleBinding", "gardener.cloud:target:node-proxier")

	// One DaemonSet per pool and version, reading what the shared ManagedResource holds.
	var ds appsv1.DaemonSet
	typed(t, mustFind(t, objs, "DaemonSet", "kube-proxy-old-v1.32.4"), &ds)
	assert.Equal(t, map[string]string{"worker.gardener.cloud/pool": "old", "worker.gardener.cloud/kubernetes-version": "1.32.4"}, ds.Spec.Template.Spec.NodeSelector)
	assert.Equal(t, map[string]string{"origin": "gardener", "gardener.cloud/role": "system-component", "node.gardener.cloud/critical-component": "true"}, ds.Labels)
	assert.Equal(t, map[string]string{"app": "kubernetes", "role": "proxy", "pool": "old", "version": "1.32.4"}, ds.Spec.Selector.MatchLabels)
	volumes := map[string]corev1.Volume{}
	for _, v := range ds.Spec.Template.Spec.Volumes {
		volumes[v.Name] = v
	}
	assert.Equal(t, secret.GetName(), volumes["kubeconfig"].Secret.SecretName)
	assert.Equal(t, cm.GetName(), volumes["kube-proxy-config"].ConfigMap.Name)
	assert.Equal(t, secret.GetName(), ds.Spec.Template.Annotations[unique.AnnotationKey("secret", secret.GetName())], "the garbage collector keeps what it mounts")
	var names []string
	for _, c := range ds.Spec.Template.Spec.InitContainers {
		names = append(names, c.Name)
	}
	assert.Equal(t, []string{"cleanup", "kube-proxy-init"}, names, "from Kubernetes 1.29 the kernel parameters are set by an init container")
	proxy, fix := ds.Spec.Template.Spec.Containers[0], ds.Spec.Template.Spec.Containers[1]
	assert.Equal(t, "registry.k8s.io/kube-proxy:v1.32.4", proxy.Image, "tagged by the pool's version")
	assert.Equal(t, []string{"/usr/local/bin/kube-proxy", "--config=/var/lib/kube-proxy-config/config.yaml", "--v=2"}, proxy.Command)
	assert.Equal(t, "/livez", proxy.ReadinessProbe.HTTPGet.Path)
	assert.Equal(t, []corev1.Capability{"NET_ADMIN", "SYS_RESOURCE"}, proxy.SecurityContext.Capabilities.Add)
	assert.Nil(t, proxy.SecurityContext.Privileged)
	assert.Equal(t, "conntrack-fix", fix.Name)
	assert.Equal(t, "europe-docker.pkg.dev/gardener-project/releases/gardener/alpine-conntrack:3.21.3", fix.Image)
	assert.Equal(t, []string{"/bin/sh", "/script/conntrack_fix.sh"}, fix.Command)
	assert.Equal(t, []corev1.Capability{"NET_ADMIN"}, fix.SecurityContext.Capabilities.Add)
	conntrack := findPrefix(t, objs, "ConfigMap", "kube-proxy-conntrack-fix-script")
	assert.Equal(t, conntrack.GetName(), volumes["conntrack-fix-script"].ConfigMap.Name)
	cleanup := findPrefix(t, objs, "ConfigMap", "kube-proxy-cleanup-script")
	assert.Equal(t, cleanup.GetName(), volumes["kube-proxy-cleanup-script"].ConfigMap.Name)

	// Before 1.29 kube-proxy runs privileged itself and there is no init container for it.
	old := base()
	old.WorkerPools = []WorkerPool{{Name: "old", KubernetesVersion: "1.28.6"}}
	objs, err = KubeProxy(withVPNNamespace(old))
	require.NoError(t, err)
	typed(t, mustFind(t, objs, "DaemonSet", "kube-proxy-old-v1.28.6"), &ds)
	assert.Len(t, ds.Spec.Template.Spec.InitContainers, 1)
	assert.Equal(t, ptr.To(true), ds.Spec.Template.Spec.Containers[0].SecurityContext.Privileged)

	ipvs := base()
	ipvs.KubeProxy.Mode = ModeIPVS
	objs, err = KubeProxy(ipvs)
	require.NoError(t, err)
	cfgText, _, _ = unstructured.NestedString(findPrefix(t, objs, "ConfigMap", "kube-proxy-config").Object, "data", "config.yaml")
	assert.Contains(t, cfgText, "mode: ipvs")
	assert.NotContains(t, cfgText, "clusterCIDR", "only in iptables mode")

	disabled := base()
	disabled.KubeProxy.Disabled = true
	objs, err = KubeProxy(disabled)
	require.NoError(t, err)
	assert.Empty(t, objs, "Gardener's KubeProxyConfig in docs/api-reference/core.md")
	for _, o := range all(t, withVPNNamespace(disabled)) {
		assert.False(t, strings.HasPrefix(o.GetName(), "kube-proxy"), "%s %s rendered with kube-proxy disabled", o.GetKind(), o.GetName())
	}
}

// TestKubeProxyManagedResourceLabels: the labels gardenlet finds kube-proxy's ManagedResources
// and their Secrets by.
func TestKubeProxyManagedResourceLabels(t *testing.T) {
	objs, err := ManagedResources(base(), "seed", shootNamespace)
	require.NoError(t, err)
	for _, o := range objs {
		name := o.Object.GetName()
		switch {
		case o.Object.GetKind() == "ManagedResource" && name == "shoot-core-kube-proxy":
			assert.Equal(t, map[string]string{"origin": "gardener", "component": "kube-proxy"}, o.Object.GetLabels())
		case o.Object.GetKind() == "ManagedResource" && name == "shoot-core-kube-proxy-old-v1.32.4":
			assert.Equal(t, map[string]string{"origin": "gardener", "component": "kube-proxy", "role": "pool", "pool-name": "old", "kubernetes-version": "1.32.4"}, o.Object.GetLabels())
		case o.Object.GetKind() == "Secret" && strings.HasPrefix(name, "managedresource-shoot-core-kube-proxy-old-"):
			assert.Equal(t, "pool", o.Object.GetLabels()["role"])
		}
	}
}

// TestNamespaces: kube-system labelled for the resource manager's webhooks, with the zones of the
// pools that allow system components (pkg/component/shoot/namespaces at v1.120.0).
func TestNamespaces(t *testing.T) {
	v := base()
	v.WorkerPools[0].Zones = []string{"b", "a"}
	v.WorkerPools[1].Zones, v.WorkerPools[1].NoSystemComponents = []string{"c"}, true
	objs, err := renderPrepared(v, (*prepared).namespaces)
	require.NoError(t, err)
	ns := mustFind(t, objs, "Namespace", "kube-system")
	assert.Equal(t, map[string]string{"gardener.cloud/purpose": "kube-system", "high-availability-config.resources.gardener.cloud/consider": "true"}, ns.GetLabels())
	assert.Equal(t, map[string]string{"high-availability-config.resources.gardener.cloud/zones": "a,b"}, ns.GetAnnotations())
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
			case "ClusterRole", "ClusterRoleBinding", "APIService", "Namespace":
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
