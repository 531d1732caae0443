package resourcemanager

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/components/internal/unique"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/golden"
)

const shootNamespace = "shoot--dev--a"

// The facts in these tests are those of gardenlet's shoot GRM at gardener/gardener v1.120.0:
// pkg/component/gardener/resourcemanager/resource_manager.go and its test, the values of
// pkg/component/shared/resourcemanager.go and pkg/gardenlet/operation/botanist/resource_manager.go.

// shootValues are a shoot's GRM as the shoot composite builds it, with its token.
func shootValues() Values {
	v := values(Values{
		Cluster:   decode.Cluster{Name: "seed"},
		Namespace: shootNamespace,
		Shoot: &ShootTarget{
			CASecretName: "ca", ClusterIdentity: "local", KubernetesServiceHost: "api.a.dev.internal.example.com",
			AuthorizeWithSelectors: true,
		},
	})
	v.Class = ""
	return v
}

func withShoot(change func(*ShootTarget)) Values {
	v := shootValues()
	s := *v.Shoot
	change(&s)
	v.Shoot = &s
	return v
}

func TestShootGolden(t *testing.T) {
	ha := shootValues()
	ha.HighAvailability = true
	ha.Hibernated = true
	for name, v := range map[string]Values{
		"shoot":               shootValues(),
		"shoot-bootstrap":     withShoot(func(s *ShootTarget) { s.Bootstrap = true }),
		"shoot-ha-hibernated": ha,
		"shoot-workerless":    withShoot(func(s *ShootTarget) { s.Workerless = true }),
	} {
		t.Run(name, func(t *testing.T) {
			golden.Assert(t, name, objectsOf(t, v))
		})
	}
}

// TestShootObjects: in the seed a shoot's GRM has namespaced objects only (no CRD, no
// ClusterRole(Binding), no webhook configuration there, even with admission webhooks asked for);
// its objects in the shoot come in its own ManagedResource.
func TestShootObjects(t *testing.T) {
	v := shootValues()
	v.AdmissionWebhooks = true
	var got []string
	for _, o := range objectsOf(t, v) {
		assert.Equal(t, "seed", o.Cluster)
		assert.Equal(t, shootNamespace, o.Object.GetNamespace(), "%s %s has no namespace", o.Object.GetKind(), o.Object.GetName())
		got = append(got, o.Object.GetKind()+"/"+o.Object.GetName())
	}
	assert.Equal(t, []string{
		"Secret/shoot-access-gardener-resource-manager",
		"ServiceAccount/gardener-resource-manager",
		"Role/gardener-resource-manager",
		"RoleBinding/gardener-resource-manager",
		"ConfigMap/" + configMapOf(t, v).Name,
		"Service/gardener-resource-manager",
		"Deployment/gardener-resource-manager",
		"PodDisruptionBudget/gardener-resource-manager",
		"VerticalPodAutoscaler/gardener-resource-manager-vpa",
		"Secret/" + rendertest.PackedSecret(t, objectsOf(t, v), ShootManagedResourceName).GetName(),
		"ManagedResource/shoot-core-gardener-resource-manager",
	}, got)
}

func configMapOf(t *testing.T, v Values) corev1.ConfigMap {
	t.Helper()
	var cm corev1.ConfigMap
	find(t, objectsOf(t, v), "ConfigMap", &cm)
	return cm
}

func shootConfigOf(t *testing.T, v Values) map[string]any {
	t.Helper()
	cm := configMapOf(t, v)
	var cfg map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(cm.Data["config.yaml"]), &cfg))
	return cfg
}

func field(t *testing.T, cfg map[string]any, path ...string) any {
	t.Helper()
	v, found, err := unstructured.NestedFieldNoCopy(cfg, path...)
	require.NoError(t, err)
	require.True(t, found, "%v", path)
	return v
}

func TestShootConfiguration(t *testing.T) {
	cfg := shootConfigOf(t, shootValues())
	f := func(path ...string) any { return field(t, cfg, path...) }
	// Watches its control-plane namespace; the shoot through the generic token kubeconfig, caching
	// kube-system, kubernetes-dashboard and kube-node-lease.
	assert.Equal(t, []any{shootNamespace}, f("sourceClientConnection", "namespaces"))
	assert.Equal(t, "/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig/kubeconfig", f("targetClientConnection", "kubeconfig"))
	assert.Equal(t, []any{"kube-system", "kubernetes-dashboard", "kube-node-lease"}, f("targetClientConnection", "namespaces"))
	_, found, _ := unstructured.NestedFieldNoCopy(cfg, "controllers", "resourceClass")
	assert.False(t, found, "no class: ManagedResources without .spec.class")
	assert.Equal(t, true, f("leaderElection", "leaderElect"))
	assert.Equal(t, Name, f("leaderElection", "resourceName"))
	assert.Equal(t, shootNamespace, f("leaderElection", "resourceNamespace"))
	// Controllers.
	assert.Equal(t, "local", f("controllers", "clusterID"))
	assert.Equal(t, map[string]any{"enabled": true, "syncPeriod": "12h0m0s"}, f("controllers", "garbageCollector"))
	assert.Equal(t, map[string]any{"concurrentSyncs": float64(10), "syncPeriod": "1m0s"}, f("controllers", "health"))
	assert.Equal(t, map[string]any{"concurrentSyncs": float64(20), "syncPeriod": "1h0m0s", "alwaysUpdate": true}, f("controllers", "managedResource"))
	assert.Equal(t, map[string]any{"enabled": true, "concurrentSyncs": float64(5)}, f("controllers", "tokenRequestor"))
	assert.Equal(t, map[string]any{"enabled": true, "concurrentSyncs": float64(5), "machineNamespace": shootNamespace}, f("controllers", "csrApprover"))
	assert.Equal(t, map[string]any{"enabled": true}, f("controllers", "nodeCriticalComponents"))
	assert.Equal(t, map[string]any{"enabled": true, "maxDelay": "5m0s"}, f("controllers", "nodeAgentReconciliationDelay"))
	assert.Equal(t, map[string]any{"enabled": false}, f("controllers", "networkPolicy"), "the seed's GRM handles the seed")
	// Webhooks served to the shoot's API server.
	assert.Equal(t, map[string]any{"enabled": true}, f("webhooks", "projectedTokenMount"))
	assert.Equal(t, map[string]any{"enabled": true}, f("webhooks", "highAvailabilityConfig"))
	assert.Equal(t, map[string]any{"enabled": true, "host": "api.a.dev.internal.example.com"}, f("webhooks", "kubernetesServiceHost"))
	assert.Equal(t, map[string]any{
		"enabled":         true,
		"nodeSelector":    map[string]any{"worker.gardener.cloud/system-components": "true"},
		"podNodeSelector": map[string]any{"worker.gardener.cloud/system-components": "true"},
	}, f("webhooks", "systemComponentsConfig"))
	assert.Equal(t, map[string]any{"enabled": true, "machineNamespace": shootNamespace, "authorizeWithSelectors": true}, f("webhooks", "nodeAgentAuthorizer"))
	assert.Equal(t, map[string]any{"enabled": false}, f("webhooks", "podSchedulerName"))
	assert.Equal(t, map[string]any{"enabled": false}, f("webhooks", "podTopologySpreadConstraints"))
	for _, off := range []string{"crdDeletionProtection", "extensionValidation", "endpointSliceHints", "seccompProfile"} {
		assert.Equal(t, map[string]any{"enabled": false}, f("webhooks", off), off)
	}
	assert.Equal(t, "/etc/gardener-resource-manager-tls", f("server", "webhooks", "tls", "serverCertDir"))
	assert.EqualValues(t, 10250, f("server", "webhooks", "port"))

	// Options of the shoot.
	cfg = shootConfigOf(t, withShoot(func(s *ShootTarget) {
		s.BinPacking, s.PodTopologySpreadConstraints, s.NodeAgentReconciliationMaxDelay = true, true, 90*time.Second
		s.SystemComponentTolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "system", Effect: corev1.TaintEffectNoSchedule}}
	}))
	assert.Equal(t, map[string]any{"enabled": true, "schedulerName": "bin-packing-scheduler"}, field(t, cfg, "webhooks", "podSchedulerName"))
	assert.Equal(t, map[string]any{"enabled": true}, field(t, cfg, "webhooks", "podTopologySpreadConstraints"))
	assert.Equal(t, "1m30s", field(t, cfg, "controllers", "nodeAgentReconciliationDelay", "maxDelay"))
	assert.Equal(t, []any{map[string]any{"key": "dedicated", "operator": "Equal", "value": "system", "effect": "NoSchedule"}},
		field(t, cfg, "webhooks", "systemComponentsConfig", "podTolerations"))
}

// TestShootWorkerlessConfiguration: without nodes the node and pod controllers and webhooks are
// off (disableControllersAndWebhooksForWorkerlessShoot); the node agent authorizer stays.
func TestShootWorkerlessConfiguration(t *testing.T) {
	cfg := shootConfigOf(t, withShoot(func(s *ShootTarget) { s.Workerless = true; s.BinPacking = true }))
	for _, path := range [][]string{
		{"controllers", "csrApprover", "enabled"}, {"controllers", "nodeCriticalComponents", "enabled"},
		{"webhooks", "podSchedulerName", "enabled"}, {"webhooks", "systemComponentsConfig", "enabled"},
		{"webhooks", "projectedTokenMount", "enabled"}, {"webhooks", "highAvailabilityConfig", "enabled"},
		{"webhooks", "podTopologySpreadConstraints", "enabled"}, {"webhooks", "kubernetesServiceHost", "enabled"},
	} {
		assert.Equal(t, false, field(t, cfg, path...), "%v", path)
	}
	assert.Equal(t, true, field(t, cfg, "webhooks", "nodeAgentAuthorizer", "enabled"))
	assert.Equal(t, true, field(t, cfg, "controllers", "tokenRequestor", "enabled"))
}

func deploymentOf(t *testing.T, v Values) appsv1.Deployment {
	t.Helper()
	var d appsv1.Deployment
	find(t, objectsOf(t, v), "Deployment", &d)
	return d
}

// TestShootIdentity: the kubeconfig the configuration names is the one mounted, the generic token
// kubeconfig beside the GRM's own token (InjectGenericKubeconfig in pkg/utils/gardener/shoot.go),
// and the access Secret asks the token requestor for that token: kube-system/gardener-resource-manager,
// valid 24 hours.
func TestShootIdentity(t *testing.T) {
	v := shootValues()
	d := deploymentOf(t, v)
	kubeconfig := field(t, shootConfigOf(t, v), "targetClientConnection", "kubeconfig").(string)
	mount := mountOf(t, d, "kubeconfig")
	assert.Equal(t, corev1.VolumeMount{Name: "kubeconfig", MountPath: "/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig", ReadOnly: true}, mount)
	assert.Equal(t, mount.MountPath+"/kubeconfig", kubeconfig, "the configuration names the mounted kubeconfig")
	vol := volumeOf(t, d, "kubeconfig")
	require.NotNil(t, vol.Projected)
	assert.Equal(t, ptr.To[int32](0o644), vol.Projected.DefaultMode)
	var projected []string
	for _, s := range vol.Projected.Sources {
		require.NotNil(t, s.Secret)
		assert.Equal(t, ptr.To(false), s.Secret.Optional)
		for _, item := range s.Secret.Items {
			projected = append(projected, s.Secret.Name+"/"+item.Key+"->"+item.Path)
		}
	}
	assert.Equal(t, []string{"generic-token-kubeconfig/kubeconfig->kubeconfig", "shoot-access-gardener-resource-manager/token->token"}, projected)
	assert.NotContains(t, volumeNames(d), "kubeconfig-bootstrap")

	access := rendertest.MustFind(t, objectsOf(t, v), "Secret", AccessSecretName)
	assert.Equal(t, map[string]string{"resources.gardener.cloud/purpose": "token-requestor", "resources.gardener.cloud/class": "shoot"}, access.GetLabels())
	assert.Equal(t, map[string]string{
		"serviceaccount.resources.gardener.cloud/name":                      "gardener-resource-manager",
		"serviceaccount.resources.gardener.cloud/namespace":                 "kube-system",
		"serviceaccount.resources.gardener.cloud/token-expiration-duration": "24h",
	}, access.GetAnnotations())
	_, hasData := access.Object["stringData"]
	assert.False(t, hasData, "the token requestor writes the token; no kubeconfig of its own")

	// The cluster CA is mounted as the root CA, its certificate only.
	ca := volumeOf(t, d, "root-ca")
	require.NotNil(t, ca.Secret)
	assert.Equal(t, "ca", ca.Secret.SecretName)
	assert.Equal(t, []corev1.KeyToPath{{Key: "ca.crt", Path: "bundle.crt"}}, ca.Secret.Items)
	assert.Equal(t, "/etc/gardener-resource-manager-root-ca", mountOf(t, d, "root-ca").MountPath)
}

// TestShootBootstrap: before its token exists the GRM starts with the bootstrap kubeconfig, mounted
// where the generic kubeconfig would be (reconcileGardenerResourceManagerBootstrapKubeconfigSecret
// in pkg/component/shared/resourcemanager.go): a client certificate of system:masters for the
// shoot's API server. The access Secret supersedes the bootstrap once it is no longer rendered.
func TestShootBootstrap(t *testing.T) {
	v := withShoot(func(s *ShootTarget) { s.Bootstrap = true })
	objs := objectsOf(t, v)
	d := deploymentOf(t, v)
	assert.Equal(t, corev1.VolumeMount{Name: "kubeconfig-bootstrap", MountPath: "/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig", ReadOnly: true}, mountOf(t, d, "kubeconfig-bootstrap"))
	assert.Equal(t, BootstrapKubeconfigSecretName, volumeOf(t, d, "kubeconfig-bootstrap").Secret.SecretName)
	assert.NotContains(t, volumeNames(d), "kubeconfig", "no generic kubeconfig while bootstrapping")
	assert.Equal(t, field(t, shootConfigOf(t, v), "targetClientConnection", "kubeconfig"), mountOf(t, d, "kubeconfig-bootstrap").MountPath+"/kubeconfig")

	secret := rendertest.MustFind(t, objs, "Secret", BootstrapKubeconfigSecretName)
	text, _, _ := unstructured.NestedString(secret.Object, "stringData", "kubeconfig")
	var kubeconfig struct {
		CurrentContext string `json:"current-context"`
		Clusters       []struct {
			Name    string
			Cluster map[string]string
		}
		Users []struct {
			Name string
			User map[string]string
		}
	}
	require.NoError(t, yaml.Unmarshal([]byte(text), &kubeconfig))
	assert.Equal(t, shootNamespace, kubeconfig.CurrentContext)
	assert.Equal(t, map[string]string{
		"server":                     "https://kube-apiserver",
		"certificate-authority-data": render.GeneratedRef(shootNamespace, "ca", "ca.crt", true),
	}, kubeconfig.Clusters[0].Cluster)
	assert.Equal(t, map[string]string{
		"client-certificate-data": render.GeneratedRef(shootNamespace, BootstrapCertificateSecretName, "tls.crt", true),
		"client-key-data":         render.GeneratedRef(shootNamespace, BootstrapCertificateSecretName, "tls.key", true),
	}, kubeconfig.Users[0].User)
	assert.Equal(t, "gardener.cloud:system:gardener-resource-manager", BootstrapCommonName)
	assert.Equal(t, "system:masters", BootstrapOrganization)
	assert.Equal(t, 10*time.Minute, BootstrapValidity)

	for _, o := range objs {
		if o.Object.GetKind() == "Secret" && o.Object.GetName() == AccessSecretName {
			require.NotNil(t, o.Supersedes)
			assert.True(t, o.Supersedes.MatchString(BootstrapKubeconfigSecretName))
			assert.True(t, o.Supersedes.MatchString(BootstrapCertificateSecretName))
			assert.False(t, o.Supersedes.MatchString(AccessSecretName))
		}
	}
}

func TestMustBootstrap(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	access := func(annotations map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret",
			"metadata": map[string]any{"name": AccessSecretName, "annotations": annotations}}}
	}
	renewed := access(map[string]any{"serviceaccount.resources.gardener.cloud/token-renew-timestamp": "2025-06-01T13:00:00Z"})
	mr := func(message string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "resources.gardener.cloud/v1alpha1", "kind": "ManagedResource",
			"metadata": map[string]any{"name": ShootManagedResourceName}}}
		if message != "" {
			u.Object["status"] = map[string]any{"conditions": []any{map[string]any{"type": "ResourcesApplied", "status": "False", "message": message}}}
		}
		return u
	}
	for _, tc := range []struct {
		name     string
		replicas int32
		access   *unstructured.Unstructured
		managed  *unstructured.Unstructured
		want     bool
		reason   string
	}{
		{"scaled to zero", 0, nil, nil, false, ""},
		{"no access secret yet: deployed with its token path, bootstrapped once a plan sees no token", 2, nil, nil, false, ""},
		{"no token yet", 2, access(nil), mr(""), true, "has not written a token yet"},
		{"token not renewed", 2, access(map[string]any{"serviceaccount.resources.gardener.cloud/token-renew-timestamp": "2025-06-01T11:00:00Z"}), mr(""), true, "was not renewed"},
		{"no managed resource", 2, renewed, nil, true, "does not exist yet"},
		{"forbidden", 2, renewed, mr(`clusterrolebindings is forbidden: User "system:serviceaccount:kube-system:gardener-resource-manager" cannot list`), true, "lost its access"},
		{"unauthorized", 2, renewed, mr("Get \"https://kube-apiserver/api\": Unauthorized"), true, "lost its access"},
		{"another failure", 2, renewed, mr("something else"), false, ""},
		{"bootstrapped", 2, renewed, mr(""), false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, reason, err := MustBootstrap(tc.replicas, tc.access, tc.managed, now)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			if tc.reason == "" {
				assert.Empty(t, reason)
			} else {
				assert.Contains(t, reason, tc.reason)
			}
		})
	}
	_, _, err := MustBootstrap(2, access(map[string]any{"serviceaccount.resources.gardener.cloud/token-renew-timestamp": "soon"}), nil, now)
	assert.ErrorContains(t, err, "renew timestamp")
}

// TestShootManagedResource: the GRM's objects in the shoot (ensureShootResources).
func TestShootManagedResource(t *testing.T) {
	objs := objectsOf(t, shootValues())
	mr := rendertest.MustFind(t, objs, "ManagedResource", ShootManagedResourceName)
	assert.Equal(t, map[string]string{"origin": "gardener"}, mr.GetLabels())
	inject, _, _ := unstructured.NestedStringMap(mr.Object, "spec", "injectLabels")
	assert.Equal(t, map[string]string{"shoot.gardener.cloud/no-cleanup": "true"}, inject)
	keep, _, _ := unstructured.NestedBool(mr.Object, "spec", "keepObjects")
	assert.False(t, keep)
	contents := packed(t, objs, ShootManagedResourceName)
	require.Len(t, contents, 2)

	var crb rbacv1.ClusterRoleBinding
	fromContents(t, contents, "clusterrolebinding____gardener.cloud_target_resource-manager.yaml", &crb)
	assert.Equal(t, "gardener.cloud:target:resource-manager", crb.Name)
	assert.Equal(t, map[string]string{"resources.gardener.cloud/keep-object": "true"}, crb.Annotations)
	assert.Equal(t, rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "cluster-admin"}, crb.RoleRef)
	assert.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Name: "gardener-resource-manager", Namespace: "kube-system"}}, crb.Subjects)

	var mwc struct {
		Metadata struct {
			Name   string
			Labels map[string]string
		}
		Webhooks []struct {
			admissionregistrationv1.MutatingWebhook `json:",inline"`
			ClientConfig                            struct {
				URL      string
				CABundle string
			} `json:"clientConfig"`
		}
	}
	require.NoError(t, yaml.Unmarshal([]byte(contents["mutatingwebhookconfiguration____gardener-resource-manager-shoot.yaml"]), &mwc))
	assert.Equal(t, "gardener-resource-manager-shoot", mwc.Metadata.Name)
	assert.Equal(t, map[string]string{"app": "gardener-resource-manager"}, mwc.Metadata.Labels)
	var names []string
	for _, h := range mwc.Webhooks {
		names = append(names, h.Name)
		assert.Equal(t, render.GeneratedRef(shootNamespace, "ca", "ca.crt", true), h.ClientConfig.CABundle, h.Name)
		assert.True(t, strings.HasPrefix(h.ClientConfig.URL, "https://gardener-resource-manager."+shootNamespace+":443/webhooks/"), h.ClientConfig.URL)
		assert.Equal(t, []string{"v1beta1", "v1"}, h.AdmissionReviewVersions)
		assert.Equal(t, admissionregistrationv1.SideEffectClassNone, *h.SideEffects)
	}
	assert.Equal(t, []string{
		"projected-token-mount.resources.gardener.cloud",
		"high-availability-config.resources.gardener.cloud",
		"kubernetes-service-host.resources.gardener.cloud",
		"system-components-config.resources.gardener.cloud",
	}, names)
	host := mwc.Webhooks[2]
	assert.Equal(t, "https://gardener-resource-manager."+shootNamespace+":443/webhooks/kubernetes-service-host", host.ClientConfig.URL)
	assert.Equal(t, admissionregistrationv1.Ignore, *host.FailurePolicy)
	assert.Equal(t, int32(2), *host.TimeoutSeconds)
	assert.Equal(t, admissionregistrationv1.NeverReinvocationPolicy, *host.ReinvocationPolicy)
	optOut := `{"matchExpressions":[{"key":"apiserver-proxy.networking.gardener.cloud/inject","operator":"NotIn","values":["disable"]}]}`
	assert.JSONEq(t, optOut, jsonOf(t, host.NamespaceSelector))
	assert.JSONEq(t, optOut, jsonOf(t, host.ObjectSelector))
	system := mwc.Webhooks[3]
	assert.JSONEq(t, `{"matchExpressions":[{"key":"gardener.cloud/purpose","operator":"In","values":["kube-system","kubernetes-dashboard"]}]}`, jsonOf(t, system.NamespaceSelector))
	assert.JSONEq(t, `{"matchLabels":{"resources.gardener.cloud/managed-by":"gardener"},"matchExpressions":[{"key":"system-components-config.resources.gardener.cloud/skip","operator":"DoesNotExist"}]}`, jsonOf(t, system.ObjectSelector))

	// The optional webhooks, in Gardener's order.
	names = nil
	for _, h := range shootWebhooks(withShoot(func(s *ShootTarget) {
		s.BinPacking, s.PodTopologySpreadConstraints, s.KubernetesServiceHost = true, true, ""
	})) {
		names = append(names, h.Name)
	}
	assert.Equal(t, []string{
		"projected-token-mount.resources.gardener.cloud",
		"high-availability-config.resources.gardener.cloud",
		"pod-scheduler-name.resources.gardener.cloud",
		"system-components-config.resources.gardener.cloud",
		"pod-topology-spread-constraints.resources.gardener.cloud",
	}, names)
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	out, err := yaml.Marshal(v)
	require.NoError(t, err)
	j, err := yaml.YAMLToJSON(out)
	require.NoError(t, err)
	return string(j)
}

// packed are the objects of a ManagedResource's Secret by data key.
func packed(t *testing.T, objs []render.Object, mr string) map[string]string {
	t.Helper()
	data, _, _ := unstructured.NestedStringMap(rendertest.PackedSecret(t, objs, mr).Object, "stringData")
	return data
}

func fromContents(t *testing.T, contents map[string]string, key string, out runtime.Object) {
	t.Helper()
	require.Contains(t, contents, key)
	require.NoError(t, yaml.Unmarshal([]byte(contents[key]), out))
}

func mountOf(t *testing.T, d appsv1.Deployment, name string) corev1.VolumeMount {
	t.Helper()
	for _, m := range d.Spec.Template.Spec.Containers[0].VolumeMounts {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("no mount %s", name)
	return corev1.VolumeMount{}
}

func volumeOf(t *testing.T, d appsv1.Deployment, name string) corev1.Volume {
	t.Helper()
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("no volume %s", name)
	return corev1.Volume{}
}

func volumeNames(d appsv1.Deployment) []string {
	var out []string
	for _, v := range d.Spec.Template.Spec.Volumes {
		out = append(out, v.Name)
	}
	return out
}

func TestShootDeployment(t *testing.T) {
	for _, tc := range []struct {
		name, priority, want string
		hibernated           bool
		replicas             int32
	}{
		// gardener-system-400 (DefaultResourceManager); servers have 2 replicas.
		{"default", "", "gardener-system-400", false, 2},
		{"custom priority", "gardener-system-500", "gardener-system-500", false, 2},
		{"hibernated", "", "gardener-system-400", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := shootValues()
			v.PriorityClassName, v.Hibernated = tc.priority, tc.hibernated
			d := deploymentOf(t, v)
			assert.Equal(t, tc.want, d.Spec.Template.Spec.PriorityClassName)
			require.NotNil(t, d.Spec.Replicas)
			assert.Equal(t, tc.replicas, *d.Spec.Replicas)
			assert.Equal(t, map[string]string{
				"app": "gardener-resource-manager", "gardener.cloud/role": "controlplane",
				"high-availability-config.resources.gardener.cloud/type": "server",
				"high-availability-config.resources.gardener.cloud/skip": "true",
			}, d.Labels)
			assert.Equal(t, map[string]string{
				"app": "gardener-resource-manager", "gardener.cloud/role": "controlplane",
				"networking.gardener.cloud/to-dns":                              "allowed",
				"networking.gardener.cloud/to-runtime-apiserver":                "allowed",
				"networking.resources.gardener.cloud/to-kube-apiserver-tcp-443": "allowed",
				"projected-token-mount.resources.gardener.cloud/skip":           "true",
				"system-components-config.resources.gardener.cloud/skip":        "true",
			}, d.Spec.Template.Labels)
			assert.Equal(t, []string{"kube-api-access-gardener", "tls", "config", "root-ca", "kubeconfig"}, volumeNames(d))
			// The garbage collector keeps what the pods use.
			for _, name := range []string{"gardener-resource-manager-server", "ca", "generic-token-kubeconfig", AccessSecretName} {
				assert.Contains(t, d.Spec.Template.Annotations, unique.AnnotationKey("secret", name), name)
			}
		})
	}
}

func TestShootRBAC(t *testing.T) {
	var role rbacv1.Role
	objs := objectsOf(t, shootValues())
	find(t, objs, "Role", &role)
	assert.Equal(t, shootNamespace, role.Namespace)
	assert.Equal(t, []rbacv1.PolicyRule{
		{APIGroups: []string{"resources.gardener.cloud"}, Resources: []string{"managedresources", "managedresources/status"}, Verbs: []string{"get", "list", "watch", "update", "patch"}},
		{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "list", "watch", "update", "patch"}},
		{APIGroups: []string{""}, Resources: []string{"configmaps", "events"}, Verbs: []string{"create"}},
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"gardener-resource-manager"}, Verbs: []string{"get", "watch", "update", "patch"}},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"create"}},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, ResourceNames: []string{"gardener-resource-manager"}, Verbs: []string{"get", "watch", "update"}},
		{APIGroups: []string{"machine.sapcloud.io"}, Resources: []string{"machines"}, Verbs: []string{"get", "list", "watch"}},
	}, role.Rules)
	var binding rbacv1.RoleBinding
	find(t, objs, "RoleBinding", &binding)
	assert.Equal(t, rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: Name}, binding.RoleRef)
	assert.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Name: Name, Namespace: shootNamespace}}, binding.Subjects)
	var sa corev1.ServiceAccount
	find(t, objs, "ServiceAccount", &sa)
	assert.Equal(t, ptr.To(false), sa.AutomountServiceAccountToken)
}

func TestShootServiceAndPDB(t *testing.T) {
	objs := objectsOf(t, shootValues())
	var svc corev1.Service
	find(t, objs, "Service", &svc)
	// The shoot's Prometheus scrapes it, the shoot's API server calls its webhooks.
	assert.Equal(t, map[string]string{
		"networking.resources.gardener.cloud/from-all-scrape-targets-allowed-ports":  `[{"protocol":"TCP","port":8080}]`,
		"networking.resources.gardener.cloud/from-all-webhook-targets-allowed-ports": `[{"protocol":"TCP","port":10250}]`,
	}, svc.Annotations)
	assert.Equal(t, map[string]string{"app": Name, "gardener.cloud/role": "controlplane"}, svc.Labels)
	var pdb policyv1.PodDisruptionBudget
	find(t, objs, "PodDisruptionBudget", &pdb)
	assert.Equal(t, map[string]string{"app": Name, "gardener.cloud/role": "controlplane"}, pdb.Spec.Selector.MatchLabels)
	vpa := rendertest.MustFind(t, objs, "VerticalPodAutoscaler", "gardener-resource-manager-vpa")
	assert.Equal(t, map[string]string{"app": Name, "gardener.cloud/role": "controlplane"}, vpa.GetLabels())
	policies, _, _ := unstructured.NestedSlice(vpa.Object, "spec", "resourcePolicy", "containerPolicies")
	assert.Equal(t, []any{map[string]any{"containerName": "*", "controlledValues": "RequestsOnly"}}, policies)
	target, _, _ := unstructured.NestedString(vpa.Object, "spec", "targetRef", "name")
	assert.Equal(t, Name, target)
}

// TestRuntimeHibernationAndPriority checks the Go-only fields on the runtime GRM: hibernation
// scales it to zero (Gardener's "Shoot Hibernation" docs/usage/shoot/shoot_hibernate.md), a
// priority class replaces the default.
func TestRuntimeHibernationAndPriority(t *testing.T) {
	var d appsv1.Deployment
	find(t, objectsOf(t, values(Values{Cluster: clusterRef(), Hibernated: true, PriorityClassName: "gardener-system-critical"})), "Deployment", &d)
	assert.Equal(t, int32(0), *d.Spec.Replicas)
	assert.Equal(t, "gardener-system-critical", d.Spec.Template.Spec.PriorityClassName)
}

func TestShootErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*Values)
		err    string
	}{
		{"no namespace", func(v *Values) { v.Namespace = "" }, "namespace is required for a shoot's resource manager"},
		{"no CA", func(v *Values) { v.Shoot.CASecretName = "" }, "the cluster CA secret name is required"},
		{"bad access secret", func(v *Values) { v.Shoot.AccessSecretName = "Access_Secret" }, `shoot target: access secret name "Access_Secret" is invalid`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := shootValues()
			s := *v.Shoot
			v.Shoot = &s
			tc.change(&v)
			_, err := Objects(v)
			assert.ErrorContains(t, err, tc.err)
		})
	}
}
