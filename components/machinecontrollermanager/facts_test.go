package machinecontrollermanager

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The facts below are those of gardenlet's machine-controller-manager in gardener/gardener
// v1.120.0, from pkg/component/nodemanagement/machinecontrollermanager/machine_controller_manager.go
// and the objects its machine_controller_manager_test.go expects.

func TestGardenerDeployment(t *testing.T) {
	objs, err := Objects(minimal())
	require.NoError(t, err)
	d := rendertest.Typed[appsv1.Deployment](t, objs, "Deployment", Name)
	pod := d.Spec.Template.Spec
	c := pod.Containers[0]
	facts := []struct {
		fact      string
		got, want any
	}{
		{"deployment labels", d.Labels, map[string]string{
			"app": "kubernetes", "role": "machine-controller-manager", "gardener.cloud/role": "controlplane",
			"high-availability-config.resources.gardener.cloud/type":             "controller",
			"provider.extensions.gardener.cloud/mutated-by-controlplane-webhook": "true",
		}},
		{"replicas", *d.Spec.Replicas, int32(1)},
		{"revision history", *d.Spec.RevisionHistoryLimit, int32(2)},
		{"strategy left to the API server's default", rendertest.Find(objs, "Deployment", Name).Object["spec"].(map[string]any)["strategy"], nil},
		{"selector", d.Spec.Selector.MatchLabels, map[string]string{"app": "kubernetes", "role": "machine-controller-manager"}},
		{"pod labels", d.Spec.Template.Labels, map[string]string{
			"app": "kubernetes", "role": "machine-controller-manager", "gardener.cloud/role": "controlplane",
			"maintenance.gardener.cloud/restart":                            "true",
			"networking.gardener.cloud/to-dns":                              "allowed",
			"networking.gardener.cloud/to-public-networks":                  "allowed",
			"networking.gardener.cloud/to-private-networks":                 "allowed",
			"networking.gardener.cloud/to-runtime-apiserver":                "allowed",
			"networking.resources.gardener.cloud/to-kube-apiserver-tcp-443": "allowed",
		}},
		{"container", c.Name, "machine-controller-manager"},
		{"image pull policy", c.ImagePullPolicy, corev1.PullIfNotPresent},
		{"command, flag for flag in Gardener's order", c.Command, []string{
			"./machine-controller-manager",
			"--control-kubeconfig=inClusterConfig",
			"--machine-safety-overshooting-period=1m",
			"--namespace=shoot--dev--a",
			"--port=10258",
			"--safety-up=2",
			"--safety-down=1",
			"--target-kubeconfig=/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig/kubeconfig",
			"--concurrent-syncs=30",
			"--kube-api-qps=150",
			"--kube-api-burst=200",
			"--v=3",
		}},
		{"no args", len(c.Args), 0},
		{"liveness probe", *c.LivenessProbe, corev1.Probe{
			ProbeHandler:     corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(10258), Scheme: corev1.URISchemeHTTP}},
			FailureThreshold: 3, InitialDelaySeconds: 30, PeriodSeconds: 10, SuccessThreshold: 1, TimeoutSeconds: 5,
		}},
		{"ports", c.Ports, []corev1.ContainerPort{{Name: "metrics", ContainerPort: 10258, Protocol: corev1.ProtocolTCP}}},
		{"requests", c.Resources, corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("20M"),
		}}},
		{"container security context", *c.SecurityContext, corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false)}},
		{"mounts", c.VolumeMounts, []corev1.VolumeMount{{Name: "kubeconfig", MountPath: "/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig", ReadOnly: true}}},
		{"generic kubeconfig", *pod.Volumes[0].Projected, corev1.ProjectedVolumeSource{
			DefaultMode: ptr.To(int32(420)),
			Sources: []corev1.VolumeProjection{
				{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "generic-token-kubeconfig"}, Items: []corev1.KeyToPath{{Key: "kubeconfig", Path: "kubeconfig"}}, Optional: ptr.To(false)}},
				{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "shoot-access-machine-controller-manager"}, Items: []corev1.KeyToPath{{Key: "token", Path: "token"}}, Optional: ptr.To(false)}},
			},
		}},
		{"priority class", pod.PriorityClassName, "gardener-system-300"},
		{"service account", pod.ServiceAccountName, "machine-controller-manager"},
		{"termination grace period", *pod.TerminationGracePeriodSeconds, int64(5)},
	}
	for _, f := range facts {
		assert.Equal(t, f.want, f.got, f.fact)
	}
}

func TestGardenerCompanions(t *testing.T) {
	objs, err := Objects(minimal())
	require.NoError(t, err)
	sa := rendertest.Typed[corev1.ServiceAccount](t, objs, "ServiceAccount", Name)
	crb := rendertest.Typed[rbacv1.ClusterRoleBinding](t, objs, "ClusterRoleBinding", "machine-controller-manager-shoot--dev--a")
	svc := rendertest.Typed[corev1.Service](t, objs, "Service", Name)
	pdb := rendertest.Typed[policyv1.PodDisruptionBudget](t, objs, "PodDisruptionBudget", Name)
	vpa := rendertest.MustFind(t, objs, "VerticalPodAutoscaler", "machine-controller-manager-vpa")
	facts := []struct {
		fact      string
		got, want any
	}{
		{"service account token left to the projected-token-mount webhook", *sa.AutomountServiceAccountToken, false},
		{"seed binding", crb.RoleRef, rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "system:machine-controller-manager-runtime"}},
		{"seed binding subject", crb.Subjects, []rbacv1.Subject{{Kind: "ServiceAccount", Name: Name, Namespace: "shoot--dev--a"}}},
		{"no namespaced Role", rendertest.Find(objs, "Role", Name), (*unstructured.Unstructured)(nil)},
		{"headless service", svc.Spec.ClusterIP, "None"},
		{"service ports", svc.Spec.Ports, []corev1.ServicePort{
			{Name: "metrics", Protocol: corev1.ProtocolTCP, Port: 10258, TargetPort: intstr.FromInt32(10258)},
			{Name: "providermetrics", Protocol: corev1.ProtocolTCP, Port: 10259, TargetPort: intstr.FromInt32(10259)},
		}},
		{"service scrape annotation", svc.Annotations, map[string]string{
			"networking.resources.gardener.cloud/from-all-scrape-targets-allowed-ports": `[{"protocol":"TCP","port":10258},{"protocol":"TCP","port":10259}]`,
		}},
		{"PDB", pdb.Spec.MaxUnavailable.IntValue(), 1},
		{"PDB unhealthy pods", *pdb.Spec.UnhealthyPodEvictionPolicy, policyv1.AlwaysAllow},
		{"VPA labels", vpa.GetLabels(), map[string]string{"provider.extensions.gardener.cloud/mutated-by-controlplane-webhook": "true"}},
		{"VPA", vpa.Object["spec"], map[string]any{
			"targetRef":      map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": Name},
			"updatePolicy":   map[string]any{"updateMode": "Auto"},
			"resourcePolicy": map[string]any{"containerPolicies": []any{map[string]any{"containerName": Name, "controlledValues": "RequestsOnly"}}},
		}},
	}
	for _, f := range facts {
		assert.Equal(t, f.want, f.got, f.fact)
	}
	// CreateForShoot: origin=gardener, objects not kept.
	assert.Equal(t, map[string]string{"origin": "gardener"}, rendertest.MustFind(t, objs, "ManagedResource", ShootRBACName).GetLabels())
	assert.Equal(t, false, rendertest.MustFind(t, objs, "ManagedResource", ShootRBACName).Object["spec"].(map[string]any)["keepObjects"])
	shoot := packed(t, objs, ShootRBACName)
	assert.ElementsMatch(t, []string{
		"ClusterRole gardener.cloud:target:machine-controller-manager",
		"ClusterRoleBinding gardener.cloud:target:machine-controller-manager",
		"Role kube-system/gardener.cloud:target:machine-controller-manager",
		"RoleBinding kube-system/gardener.cloud:target:machine-controller-manager",
	}, keys(shoot))
	var role rbacv1.Role
	require.NoError(t, yaml.Unmarshal([]byte(shoot["Role kube-system/gardener.cloud:target:machine-controller-manager"]), &role))
	assert.Equal(t, []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"create", "delete", "get", "list"}}}, role.Rules)
}

func TestSeedBootstrap(t *testing.T) {
	objs, err := SeedBootstrap("seed", "garden")
	require.NoError(t, err)
	mr := rendertest.MustFind(t, objs, "ManagedResource", "machine-controller-manager")
	assert.Equal(t, "garden", mr.GetNamespace())
	class, _, _ := unstructured.NestedString(mr.Object, "spec", "class")
	assert.Equal(t, "seed", class)
	var role rbacv1.ClusterRole
	require.NoError(t, yaml.Unmarshal([]byte(packed(t, objs, "machine-controller-manager")["ClusterRole system:machine-controller-manager-runtime"]), &role))
	assert.Equal(t, []string{"machine-controller", "machine-controller-manager"}, role.Rules[3].ResourceNames)
	assert.Len(t, role.Rules, 4)
}

// packed are the objects of a ManagedResource's Secret by "<kind> [<namespace>/]<name>".
func packed(t *testing.T, objs []render.Object, name string) map[string]string {
	t.Helper()
	data, _, err := unstructured.NestedStringMap(rendertest.PackedSecret(t, objs, name).Object, "stringData")
	require.NoError(t, err)
	out := map[string]string{}
	for _, o := range data {
		var u unstructured.Unstructured
		require.NoError(t, yaml.Unmarshal([]byte(o), &u.Object))
		key := u.GetKind() + " " + u.GetName()
		if u.GetNamespace() != "" {
			key = u.GetKind() + " " + u.GetNamespace() + "/" + u.GetName()
		}
		out[key] = o
	}
	return out
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
