package nginxingress

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/components/internal/unique"
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
		{"customised", map[string]cty.Value{
			"cluster":                   runtimeCluster,
			"namespace":                 cty.StringVal("garden"),
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
	t.Run("seed-behind-istio", func(t *testing.T) {
		objs, err := Objects(seedValues())
		require.NoError(t, err)
		golden.Assert(t, "seed-behind-istio", objs)
	})
}

// seedValues are a seed's values as the seed composite sets them.
func seedValues() Values {
	return values(Values{
		Cluster: decode.Cluster{Name: "seed"}, PriorityClassName: "gardener-system-600",
		LoadBalancerAnnotations: map[string]string{"a": "b"},
		Istio:                   &Istio{GatewayLabels: map[string]string{"app": "istio-ingressgateway", "istio": "ingressgateway"}, Domains: []string{"*.ingress.seed.example.com"}},
	})
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

// configMapOf is the controller's one ConfigMap, whatever its content-addressed name.
func configMapOf(t *testing.T, objs map[string]runtime.Object) *corev1.ConfigMap {
	t.Helper()
	for k, o := range objs {
		if strings.HasPrefix(k, "ConfigMap/garden/nginx-ingress-controller-") {
			return o.(*corev1.ConfigMap)
		}
	}
	t.Fatal("no controller ConfigMap")
	return nil
}

// The facts of pkg/component/networking/nginxingress and its test in gardener/gardener v1.120.0
// for cluster type seed, with the configuration of pkg/gardenlet/controller/seed/seed/nginxingress.go.
func TestGardenerFacts(t *testing.T) {
	objs := typedObjects(t, seedValues())
	controller := map[string]string{"app": "nginx-ingress", "component": "controller"}
	backend := map[string]string{"app": "nginx-ingress", "component": "nginx-ingress-k8s-backend"}

	cm := configMapOf(t, objs)
	assert.Regexp(t, `^nginx-ingress-controller-[0-9a-f]{8}$`, cm.Name)
	assert.True(t, *cm.Immutable)
	assert.Equal(t, map[string]string{"app": "nginx-ingress", "component": "controller", "resources.gardener.cloud/garbage-collectable-reference": "true"}, cm.Labels)
	assert.Equal(t, map[string]string{
		"allow-snippet-annotations": "true", "annotations-risk-level": "Critical",
		"server-name-hash-bucket-size": "256", "use-proxy-protocol": "false", "worker-processes": "2",
	}, cm.Data)

	d := objs["Deployment/garden/nginx-ingress-controller"].(*appsv1.Deployment)
	assert.Equal(t, controller, d.Labels)
	assert.Equal(t, map[string]string{"app": "nginx-ingress", "component": "controller", "release": "addons"}, d.Spec.Selector.MatchLabels, "selector")
	assert.Equal(t, int32(2), *d.Spec.Replicas)
	assert.Equal(t, int32(2), *d.Spec.RevisionHistoryLimit)
	assert.Equal(t, map[string]string{
		"app": "nginx-ingress", "component": "controller", "release": "addons",
		"networking.gardener.cloud/to-dns": "allowed", "networking.gardener.cloud/to-runtime-apiserver": "allowed",
		"networking.resources.gardener.cloud/to-nginx-ingress-k8s-backend-tcp-8080": "allowed",
		"seccompprofile.resources.gardener.cloud/skip":                              "true",
	}, d.Spec.Template.Labels)
	ref := map[string]string{unique.AnnotationKey("configmap", cm.Name): cm.Name}
	assert.Equal(t, ref, d.Annotations)
	assert.Equal(t, ref, d.Spec.Template.Annotations)
	pod := d.Spec.Template.Spec
	assert.Equal(t, "gardener-system-600", pod.PriorityClassName)
	assert.Equal(t, "nginx-ingress", pod.ServiceAccountName)
	assert.Equal(t, int64(60), *pod.TerminationGracePeriodSeconds)
	assert.Empty(t, pod.TopologySpreadConstraints)
	c := pod.Containers[0]
	assert.Equal(t, "nginx-ingress-controller", c.Name)
	assert.Equal(t, corev1.PullIfNotPresent, c.ImagePullPolicy)
	assert.Equal(t, []string{
		"/nginx-ingress-controller",
		"--default-backend-service=garden/nginx-ingress-k8s-backend",
		"--enable-ssl-passthrough=true",
		"--publish-service=garden/nginx-ingress-controller",
		"--election-id=ingress-controller-seed-leader",
		"--update-status=true",
		"--annotations-prefix=nginx.ingress.kubernetes.io",
		"--configmap=garden/" + cm.Name,
		"--ingress-class=nginx-ingress-gardener",
		"--controller-class=k8s.io/nginx-ingress-gardener",
		"--enable-annotation-validation=true",
	}, c.Args)
	assert.Equal(t, &corev1.SecurityContext{
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}, Add: []corev1.Capability{"NET_BIND_SERVICE", "SYS_CHROOT"}},
		RunAsNonRoot:             ptr.To(true),
		RunAsUser:                ptr.To[int64](101),
		AllowPrivilegeEscalation: ptr.To(true),
		SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeUnconfined},
	}, c.SecurityContext)
	probe := &corev1.Probe{
		ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(10254), Scheme: corev1.URISchemeHTTP}},
		InitialDelaySeconds: 40, PeriodSeconds: 10, SuccessThreshold: 1, TimeoutSeconds: 1, FailureThreshold: 3,
	}
	assert.Equal(t, probe, c.LivenessProbe)
	assert.Equal(t, probe, c.ReadinessProbe)
	assert.Equal(t, "1500Mi", c.Resources.Limits.Memory().String())
	assert.Equal(t, "100m", c.Resources.Requests.Cpu().String())
	assert.Equal(t, "375Mi", c.Resources.Requests.Memory().String())
	assert.Equal(t, []corev1.ContainerPort{{Name: "http", ContainerPort: 80, Protocol: corev1.ProtocolTCP}, {Name: "https", ContainerPort: 443, Protocol: corev1.ProtocolTCP}}, c.Ports)

	svc := objs["Service/garden/nginx-ingress-controller"].(*corev1.Service)
	assert.Equal(t, corev1.ServiceTypeClusterIP, svc.Spec.Type, "behind the seed's Istio ingress gateway")
	assert.Equal(t, map[string]string{
		"a": "b", "networking.istio.io/exportTo": "*",
		"networking.resources.gardener.cloud/namespace-selectors": `[{"matchLabels":{"gardener.cloud/role":"istio-ingress"}}]`,
	}, svc.Annotations)
	assert.Equal(t, controller, svc.Spec.Selector)

	pdb := objs["PodDisruptionBudget/garden/nginx-ingress-controller"].(*unstructured.Unstructured)
	minAvailable, _, _ := unstructured.NestedInt64(pdb.Object, "spec", "minAvailable")
	assert.Equal(t, int64(1), minAvailable)
	sel, _, _ := unstructured.NestedStringMap(pdb.Object, "spec", "selector", "matchLabels")
	assert.Equal(t, controller, sel)
	assert.NotContains(t, objs, "PodDisruptionBudget/garden/nginx-ingress-k8s-backend")

	vpa := objs["VerticalPodAutoscaler/garden/nginx-ingress-controller"].(*unstructured.Unstructured)
	policies, _, _ := unstructured.NestedSlice(vpa.Object, "spec", "resourcePolicy", "containerPolicies")
	assert.Equal(t, []any{map[string]any{"containerName": "*", "minAllowed": map[string]any{"memory": "100Mi"}}}, policies)

	for _, k := range []string{"ServiceAccount/garden/nginx-ingress", "ClusterRole//gardener.cloud:seed:nginx-ingress", "ClusterRoleBinding//gardener.cloud:seed:nginx-ingress",
		"Role/garden/gardener.cloud:seed:nginx-ingress:role", "RoleBinding/garden/gardener.cloud:seed:nginx-ingress:role-binding"} {
		assert.Contains(t, objs, k)
	}
	sa := objs["ServiceAccount/garden/nginx-ingress"].(*unstructured.Unstructured)
	automount, _, _ := unstructured.NestedBool(sa.Object, "automountServiceAccountToken")
	assert.False(t, automount)
	role := objs["Role/garden/gardener.cloud:seed:nginx-ingress:role"].(*unstructured.Unstructured)
	rules, _, _ := unstructured.NestedSlice(role.Object, "rules")
	assert.Equal(t, []any{"ingress-controller-seed-leader"}, rules[2].(map[string]any)["resourceNames"])

	b := objs["Deployment/garden/nginx-ingress-k8s-backend"].(*appsv1.Deployment)
	assert.Equal(t, backend, b.Labels)
	assert.Equal(t, map[string]string{"app": "nginx-ingress", "component": "nginx-ingress-k8s-backend", "release": "addons"}, b.Spec.Selector.MatchLabels, "selector")
	assert.Equal(t, int32(1), *b.Spec.Replicas)
	bc := b.Spec.Template.Spec.Containers[0]
	assert.Equal(t, "/healthy", bc.LivenessProbe.HTTPGet.Path)
	assert.Equal(t, "100Mi", bc.Resources.Limits.Memory().String())
	assert.Equal(t, &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](65534), FSGroup: ptr.To[int64](65534)}, b.Spec.Template.Spec.SecurityContext)
	bs := objs["Service/garden/nginx-ingress-k8s-backend"].(*corev1.Service)
	assert.Equal(t, []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}, bs.Spec.Ports)

	ic := objs["IngressClass//nginx-ingress-gardener"].(*networkingv1.IngressClass)
	assert.Equal(t, "k8s.io/nginx-ingress-gardener", ic.Spec.Controller)
	assert.Equal(t, controller, ic.Labels)

	// TLS passthrough from the seed's Istio ingress gateway to the controller.
	gw := objs["Gateway/garden/nginx-ingress-controller"].(*unstructured.Unstructured)
	gwSelector, _, _ := unstructured.NestedStringMap(gw.Object, "spec", "selector")
	assert.Equal(t, map[string]string{"app": "istio-ingressgateway", "istio": "ingressgateway"}, gwSelector)
	servers, _, _ := unstructured.NestedSlice(gw.Object, "spec", "servers")
	assert.Equal(t, map[string]any{"hosts": []any{"*.ingress.seed.example.com"}, "port": map[string]any{"number": int64(443), "name": "tls", "protocol": "TLS"}, "tls": map[string]any{}}, servers[0])
	vs := objs["VirtualService/garden/nginx-ingress-controller-0"].(*unstructured.Unstructured)
	route, _, _ := unstructured.NestedSlice(vs.Object, "spec", "tls")
	assert.Contains(t, fmt.Sprint(route), "nginx-ingress-controller.garden.svc.cluster.local")
	dr := objs["DestinationRule/garden/nginx-ingress-controller"].(*unstructured.Unstructured)
	drHost, _, _ := unstructured.NestedString(dr.Object, "spec", "host")
	assert.Equal(t, "nginx-ingress-controller.garden.svc.cluster.local", drHost)
	enabled, _, _ := unstructured.NestedBool(dr.Object, "spec", "trafficPolicy", "loadBalancer", "localityLbSetting", "enabled")
	assert.True(t, enabled)
}

// Without Istio values (the garden composite) the controller keeps a LoadBalancer Service and
// no Istio objects.
func TestWithoutIstio(t *testing.T) {
	objs := typedObjects(t, values(Values{Cluster: decode.Cluster{Name: "runtime"}, LoadBalancerAnnotations: map[string]string{"a": "b"}}))
	svc := objs["Service/garden/nginx-ingress-controller"].(*corev1.Service)
	assert.Equal(t, corev1.ServiceTypeLoadBalancer, svc.Spec.Type)
	assert.Equal(t, map[string]string{"a": "b"}, svc.Annotations)
	assert.NotContains(t, objs, "Gateway/garden/nginx-ingress-controller")
	d := objs["Deployment/garden/nginx-ingress-controller"].(*appsv1.Deployment)
	assert.Equal(t, "gardener-garden-system-300", d.Spec.Template.Spec.PriorityClassName)
}

func TestConfigOverridesDefaults(t *testing.T) {
	objs := typedObjects(t, values(Values{Config: map[string]string{"worker-processes": "8", "ssl-protocols": "TLSv1.3"}}))
	cm := configMapOf(t, objs)
	assert.Equal(t, "8", cm.Data["worker-processes"])
	assert.Equal(t, "TLSv1.3", cm.Data["ssl-protocols"])
	assert.Equal(t, "Critical", cm.Data["annotations-risk-level"])
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
		{"istio without domains", values(Values{Istio: &Istio{GatewayLabels: map[string]string{"a": "b"}}}), "at least one domain"},
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
