package kubeapiserver

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/kinds"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/golden"
)

var runtimeCluster = decode.Cluster{Name: "runtime"}

// minimal is the virtual garden's API server with the schema's defaults.
func minimal() Values {
	return rendertest.Overlay(Type.Defaults(), Values{
		Cluster:           runtimeCluster,
		KubernetesVersion: "1.31.4",
		DNSDomains:        []string{"garden.example.com"},
		ServiceNetwork:    "100.64.0.0/13",
	})
}

// advertiseAddress is the marker of the shoot Service's cluster IP the shoot composite passes.
var advertiseAddress = render.LiveValue(render.LiveRef{Cluster: "seed", Version: "v1", Resource: "services", Namespace: "shoot--dev--a", Name: "kube-apiserver", Paths: []string{"spec.clusterIP"}})

// shootWithWorkers is a shoot's API server as the shoot composite configures it: nodes reached
// through the VPN's HTTP proxy, exposed by SNI, Gardener's defaults of every Shoot.
func shootWithWorkers() Values {
	v := minimal()
	v.Cluster = decode.Cluster{Name: "seed"}
	v.NamePrefix, v.Namespace, v.Workerless = "", "shoot--dev--a", false
	v.DNSDomains = []string{"a.dev.example.com"}
	v.PriorityClassName, v.ScrapeTargetsAlias = "gardener-system-500", "all-scrape-targets"
	v.CPURequest, v.MemoryRequest = "250m", "500Mi"
	v.EventTTL = "1h"
	v.MaxRequestsInflight, v.MaxMutatingRequestsInflight, v.Verbosity = 400, 200, ptr.To(int32(2))
	v.AdvertiseAddress = advertiseAddress
	v.Kubelet = &KubeletAccess{CASecretName: "ca-kubelet", ClientSecretName: KubeletClientSecretName}
	v.VPN = &VPN{CASecretName: "ca-vpn", HTTPProxySecretName: HTTPProxySecretName, Pods: "100.96.0.0/11", Nodes: "10.0.0.0/16"}
	return v
}

// shootWithHAVPN is shootWithWorkers with a highly available control plane and VPN.
func shootWithHAVPN() Values {
	v := shootWithWorkers()
	v.HighAvailability = true
	v.VPN = &VPN{CASecretName: "ca-vpn", HighAvailability: true, Servers: 2, Clients: 2, ClientSecretName: VPNSeedClientSecretName,
		TLSAuthSecretName: "vpn-seed-server-tlsauth", Pods: "100.96.0.0/11", Nodes: "10.0.0.0/16"}
	return v
}

func cases() map[string]Values {
	ha := minimal()
	ha.HighAvailability = true
	ha.DNSDomains = []string{"garden.example.com", "garden.example.org"}
	ha.EncryptedResources = []string{"configmaps", "shoots.core.gardener.cloud"}
	ha.AuditPolicyConfigMap = "audit-policy"
	ha.EventTTL = "24h"
	ha.FeatureGates = map[string]bool{"WatchList": true, "AnonymousAuthConfigurableEndpoints": false}
	ha.EnableAdmissionPlugins = []string{"EventRateLimit"}
	ha.AdmissionPluginConfigs = map[string]string{"EventRateLimit": "apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\nlimits:\n- type: Server\n  qps: 50\n  burst: 100\n"}
	ha.TopologyAwareRouting = true
	ha.Images = map[string]string{"kube-apiserver": "registry.example.com/kube-apiserver@sha256:0123"}
	ha.AuthorizationWebhooks = []AuthorizationWebhook{SeedAuthorizer("Y2E=")}

	shoot := shootWithWorkers()
	shoot.SNI, shoot.AdvertiseAddress = false, ""
	hibernated := shoot
	hibernated.Hibernated = true
	return map[string]Values{
		"default": minimal(), "ha-customised": ha,
		"shoot-with-workers": shootWithWorkers(), "shoot-ha-vpn": shootWithHAVPN(),
		"shoot-without-sni": shoot, "shoot-hibernated": hibernated,
	}
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

// find returns the rendered object of a kind (and name, if given), converted into out when out
// is a typed struct.
func find(t *testing.T, v Values, kind, name string, out any) *unstructured.Unstructured {
	t.Helper()
	objs, err := Objects(v)
	require.NoError(t, err)
	for _, o := range objs {
		if o.Object.GetKind() == kind && (name == "" || o.Object.GetName() == name) {
			if out != nil {
				require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object.Object, out))
			}
			return o.Object
		}
	}
	t.Fatalf("no %s %s rendered", kind, name)
	return nil
}

// versioned returns the rendered object of a kind whose name is prefix and a checksum, as Gardener
// names unique ConfigMaps and Secrets, converted into out when out is a typed struct.
func versioned(t *testing.T, v Values, kind, prefix string, out any) *unstructured.Unstructured {
	t.Helper()
	objs, err := Objects(v)
	require.NoError(t, err)
	name := regexp.MustCompile("^" + regexp.QuoteMeta(prefix) + "-[0-9a-f]{8}$")
	for _, o := range objs {
		if o.Object.GetKind() == kind && name.MatchString(o.Object.GetName()) {
			if out != nil {
				require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object.Object, out))
			}
			return o.Object
		}
	}
	return nil
}

func has(t *testing.T, v Values, kind, name string) bool {
	t.Helper()
	objs, err := Objects(v)
	require.NoError(t, err)
	for _, o := range objs {
		if o.Object.GetKind() == kind && o.Object.GetName() == name {
			return true
		}
	}
	return false
}

func apiServer(t *testing.T, v Values) (appsv1.Deployment, corev1.Container) {
	t.Helper()
	var d appsv1.Deployment
	find(t, v, "Deployment", "", &d)
	require.Equal(t, "kube-apiserver", d.Spec.Template.Spec.Containers[0].Name)
	return d, d.Spec.Template.Spec.Containers[0]
}

var cipherSuites = "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,TLS_AES_128_GCM_SHA256," +
	"TLS_AES_256_GCM_SHA384,TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384," +
	"TLS_CHACHA20_POLY1305_SHA256,TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305,TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305"

// TestShootCommandLine checks the shoot kube-apiserver's flags, values and order against the
// ones Gardener v1.120.0 renders for a shoot with workers, exposed by SNI, with the non-HA VPN
// (computeKubeAPIServerArgs, InjectDefaultSettings and reconcileDeployment in
// pkg/component/kubernetes/apiserver/deployment.go and pkg/component/apiserver, and the
// expectations of pkg/component/kubernetes/apiserver/apiserver_test.go).
func TestShootCommandLine(t *testing.T) {
	_, c := apiServer(t, shootWithWorkers())
	assert.Equal(t, []string{"/usr/local/bin/kube-apiserver"}, c.Command)
	assert.Equal(t, []string{
		"--anonymous-auth=false",
		"--api-audiences=kubernetes,gardener",
		"--client-ca-file=/srv/kubernetes/ca-client/bundle.crt",
		"--enable-aggregator-routing=true",
		"--enable-bootstrap-token-auth=true",
		"--etcd-servers-overrides=/events#https://etcd-events-client:2379",
		"--external-hostname=api.a.dev.example.com",
		"--event-ttl=1h0m0s",
		"--proxy-client-cert-file=/srv/kubernetes/aggregator/tls.crt",
		"--proxy-client-key-file=/srv/kubernetes/aggregator/tls.key",
		"--requestheader-client-ca-file=/srv/kubernetes/ca-front-proxy/bundle.crt",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-username-headers=X-Remote-User",
		"--service-account-issuer=https://api.a.dev.example.com",
		"--service-cluster-ip-range=100.64.0.0/13",
		"--secure-port=443",
		"--token-auth-file=/srv/kubernetes/token/static_tokens.csv",
		"--http2-max-streams-per-connection=1000",
		"--etcd-cafile=/srv/kubernetes/etcd/ca/bundle.crt",
		"--etcd-certfile=/srv/kubernetes/etcd/client/tls.crt",
		"--etcd-keyfile=/srv/kubernetes/etcd/client/tls.key",
		"--etcd-servers=https://etcd-main-client:2379",
		"--livez-grace-period=1m",
		"--profiling=false",
		"--shutdown-delay-duration=15s",
		"--tls-cert-file=/srv/kubernetes/apiserver/tls.crt",
		"--tls-private-key-file=/srv/kubernetes/apiserver/tls.key",
		"--tls-cipher-suites=" + cipherSuites,
		"--max-requests-inflight=400",
		"--max-mutating-requests-inflight=200",
		"--v=2",
		"--audit-policy-file=/etc/kubernetes/audit/audit-policy.yaml",
		"--enable-admission-plugins=NodeRestriction",
		"--admission-control-config-file=/etc/kubernetes/admission/admission-configuration.yaml",
		"--encryption-provider-config=/etc/kubernetes/etcd-encryption-secret/encryption-configuration.yaml",
		"--advertise-address=" + advertiseAddress,
		"--service-account-signing-key-file=/srv/kubernetes/service-account-key/id_rsa",
		"--service-account-key-file=/srv/kubernetes/service-account-key-bundle/bundle.key",
		"--authorization-config=/etc/kubernetes/structured/authorization/config.yaml",
		"--egress-selector-config-file=/etc/kubernetes/egress/egress-selector-configuration.yaml",
		"--allow-privileged=true",
		"--kubelet-preferred-address-types=InternalIP,Hostname,ExternalIP",
		"--kubelet-certificate-authority=/srv/kubernetes/ca-kubelet/bundle.crt",
		"--kubelet-client-certificate=/srv/kubernetes/apiserver-kubelet/tls.crt",
		"--kubelet-client-key=/srv/kubernetes/apiserver-kubelet/tls.key",
	}, c.Args)
}

// TestVirtualGardenCommandLine checks the flags that set the virtual garden's API server apart:
// a cluster without nodes (IsWorkerless in newKubeAPIServer,
// pkg/operator/controller/garden/garden/components.go at Gardener v1.120.0) has the workload APIs
// off, no kubelet flags and no advertise address, and still NodeRestriction.
func TestVirtualGardenCommandLine(t *testing.T) {
	_, c := apiServer(t, minimal())
	for _, tc := range []struct{ flag, want string }{
		{"--runtime-config", "apps/v1=false,autoscaling/v2=false,batch/v1=false,discovery.k8s.io/v1=false,policy/v1=false,storage.k8s.io/v1/csinodes=false"},
		{"--anonymous-auth", "false"},
		{"--api-audiences", "kubernetes,gardener"},
		{"--enable-admission-plugins", "NodeRestriction"},
		{"--authorization-config", "/etc/kubernetes/structured/authorization/config.yaml"},
		{"--etcd-servers", "https://virtual-garden-etcd-main-client:2379"},
		{"--etcd-servers-overrides", "/events#https://virtual-garden-etcd-events-client:2379"},
		{"--external-hostname", "api.garden.example.com"},
		{"--tls-cipher-suites", cipherSuites},
		{"--token-auth-file", "/srv/kubernetes/token/static_tokens.csv"},
	} {
		assert.Contains(t, c.Args, tc.flag+"="+tc.want, tc.flag)
	}
	for _, absent := range []string{"--allow-privileged", "--kubelet-", "--advertise-address", "--egress-selector-config-file",
		"--event-ttl", "--authorization-mode", "--max-requests-inflight", "--v=", "--audit-log-path"} {
		for _, a := range c.Args {
			assert.False(t, strings.HasPrefix(a, absent), "%s is not a flag of the virtual garden's API server", a)
		}
	}
}

func TestRuntimeConfigTurnsWorkloadAPIsBackOn(t *testing.T) {
	v := minimal()
	v.RuntimeConfig = map[string]bool{"apps/v1": true, "resource.k8s.io/v1beta1": true}
	_, c := apiServer(t, v)
	assert.Contains(t, c.Args, "--runtime-config=apps/v1=true,autoscaling/v2=false,batch/v1=false,discovery.k8s.io/v1=false,"+
		"policy/v1=false,resource.k8s.io/v1beta1=true,storage.k8s.io/v1/csinodes=false")

	shoot := shootWithWorkers()
	_, c = apiServer(t, shoot)
	for _, a := range c.Args {
		assert.False(t, strings.HasPrefix(a, "--runtime-config"), "a shoot with workers serves every API")
	}
}

func TestAudiencesAndAdmissionPlugins(t *testing.T) {
	v := shootWithWorkers()
	v.APIAudiences = []string{"custom"}
	v.AnonymousAuthentication = true
	v.EnableAdmissionPlugins = []string{"AlwaysPullImages", "NodeRestriction"}
	v.DisableAdmissionPlugins = []string{"ServiceAccount"}
	_, c := apiServer(t, v)
	// Gardener appends gardener to the audiences a Shoot names (NewKubeAPIServer in
	// pkg/component/shared/kubeapiserver.go at Gardener v1.120.0).
	assert.Contains(t, c.Args, "--api-audiences=custom,gardener")
	assert.Contains(t, c.Args, "--anonymous-auth=true")
	assert.Contains(t, c.Args, "--enable-admission-plugins=NodeRestriction,AlwaysPullImages")
	assert.Contains(t, c.Args, "--disable-admission-plugins=ServiceAccount")

	v.DisableAdmissionPlugins = []string{"NodeRestriction"}
	_, c = apiServer(t, v)
	assert.Contains(t, c.Args, "--enable-admission-plugins=AlwaysPullImages")
	assert.Contains(t, c.Args, "--disable-admission-plugins=NodeRestriction")
}

// TestAuthorization checks the authorizers: Node where there are nodes, RBAC, then the webhooks,
// through the structured configuration from Kubernetes 1.30 on and the modes before
// (pkg/component/kubernetes/apiserver/authorization.go at Gardener v1.120.0).
func TestAuthorization(t *testing.T) {
	shoot := versioned(t, shootWithWorkers(), "ConfigMap", AuthorizationConfigMapPrefix, nil)
	data, _, _ := unstructured.NestedString(shoot.Object, "data", "config.yaml")
	assert.Equal(t, "apiVersion: apiserver.config.k8s.io/v1beta1\nauthorizers:\n- name: node\n  type: Node\n- name: rbac\n  type: RBAC\nkind: AuthorizationConfiguration\n", data)

	garden := minimal()
	garden.AuthorizationWebhooks = []AuthorizationWebhook{SeedAuthorizer("Y2E=")}
	cm := versioned(t, garden, "ConfigMap", AuthorizationConfigMapPrefix, nil)
	data, _, _ = unstructured.NestedString(cm.Object, "data", "config.yaml")
	assert.Equal(t, `apiVersion: apiserver.config.k8s.io/v1beta1
authorizers:
- name: rbac
  type: RBAC
- name: seed-authorizer
  type: Webhook
  webhook:
    authorizedTTL: 1ns
    connectionInfo:
      kubeConfigFile: /etc/kubernetes/structured/authorization-kubeconfigs/seed-authorizer-kubeconfig.yaml
      type: KubeConfigFile
    failurePolicy: Deny
    matchConditionSubjectAccessReviewVersion: v1
    matchConditions:
    - expression: '''gardener.cloud:system:seeds'' in request.groups || request.groups.exists(e,
        e.startsWith(''system:serviceaccounts:seed-''))'
    subjectAccessReviewVersion: v1
    timeout: 10s
    unauthorizedTTL: 1ns
kind: AuthorizationConfiguration
`, data)

	// The seed authorizer's kubeconfig names gardener-admission-controller's Service and its CA,
	// and no credentials.
	s := find(t, garden, "Secret", AuthorizationKubeconfigsSecretName, nil)
	kubeconfig, _, _ := unstructured.NestedString(s.Object, "stringData", "seed-authorizer-kubeconfig.yaml")
	var cfg map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(kubeconfig), &cfg))
	cluster := cfg["clusters"].([]any)[0].(map[string]any)["cluster"].(map[string]any)
	assert.Equal(t, "https://gardener-admission-controller/webhooks/auth/seed", cluster["server"])
	assert.Equal(t, "Y2E=", cluster["certificate-authority-data"])
	assert.Equal(t, map[string]any{}, cfg["users"].([]any)[0].(map[string]any)["user"])
	d, c := apiServer(t, garden)
	assert.Contains(t, c.VolumeMounts, corev1.VolumeMount{Name: "authorization-kubeconfigs", MountPath: "/etc/kubernetes/structured/authorization-kubeconfigs", ReadOnly: true})
	assert.Contains(t, d.Spec.Template.Spec.Volumes, corev1.Volume{Name: "authorization-kubeconfigs", VolumeSource: corev1.VolumeSource{
		Secret: &corev1.SecretVolumeSource{SecretName: AuthorizationKubeconfigsSecretName},
	}})

	for _, tc := range []struct {
		name  string
		v     Values
		modes []string
	}{
		{"shoot before 1.30", func() Values { v := shootWithWorkers(); v.KubernetesVersion = "1.29.9"; return v }(), []string{"--authorization-mode=Node,RBAC"}},
		{"structured authorization switched off", func() Values {
			v := shootWithWorkers()
			v.FeatureGates = map[string]bool{"StructuredAuthorizationConfiguration": false}
			return v
		}(), []string{"--authorization-mode=Node,RBAC"}},
		{"virtual garden before 1.30", func() Values { v := garden; v.KubernetesVersion = "1.29.9"; return v }(), []string{
			"--authorization-webhook-config-file=/etc/kubernetes/structured/authorization-kubeconfigs/seed-authorizer-kubeconfig.yaml",
			"--authorization-webhook-cache-authorized-ttl=1ns",
			"--authorization-webhook-cache-unauthorized-ttl=1ns",
			"--authorization-webhook-version=v1",
			"--authorization-mode=RBAC,Webhook",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, c := apiServer(t, tc.v)
			for _, m := range tc.modes {
				assert.Contains(t, c.Args, m)
			}
			assert.NotContains(t, c.Args, "--authorization-config=/etc/kubernetes/structured/authorization/config.yaml")
			assert.Nil(t, versioned(t, tc.v, "ConfigMap", AuthorizationConfigMapPrefix, nil))
		})
	}
}

// TestMounts checks every volume and where it is mounted: Gardener's paths, with the engine's CA
// and key Secrets mapped to the files Gardener's flags name.
func TestMounts(t *testing.T) {
	d, c := apiServer(t, shootWithWorkers())
	mounts := map[string]corev1.VolumeMount{}
	for _, m := range c.VolumeMounts {
		mounts[m.Name] = m
	}
	volumes := map[string]corev1.Volume{}
	for _, v := range d.Spec.Template.Spec.Volumes {
		volumes[v.Name] = v
	}
	bundle := []corev1.KeyToPath{{Key: "ca.crt", Path: "bundle.crt"}}
	v := shootWithWorkers()
	name := func(kind, prefix string) string { return versioned(t, v, kind, prefix, nil).GetName() }
	for _, tc := range []struct {
		name, path, secret, configMap string
		mode                          *int32
		items                         []corev1.KeyToPath
		readOnly                      bool
	}{
		{name: "ca", path: "/srv/kubernetes/ca", secret: "ca", items: bundle},
		{name: "ca-client", path: "/srv/kubernetes/ca-client", secret: "ca-client", items: bundle},
		{name: "ca-front-proxy", path: "/srv/kubernetes/ca-front-proxy", secret: "ca-front-proxy", items: bundle},
		{name: "service-account-key", path: "/srv/kubernetes/service-account-key", secret: "service-account-key", mode: ptr.To(int32(0o640)),
			items: []corev1.KeyToPath{{Key: "key.pem", Path: "id_rsa"}}},
		{name: "service-account-key-bundle", path: "/srv/kubernetes/service-account-key-bundle", secret: "service-account-key", mode: ptr.To(int32(0o640)),
			items: []corev1.KeyToPath{{Key: "pub.pem", Path: "bundle.key"}}},
		{name: "static-token", path: "/srv/kubernetes/token", secret: StaticTokenSecretName},
		{name: "kube-aggregator", path: "/srv/kubernetes/aggregator", secret: "kube-aggregator", mode: ptr.To(int32(0o640))},
		{name: "ca-etcd", path: "/srv/kubernetes/etcd/ca", secret: "ca-etcd", items: bundle},
		{name: "etcd-client", path: "/srv/kubernetes/etcd/client", secret: "etcd-client", mode: ptr.To(int32(0o640))},
		{name: "server", path: "/srv/kubernetes/apiserver", secret: "kube-apiserver", mode: ptr.To(int32(0o640))},
		{name: "audit-policy-config", path: "/etc/kubernetes/audit", configMap: name("ConfigMap", AuditPolicyConfigMapPrefix)},
		{name: "admission-config", path: "/etc/kubernetes/admission", configMap: name("ConfigMap", AdmissionConfigMapPrefix)},
		{name: "admission-kubeconfigs", path: "/etc/kubernetes/admission-kubeconfigs", secret: name("Secret", AdmissionKubeconfigsSecretPrefix)},
		{name: "etcd-encryption-secret", path: "/etc/kubernetes/etcd-encryption-secret", secret: "kube-apiserver-etcd-encryption-configuration", mode: ptr.To(int32(0o640)), readOnly: true},
		{name: "authorization-config", path: "/etc/kubernetes/structured/authorization", configMap: name("ConfigMap", AuthorizationConfigMapPrefix), readOnly: true},
		{name: "ca-vpn", path: "/srv/kubernetes/ca-vpn", secret: "ca-vpn", items: bundle},
		{name: "http-proxy", path: "/etc/srv/kubernetes/envoy", secret: HTTPProxySecretName, mode: ptr.To(int32(0o640))},
		{name: "egress-selection-config", path: "/etc/kubernetes/egress", configMap: name("ConfigMap", EgressSelectorConfigMapPrefix)},
		{name: "ca-kubelet", path: "/srv/kubernetes/ca-kubelet", secret: "ca-kubelet", items: bundle},
		{name: "kubelet-client", path: "/srv/kubernetes/apiserver-kubelet", secret: KubeletClientSecretName, mode: ptr.To(int32(0o640))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, corev1.VolumeMount{Name: tc.name, MountPath: tc.path, ReadOnly: tc.readOnly}, mounts[tc.name])
			want := corev1.Volume{Name: tc.name}
			if tc.secret != "" {
				want.Secret = &corev1.SecretVolumeSource{SecretName: tc.secret, DefaultMode: tc.mode, Items: tc.items}
			} else {
				want.ConfigMap = &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: tc.configMap}}
			}
			assert.Equal(t, want, volumes[tc.name])
		})
	}
	assert.Len(t, c.VolumeMounts, 20, "no mount besides Gardener's")
}

// TestDeployment checks the Deployment's labels, rollout, pods' security context and probes
// (reconcileDeployment at Gardener v1.120.0).
func TestDeployment(t *testing.T) {
	d, c := apiServer(t, shootWithWorkers())
	assert.Equal(t, "kube-apiserver", d.Name)
	assert.Equal(t, map[string]string{
		"app": "kubernetes", "role": "apiserver", "gardener.cloud/role": "controlplane",
		"high-availability-config.resources.gardener.cloud/type":             "server",
		"provider.extensions.gardener.cloud/mutated-by-controlplane-webhook": "true",
	}, d.Labels)
	assert.Equal(t, map[string]string{"app": "kubernetes", "role": "apiserver"}, d.Spec.Selector.MatchLabels)
	assert.Equal(t, int32(30), d.Spec.MinReadySeconds)
	assert.Equal(t, "100%", d.Spec.Strategy.RollingUpdate.MaxSurge.String())
	assert.Equal(t, "0", d.Spec.Strategy.RollingUpdate.MaxUnavailable.String())
	assert.Nil(t, d.Spec.Replicas, "the HPA owns the replicas")
	assert.Equal(t, map[string]string{
		"app": "kubernetes", "role": "apiserver", "gardener.cloud/role": "controlplane",
		"networking.gardener.cloud/to-dns":                                      "allowed",
		"networking.gardener.cloud/to-public-networks":                          "allowed",
		"networking.gardener.cloud/to-private-networks":                         "allowed",
		"networking.resources.gardener.cloud/to-all-webhook-targets":            "allowed",
		"networking.resources.gardener.cloud/to-extensions-all-webhook-targets": "allowed",
		"networking.resources.gardener.cloud/to-etcd-main-client-tcp-2379":      "allowed",
		"networking.resources.gardener.cloud/to-etcd-events-client-tcp-2379":    "allowed",
		"networking.resources.gardener.cloud/to-vpn-seed-server-tcp-9443":       "allowed",
	}, d.Spec.Template.Labels)

	pod := d.Spec.Template.Spec
	assert.Equal(t, "gardener-system-500", pod.PriorityClassName)
	assert.Equal(t, ptr.To(false), pod.AutomountServiceAccountToken)
	assert.Equal(t, ptr.To(int64(30)), pod.TerminationGracePeriodSeconds)
	assert.Equal(t, &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To(int64(65532)), RunAsGroup: ptr.To(int64(65532)), FSGroup: ptr.To(int64(65532))}, pod.SecurityContext)
	assert.Empty(t, pod.InitContainers)
	assert.Len(t, pod.Containers, 1)
	assert.Equal(t, &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false)}, c.SecurityContext)
	// Gardener's botanist: 250m and 500Mi in a shoot.
	assert.Equal(t, "250m", c.Resources.Requests.Cpu().String())
	assert.Equal(t, "500Mi", c.Resources.Requests.Memory().String())

	// The probes authenticate as the health-check user: anonymous requests are refused.
	token := "Bearer " + render.GeneratedRef("shoot--dev--a", DefaultHealthCheckTokenSecretName, "token", false)
	for _, tc := range []struct {
		probe *corev1.Probe
		path  string
		delay int32
	}{{c.LivenessProbe, "/livez", 15}, {c.ReadinessProbe, "/readyz", 10}} {
		want := &corev1.Probe{
			ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
				Path: tc.path, Port: intstr.FromInt32(443), Scheme: corev1.URISchemeHTTPS,
				HTTPHeaders: []corev1.HTTPHeader{{Name: "Authorization", Value: token}},
			}},
			InitialDelaySeconds: tc.delay, PeriodSeconds: 10, TimeoutSeconds: 15, SuccessThreshold: 1, FailureThreshold: 3,
		}
		assert.Equal(t, want, tc.probe, tc.path)
	}
}

// TestVirtualGardenLabels: gardener-operator labels the virtual garden's API server as gardenlet
// labels a shoot's, app=kubernetes (GetLabels at Gardener v1.120.0).
func TestVirtualGardenLabels(t *testing.T) {
	d, _ := apiServer(t, minimal())
	assert.Equal(t, "virtual-garden-kube-apiserver", d.Name)
	assert.Equal(t, "garden", d.Namespace)
	assert.Equal(t, map[string]string{"app": "kubernetes", "role": "apiserver"}, d.Spec.Selector.MatchLabels)
	assert.Equal(t, "kubernetes", d.Spec.Template.Labels["app"])
	assert.Equal(t, "allowed", d.Spec.Template.Labels["networking.resources.gardener.cloud/to-virtual-garden-etcd-main-client-tcp-2379"])
	assert.Equal(t, "gardener-garden-system-500", d.Spec.Template.Spec.PriorityClassName)
	// Gardener's docs/development/autoscaling-specifics-for-components.md: 600m and 512Mi.
	assert.Equal(t, "600m", d.Spec.Template.Spec.Containers[0].Resources.Requests.Cpu().String())
	assert.Equal(t, "512Mi", d.Spec.Template.Spec.Containers[0].Resources.Requests.Memory().String())
	var pdb map[string]any
	u := find(t, minimal(), "PodDisruptionBudget", "", nil)
	pdb, _, _ = unstructured.NestedMap(u.Object, "spec", "selector", "matchLabels")
	assert.Equal(t, map[string]any{"app": "kubernetes", "role": "apiserver"}, pdb)
}

// TestSelectorChangeIsAReplacement: the virtual garden's Deployment selector changed from
// app=virtual-garden to Gardener's app=kubernetes. A Deployment's selector is immutable, so the
// engine's kinds table makes the planner replace it (reason immutable_field:.spec.selector).
func TestSelectorChangeIsAReplacement(t *testing.T) {
	d, _ := apiServer(t, minimal())
	assert.NotEqual(t, map[string]string{"app": "virtual-garden", "role": "apiserver"}, d.Spec.Selector.MatchLabels)
	rules, ok := kinds.Lookup(schema.GroupKind{Group: "apps", Kind: "Deployment"})
	require.True(t, ok)
	var immutable []string
	for _, f := range rules.Immutable {
		immutable = append(immutable, f.Path)
	}
	assert.Contains(t, immutable, ".spec.selector")
	assert.Nil(t, rules.Protected, "a replaced API server Deployment needs no --allow-destroy")
}

// TestService checks the Service's annotations and selectors for a shoot and for the garden
// (NewService in pkg/component/kubernetes/apiserverexposure/service.go and its test at Gardener
// v1.120.0).
func TestService(t *testing.T) {
	for _, tc := range []struct {
		name      string
		v         Values
		want      map[string]string
		ipFamilys corev1.IPFamilyPolicy
	}{
		{"shoot", shootWithWorkers(), map[string]string{
			"networking.istio.io/exportTo":                                              "*",
			"networking.resources.gardener.cloud/from-all-scrape-targets-allowed-ports": `[{"protocol":"TCP","port":443}]`,
			"networking.resources.gardener.cloud/namespace-selectors": `[{"matchLabels":{"gardener.cloud/role":"istio-ingress"}},` +
				`{"matchLabels":{"networking.gardener.cloud/access-target-apiserver":"allowed"}},{"matchLabels":{"kubernetes.io/metadata.name":"garden"}},` +
				`{"matchExpressions":[{"key":"handler.exposureclass.gardener.cloud/name","operator":"Exists"}]},{"matchLabels":{"gardener.cloud/role":"extension"}}]`,
			"networking.resources.gardener.cloud/pod-label-selector-namespace-alias": "all-shoots",
		}, corev1.IPFamilyPolicyPreferDualStack},
		{"garden", minimal(), map[string]string{
			"networking.istio.io/exportTo": "*",
			"networking.resources.gardener.cloud/from-all-garden-scrape-targets-allowed-ports": `[{"protocol":"TCP","port":443}]`,
			"networking.resources.gardener.cloud/namespace-selectors": `[{"matchLabels":{"gardener.cloud/role":"istio-ingress"}},` +
				`{"matchLabels":{"networking.gardener.cloud/access-target-apiserver":"allowed"}}]`,
		}, corev1.IPFamilyPolicyPreferDualStack},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s corev1.Service
			find(t, tc.v, "Service", "", &s)
			assert.Equal(t, tc.want, s.Annotations)
			assert.Equal(t, map[string]string{"app": "kubernetes", "role": "apiserver"}, s.Labels)
			assert.Equal(t, map[string]string{"app": "kubernetes", "role": "apiserver"}, s.Spec.Selector)
			assert.Equal(t, corev1.ServiceTypeClusterIP, s.Spec.Type)
			assert.Equal(t, ptr.To(tc.ipFamilys), s.Spec.IPFamilyPolicy)
			require.Len(t, s.Spec.Ports, 1)
			assert.Equal(t, corev1.ServicePort{Name: "kube-apiserver", Protocol: corev1.ProtocolTCP, Port: 443, TargetPort: intstr.FromInt32(443)}, s.Spec.Ports[0])
		})
	}
	v := minimal()
	v.TopologyAwareRouting = true
	var s corev1.Service
	find(t, v, "Service", "", &s)
	assert.Equal(t, "auto", s.Annotations["service.kubernetes.io/topology-mode"])
	assert.Equal(t, "true", s.Labels["endpoint-slice-hints.resources.gardener.cloud/consider"])
}

func TestAutoscaling(t *testing.T) {
	for _, tc := range []struct {
		ha       bool
		min, max int32
	}{
		// Gardener's docs/development/autoscaling-specifics-for-components.md: min 2, 3 with high
		// availability; max 6.
		{false, 2, 6},
		{true, 3, 6},
	} {
		v := minimal()
		v.HighAvailability = tc.ha
		var h autoscalingv2.HorizontalPodAutoscaler
		find(t, v, "HorizontalPodAutoscaler", "", &h)
		assert.Equal(t, tc.min, *h.Spec.MinReplicas)
		assert.Equal(t, tc.max, h.Spec.MaxReplicas)
		assert.Equal(t, "virtual-garden-kube-apiserver", h.Spec.ScaleTargetRef.Name)
		assert.Equal(t, map[string]string{"high-availability-config.resources.gardener.cloud/type": "server"}, h.Labels)
		require.Len(t, h.Spec.Metrics, 2)
		assert.Equal(t, autoscalingv2.AverageValueMetricType, h.Spec.Metrics[0].Resource.Target.Type)
		assert.Equal(t, "6", h.Spec.Metrics[0].Resource.Target.AverageValue.String())
		assert.Equal(t, "24G", h.Spec.Metrics[1].Resource.Target.AverageValue.String())
		// horizontalpodautoscaler.go at Gardener v1.120.0: double within a minute, one pod less
		// every five minutes after half an hour.
		assert.Equal(t, &autoscalingv2.HorizontalPodAutoscalerBehavior{
			ScaleUp: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To(int32(60)),
				Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 60}}},
			ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To(int32(1800)),
				Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PodsScalingPolicy, Value: 1, PeriodSeconds: 300}}},
		}, h.Spec.Behavior)
	}

	vpa := find(t, shootWithWorkers(), "VerticalPodAutoscaler", "kube-apiserver-vpa", nil)
	assert.Equal(t, "autoscaling.k8s.io/v1", vpa.GetAPIVersion())
	spec, _, _ := unstructured.NestedMap(vpa.Object, "spec")
	assert.Equal(t, map[string]any{
		"targetRef":    map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "kube-apiserver"},
		"updatePolicy": map[string]any{"updateMode": "Auto"},
		"resourcePolicy": map[string]any{"containerPolicies": []any{map[string]any{
			"containerName": "kube-apiserver", "minAllowed": map[string]any{"cpu": "20m", "memory": "200M"}, "controlledValues": "RequestsOnly",
		}}},
	}, spec)
	haVPA := find(t, shootWithHAVPN(), "VerticalPodAutoscaler", "kube-apiserver-vpa", nil)
	policies, _, _ := unstructured.NestedSlice(haVPA.Object, "spec", "resourcePolicy", "containerPolicies")
	assert.Equal(t, []any{
		map[string]any{"containerName": "kube-apiserver", "minAllowed": map[string]any{"cpu": "20m", "memory": "200M"}, "controlledValues": "RequestsOnly"},
		map[string]any{"containerName": "vpn-client-0", "mode": "Off"},
		map[string]any{"containerName": "vpn-client-1", "mode": "Off"},
		map[string]any{"containerName": "vpn-path-controller", "mode": "Off"},
	}, policies)
}

// TestHibernation checks that a hibernated API server is scaled to zero (Gardener's "Shoot
// Hibernation" docs/usage/shoot/shoot_hibernate.md) and keeps its HPA, which does not scale a
// target at zero, so that hibernating deletes nothing, and that an awake one leaves the replicas
// to its HPA.
func TestHibernation(t *testing.T) {
	asleep := minimal()
	asleep.Hibernated = true
	d, _ := apiServer(t, asleep)
	require.NotNil(t, d.Spec.Replicas)
	assert.Equal(t, int32(0), *d.Spec.Replicas)
	assert.True(t, has(t, asleep, "HorizontalPodAutoscaler", "virtual-garden-kube-apiserver"), "kept: hibernating deletes nothing")
	assert.True(t, has(t, asleep, "PodDisruptionBudget", "virtual-garden-kube-apiserver"))
}

// TestConfigurationFiles checks the ConfigMaps and Secrets the API server reads as Gardener
// renders them by default.
func TestConfigurationFiles(t *testing.T) {
	v := shootWithWorkers()
	// Unique as Gardener makes them: immutable, garbage-collectable, named after their data.
	var audit corev1.ConfigMap
	require.NotNil(t, versioned(t, v, "ConfigMap", "audit-policy-config", &audit))
	assert.Equal(t, "apiVersion: audit.k8s.io/v1\nkind: Policy\nmetadata:\n  creationTimestamp: null\nrules:\n- level: None\n", audit.Data["audit-policy.yaml"])
	assert.Equal(t, ptr.To(true), audit.Immutable)
	assert.Equal(t, map[string]string{"resources.gardener.cloud/garbage-collectable-reference": "true"}, audit.Labels)

	admission := versioned(t, v, "ConfigMap", "kube-apiserver-admission-config", nil)
	data, _, _ := unstructured.NestedStringMap(admission.Object, "data")
	assert.Equal(t, map[string]string{"admission-configuration.yaml": "apiVersion: apiserver.k8s.io/v1alpha1\nkind: AdmissionConfiguration\nplugins: null\n"}, data)

	egress := versioned(t, v, "ConfigMap", "kube-apiserver-egress-selector-config", nil)
	cfg, _, _ := unstructured.NestedString(egress.Object, "data", "egress-selector-configuration.yaml")
	assert.Equal(t, `apiVersion: apiserver.k8s.io/v1alpha1
egressSelections:
- connection:
    proxyProtocol: HTTPConnect
    transport:
      tcp:
        tlsConfig:
          caBundle: /srv/kubernetes/ca-vpn/bundle.crt
          clientCert: /etc/srv/kubernetes/envoy/tls.crt
          clientKey: /etc/srv/kubernetes/envoy/tls.key
        url: https://vpn-seed-server:9443
  name: cluster
- connection:
    proxyProtocol: Direct
  name: controlplane
- connection:
    proxyProtocol: Direct
  name: etcd
kind: EgressSelectorConfiguration
`, cfg)

	token := find(t, v, "Secret", StaticTokenSecretName, nil)
	csv, _, _ := unstructured.NestedString(token.Object, "stringData", "static_tokens.csv")
	assert.Equal(t, render.GeneratedRef("shoot--dev--a", DefaultHealthCheckTokenSecretName, "token", false)+",health-check,health-check,", csv)
	// The admission kubeconfigs are empty: the checksum of no data names them.
	assert.True(t, has(t, v, "Secret", "kube-apiserver-admission-kubeconfigs-e3b0c442"))

	// The Deployment and its pods name every Secret and ConfigMap they mount, for the resource
	// manager's garbage collector (InjectAnnotations at Gardener v1.120.0).
	d, _ := apiServer(t, v)
	assert.Equal(t, d.Annotations, d.Spec.Template.Annotations)
	assert.Len(t, d.Annotations, 19, "20 volumes, two of one Secret (the service account key and its verifying half)")
	// The keys Gardener's own test expects (apiserver_test.go at v1.120.0): where the names are
	// Gardener's, the configuration ConfigMaps' checksums included, the keys are the same.
	for key, name := range map[string]string{
		"configmap-130aa219": "kube-apiserver-admission-config-e38ff146",
		"configmap-d4419cd4": "audit-policy-config-f5b578b4",
		"configmap-f79954be": "kube-apiserver-egress-selector-config-53d92abc",
		"secret-5613e39f":    "kube-apiserver-admission-kubeconfigs-e3b0c442",
		"secret-69590970":    "ca",
		"secret-17c26aa4":    "ca-client",
		"secret-a92da147":    "ca-front-proxy",
		"secret-e01f5645":    "ca-etcd",
		"secret-389fbba5":    "etcd-client",
		"secret-998b2966":    "kube-aggregator",
		"secret-3ddd1800":    "kube-apiserver",
		"secret-77bc5458":    "ca-kubelet",
		"secret-c1267cc2":    "kube-apiserver-kubelet",
		"secret-0acc967c":    "kube-apiserver-http-proxy",
		"secret-8ddd8e24":    "ca-vpn",
	} {
		assert.Equal(t, name, d.Annotations["reference.resources.gardener.cloud/"+key], key)
	}
	for _, vol := range d.Spec.Template.Spec.Volumes {
		name := ""
		switch {
		case vol.Secret != nil:
			name = vol.Secret.SecretName
		case vol.ConfigMap != nil:
			name = vol.ConfigMap.Name
		}
		assert.Contains(t, slices.Collect(maps.Values(d.Annotations)), name, vol.Name)
	}
}

func TestAdmissionPluginConfigurations(t *testing.T) {
	v := minimal()
	v.EnableAdmissionPlugins = []string{"EventRateLimit"}
	v.AdmissionPluginConfigs = map[string]string{"EventRateLimit": "kind: Configuration\n"}
	cm := versioned(t, v, "ConfigMap", AdmissionConfigMapPrefix, nil)
	data, _, _ := unstructured.NestedStringMap(cm.Object, "data")
	assert.Equal(t, map[string]string{
		"admission-configuration.yaml": "apiVersion: apiserver.k8s.io/v1alpha1\nkind: AdmissionConfiguration\nplugins:\n" +
			"- configuration: null\n  name: EventRateLimit\n  path: /etc/kubernetes/admission/eventratelimit.yaml\n",
		"eventratelimit.yaml": "kind: Configuration\n",
	}, data)
}

func TestAuditPolicyOfTheLandscape(t *testing.T) {
	v := minimal()
	v.AuditPolicyConfigMap = "audit"
	d, c := apiServer(t, v)
	assert.Contains(t, c.Args, "--audit-policy-file=/etc/kubernetes/audit/audit-policy.yaml")
	assert.Contains(t, d.Spec.Template.Spec.Volumes, corev1.Volume{Name: "audit-policy-config", VolumeSource: corev1.VolumeSource{
		ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "audit"}},
	}})
	assert.Nil(t, versioned(t, v, "ConfigMap", AuditPolicyConfigMapPrefix, nil), "the landscape's policy replaces the default")
}

// TestHighAvailabilityVPN checks the vpn-client sidecars, path controller and init container of
// a highly available shoot's API server (handleVPNSettingsHA in
// pkg/component/kubernetes/apiserver/deployment.go at Gardener v1.120.0).
func TestHighAvailabilityVPN(t *testing.T) {
	v := shootWithHAVPN()
	d, c := apiServer(t, v)
	pod := d.Spec.Template.Spec
	var names []string
	for _, c := range pod.Containers {
		names = append(names, c.Name)
	}
	assert.Equal(t, []string{"kube-apiserver", "vpn-client-0", "vpn-client-1", "vpn-path-controller"}, names)
	require.Len(t, pod.InitContainers, 1)
	init := pod.InitContainers[0]
	assert.Equal(t, "vpn-client-init", init.Name)
	assert.Equal(t, []string{"/bin/vpn-client", "setup"}, init.Command)
	assert.Equal(t, ptr.To(true), init.SecurityContext.Privileged)
	assert.Contains(t, init.VolumeMounts, corev1.VolumeMount{Name: "kube-api-access-gardener", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true})
	assert.Equal(t, "kube-apiserver", pod.ServiceAccountName)
	assert.Equal(t, []corev1.Sysctl{{Name: "net.ipv4.ping_group_range", Value: "0 0"}}, pod.SecurityContext.Sysctls)

	client := pod.Containers[2]
	image, err := images.Of(nil, images.VPNClient, v.KubernetesVersion)
	require.NoError(t, err)
	assert.Equal(t, image, client.Image, "the image vector's vpn-client")
	env := map[string]string{}
	for _, e := range client.Env {
		env[e.Name] = e.Value
	}
	assert.Equal(t, map[string]string{
		"ENDPOINT": "vpn-seed-server-1", "SERVICE_NETWORK": "100.64.0.0/13", "POD_NETWORK": "100.96.0.0/11", "NODE_NETWORK": "10.0.0.0/16",
		"SERVICE_NETWORKS": "100.64.0.0/13", "POD_NETWORKS": "100.96.0.0/11", "NODE_NETWORKS": "10.0.0.0/16",
		"VPN_SERVER_INDEX": "1", "IS_HA": "true", "HA_VPN_SERVERS": "2", "HA_VPN_CLIENTS": "2", "OPENVPN_PORT": "1194", "IP_FAMILIES": "IPv4",
	}, env)
	assert.Equal(t, []corev1.Capability{"NET_ADMIN"}, client.SecurityContext.Capabilities.Add)
	assert.Equal(t, []corev1.VolumeMount{
		{Name: "vpn-seed-client", MountPath: "/srv/secrets/vpn-client"},
		{Name: "vpn-seed-tlsauth", MountPath: "/srv/secrets/tlsauth"},
		{Name: "dev-net-tun", MountPath: "/dev/net/tun"},
	}, client.VolumeMounts)
	assert.Equal(t, []string{"/bin/vpn-client", "path-controller"}, pod.Containers[3].Command)

	// No HTTP proxy and no egress selector: the sidecars route the traffic.
	for _, a := range c.Args {
		assert.False(t, strings.HasPrefix(a, "--egress-selector-config-file"), a)
	}
	assert.Nil(t, versioned(t, v, "ConfigMap", EgressSelectorConfigMapPrefix, nil))
	assert.Equal(t, "allowed", d.Spec.Template.Labels["networking.resources.gardener.cloud/to-vpn-seed-server-0-tcp-1194"])
	assert.Equal(t, "allowed", d.Spec.Template.Labels["networking.resources.gardener.cloud/to-vpn-seed-server-1-tcp-1194"])
	assert.Equal(t, "allowed", d.Spec.Template.Labels["networking.gardener.cloud/to-runtime-apiserver"])
	assert.NotContains(t, d.Spec.Template.Labels, "networking.resources.gardener.cloud/to-vpn-seed-server-tcp-9443")

	// roles.go at Gardener v1.120.0.
	var role rbacv1.Role
	find(t, v, "Role", "kube-apiserver-vpn-client-init", &role)
	assert.Equal(t, []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch", "patch", "update"}}}, role.Rules)
	var binding rbacv1.RoleBinding
	find(t, v, "RoleBinding", "kube-apiserver-vpn-client-init", &binding)
	assert.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Name: "kube-apiserver", Namespace: "shoot--dev--a"}}, binding.Subjects)
	var sa corev1.ServiceAccount
	find(t, v, "ServiceAccount", "kube-apiserver", &sa)
	assert.Equal(t, ptr.To(false), sa.AutomountServiceAccountToken)
}

func TestServerCertificateNames(t *testing.T) {
	assert.Equal(t, []string{
		"virtual-garden-kube-apiserver", "virtual-garden-kube-apiserver.garden", "virtual-garden-kube-apiserver.garden.svc",
		"virtual-garden-kube-apiserver.garden.svc.cluster.local", "api.garden.example.com", "gardener.garden.example.com",
	}, ServerDNSNames("virtual-garden-", "garden", "cluster.local", []string{"garden.example.com"}, false, false))
	assert.Equal(t, []string{
		"kube-apiserver", "kube-apiserver.shoot--dev--a", "kube-apiserver.shoot--dev--a.svc", "kube-apiserver.shoot--dev--a.svc.cluster.local",
		"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local", "api.a.example.com",
	}, ServerDNSNames("", "shoot--dev--a", "cluster.local", []string{"a.example.com"}, true, true))
	ips, err := ServerIPAddresses("100.64.0.0/13", true, true)
	require.NoError(t, err)
	assert.Equal(t, []string{"127.0.0.1", "::1", "100.64.0.1"}, ips)
}

func TestNoIstioWithoutSNI(t *testing.T) {
	v := minimal()
	v.SNI = false
	objs, err := Objects(v)
	require.NoError(t, err)
	for _, o := range objs {
		assert.NotEqual(t, "networking.istio.io/v1beta1", o.Object.GetAPIVersion(), o.Object.GetKind())
	}
}

func TestIstioExposure(t *testing.T) {
	v := minimal()
	v.DNSDomains = []string{"a.example.com", "b.example.com"}
	gw := find(t, v, "Gateway", "", nil)
	assert.Equal(t, "networking.istio.io/v1beta1", gw.GetAPIVersion())
	assert.Equal(t, "garden", gw.GetNamespace())
	sel, _, _ := unstructured.NestedStringMap(gw.Object, "spec", "selector")
	assert.Equal(t, map[string]string{"app": "istio-ingressgateway", "istio": "ingressgateway"}, sel)
	servers, _, _ := unstructured.NestedSlice(gw.Object, "spec", "servers")
	require.Len(t, servers, 1)
	server := servers[0].(map[string]any)
	// Gardener's docs/concepts/operator.md: api.<domain> and gardener.<domain> for every domain.
	assert.Equal(t, []any{"api.a.example.com", "api.b.example.com", "gardener.a.example.com", "gardener.b.example.com"}, server["hosts"])
	assert.Equal(t, map[string]any{"mode": "PASSTHROUGH"}, server["tls"])

	vs := find(t, v, "VirtualService", "", nil)
	routes, _, _ := unstructured.NestedSlice(vs.Object, "spec", "tls")
	require.Len(t, routes, 1)
	dest := routes[0].(map[string]any)["route"].([]any)[0].(map[string]any)["destination"].(map[string]any)
	assert.Equal(t, "virtual-garden-kube-apiserver.garden.svc.cluster.local", dest["host"])
}

func TestEncryptedResources(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version string
		extra   []string
		want    []string
		err     string
	}{
		// Gardener's docs/concepts/operator.md: Secrets are always encrypted.
		{"nothing extra", "1.31.0", nil, []string{"secrets"}, ""},
		{"secrets only once", "1.31.0", []string{"secrets", "secrets"}, []string{"secrets"}, ""},
		{"sorted", "1.31.0", []string{"shoots.core.gardener.cloud", "configmaps"}, []string{"configmaps", "secrets", "shoots.core.gardener.cloud"}, ""},
		{"built-in group before 1.26", "1.25.3", []string{"ingresses.networking.k8s.io"}, []string{"ingresses.networking.k8s.io", "secrets"}, ""},
		// Gardener's docs/concepts/operator.md: custom resources only from 1.26.
		{"custom resource before 1.26", "1.25.3", []string{"shoots.core.gardener.cloud"}, nil, "needs 1.26 or later"},
		{"custom resource at 1.26", "1.26.0", []string{"shoots.core.gardener.cloud"}, []string{"secrets", "shoots.core.gardener.cloud"}, ""},
		{"malformed", "1.31.0", []string{"Secrets"}, nil, `encrypted resource "Secrets" is not of the form`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := EncryptedResources(tc.version, tc.extra)
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestEncryptionConfiguration(t *testing.T) {
	data, err := EncryptionConfiguration([]string{"secrets"}, []EncryptionKey{{Name: "key1", Secret: "c2VjcmV0"}})
	require.NoError(t, err)
	var cfg map[string]any
	require.NoError(t, yaml.Unmarshal(data, &cfg))
	assert.Equal(t, "EncryptionConfiguration", cfg["kind"])
	r := cfg["resources"].([]any)[0].(map[string]any)
	assert.Equal(t, []any{"secrets"}, r["resources"])
	providers := r["providers"].([]any)
	require.Len(t, providers, 2)
	assert.Contains(t, providers[0], "aescbc")
	assert.Contains(t, providers[1], "identity")

	_, err = EncryptionConfiguration([]string{"secrets"}, nil)
	assert.ErrorContains(t, err, "no keys")
	_, err = EncryptionConfiguration(nil, []EncryptionKey{{Name: "k", Secret: "s"}})
	assert.ErrorContains(t, err, "no resources")
	_, err = EncryptionConfiguration([]string{"secrets"}, []EncryptionKey{{Name: "k"}})
	assert.ErrorContains(t, err, "key 1 needs a name and a secret")
}

func TestRenderOutputs(t *testing.T) {
	out, err := Type.RenderConfig(render.Input{Config: rendertest.ConfigOf(Type, map[string]cty.Value{
		"cluster":             cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("runtime")}),
		"kubernetes_version":  cty.StringVal("1.32.0"),
		"dns_domains":         cty.ListVal([]cty.Value{cty.StringVal("garden.example.com")}),
		"service_network":     cty.StringVal("100.64.0.0/13"),
		"encrypted_resources": cty.ListVal([]cty.Value{cty.StringVal("configmaps")}),
	})})
	require.NoError(t, err)
	assert.Equal(t, "virtual-garden-kube-apiserver", out.Outputs["service_name"].AsString())
	assert.Equal(t, "https://api.garden.example.com", out.Outputs["endpoint"].AsString())
	assert.Equal(t, "https://virtual-garden-kube-apiserver.garden.svc", out.Outputs["internal_endpoint"].AsString())
	assert.Equal(t, cty.ListVal([]cty.Value{cty.StringVal("configmaps"), cty.StringVal("secrets")}), out.Outputs["encrypted_resources"])
	assert.Equal(t, 6, out.Outputs["server_dns_names"].LengthInt())
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*Values)
		err    string
	}{
		{"no version", func(v *Values) { v.KubernetesVersion = "" }, "kubernetes version is required"},
		{"no domains", func(v *Values) { v.DNSDomains = nil }, "dns domains: at least one domain is required"},
		{"bad service network", func(v *Values) { v.ServiceNetwork = "100.64.0.0" }, `service network "100.64.0.0"`},
		{"host bits", func(v *Values) { v.ServiceNetwork = "100.64.0.1/13" }, "has host bits set"},
		{"unknown image", func(v *Values) { v.Images = map[string]string{"kube-api": "v1"} }, `kube-apiserver images: image "kube-api" is not in the image vector`},
		{"custom resource too early", func(v *Values) {
			v.KubernetesVersion = "1.25.0"
			v.EncryptedResources = []string{"foos.example.com"}
		}, "needs 1.26 or later"},
		{"admission config not YAML", func(v *Values) {
			v.EnableAdmissionPlugins = []string{"X"}
			v.AdmissionPluginConfigs = map[string]string{"X": "a: [b"}
		}, "admission plugin X configuration"},
		{"admission config not an object", func(v *Values) {
			v.EnableAdmissionPlugins = []string{"X"}
			v.AdmissionPluginConfigs = map[string]string{"X": "- a"}
		}, "admission plugin X configuration is not a YAML object"},
		{"admission config of a plugin not enabled", func(v *Values) { v.AdmissionPluginConfigs = map[string]string{"X": "a: b"} }, "admission plugin X has a configuration but is not enabled"},
		{"bad cpu", func(v *Values) { v.CPURequest = "lots" }, `cpu request "lots"`},
		{"bad event ttl", func(v *Values) { v.EventTTL = "a day" }, `event ttl "a day"`},
		{"no health check token", func(v *Values) { v.HealthCheckTokenSecretName = "" }, "health check token secret name is required"},
		{"kubelet without nodes", func(v *Values) { v.Kubelet = &KubeletAccess{CASecretName: "a", ClientSecretName: "b"} }, "a workerless API server reaches no kubelets"},
		{"VPN without proxy certificate", func(v *Values) {
			*v = shootWithWorkers()
			v.VPN.HTTPProxySecretName = ""
		}, "the HTTP proxy client certificate is required"},
		{"HA VPN without servers", func(v *Values) {
			*v = shootWithHAVPN()
			v.VPN.Servers = 0
		}, "high availability needs the numbers of servers and clients"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := minimal()
			tc.change(&v)
			_, err := Objects(v)
			assert.ErrorContains(t, err, tc.err)
		})
	}
}

// TestShootResources: the kubelets authorize the API server's client certificate through the
// shoot's RBAC (shoot_resources.go at Gardener v1.120.0).
func TestShootResources(t *testing.T) {
	objs, err := ShootResources("seed", "shoot--dev--a")
	require.NoError(t, err)
	golden.Assert(t, "shoot-resources", objs)
	mr := rendertest.MustFind(t, objs, "ManagedResource", "shoot-core-kube-apiserver")
	class, found, _ := unstructured.NestedString(mr.Object, "spec", "class")
	assert.False(t, found, "the shoot's resource manager applies it: %q", class)
	assert.Equal(t, map[string]string{"origin": "gardener"}, mr.GetLabels())
	refs, _, _ := unstructured.NestedSlice(mr.Object, "spec", "secretRefs")
	require.Len(t, refs, 1)
	// Named after its contents (NewSecret in pkg/utils/managedresources at Gardener v1.120.0).
	secret := rendertest.MustFind(t, objs, "Secret", refs[0].(map[string]any)["name"].(string))
	assert.Regexp(t, `^managedresource-shoot-core-kube-apiserver-[0-9a-f]{8}$`, secret.GetName())
	binding, _, _ := unstructured.NestedString(secret.Object, "stringData", "clusterrolebinding____system_apiserver_kubelet.yaml")
	var b rbacv1.ClusterRoleBinding
	require.NoError(t, yaml.Unmarshal([]byte(binding), &b))
	assert.Equal(t, []rbacv1.Subject{{Kind: "User", Name: "system:kube-apiserver:kubelet"}}, b.Subjects)
	assert.Equal(t, "system:apiserver:kubelet", b.RoleRef.Name)
}

// TestConfigurationVersions: a unique configuration supersedes its earlier versions, so that a
// plan deletes the old one as superseded when the content changes, the virtual garden's admission
// configuration from before it was unique (with the name prefix) included.
func TestConfigurationVersions(t *testing.T) {
	objs, err := Objects(minimal())
	require.NoError(t, err)
	for _, o := range objs {
		if !strings.HasPrefix(o.Object.GetName(), AdmissionConfigMapPrefix+"-") && !strings.HasPrefix(o.Object.GetName(), AuditPolicyConfigMapPrefix+"-") {
			continue
		}
		require.NotNil(t, o.Supersedes, o.Object.GetName())
		assert.True(t, o.Supersedes.MatchString(o.Object.GetName()))
	}
	rendertest.MustFind(t, objs, "ConfigMap", "kube-apiserver-admission-config-e38ff146")
	for _, o := range objs {
		if o.Object.GetName() == "kube-apiserver-admission-config-e38ff146" {
			assert.True(t, o.Supersedes.MatchString("virtual-garden-kube-apiserver-admission-config"))
			assert.True(t, o.Supersedes.MatchString("kube-apiserver-admission-config"))
			assert.True(t, o.Supersedes.MatchString("kube-apiserver-admission-config-0123abcd"))
			assert.False(t, o.Supersedes.MatchString("kube-apiserver-authorization-config-0123abcd"))
		}
	}
}
