package clusterautoscaler

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The facts below are those of gardenlet's cluster-autoscaler in gardener/gardener v1.120.0, from
// pkg/component/autoscaling/clusterautoscaler/cluster_autoscaler.go, the objects its
// cluster_autoscaler_test.go expects, and pkg/gardenlet/operation/botanist/clusterautoscaler.go.

func TestGardenerDeployment(t *testing.T) {
	v := minimal()
	v.IgnoreTaints, v.StartupTaints, v.StatusTaints = []string{"ignored"}, []string{"startup"}, []string{"status"}
	v.MaxNodesTotal = 1000
	objs, err := Objects(v)
	require.NoError(t, err)
	d := rendertest.Typed[appsv1.Deployment](t, objs, "Deployment", Name)
	pod := d.Spec.Template.Spec
	c := pod.Containers[0]
	facts := []struct {
		fact      string
		got, want any
	}{
		{"deployment labels", d.Labels, map[string]string{
			"app": "kubernetes", "role": "cluster-autoscaler", "gardener.cloud/role": "controlplane",
			"high-availability-config.resources.gardener.cloud/type":             "controller",
			"provider.extensions.gardener.cloud/mutated-by-controlplane-webhook": "true",
		}},
		{"revision history", *d.Spec.RevisionHistoryLimit, int32(1)},
		{"pod labels", d.Spec.Template.Labels, map[string]string{
			"app": "kubernetes", "role": "cluster-autoscaler", "gardener.cloud/role": "controlplane",
			"maintenance.gardener.cloud/restart":                            "true",
			"networking.gardener.cloud/to-dns":                              "allowed",
			"networking.gardener.cloud/to-runtime-apiserver":                "allowed",
			"networking.resources.gardener.cloud/to-kube-apiserver-tcp-443": "allowed",
		}},
		// The defaults of the Shoot's clusterAutoscaler (SetDefaults_ClusterAutoscaler in
		// pkg/apis/core/v1beta1/defaults_shoot.go) as computeCommand prints them.
		{"command, flag for flag in Gardener's order", c.Command, []string{
			"./cluster-autoscaler",
			"--address=:8085",
			"--kubeconfig=/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig/kubeconfig",
			"--cloud-provider=mcm",
			"--stderrthreshold=info",
			"--skip-nodes-with-system-pods=false",
			"--skip-nodes-with-local-storage=false",
			"--expendable-pods-priority-cutoff=-10",
			"--balance-similar-node-groups=true",
			"--ignore-taint=node.gardener.cloud/critical-components-not-ready",
			"--expander=least-waste",
			"--max-graceful-termination-sec=600",
			"--max-node-provision-time=20m0s",
			"--scale-down-utilization-threshold=0.500000",
			"--scale-down-unneeded-time=30m0s",
			"--scale-down-delay-after-add=1h0m0s",
			"--scale-down-delay-after-delete=0s",
			"--scale-down-delay-after-failure=3m0s",
			"--scan-interval=10s",
			"--ignore-daemonsets-utilization=false",
			"--v=2",
			"--max-empty-bulk-delete=10",
			"--new-pod-scale-up-delay=0s",
			"--max-nodes-total=1000",
			"--startup-taint=startup",
			"--status-taint=status",
			"--ignore-taint=ignored",
			"--nodes=2:3:shoot--dev--a.shoot--dev--a-cpu-worker-z1",
			"--nodes=1:2:shoot--dev--a.shoot--dev--a-cpu-worker-z2",
		}},
		{"env", c.Env, []corev1.EnvVar{
			{Name: "CONTROL_NAMESPACE", Value: "shoot--dev--a"},
			{Name: "TARGET_KUBECONFIG", Value: "/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig/kubeconfig"},
		}},
		{"ports", c.Ports, []corev1.ContainerPort{{Name: "metrics", ContainerPort: 8085, Protocol: corev1.ProtocolTCP}}},
		{"requests", c.Resources, corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("30M"),
		}}},
		{"image pull policy", c.ImagePullPolicy, corev1.PullIfNotPresent},
		{"container security context", *c.SecurityContext, corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false)}},
		{"no probe", c.LivenessProbe, (*corev1.Probe)(nil)},
		{"priority class", pod.PriorityClassName, "gardener-system-300"},
		{"service account", pod.ServiceAccountName, "cluster-autoscaler"},
		{"termination grace period", *pod.TerminationGracePeriodSeconds, int64(5)},
		{"generic kubeconfig volume", pod.Volumes[0].Name, "kubeconfig"},
	}
	for _, f := range facts {
		assert.Equal(t, f.want, f.got, f.fact)
	}
}

func TestGardenerCompanions(t *testing.T) {
	objs, err := Objects(minimal())
	require.NoError(t, err)
	crb := rendertest.Typed[rbacv1.ClusterRoleBinding](t, objs, "ClusterRoleBinding", "cluster-autoscaler-shoot--dev--a")
	svc := rendertest.Typed[corev1.Service](t, objs, "Service", Name)
	vpa := rendertest.MustFind(t, objs, "VerticalPodAutoscaler", "cluster-autoscaler-vpa")
	facts := []struct {
		fact      string
		got, want any
	}{
		{"automount", *rendertest.Typed[corev1.ServiceAccount](t, objs, "ServiceAccount", Name).AutomountServiceAccountToken, false},
		{"seed binding", crb.RoleRef.Name, "system:cluster-autoscaler-seed"},
		{"headless service", svc.Spec.ClusterIP, "None"},
		{"service ports", svc.Spec.Ports, []corev1.ServicePort{{Name: "metrics", Protocol: corev1.ProtocolTCP, Port: 8085, TargetPort: intstr.FromInt32(8085)}}},
		{"service scrape annotation", svc.Annotations["networking.resources.gardener.cloud/from-all-scrape-targets-allowed-ports"], `[{"protocol":"TCP","port":8085}]`},
		{"PDB", rendertest.Find(objs, "PodDisruptionBudget", Name) != nil, true},
		{"VPA for all containers", vpa.Object["spec"].(map[string]any)["resourcePolicy"], map[string]any{
			"containerPolicies": []any{map[string]any{"containerName": "*", "controlledValues": "RequestsOnly"}},
		}},
		{"VPA without labels", vpa.GetLabels(), map[string]string(nil)},
	}
	for _, f := range facts {
		assert.Equal(t, f.want, f.got, f.fact)
	}
	// CreateForShoot: origin=gardener, objects not kept.
	assert.Equal(t, map[string]string{"origin": "gardener"}, rendertest.MustFind(t, objs, "ManagedResource", ShootRBACName).GetLabels())
	assert.Equal(t, false, rendertest.MustFind(t, objs, "ManagedResource", ShootRBACName).Object["spec"].(map[string]any)["keepObjects"])
	shoot := packed(t, objs, ShootRBACName)
	assert.Len(t, shoot, 4)
	var rb rbacv1.RoleBinding
	require.NoError(t, yaml.Unmarshal([]byte(shoot["RoleBinding kube-system/gardener.cloud:target:cluster-autoscaler"]), &rb))
	assert.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Name: "cluster-autoscaler"}}, rb.Subjects)
	var cr rbacv1.ClusterRole
	require.NoError(t, yaml.Unmarshal([]byte(shoot["ClusterRole gardener.cloud:target:cluster-autoscaler"]), &cr))
	assert.Len(t, cr.Rules, 13)
}

// TestPriorityExpander: a pool with a priority puts the priority expander first and adds the
// ConfigMap with the MachineDeployments by priority, pools without one at 0.
func TestPriorityExpander(t *testing.T) {
	v := minimal()
	v.WorkerPools = append(v.WorkerPools, Pool{Name: "gpu", Minimum: 0, Maximum: 2, Priority: ptr.To(int32(40))})
	objs, err := Objects(v)
	require.NoError(t, err)
	d := rendertest.Typed[appsv1.Deployment](t, objs, "Deployment", Name)
	assert.Contains(t, d.Spec.Template.Spec.Containers[0].Command, "--expander=priority,least-waste")
	var cm corev1.ConfigMap
	require.NoError(t, yaml.Unmarshal([]byte(packed(t, objs, ShootRBACName)["ConfigMap kube-system/cluster-autoscaler-priority-expander"]), &cm))
	assert.Equal(t, "0:\n- shoot--dev--a-cpu-worker-z1\n- shoot--dev--a-cpu-worker-z2\n40:\n- shoot--dev--a-gpu-z1\n", cm.Data["priorities"])

	v.Expander = "random,priority"
	objs, err = Objects(v)
	require.NoError(t, err)
	d = rendertest.Typed[appsv1.Deployment](t, objs, "Deployment", Name)
	assert.Contains(t, d.Spec.Template.Spec.Containers[0].Command, "--expander=random,priority")
}

func TestMaxNodesTotal(t *testing.T) {
	for _, tc := range []struct {
		name        string
		pods, nodes string
		mask        int32
		ipv6, limit int64
		want        int64
	}{
		// A /16 pod network in /24 node ranges holds 256 nodes; a /24 node network 254.
		{name: "pods bind", pods: "100.96.0.0/16", nodes: "10.250.0.0/16", mask: 24, want: 256},
		{name: "nodes bind", pods: "100.96.0.0/11", nodes: "10.250.0.0/24", mask: 24, want: 254},
		{name: "no node network", pods: "100.96.0.0/16", mask: 25, want: 512},
		{name: "no pod network", nodes: "10.250.0.0/24", mask: 24, want: 0},
		{name: "cloud profile limit", pods: "100.96.0.0/16", mask: 24, limit: 100, want: 100},
		// Dual-stack: an IPv6 /48 in /80 ranges is no bound; IPv4 binds.
		{name: "dual-stack", pods: "100.96.0.0/16,2001:db8::/48", mask: 24, want: 256},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := MaxNodesTotal(tc.pods, tc.nodes, tc.mask, tc.ipv6 == 1, tc.limit)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	_, err := MaxNodesTotal("bogus", "", 24, false, 0)
	assert.Error(t, err)
}

func TestSeedBootstrap(t *testing.T) {
	objs, err := SeedBootstrap("seed", "garden")
	require.NoError(t, err)
	mr := rendertest.MustFind(t, objs, "ManagedResource", "cluster-autoscaler")
	class, _, _ := unstructured.NestedString(mr.Object, "spec", "class")
	assert.Equal(t, "seed", class)
	var role rbacv1.ClusterRole
	require.NoError(t, yaml.Unmarshal([]byte(packed(t, objs, "cluster-autoscaler")["ClusterRole system:cluster-autoscaler-seed"]), &role))
	assert.Equal(t, []rbacv1.PolicyRule{
		{APIGroups: []string{"machine.sapcloud.io"}, Resources: []string{"machineclasses", "machinedeployments", "machines", "machinesets"},
			Verbs: []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}},
		{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"get", "list", "watch"}},
	}, role.Rules)
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

// TestImageByKubernetesVersion: the release of Gardener's image vector for the shoot's minor
// version (imagevector/containers.yaml, gardener/gardener v1.120.0).
func TestImageByKubernetesVersion(t *testing.T) {
	const repo = "europe-docker.pkg.dev/gardener-project/releases/gardener/autoscaler/cluster-autoscaler:"
	for _, tc := range []struct{ version, want string }{
		{"", repo + "v1.32.0"},
		{"1.33.1", repo + "v1.32.0"},
		{"1.32.3", repo + "v1.32.0"},
		{"1.31.2", repo + "v1.31.0"},
		{"1.30.0", repo + "v1.30.2"},
		{"1.29.9", repo + "v1.29.2"},
		{"1.28.1", repo + "v1.28.3"},
		{"1.27.0", repo + "v1.27.3"},
	} {
		got, err := image(nil, tc.version)
		require.NoError(t, err, tc.version)
		assert.Equal(t, tc.want, got, tc.version)
	}
	_, err := image(nil, "1.26.5")
	assert.Error(t, err)
	got, err := image(map[string]string{"cluster-autoscaler": "mirror.example.com/ca:v9"}, "1.30.0")
	require.NoError(t, err)
	assert.Equal(t, "mirror.example.com/ca:v9", got)
}
