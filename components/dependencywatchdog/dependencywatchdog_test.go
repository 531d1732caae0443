package dependencywatchdog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/components/internal/unique"
	"github.com/declarative-gardener/gardener/engine/render"
)

// defaults are the schema's defaults, null where there is none.
var defaults = rendertest.ConfigOf(Type, map[string]cty.Value{"cluster": rendertest.Cluster("seed")}).AsValueMap()

func TestRenderGolden(t *testing.T) {
	rendertest.Golden(t, Type.RenderConfig, render.Input{Name: "dependency_watchdog"}, map[string]cty.Value{
		"default": rendertest.Config(defaults, nil),
		"weeder-only": rendertest.Config(defaults, map[string]cty.Value{
			"prober_enabled": cty.False,
			"images":         cty.MapVal(map[string]cty.Value{"dependency-watchdog": cty.StringVal("v1.5.1")}),
		}),
	})
}

func objects(t *testing.T, v Values) []render.Object {
	t.Helper()
	v.Cluster = decode.Cluster{Name: "seed"}
	objs, err := Objects(v)
	require.NoError(t, err)
	return objs
}

// configMapOf is the instance's one ConfigMap, whatever its content-addressed name.
func configMapOf(t *testing.T, objs []render.Object, r Role) (corev1.ConfigMap, render.Object) {
	t.Helper()
	for _, o := range objs {
		if o.Object.GetKind() == "ConfigMap" && unique.Versions(ConfigMapBaseName(r)).MatchString(o.Object.GetName()) {
			var cm corev1.ConfigMap
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object.Object, &cm))
			return cm, o
		}
	}
	t.Fatalf("no ConfigMap of %s", r)
	return corev1.ConfigMap{}, render.Object{}
}

// The facts of pkg/component/nodemanagement/dependencywatchdog/bootstrap.go and its test in
// gardener/gardener v1.120.0, one row per instance.
func TestGardenerFacts(t *testing.T) {
	objs := objects(t, Type.Defaults())
	for _, tt := range []struct {
		role      Role
		command   []string
		podLabels map[string]string
		minMemory string
		lease     string
	}{
		{
			role: Prober,
			command: []string{"/usr/local/bin/dependency-watchdog", "prober", "--config-file=/etc/dependency-watchdog/config/dep-config.yaml",
				"--kube-api-qps=20.0", "--kube-api-burst=100", "--zap-log-level=INFO", "--enable-leader-election=true"},
			podLabels: map[string]string{
				"app":                              "dependency-watchdog-prober",
				"networking.gardener.cloud/to-dns": "allowed",
				"networking.gardener.cloud/to-private-networks":                                            "allowed",
				"networking.gardener.cloud/to-public-networks":                                             "allowed",
				"networking.gardener.cloud/to-runtime-apiserver":                                           "allowed",
				"networking.resources.gardener.cloud/to-all-istio-ingresses-istio-ingressgateway-tcp-9443": "allowed",
				"networking.resources.gardener.cloud/to-all-shoots-kube-apiserver-tcp-443":                 "allowed",
			},
			minMemory: "50Mi",
			lease:     "dwd-prober-leader-election",
		},
		{
			role:    Weeder,
			command: []string{"/usr/local/bin/dependency-watchdog", "weeder", "--config-file=/etc/dependency-watchdog/config/dep-config.yaml", "--enable-leader-election=true"},
			podLabels: map[string]string{
				"app":                              "dependency-watchdog-weeder",
				"networking.gardener.cloud/to-dns": "allowed",
				"networking.gardener.cloud/to-runtime-apiserver": "allowed",
			},
			minMemory: "25Mi",
			lease:     "dwd-weeder-leader-election",
		},
	} {
		t.Run(string(tt.role), func(t *testing.T) {
			name := "dependency-watchdog-" + string(tt.role)
			d := rendertest.Typed[appsv1.Deployment](t, objs, "Deployment", name)
			assert.Equal(t, "garden", d.Namespace)
			assert.Equal(t, map[string]string{"app": name, "high-availability-config.resources.gardener.cloud/type": "controller"}, d.Labels)
			assert.Equal(t, map[string]string{"app": name}, d.Spec.Selector.MatchLabels, "selector")
			assert.Equal(t, int32(1), *d.Spec.Replicas, "the HA webhook raises it")
			assert.Equal(t, int32(2), *d.Spec.RevisionHistoryLimit)
			assert.Equal(t, tt.podLabels, d.Spec.Template.Labels)
			pod := d.Spec.Template.Spec
			assert.Equal(t, "gardener-system-800", pod.PriorityClassName)
			assert.Equal(t, name, pod.ServiceAccountName)
			assert.Equal(t, int64(5), *pod.TerminationGracePeriodSeconds)
			assert.Nil(t, pod.SecurityContext)
			c := pod.Containers[0]
			assert.Equal(t, "dependency-watchdog", c.Name)
			assert.Equal(t, corev1.PullIfNotPresent, c.ImagePullPolicy)
			assert.Equal(t, tt.command, c.Command)
			assert.Empty(t, c.Args)
			assert.Equal(t, []corev1.ContainerPort{{Name: "metrics", ContainerPort: 9643, Protocol: corev1.ProtocolTCP}}, c.Ports)
			assert.Nil(t, c.LivenessProbe)
			assert.Equal(t, "200m", c.Resources.Requests.Cpu().String())
			assert.Equal(t, "256Mi", c.Resources.Requests.Memory().String())
			assert.Equal(t, "512Mi", c.Resources.Limits.Memory().String())
			assert.False(t, *c.SecurityContext.AllowPrivilegeEscalation)
			assert.Equal(t, []corev1.VolumeMount{{Name: "config", MountPath: "/etc/dependency-watchdog/config", ReadOnly: true}}, c.VolumeMounts)

			cm, cmObj := configMapOf(t, objs, tt.role)
			assert.Regexp(t, "^"+name+"-config-[0-9a-f]{8}$", cm.Name)
			assert.True(t, *cm.Immutable)
			assert.Equal(t, map[string]string{"app": name, "resources.gardener.cloud/garbage-collectable-reference": "true"}, cm.Labels)
			assert.Equal(t, cm.Name, pod.Volumes[0].ConfigMap.Name)
			assert.Equal(t, cm.Name, d.Spec.Template.Annotations[unique.AnnotationKey("configmap", cm.Name)])
			assert.Equal(t, cm.Name, d.Annotations[unique.AnnotationKey("configmap", cm.Name)])
			assert.True(t, cmObj.Supersedes.MatchString(name+"-config"), "the ConfigMap named before content addressing is an earlier version")

			sa := rendertest.Typed[corev1.ServiceAccount](t, objs, "ServiceAccount", name)
			assert.False(t, *sa.AutomountServiceAccountToken)
			assert.Empty(t, sa.Labels)
			role := rendertest.Typed[rbacv1.Role](t, objs, "Role", "gardener.cloud:"+name)
			assert.Equal(t, []string{tt.lease}, role.Rules[1].ResourceNames)
			assert.Equal(t, []string{"get", "watch", "update"}, role.Rules[1].Verbs)
			assert.Equal(t, []string{"create", "get", "update", "patch"}, role.Rules[2].Verbs)
			rendertest.MustFind(t, objs, "ClusterRole", "gardener.cloud:"+name)
			rendertest.MustFind(t, objs, "ClusterRoleBinding", "gardener.cloud:"+name)
			rendertest.MustFind(t, objs, "RoleBinding", "gardener.cloud:"+name)

			pdb := rendertest.Typed[policyv1.PodDisruptionBudget](t, objs, "PodDisruptionBudget", name)
			assert.Equal(t, int32(1), pdb.Spec.MaxUnavailable.IntVal)
			assert.Equal(t, policyv1.AlwaysAllow, *pdb.Spec.UnhealthyPodEvictionPolicy)
			assert.Equal(t, map[string]string{"app": name}, pdb.Spec.Selector.MatchLabels)

			vpa := rendertest.MustFind(t, objs, "VerticalPodAutoscaler", name).Object
			mode, _, _ := unstructured.NestedString(vpa, "spec", "updatePolicy", "updateMode")
			assert.Equal(t, "Auto", mode)
			policies, _, _ := unstructured.NestedSlice(vpa, "spec", "resourcePolicy", "containerPolicies")
			assert.Equal(t, []any{map[string]any{"containerName": "*", "minAllowed": map[string]any{"memory": tt.minMemory}}}, policies)
		})
	}
	prober := rendertest.Typed[rbacv1.ClusterRole](t, objs, "ClusterRole", "gardener.cloud:dependency-watchdog-prober")
	assert.Equal(t, []string{"machines"}, prober.Rules[3].Resources)
	weeder := rendertest.Typed[rbacv1.ClusterRole](t, objs, "ClusterRole", "gardener.cloud:dependency-watchdog-weeder")
	assert.Equal(t, []string{"endpoints"}, weeder.Rules[0].Resources)
}

func TestInstancesCanBeTurnedOff(t *testing.T) {
	d := Type.Defaults()
	assert.True(t, d.ProberEnabled && d.WeederEnabled, "both default to true (SetDefaults_SeedSettingDependencyWatchdog)")
	for _, tt := range []struct {
		prober, weeder bool
		want           []string
	}{
		{true, true, []string{"dependency-watchdog-prober", "dependency-watchdog-weeder"}},
		{false, true, []string{"dependency-watchdog-weeder"}},
		{true, false, []string{"dependency-watchdog-prober"}},
		{false, false, nil},
	} {
		v := Type.Defaults()
		v.ProberEnabled, v.WeederEnabled = tt.prober, tt.weeder
		var got []string
		for _, o := range objects(t, v) {
			if o.Object.GetKind() == "Deployment" {
				got = append(got, o.Object.GetName())
			}
		}
		assert.Equal(t, tt.want, got)
	}
}

// The configuration files are what gardenlet marshals from dependency-watchdog's API: the
// kube-apiserver's prober targets and the etcd's and kube-apiserver's weeder dependants
// (pkg/component/kubernetes/apiserver/dependency_watchdog.go,
// pkg/component/etcd/etcd/dependency_watchdog.go).
func TestConfigurations(t *testing.T) {
	objs := objects(t, Type.Defaults())
	prober, _ := configMapOf(t, objs, Prober)
	assert.Equal(t, `dependentResourceInfos:
- optional: false
  ref:
    apiVersion: apps/v1
    kind: Deployment
    name: kube-controller-manager
  scaleDown:
    level: 1
  scaleUp:
    level: 0
- optional: false
  ref:
    apiVersion: apps/v1
    kind: Deployment
    name: machine-controller-manager
  scaleDown:
    level: 0
  scaleUp:
    initialDelay: 30s
    level: 1
- optional: true
  ref:
    apiVersion: apps/v1
    kind: Deployment
    name: cluster-autoscaler
  scaleDown:
    level: 0
  scaleUp:
    level: 2
kubeConfigSecretName: shoot-access-dependency-watchdog-probe
probeInterval: 30s
`, prober.Data[ConfigKey])
	weeder, _ := configMapOf(t, objs, Weeder)
	assert.Equal(t, `servicesAndDependantSelectors:
  etcd-main-client:
    podSelectors:
    - matchExpressions:
      - key: gardener.cloud/role
        operator: In
        values:
        - controlplane
      - key: role
        operator: In
        values:
        - apiserver
  kube-apiserver:
    podSelectors:
    - matchExpressions:
      - key: gardener.cloud/role
        operator: In
        values:
        - controlplane
      - key: role
        operator: NotIn
        values:
        - main
        - apiserver
watchDuration: 5m0s
`, weeder.Data[ConfigKey])
}

func TestErrors(t *testing.T) {
	_, err := Objects(rendertest.Overlay(Type.Defaults(), Values{Images: map[string]string{"dependency-watchdg": "v1"}}))
	assert.Error(t, err)
	_, err = configuration("endpoint")
	assert.Error(t, err)
	_, err = Type.RenderConfig(render.Input{Config: rendertest.Config(defaults, map[string]cty.Value{"endpoint_enabled": cty.True})})
	assert.Error(t, err)
}
