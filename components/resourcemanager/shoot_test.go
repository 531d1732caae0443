package resourcemanager

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/internal/golden"
)

const shootNamespace = "shoot--dev--a"

// shootValues are a shoot's GRM as the shoot composite builds it.
func shootValues() Values {
	v := values(Values{
		Cluster:   decode.Cluster{Name: "seed"},
		Namespace: shootNamespace,
		Shoot:     &ShootTarget{KubeconfigSecretName: "shoot-access-gardener-resource-manager"},
	})
	v.Class = ""
	return v
}

func TestShootGolden(t *testing.T) {
	ha := shootValues()
	ha.HighAvailability = true
	ha.Hibernated = true
	for name, v := range map[string]Values{"shoot": shootValues(), "shoot-ha-hibernated": ha} {
		t.Run(name, func(t *testing.T) {
			golden.Assert(t, name, objectsOf(t, v))
		})
	}
}

// TestShootNamespacedOnly checks that a shoot's GRM renders nothing cluster-scoped: no CRD, no
// ClusterRole(Binding), no webhook configurations, even with admission webhooks asked for.
func TestShootNamespacedOnly(t *testing.T) {
	v := shootValues()
	v.AdmissionWebhooks = true
	var got []string
	for _, o := range objectsOf(t, v) {
		assert.Equal(t, "seed", o.Cluster)
		assert.Equal(t, shootNamespace, o.Object.GetNamespace(), "%s %s has no namespace", o.Object.GetKind(), o.Object.GetName())
		got = append(got, o.Object.GetKind()+"/"+o.Object.GetName())
	}
	assert.Equal(t, []string{
		"ServiceAccount/gardener-resource-manager",
		"Role/gardener-resource-manager",
		"RoleBinding/gardener-resource-manager",
		"ConfigMap/gardener-resource-manager-config",
		"Service/gardener-resource-manager",
		"Deployment/gardener-resource-manager",
		"PodDisruptionBudget/gardener-resource-manager",
	}, got)
}

func shootConfigOf(t *testing.T, v Values) map[string]any {
	t.Helper()
	var cm corev1.ConfigMap
	find(t, objectsOf(t, v), "ConfigMap", &cm)
	var cfg map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(cm.Data["config.yaml"]), &cfg))
	return cfg
}

func TestShootConfiguration(t *testing.T) {
	cfg := shootConfigOf(t, shootValues())
	field := func(path ...string) any {
		v, found, err := unstructured.NestedFieldNoCopy(cfg, path...)
		require.NoError(t, err)
		require.True(t, found, "%v", path)
		return v
	}
	// Gardener's "Gardener Resource Manager" docs/concepts/resource-manager.md: a shoot's GRM watches
	// only its control-plane namespace ...
	assert.Equal(t, []any{shootNamespace}, field("sourceClientConnection", "namespaces"))
	// ... and reconciles ManagedResources without a class: the GRM's default class.
	_, found, _ := unstructured.NestedFieldNoCopy(cfg, "controllers", "resourceClass")
	assert.False(t, found, "no resource class")
	// Gardener's docs/concepts/resource-manager.md: the target cluster is the shoot.
	assert.Equal(t, "/etc/gardener-resource-manager-target/kubeconfig", field("targetClientConnection", "kubeconfig"))
	assert.Equal(t, TargetKubeconfigPath, field("targetClientConnection", "kubeconfig"))
	assert.Equal(t, true, field("controllers", "tokenRequestor", "enabled"))
	assert.Equal(t, shootNamespace, field("leaderElection", "resourceNamespace"))
	// Cluster-wide duties stay with the seed's GRM.
	assert.Equal(t, false, field("controllers", "networkPolicy", "enabled"))
	assert.Equal(t, false, field("controllers", "garbageCollector", "enabled"))
	assert.Equal(t, false, field("webhooks", "highAvailabilityConfig", "enabled"))
	assert.Equal(t, false, field("webhooks", "crdDeletionProtection", "enabled"))
	assert.Equal(t, false, field("webhooks", "extensionValidation", "enabled"))
	// The webhook server keeps serving with the mounted certificate.
	assert.Equal(t, "/etc/gardener-resource-manager-tls", field("server", "webhooks", "tls", "serverCertDir"))

	// An explicit class is honoured.
	v := shootValues()
	v.Class = "shoot"
	cfg = shootConfigOf(t, v)
	assert.Equal(t, "shoot", field("controllers", "resourceClass"))
}

func TestShootDeployment(t *testing.T) {
	for _, tc := range []struct {
		name, priority, want string
		hibernated           bool
		replicas             int32
	}{
		// Gardener's "Priority Classes" docs/development/priority-classes.md, Gardener's "Topology Aware
		// Routing" docs/operations/topology_aware_routing.md: a shoot's GRM runs with
		// gardener-system-400; servers have 2 replicas (Gardener's docs/concepts/resource-manager.md).
		{"default", "", "gardener-system-400", false, 2},
		{"custom priority", "gardener-system-500", "gardener-system-500", false, 2},
		{"hibernated", "", "gardener-system-400", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := shootValues()
			v.PriorityClassName, v.Hibernated = tc.priority, tc.hibernated
			var d appsv1.Deployment
			find(t, objectsOf(t, v), "Deployment", &d)
			assert.Equal(t, tc.want, d.Spec.Template.Spec.PriorityClassName)
			require.NotNil(t, d.Spec.Replicas)
			assert.Equal(t, tc.replicas, *d.Spec.Replicas)
			secrets := map[string]string{}
			for _, vol := range d.Spec.Template.Spec.Volumes {
				if vol.Secret != nil {
					secrets[vol.Name] = vol.Secret.SecretName
				}
			}
			assert.Equal(t, map[string]string{"tls": "gardener-resource-manager-server", "target-kubeconfig": "shoot-access-gardener-resource-manager"}, secrets)
			mounts := map[string]corev1.VolumeMount{}
			for _, m := range d.Spec.Template.Spec.Containers[0].VolumeMounts {
				mounts[m.Name] = m
			}
			assert.Equal(t, corev1.VolumeMount{Name: "target-kubeconfig", MountPath: "/etc/gardener-resource-manager-target", ReadOnly: true}, mounts["target-kubeconfig"])
			assert.True(t, mounts["tls"].ReadOnly)
			// To the shoot's kube-apiserver in the same namespace (Gardener's
			// docs/concepts/resource-manager.md).
			assert.Equal(t, "allowed", d.Spec.Template.Labels["networking.resources.gardener.cloud/to-kube-apiserver-tcp-443"])
			for k, val := range d.Spec.Selector.MatchLabels {
				assert.Equal(t, val, d.Spec.Template.Labels[k], k)
			}
		})
	}
}

func TestShootRBAC(t *testing.T) {
	var role rbacv1.Role
	objs := objectsOf(t, shootValues())
	find(t, objs, "Role", &role)
	granted := map[string][]string{}
	for _, r := range role.Rules {
		assert.Empty(t, r.NonResourceURLs)
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				granted[g+"/"+res] = append(granted[g+"/"+res], r.Verbs...)
			}
		}
	}
	for res, verbs := range map[string][]string{
		"resources.gardener.cloud/managedresources":        {"get", "list", "watch", "update", "patch"},
		"resources.gardener.cloud/managedresources/status": {"update", "patch"},
		"/secrets":                   {"get", "list", "watch", "update", "patch"},
		"/configmaps":                {"get", "list", "watch"},
		"coordination.k8s.io/leases": {"create", "get", "update"},
		"/events":                    {"create"},
	} {
		for _, verb := range verbs {
			assert.Contains(t, granted[res], verb, res)
		}
	}
	assert.NotContains(t, granted, "*/*")
	var binding rbacv1.RoleBinding
	find(t, objs, "RoleBinding", &binding)
	assert.Equal(t, rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: Name}, binding.RoleRef)
	assert.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Name: Name, Namespace: shootNamespace}}, binding.Subjects)
}

func TestShootService(t *testing.T) {
	var svc corev1.Service
	find(t, objectsOf(t, shootValues()), "Service", &svc)
	// Gardener's "Network Policies" docs/operations/network_policies.md: the shoot's Prometheus
	// scrapes through from-all-scrape-targets.
	assert.Equal(t, `[{"port":8080,"protocol":"TCP"}]`, svc.Annotations["networking.resources.gardener.cloud/from-all-scrape-targets-allowed-ports"])
	assert.NotContains(t, svc.Annotations, "networking.resources.gardener.cloud/from-all-garden-scrape-targets-allowed-ports")
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
		{"no kubeconfig", func(v *Values) { v.Shoot.KubeconfigSecretName = "" }, "shoot target: kubeconfig secret name is required"},
		{"bad kubeconfig", func(v *Values) { v.Shoot.KubeconfigSecretName = "Kube_config" }, `shoot target: kubeconfig secret name "Kube_config" is invalid`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := shootValues()
			tc.change(&v)
			_, err := Objects(v)
			assert.ErrorContains(t, err, tc.err)
		})
	}
}
