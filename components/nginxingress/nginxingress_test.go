package nginxingress

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/golden"
)

// values are the type's defaults with what v sets, as a composite builds them.
func values(v Values) Values { return rendertest.Overlay(Type.Defaults(), v) }

var runtimeCluster = cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("runtime")})

func TestRenderGolden(t *testing.T) {
	tests := []struct {
		name   string
		config map[string]cty.Value
	}{
		{"default", map[string]cty.Value{"cluster": runtimeCluster}},
		{"ha-customised", map[string]cty.Value{
			"cluster":                   runtimeCluster,
			"namespace":                 cty.StringVal("garden"),
			"high_availability":         cty.True,
			"load_balancer_annotations": cty.MapVal(map[string]cty.Value{"service.beta.kubernetes.io/aws-load-balancer-type": cty.StringVal("nlb")}),
			"ingress_class":             cty.StringVal("nginx-ingress-gardener"),
			"config":                    cty.MapVal(map[string]cty.Value{"worker-processes": cty.StringVal("4"), "proxy-body-size": cty.StringVal("8m")}),
			"priority_class_name":       cty.StringVal("gardener-system-600"),
			"images":                    cty.MapVal(map[string]cty.Value{"nginx-ingress-controller": cty.StringVal("v1.12.4")}),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Type.RenderConfig(render.Input{Name: "nginx", Config: rendertest.ConfigOf(Type, tt.config)})
			require.NoError(t, err)
			golden.Assert(t, tt.name, out.Objects)
		})
	}
}

// typedObjects renders v and converts Deployments, Services, ConfigMaps and IngressClasses back to
// typed objects, by kind/namespace/name.
func typedObjects(t *testing.T, v Values) map[string]runtime.Object {
	t.Helper()
	objs, err := Objects(v)
	require.NoError(t, err)
	out := map[string]runtime.Object{}
	for _, o := range objs {
		var typed runtime.Object
		switch o.Object.GetKind() {
		case "Deployment":
			typed = &appsv1.Deployment{}
		case "Service":
			typed = &corev1.Service{}
		case "ConfigMap":
			typed = &corev1.ConfigMap{}
		case "IngressClass":
			typed = &networkingv1.IngressClass{}
		default:
			typed = &unstructured.Unstructured{Object: o.Object.Object}
		}
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object.Object, typed))
		key := o.Object.GetKind() + "/" + o.Object.GetNamespace() + "/" + o.Object.GetName()
		assert.NotContains(t, out, key, "object rendered twice")
		out[key] = typed
	}
	return out
}

func TestDocumentedFacts(t *testing.T) {
	for _, ha := range []bool{false, true} {
		objs := typedObjects(t, values(Values{Cluster: decode.Cluster{Name: "runtime"}, HighAvailability: ha, LoadBalancerAnnotations: map[string]string{"a": "b"}}))
		want := int32(1)
		if ha {
			want = 2 // Gardener's docs/development/high-availability-of-components.md
		}
		// Gardener's "Provider Local" docs/extensions/provider-local.md: garden/nginx-ingress-controller
		// is a LoadBalancer Service.
		svc := objs["Service/garden/nginx-ingress-controller"].(*corev1.Service)
		require.NotNil(t, svc)
		assert.Equal(t, corev1.ServiceTypeLoadBalancer, svc.Spec.Type)
		assert.Equal(t, map[string]string{"a": "b"}, svc.Annotations) // Gardener's docs/concepts/operator.md
		var ports []int32
		for _, p := range svc.Spec.Ports {
			ports = append(ports, p.Port)
		}
		assert.Equal(t, []int32{80, 443}, ports)

		d := objs["Deployment/garden/nginx-ingress-controller"].(*appsv1.Deployment)
		assert.Equal(t, want, *d.Spec.Replicas)
		pod := d.Spec.Template.Spec
		assert.Equal(t, "gardener-garden-system-300", pod.PriorityClassName) // Gardener's docs/development/priority-classes.md
		assert.Equal(t, "nginx-ingress", d.Spec.Template.Labels["app"])      // Gardener's docs/operations/network_policies.md
		assert.Equal(t, d.Spec.Selector.MatchLabels, d.Spec.Template.Labels)
		assert.Subset(t, pod.Containers[0].Args, []string{
			"--ingress-class=nginx-ingress-gardener",
			"--controller-class=k8s.io/nginx-ingress-gardener",
			"--publish-service=$(POD_NAMESPACE)/nginx-ingress-controller",
			"--default-backend-service=$(POD_NAMESPACE)/nginx-ingress-k8s-backend",
		})
		assert.Equal(t, ha, len(pod.TopologySpreadConstraints) == 2)

		ic := objs["IngressClass//nginx-ingress-gardener"].(*networkingv1.IngressClass)
		assert.Equal(t, "k8s.io/nginx-ingress-gardener", ic.Spec.Controller)

		backend := objs["Deployment/garden/nginx-ingress-k8s-backend"].(*appsv1.Deployment)
		assert.Equal(t, want, *backend.Spec.Replicas)
		assert.Contains(t, objs, "Service/garden/nginx-ingress-k8s-backend")
		assert.Contains(t, objs, "PodDisruptionBudget/garden/nginx-ingress-controller")
	}
}

func TestConfigOverridesDefaults(t *testing.T) {
	objs := typedObjects(t, values(Values{Config: map[string]string{"worker-processes": "8", "ssl-protocols": "TLSv1.3"}}))
	cm := objs["ConfigMap/garden/nginx-ingress-controller"].(*corev1.ConfigMap)
	assert.Equal(t, map[string]string{
		"server-name-hash-bucket-size": "256", "use-proxy-protocol": "false", "worker-processes": "8", "ssl-protocols": "TLSv1.3",
	}, cm.Data)
	DefaultConfig()["worker-processes"] = "9" // every call returns a fresh map
	assert.Equal(t, "2", DefaultConfig()["worker-processes"])
}

func TestInvalidValues(t *testing.T) {
	tests := []struct {
		name string
		v    Values
		err  string
	}{
		{"bad namespace", values(Values{Namespace: "Garden"}), `nginx ingress: namespace "Garden"`},
		{"bad ingress class", values(Values{IngressClass: "Nginx_Class"}), `ingress class "Nginx_Class"`},
		{"bad annotation", values(Values{LoadBalancerAnnotations: map[string]string{"a b": "c"}}), `load balancer annotation "a b"`},
		{"bad config key", values(Values{Config: map[string]string{"a b": "c"}}), `config key "a b"`},
		{"unknown image", values(Values{Images: map[string]string{"nginx": "1.0"}}), `image "nginx" is not in the image vector`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Objects(tt.v)
			assert.ErrorContains(t, err, tt.err)
		})
	}
}

func TestUnknownAttribute(t *testing.T) {
	_, err := Type.RenderConfig(render.Input{Config: cty.ObjectVal(map[string]cty.Value{"cluster": runtimeCluster, "replicas": cty.NumberIntVal(3)})})
	assert.ErrorContains(t, err, `unknown field "replicas"`)
}
