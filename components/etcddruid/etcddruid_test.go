package etcddruid

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/components/internal/unique"
	"github.com/declarative-gardener/gardener/engine/render"
)

// values are the type's defaults with what v sets, as a composite builds them.
func values(v Values) Values { return rendertest.Overlay(Type.Defaults(), v) }

// defaults are the attributes the engine passes for a block that sets only what it must: the
// schema's defaults, null where there is none.
var defaults = rendertest.ConfigOf(Type, map[string]cty.Value{
	"cluster": rendertest.Cluster("runtime"),
}).AsValueMap()

// config is a configuration as the engine passes it: schema defaults filled in, extra
// attributes overriding them.
func config(extra map[string]cty.Value) cty.Value { return rendertest.Config(defaults, extra) }

func render1(t *testing.T, extra map[string]cty.Value) []render.Object {
	t.Helper()
	out, err := Type.RenderConfig(render.Input{Name: "etcd_druid", Config: config(extra)})
	require.NoError(t, err)
	return out.Objects
}

var customised = map[string]cty.Value{
	"namespace":         cty.StringVal("etcd-system"),
	"high_availability": cty.True,
	"workers":           cty.NumberIntVal(25),
	"feature_gates":     cty.MapVal(map[string]cty.Value{"UseEtcdWrapper": cty.True, "AllowEmptyStorage": cty.False}),
	"images": cty.MapVal(map[string]cty.Value{
		"etcd-wrapper":        cty.StringVal("mirror.example.com/etcd-wrapper:v0.5.0"),
		"etcd-backup-restore": cty.StringVal("mirror.example.com/etcdbrctl@sha256:0123456789abcdef"),
	}),
}

func TestRenderGolden(t *testing.T) {
	rendertest.Golden(t, Type.RenderConfig, render.Input{Name: "etcd_druid"}, map[string]cty.Value{
		"default":           config(nil),
		"high-availability": config(customised),
	})
}

// The facts of pkg/component/etcd/etcd/bootstrap.go and its test in gardener/gardener v1.120.0.
func TestGardenerFacts(t *testing.T) {
	objs := render1(t, map[string]cty.Value{"ca_bundle": cty.StringVal("Q0E=")})
	role := map[string]string{"gardener.cloud/role": "etcd-druid"}
	withHA := map[string]string{"gardener.cloud/role": "etcd-druid", "high-availability-config.resources.gardener.cloud/type": "controller"}

	d := rendertest.Typed[appsv1.Deployment](t, objs, "Deployment", "etcd-druid")
	assert.Equal(t, withHA, d.Labels)
	assert.Equal(t, role, d.Spec.Selector.MatchLabels, "selector")
	assert.Equal(t, int32(1), *d.Spec.Replicas)
	assert.Equal(t, int32(1), *d.Spec.RevisionHistoryLimit)
	assert.Equal(t, map[string]string{"gardener.cloud/role": "etcd-druid", "networking.gardener.cloud/to-dns": "allowed", "networking.gardener.cloud/to-runtime-apiserver": "allowed"}, d.Spec.Template.Labels)
	ref := unique.AnnotationKey("secret", "etcd-druid-webhook")
	assert.Equal(t, "etcd-druid-webhook", d.Annotations[ref])
	assert.Equal(t, "etcd-druid-webhook", d.Spec.Template.Annotations[ref])
	pod := d.Spec.Template.Spec
	assert.Equal(t, "etcd-druid", pod.ServiceAccountName)
	assert.Nil(t, pod.SecurityContext)
	c := pod.Containers[0]
	assert.Equal(t, corev1.PullIfNotPresent, c.ImagePullPolicy)
	assert.Equal(t, []string{
		"--enable-leader-election=true",
		"--disable-etcd-serviceaccount-automount=true",
		"--etcd-workers=50",
		"--enable-etcd-spec-auto-reconcile=true", // false in Gardener: differs on purpose (see args)
		"--webhook-server-port=10250",
		"--webhook-server-tls-server-cert-dir=/etc/webhook-server-tls",
		"--enable-etcd-components-webhook=true",
		"--etcd-components-webhook-exempt-service-accounts=system:serviceaccount:kube-system:generic-garbage-collector",
		"--enable-backup-compaction=false",
		"--compaction-workers=3",
		"--etcd-events-threshold=1000000",
		"--metrics-scrape-wait-duration=1m0s",
	}, c.Args)
	assert.Equal(t, []corev1.ContainerPort{{ContainerPort: 8080}}, c.Ports)
	assert.Equal(t, "50m", c.Resources.Requests.Cpu().String())
	assert.Equal(t, "128Mi", c.Resources.Requests.Memory().String())
	assert.Empty(t, c.Resources.Limits)
	assert.Equal(t, &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false)}, c.SecurityContext)
	assert.Equal(t, []corev1.VolumeMount{{Name: "webhook-server-tls-cert", MountPath: "/etc/webhook-server-tls", ReadOnly: true}}, c.VolumeMounts)
	assert.Equal(t, "etcd-druid-webhook", pod.Volumes[0].Secret.SecretName)
	assert.Equal(t, int32(420), *pod.Volumes[0].Secret.DefaultMode)
	assert.Empty(t, c.Env, "no image vector overwrite without overridden etcd images")

	sa := rendertest.Typed[corev1.ServiceAccount](t, objs, "ServiceAccount", "etcd-druid")
	assert.False(t, *sa.AutomountServiceAccountToken)
	assert.Equal(t, role, sa.Labels)
	cr := rendertest.Typed[rbacv1.ClusterRole](t, objs, "ClusterRole", "gardener.cloud:system:etcd-druid")
	assert.Len(t, cr.Rules, 13)
	assert.Equal(t, []string{"poddisruptionbudgets"}, cr.Rules[12].Resources)
	rendertest.MustFind(t, objs, "ClusterRoleBinding", "gardener.cloud:system:etcd-druid")
	assert.Nil(t, rendertest.Find(objs, "Role", "etcd-druid-leader-election"), "the ClusterRole covers the leases")

	svc := rendertest.Typed[corev1.Service](t, objs, "Service", "etcd-druid")
	assert.Equal(t, withHA, svc.Labels)
	assert.Equal(t, map[string]string{
		"networking.resources.gardener.cloud/from-world-to-ports":                        `[{"protocol":"TCP","port":10250}]`,
		"networking.resources.gardener.cloud/from-all-seed-scrape-targets-allowed-ports": `[{"protocol":"TCP","port":8080}]`,
	}, svc.Annotations)
	assert.Equal(t, []corev1.ServicePort{
		{Name: "metrics", Protocol: corev1.ProtocolTCP, Port: 8080, TargetPort: intstr.FromInt32(8080)},
		{Name: "webhooks", Protocol: corev1.ProtocolTCP, Port: 443, TargetPort: intstr.FromInt32(10250)},
	}, svc.Spec.Ports)

	pdb := rendertest.Typed[policyv1.PodDisruptionBudget](t, objs, "PodDisruptionBudget", "etcd-druid")
	assert.Equal(t, int32(1), pdb.Spec.MaxUnavailable.IntVal)
	assert.Equal(t, policyv1.AlwaysAllow, *pdb.Spec.UnhealthyPodEvictionPolicy)

	vpa := rendertest.MustFind(t, objs, "VerticalPodAutoscaler", "etcd-druid-vpa").Object
	policies, _, _ := unstructured.NestedSlice(vpa, "spec", "resourcePolicy", "containerPolicies")
	assert.Equal(t, []any{map[string]any{"containerName": "etcd-druid", "minAllowed": map[string]any{"memory": "100M"}, "controlledValues": "RequestsOnly"}}, policies)

	wh := rendertest.Typed[admissionregistrationv1.ValidatingWebhookConfiguration](t, objs, "ValidatingWebhookConfiguration", "etcd-druid")
	require.Len(t, wh.Webhooks, 2)
	assert.Equal(t, "etcdcomponents.webhooks.druid.gardener.cloud", wh.Webhooks[0].Name)
	assert.Equal(t, map[string]string{"app.kubernetes.io/managed-by": "etcd-druid"}, wh.Webhooks[0].ObjectSelector.MatchLabels)
	assert.Len(t, wh.Webhooks[0].Rules, 7)
	assert.Equal(t, "stsscale.etcdcomponents.webhooks.druid.gardener.cloud", wh.Webhooks[1].Name)
	assert.Equal(t, []string{"statefulsets/scale"}, wh.Webhooks[1].Rules[0].Resources)
	for _, w := range wh.Webhooks {
		assert.Equal(t, "/webhooks/etcdcomponents", *w.ClientConfig.Service.Path)
		assert.Equal(t, int32(443), *w.ClientConfig.Service.Port)
		assert.Equal(t, admissionregistrationv1.Fail, *w.FailurePolicy)
		assert.Equal(t, []string{"v1", "v1beta1"}, w.AdmissionReviewVersions)
		assert.Equal(t, []byte("CA"), w.ClientConfig.CABundle)
	}
}

func TestHighAvailability(t *testing.T) {
	for _, tt := range []struct {
		ha       bool
		replicas int32
	}{{false, 1}, {true, 2}} {
		d := rendertest.Typed[appsv1.Deployment](t, render1(t, map[string]cty.Value{"high_availability": cty.BoolVal(tt.ha)}), "Deployment", "etcd-druid")
		assert.Equal(t, tt.replicas, *d.Spec.Replicas)
		assert.Equal(t, "gardener-garden-system-300", d.Spec.Template.Spec.PriorityClassName)
		assert.Equal(t, tt.ha, len(d.Spec.Template.Spec.TopologySpreadConstraints) > 0)
	}
}

func TestWebhookCanBeLeftUnregistered(t *testing.T) {
	objs := render1(t, map[string]cty.Value{"admission_webhooks": cty.False})
	assert.Nil(t, rendertest.Find(objs, "ValidatingWebhookConfiguration", "etcd-druid"))
}

func TestArgsFeatureGatesSorted(t *testing.T) {
	got := args(values(Values{Workers: 7, FeatureGates: map[string]bool{"B": false, "A": true}}))
	assert.Equal(t, "--etcd-workers=7", got[2])
	assert.Equal(t, "--feature-gates=A=true,B=false", got[len(got)-1])
}

// Overridden etcd images reach druid through a content-addressed image vector overwrite, mounted
// where gardenlet mounts it.
func TestImageVectorOverwriteCarriesOverrides(t *testing.T) {
	objs := render1(t, customised)
	var cm *unstructured.Unstructured
	var supersedes bool
	for _, o := range objs {
		if o.Object.GetKind() == "ConfigMap" {
			cm, supersedes = o.Object, o.Supersedes != nil && o.Supersedes.MatchString("etcd-druid-imagevector-overwrite")
		}
	}
	require.NotNil(t, cm)
	assert.Regexp(t, `^etcd-druid-imagevector-overwrite-[0-9a-f]{8}$`, cm.GetName())
	assert.True(t, supersedes)
	data, _, _ := unstructured.NestedString(cm.Object, "data", "images_overwrite.yaml")
	var got struct {
		Images []vectorEntry `json:"images"`
	}
	require.NoError(t, yaml.UnmarshalStrict([]byte(data), &got))
	assert.Equal(t, []vectorEntry{
		{Name: "etcd-backup-restore", Repository: "mirror.example.com/etcdbrctl", Tag: "sha256:0123456789abcdef"},
		{Name: "etcd-wrapper", Repository: "mirror.example.com/etcd-wrapper", Tag: "v0.5.0"},
	}, got.Images)
	d := rendertest.Typed[appsv1.Deployment](t, objs, "Deployment", "etcd-druid")
	c := d.Spec.Template.Spec.Containers[0]
	assert.Equal(t, []corev1.EnvVar{{Name: "IMAGEVECTOR_OVERWRITE", Value: "/imagevector_overwrite/images_overwrite.yaml"}}, c.Env)
	assert.Contains(t, c.VolumeMounts, corev1.VolumeMount{Name: "imagevector-overwrite", MountPath: "/imagevector_overwrite", ReadOnly: true})
	assert.Equal(t, cm.GetName(), d.Spec.Template.Annotations[unique.AnnotationKey("configmap", cm.GetName())])
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name   string
		config cty.Value
		want   string
	}{
		{"unknown image", config(map[string]cty.Value{"images": cty.MapVal(map[string]cty.Value{"etcd": cty.StringVal("v3.5")})}), `image "etcd" is not in the image vector`},
		{"negative workers", config(map[string]cty.Value{"workers": cty.NumberIntVal(-1)}), "workers -1: must be positive"},
		{"unknown attribute", cty.ObjectVal(map[string]cty.Value{"replicas": cty.NumberIntVal(3)}), "unknown field"},
		{"no cluster", cty.ObjectVal(map[string]cty.Value{"namespace": cty.StringVal("garden")}), "cluster is not set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Type.RenderConfig(render.Input{Config: tt.config})
			assert.ErrorContains(t, err, tt.want)
		})
	}
}
