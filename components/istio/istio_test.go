package istio

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/golden"
)

// values are the type's defaults with what v sets, as a composite builds them.
func values(v Values) Values { return rendertest.Overlay(Type.Defaults(), v) }

var runtimeCluster = cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("runtime")})

// gatewayBlock is one ingress_gateway block as the schema decodes it.
func gatewayBlock(namespace string, attrs map[string]cty.Value) cty.Value {
	m := map[string]cty.Value{"namespace": cty.StringVal(namespace)}
	for k, v := range attrs {
		m[k] = v
	}
	return rendertest.BlockConfigOf(Type, []string{"ingress_gateway"}, m)
}

func TestRenderGolden(t *testing.T) {
	tests := []struct {
		name   string
		config map[string]cty.Value
	}{
		{"default", map[string]cty.Value{
			"cluster":         runtimeCluster,
			"ingress_gateway": cty.TupleVal([]cty.Value{gatewayBlock(VirtualGardenIngressNamespace, nil)}),
		}},
		{"ha-zonal", map[string]cty.Value{
			"cluster":             runtimeCluster,
			"namespace":           cty.StringVal("istio-system"),
			"high_availability":   cty.True,
			"trust_domain":        cty.StringVal("garden.example.com"),
			"priority_class_name": cty.StringVal("gardener-system-critical"),
			"images":              cty.MapVal(map[string]cty.Value{"istio-proxy": cty.StringVal("1.25.4")}),
			"ingress_gateway": cty.TupleVal([]cty.Value{
				gatewayBlock("istio-ingress", map[string]cty.Value{
					"load_balancer_annotations": cty.MapVal(map[string]cty.Value{"service.beta.kubernetes.io/aws-load-balancer-type": cty.StringVal("nlb")}),
					"port": cty.TupleVal([]cty.Value{
						cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("tls"), "port": cty.NumberIntVal(443), "target_port": cty.NumberIntVal(9443)}),
						cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("proxy"), "port": cty.NumberIntVal(8443), "target_port": cty.NullVal(cty.Number)}),
						cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("tls-tunnel"), "port": cty.NumberIntVal(8132), "target_port": cty.NumberIntVal(8132)}),
					}),
				}),
				gatewayBlock("istio-ingress--0", map[string]cty.Value{
					"name":         cty.StringVal("istio-ingressgateway"),
					"labels":       cty.MapVal(map[string]cty.Value{"app": cty.StringVal("istio-ingressgateway"), "istio": cty.StringVal("ingressgateway--zone--0")}),
					"service_type": cty.StringVal("ClusterIP"),
					"zone":         cty.StringVal("europe-1a"),
				}),
			}),
		}},
		{"istiod-only", map[string]cty.Value{"cluster": runtimeCluster}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Type.RenderConfig(render.Input{Name: "istio", Config: rendertest.ConfigOf(Type, tt.config)})
			require.NoError(t, err)
			golden.Assert(t, tt.name, out.Objects)
		})
	}
}

func TestOutputsListGatewayNamespaces(t *testing.T) {
	out, err := Type.RenderConfig(render.Input{Config: rendertest.ConfigOf(Type, map[string]cty.Value{
		"cluster": runtimeCluster,
		"ingress_gateway": cty.ListVal([]cty.Value{
			gatewayBlock(VirtualGardenIngressNamespace, map[string]cty.Value{"labels": cty.NullVal(cty.Map(cty.String))}),
			gatewayBlock("istio-ingress--0", map[string]cty.Value{"labels": cty.MapVal(map[string]cty.Value{"istio": cty.StringVal("zone-0")})}),
		}),
	})})
	require.NoError(t, err)
	assert.Equal(t, cty.ListVal([]cty.Value{cty.StringVal(VirtualGardenIngressNamespace), cty.StringVal("istio-ingress--0")}),
		out.Outputs["ingress_gateway_namespaces"])

	out, err = Type.RenderConfig(render.Input{Config: rendertest.ConfigOf(Type, map[string]cty.Value{"cluster": runtimeCluster})})
	require.NoError(t, err)
	assert.Equal(t, cty.ListValEmpty(cty.String), out.Outputs["ingress_gateway_namespaces"])
}

// typedObjects renders v and converts the objects back to typed ones, by kind and name.
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
		default:
			typed = o.Object
		}
		if typed != o.Object {
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object.Object, typed))
		}
		key := o.Object.GetKind() + "/" + o.Object.GetNamespace() + "/" + o.Object.GetName()
		assert.NotContains(t, out, key, "object rendered twice")
		out[key] = typed
	}
	return out
}

func TestVirtualGardenGatewayIsTheDocumentedOne(t *testing.T) {
	objs := typedObjects(t, values(Values{
		Cluster:         decodeCluster("runtime"),
		IngressGateways: []Gateway{VirtualGardenGateway(map[string]string{"a": "b"})},
	}))
	// Gardener's "Gardener Operator" docs/concepts/operator.md, Gardener's docs/concepts/operator.md:
	// the istio-ingressgateway Service in virtual-garden-istio-ingress is a load balancer.
	svc := objs["Service/virtual-garden-istio-ingress/istio-ingressgateway"].(*corev1.Service)
	require.NotNil(t, svc)
	assert.Equal(t, corev1.ServiceTypeLoadBalancer, svc.Spec.Type)
	assert.Equal(t, map[string]string{"a": "b"}, svc.Annotations) // Gardener's docs/concepts/operator.md
	assert.Equal(t, DefaultGatewayLabels(), svc.Spec.Selector)
	ports := map[string][2]int32{}
	for _, p := range svc.Spec.Ports {
		ports[p.Name] = [2]int32{p.Port, p.TargetPort.IntVal}
	}
	// Gardener's "Control Plane Endpoints And Ports"
	// docs/usage/advanced/control-plane-endpoints-and-ports.md: TLS SNI passthrough on 443.
	assert.Equal(t, map[string][2]int32{"tls": {443, 9443}, "status-port": {15021, 15021}}, ports)

	gw := objs["Deployment/virtual-garden-istio-ingress/istio-ingressgateway"].(*appsv1.Deployment)
	require.NotNil(t, gw)
	pod := gw.Spec.Template.Spec
	assert.Equal(t, "gardener-garden-system-critical", pod.PriorityClassName) // Gardener's docs/development/priority-classes.md
	assert.Equal(t, int32(1), *gw.Spec.Replicas)
	assert.Equal(t, []string{"proxy", "router"}, pod.Containers[0].Args[:2])
	assert.Equal(t, gw.Spec.Selector.MatchLabels, gw.Spec.Template.Labels)
	assert.Contains(t, objs, "Namespace//virtual-garden-istio-ingress")
	assert.Contains(t, objs, "Namespace//istio-system")
	for _, crd := range CRDNames() {
		assert.Contains(t, objs, "CustomResourceDefinition//"+crd)
	}
}

func TestIstiod(t *testing.T) {
	for _, ha := range []bool{false, true} {
		objs := typedObjects(t, values(Values{Cluster: decodeCluster("runtime"), HighAvailability: ha}))
		d := objs["Deployment/istio-system/istiod"].(*appsv1.Deployment)
		require.NotNil(t, d)
		want := int32(1)
		if ha {
			want = 2 // servers run with 2 replicas under HA (Gardener's docs/development/high-availability-of-components.md)
		}
		assert.Equal(t, want, *d.Spec.Replicas)
		assert.Equal(t, "gardener-garden-system-critical", d.Spec.Template.Spec.PriorityClassName) // Gardener's docs/development/priority-classes.md
		assert.Equal(t, ha, len(d.Spec.Template.Spec.TopologySpreadConstraints) == 2)
		for _, c := range d.Spec.Template.Spec.TopologySpreadConstraints {
			assert.Equal(t, corev1.ScheduleAnyway, c.WhenUnsatisfiable)
		}
		svc := objs["Service/istio-system/istiod"].(*corev1.Service)
		ports := map[string][2]int32{}
		for _, p := range svc.Spec.Ports {
			ports[p.Name] = [2]int32{p.Port, p.TargetPort.IntVal}
		}
		assert.Equal(t, map[string][2]int32{
			"grpc-xds": {15010, 15010}, "https-dns": {15012, 15012}, "https-webhook": {443, 15017}, "http-monitoring": {15014, 15014},
		}, ports)
	}
}

func TestMeshConfigFollowsGardenersDeviations(t *testing.T) {
	var cfg map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(meshConfig(values(Values{Namespace: "istio-system", TrustDomain: "cluster.local"}))), &cfg))
	// Gardener's "Istio" docs/operations/istio.md: Services and VirtualServices are not advertised
	// unless they export themselves.
	assert.Equal(t, []any{"~"}, cfg["defaultServiceExportTo"])
	assert.Equal(t, []any{"~"}, cfg["defaultVirtualServiceExportTo"])
	assert.Equal(t, true, cfg["enableAutoMtls"]) // Gardener's docs/operations/istio.md
	assert.Equal(t, map[string]any{"discoveryAddress": "istiod.istio-system.svc:15012"}, cfg["defaultConfig"])
}

func TestZonalGatewayIsPinned(t *testing.T) {
	gw := VirtualGardenGateway(nil)
	gw.Namespace, gw.Zone, gw.Labels = "istio-ingress--0", "europe-1a", map[string]string{"istio": "zone-0"}
	objs := typedObjects(t, values(Values{Cluster: decodeCluster("runtime"), HighAvailability: true, IngressGateways: []Gateway{gw}}))
	d := objs["Deployment/istio-ingress--0/istio-ingressgateway"].(*appsv1.Deployment)
	terms := d.Spec.Template.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	assert.Equal(t, []string{"europe-1a"}, terms[0].MatchExpressions[0].Values)
	require.Len(t, d.Spec.Template.Spec.TopologySpreadConstraints, 1)
	assert.Equal(t, corev1.LabelHostname, d.Spec.Template.Spec.TopologySpreadConstraints[0].TopologyKey)
}

func TestInvalidValues(t *testing.T) {
	gw := func(mutate func(*Gateway)) []Gateway {
		g := VirtualGardenGateway(nil)
		mutate(&g)
		return []Gateway{g}
	}
	tests := []struct {
		name string
		v    Values
		err  string
	}{
		{"bad namespace", values(Values{Namespace: "Istio"}), `istio: namespace "Istio"`},
		{"gateway without namespace", values(Values{IngressGateways: gw(func(g *Gateway) { g.Namespace = "" })}), "has no namespace"},
		{"gateway in istiod's namespace", values(Values{IngressGateways: gw(func(g *Gateway) { g.Namespace = "istio-system" })}), "every gateway needs its own namespace"},
		{"two gateways, same labels", values(Values{IngressGateways: append(gw(func(*Gateway) {}), gw(func(g *Gateway) { g.Namespace = "other" })...)}), "have the same labels"},
		{"bad service type", values(Values{IngressGateways: gw(func(g *Gateway) { g.ServiceType = "ExternalName" })}), `service type "ExternalName"`},
		{"bad port name", values(Values{IngressGateways: gw(func(g *Gateway) { g.Ports = []Port{{Name: "TLS", Port: 443, TargetPort: 9443}} })}), `port name "TLS"`},
		{"privileged target port", values(Values{IngressGateways: gw(func(g *Gateway) { g.Ports = []Port{{Name: "tls", Port: 443}} })}), "below 1024"},
		{"reserved target port", values(Values{IngressGateways: gw(func(g *Gateway) { g.Ports = []Port{{Name: "x", Port: 80, TargetPort: 15090}} })}), "Envoy metrics port"},
		{"duplicate port", values(Values{IngressGateways: gw(func(g *Gateway) {
			g.Ports = []Port{{Name: "a", Port: 8443}, {Name: "b", Port: 8443, TargetPort: 9443}}
		})}), "repeats a name, port or target port"},
		{"bad label", values(Values{IngressGateways: gw(func(g *Gateway) { g.Labels = map[string]string{"istio": "a b"} })}), `label istio value "a b"`},
		{"unknown image", values(Values{Images: map[string]string{"istio-pilot": "1.0"}}), `image "istio-pilot" is not in the image vector`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Objects(tt.v)
			assert.ErrorContains(t, err, tt.err)
		})
	}
}

func TestUnknownAttribute(t *testing.T) {
	_, err := Type.RenderConfig(render.Input{Config: rendertest.ConfigOf(Type, map[string]cty.Value{"cluster": runtimeCluster, "replicas": cty.NumberIntVal(3)})})
	assert.ErrorContains(t, err, `unknown field "replicas"`)
}

func decodeCluster(name string) decode.Cluster { return decode.Cluster{Name: name} }
