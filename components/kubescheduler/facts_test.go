package kubescheduler

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

// The facts below are those of gardenlet's kube-scheduler in gardener/gardener v1.120.0, from
// pkg/component/kubernetes/scheduler/scheduler.go and the objects its scheduler_test.go expects.

// gardenerConfig are Gardener's testdata component-config.yaml and
// component-config-bin-packing.yaml, with the ConfigMap names their checksums give.
var gardenerConfig = map[string]struct{ name, text string }{
	ProfileBalanced: {"kube-scheduler-config-805aeb6f", `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: /var/run/secrets/gardener.cloud/shoot/generic-kubeconfig/kubeconfig
leaderElection:
  leaderElect: true`},
	ProfileBinPacking: {"kube-scheduler-config-e8d9851a", `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: /var/run/secrets/gardener.cloud/shoot/generic-kubeconfig/kubeconfig
leaderElection:
  leaderElect: true
profiles:
- schedulerName: default-scheduler
- schedulerName: bin-packing-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
  plugins:
    score:
      disabled:
      - name: NodeResourcesBalancedAllocation`},
}

func TestGardenerConfiguration(t *testing.T) {
	for profile, want := range gardenerConfig {
		t.Run(profile, func(t *testing.T) {
			v := minimal()
			v.Profile = profile
			objs, err := Objects(v)
			require.NoError(t, err)
			cm := rendertest.Typed[corev1.ConfigMap](t, objs, "ConfigMap", want.name)
			assert.Equal(t, want.text, cm.Data["config.yaml"])
			assert.Equal(t, map[string]string{"resources.gardener.cloud/garbage-collectable-reference": "true"}, cm.Labels)
			require.NotNil(t, cm.Immutable)
			assert.True(t, *cm.Immutable)
			d := rendertest.Typed[appsv1.Deployment](t, objs, "Deployment", Name)
			assert.Equal(t, want.name, volume(t, d, "kube-scheduler-config").ConfigMap.Name)
		})
	}
}

func volume(t *testing.T, d appsv1.Deployment, name string) corev1.Volume {
	t.Helper()
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("no volume %s", name)
	return corev1.Volume{}
}

func TestGardenerDeployment(t *testing.T) {
	v := minimal()
	v.FeatureGates = map[string]bool{"Foo": true, "Bar": false}
	v.KubeMaxPDVols = "23"
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
			"app": "kubernetes", "role": "scheduler", "gardener.cloud/role": "controlplane",
			"high-availability-config.resources.gardener.cloud/type":             "controller",
			"provider.extensions.gardener.cloud/mutated-by-controlplane-webhook": "true",
		}},
		{"selector", d.Spec.Selector.MatchLabels, map[string]string{"app": "kubernetes", "role": "scheduler"}},
		{"pod labels", d.Spec.Template.Labels, map[string]string{
			"app": "kubernetes", "role": "scheduler", "gardener.cloud/role": "controlplane",
			"maintenance.gardener.cloud/restart":                            "true",
			"networking.gardener.cloud/to-dns":                              "allowed",
			"networking.resources.gardener.cloud/to-kube-apiserver-tcp-443": "allowed",
		}},
		{"replicas", *d.Spec.Replicas, int32(1)},
		{"revision history", *d.Spec.RevisionHistoryLimit, int32(1)},
		{"strategy left to the API server's default", rendertest.Find(objs, "Deployment", Name).Object["spec"].(map[string]any)["strategy"], nil},
		{"no ServiceAccount token", *pod.AutomountServiceAccountToken, false},
		{"pod security context", *pod.SecurityContext, corev1.PodSecurityContext{
			RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To(int64(65532)), RunAsGroup: ptr.To(int64(65532)), FSGroup: ptr.To(int64(65532)),
		}},
		{"priority class", pod.PriorityClassName, "gardener-system-300"},
		{"container name", c.Name, "kube-scheduler"},
		{"image pull policy", c.ImagePullPolicy, corev1.PullIfNotPresent},
		{"command, flag for flag in Gardener's order", c.Command, []string{
			"/usr/local/bin/kube-scheduler",
			"--config=/var/lib/kube-scheduler-config/config.yaml",
			"--authentication-kubeconfig=/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig/kubeconfig",
			"--authorization-kubeconfig=/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig/kubeconfig",
			"--client-ca-file=/var/lib/kube-scheduler-client-ca/bundle.crt",
			"--tls-cert-file=/var/lib/kube-scheduler-server/tls.crt",
			"--tls-private-key-file=/var/lib/kube-scheduler-server/tls.key",
			"--secure-port=10259",
			"--feature-gates=Bar=false,Foo=true",
			"--v=2",
		}},
		{"liveness probe", *c.LivenessProbe, corev1.Probe{
			ProbeHandler:     corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Scheme: corev1.URISchemeHTTPS, Port: intOrString(10259)}},
			SuccessThreshold: 1, FailureThreshold: 2, InitialDelaySeconds: 15, PeriodSeconds: 10, TimeoutSeconds: 15,
		}},
		{"ports", c.Ports, []corev1.ContainerPort{{Name: "metrics", ContainerPort: 10259, Protocol: corev1.ProtocolTCP}}},
		{"env", c.Env, []corev1.EnvVar{{Name: "KUBE_MAX_PD_VOLS", Value: "23"}}},
		{"requests", c.Resources, corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("30M"),
		}}},
		{"container security context", *c.SecurityContext, corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false)}},
		{"mounts", c.VolumeMounts, []corev1.VolumeMount{
			{Name: "client-ca", MountPath: "/var/lib/kube-scheduler-client-ca"},
			{Name: "kube-scheduler-server", MountPath: "/var/lib/kube-scheduler-server"},
			{Name: "kube-scheduler-config", MountPath: "/var/lib/kube-scheduler-config"},
			{Name: "kubeconfig", MountPath: "/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig", ReadOnly: true},
		}},
		{"client CA bundle", volume(t, d, "client-ca").Projected.Sources[0].Secret.Items, []corev1.KeyToPath{{Key: "ca.crt", Path: "bundle.crt"}}},
		{"client CA mode", *volume(t, d, "client-ca").Projected.DefaultMode, int32(420)},
		{"server certificate", *volume(t, d, "kube-scheduler-server").Secret, corev1.SecretVolumeSource{SecretName: "kube-scheduler-server", DefaultMode: ptr.To(int32(0o640))}},
		{"generic kubeconfig", *volume(t, d, "kubeconfig").Projected, corev1.ProjectedVolumeSource{
			DefaultMode: ptr.To(int32(420)),
			Sources: []corev1.VolumeProjection{
				{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "generic-token-kubeconfig"}, Items: []corev1.KeyToPath{{Key: "kubeconfig", Path: "kubeconfig"}}, Optional: ptr.To(false)}},
				{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "shoot-access-kube-scheduler"}, Items: []corev1.KeyToPath{{Key: "token", Path: "token"}}, Optional: ptr.To(false)}},
			},
		}},
		// references.AnnotationKey: the first eight hex digits of the SHA-256 of the name.
		{"reference annotations", d.Annotations, map[string]string{
			"reference.resources.gardener.cloud/secret-" + sha256Hex([]byte("ca-client"))[:8]:                   "ca-client",
			"reference.resources.gardener.cloud/secret-" + sha256Hex([]byte("kube-scheduler-server"))[:8]:       "kube-scheduler-server",
			"reference.resources.gardener.cloud/configmap-b1943279":                                             "kube-scheduler-config-805aeb6f",
			"reference.resources.gardener.cloud/secret-" + sha256Hex([]byte("generic-token-kubeconfig"))[:8]:    "generic-token-kubeconfig",
			"reference.resources.gardener.cloud/secret-" + sha256Hex([]byte("shoot-access-kube-scheduler"))[:8]: "shoot-access-kube-scheduler",
		}},
		{"pod template carries the reference annotations too", d.Spec.Template.Annotations, d.Annotations},
	}
	for _, f := range facts {
		assert.Equal(t, f.want, f.got, f.fact)
	}
}

func TestGardenerCompanions(t *testing.T) {
	objs, err := Objects(minimal())
	require.NoError(t, err)
	svc := rendertest.Typed[corev1.Service](t, objs, "Service", "kube-scheduler")
	pdb := rendertest.Typed[policyv1.PodDisruptionBudget](t, objs, "PodDisruptionBudget", "kube-scheduler")
	access := rendertest.Typed[corev1.Secret](t, objs, "Secret", "shoot-access-kube-scheduler")
	vpa := rendertest.MustFind(t, objs, "VerticalPodAutoscaler", "kube-scheduler-vpa")
	facts := []struct {
		fact      string
		got, want any
	}{
		{"service labels", svc.Labels, map[string]string{"app": "kubernetes", "role": "scheduler"}},
		{"service scrape annotation, protocol before port", svc.Annotations, map[string]string{
			"networking.resources.gardener.cloud/from-all-scrape-targets-allowed-ports": `[{"protocol":"TCP","port":10259}]`,
		}},
		{"service type", svc.Spec.Type, corev1.ServiceTypeClusterIP},
		{"service ports", svc.Spec.Ports, []corev1.ServicePort{{Name: "metrics", Protocol: corev1.ProtocolTCP, Port: 10259, TargetPort: intOrString(10259)}}},
		{"PDB even without high availability", pdb.Spec.MaxUnavailable.IntValue(), 1},
		{"PDB labels", pdb.Labels, map[string]string{"app": "kubernetes", "role": "scheduler"}},
		{"PDB unhealthy pods", *pdb.Spec.UnhealthyPodEvictionPolicy, policyv1.AlwaysAllow},
		{"access secret labels", access.Labels, map[string]string{"resources.gardener.cloud/purpose": "token-requestor", "resources.gardener.cloud/class": "shoot"}},
		{"access secret annotations", access.Annotations, map[string]string{
			"serviceaccount.resources.gardener.cloud/name": "kube-scheduler", "serviceaccount.resources.gardener.cloud/namespace": "kube-system",
		}},
		{"access secret has no data: the kubeconfig is the generic one", len(access.StringData) + len(access.Data), 0},
		{"VPA", vpa.Object["spec"], map[string]any{
			"targetRef":      map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "kube-scheduler"},
			"updatePolicy":   map[string]any{"updateMode": "Auto"},
			"resourcePolicy": map[string]any{"containerPolicies": []any{map[string]any{"containerName": "*", "controlledValues": "RequestsOnly"}}},
		}},
	}
	for _, f := range facts {
		assert.Equal(t, f.want, f.got, f.fact)
	}
	assert.Equal(t, map[string]any{"shoot.gardener.cloud/no-cleanup": "true"}, mrSpec(t, objs, ShootRBACName)["injectLabels"])
	// CreateForShoot: origin=gardener, objects not kept.
	assert.Equal(t, map[string]string{"origin": "gardener"}, rendertest.MustFind(t, objs, "ManagedResource", ShootRBACName).GetLabels())
	assert.Equal(t, false, rendertest.MustFind(t, objs, "ManagedResource", ShootRBACName).Object["spec"].(map[string]any)["keepObjects"])
	bindings := map[string]string{}
	for _, o := range packed(t, objs, ShootRBACName) {
		var crb rbacv1.ClusterRoleBinding
		require.NoError(t, yaml.Unmarshal([]byte(o), &crb))
		require.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Name: "kube-scheduler", Namespace: "kube-system"}}, crb.Subjects, crb.Name)
		bindings[crb.Name] = crb.RoleRef.Name
	}
	assert.Equal(t, map[string]string{
		"gardener.cloud:target:kube-scheduler":        "system:kube-scheduler",
		"gardener.cloud:target:kube-scheduler-volume": "system:volume-scheduler",
	}, bindings)
}

func mrSpec(t *testing.T, objs []render.Object, name string) map[string]any {
	t.Helper()
	spec, _, err := unstructured.NestedMap(rendertest.MustFind(t, objs, "ManagedResource", name).Object, "spec")
	require.NoError(t, err)
	return spec
}

// packed are the objects of a ManagedResource's Secret.
func packed(t *testing.T, objs []render.Object, name string) []string {
	t.Helper()
	data, _, err := unstructured.NestedStringMap(rendertest.PackedSecret(t, objs, name).Object, "stringData")
	require.NoError(t, err)
	var out []string
	for _, o := range data {
		out = append(out, o)
	}
	return out
}

func intOrString(port int32) intstr.IntOrString { return intstr.FromInt32(port) }
