package istio

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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
	assert.Equal(t, "b", svc.Annotations["a"]) // Gardener's docs/concepts/operator.md
	assert.Equal(t, DefaultGatewayLabels(), svc.Spec.Selector)
	ports := map[string][2]int32{}
	for _, p := range svc.Spec.Ports {
		ports[p.Name] = [2]int32{p.Port, p.TargetPort.IntVal}
	}
	// Gardener's "Control Plane Endpoints And Ports"
	// docs/usage/advanced/control-plane-endpoints-and-ports.md: TLS SNI passthrough on 443, the
	// port named tcp (pkg/operator/controller/garden/garden/components.go at Gardener v1.120.0).
	assert.Equal(t, map[string][2]int32{"tcp": {443, 9443}}, ports)

	gw := objs["Deployment/virtual-garden-istio-ingress/istio-ingressgateway"].(*appsv1.Deployment)
	require.NotNil(t, gw)
	pod := gw.Spec.Template.Spec
	assert.Equal(t, "gardener-garden-system-critical", pod.PriorityClassName) // Gardener's docs/development/priority-classes.md
	assert.Nil(t, gw.Spec.Replicas, "the HorizontalPodAutoscaler's")
	assert.Equal(t, []string{"proxy", "router"}, pod.Containers[0].Args[:2])
	for k, v := range gw.Spec.Selector.MatchLabels {
		assert.Equal(t, v, gw.Spec.Template.Labels[k], k)
	}
	assert.Equal(t, "allowed", gw.Spec.Template.Labels["networking.resources.gardener.cloud/to-garden-virtual-garden-kube-apiserver-tcp-443"])
	assert.NotContains(t, gw.Spec.Template.Labels, "networking.resources.gardener.cloud/to-all-shoots-vpn-seed-server-tcp-1194", "no VPN in the garden")
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

// A zonal gateway is pinned to its zone by gardener-resource-manager's high-availability webhook,
// which reads its namespace's annotations; the namespace repeats the zone label
// (pkg/component/networking/istio/istiod.go at Gardener v1.120.0).
func TestZonalGatewayIsPinned(t *testing.T) {
	gw := VirtualGardenGateway(nil)
	gw.Namespace, gw.Zone, gw.Labels = "istio-ingress--0", "europe-1a", map[string]string{"istio": "ingressgateway--zone--europe-1a"}
	objs := objectsOf(t, values(Values{Cluster: decodeCluster("runtime"), Zones: []string{"europe-1a", "europe-1b"}, IngressGateways: []Gateway{gw}}))
	ns := rendertest.MustFind(t, objs, "Namespace", "istio-ingress--0")
	assert.Equal(t, map[string]string{
		"high-availability-config.resources.gardener.cloud/zones":        "europe-1a",
		"high-availability-config.resources.gardener.cloud/zone-pinning": "true",
	}, ns.GetAnnotations())
	assert.Equal(t, "ingressgateway--zone--europe-1a", ns.GetLabels()["istio"])
	var hpa autoscalingv2.HorizontalPodAutoscaler
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(rendertest.MustFind(t, objs, "HorizontalPodAutoscaler", "istio-ingressgateway").Object, &hpa))
	assert.Equal(t, int32(2), *hpa.Spec.MinReplicas, "a zonal gateway scales like a single-zone one")
	assert.Equal(t, int32(9), hpa.Spec.MaxReplicas)
}

func objectsOf(t *testing.T, v Values) []render.Object {
	t.Helper()
	objs, err := Objects(v)
	require.NoError(t, err)
	return objs
}

// A seed's gateway field for field as Gardener v1.120.0's istio-ingress chart renders it
// (pkg/component/networking/istio/charts/istio/istio-ingress and its test_charts).
func TestSeedGatewayAsGardener(t *testing.T) {
	gw := GatewayDefaults()
	gw.Namespace, gw.Labels, gw.VPN = "istio-ingress", map[string]string{"app": "istio-ingressgateway", "istio": "ingressgateway"}, true
	gw.Ports = []Port{{Name: "tcp", Port: 443, TargetPort: 9443}, {Name: "tls-tunnel", Port: 8132, TargetPort: 8132}}
	gw.NetworkPolicyLabels = map[string]string{"networking.resources.gardener.cloud/to-all-shoots-kube-apiserver-tcp-443": "allowed"}
	objs := objectsOf(t, values(Values{Cluster: decodeCluster("seed"), Zones: []string{"a", "b", "c"}, IngressGateways: []Gateway{gw}}))

	ns := rendertest.MustFind(t, objs, "Namespace", "istio-ingress")
	assert.Equal(t, map[string]string{
		"istio-operator-managed": "Reconcile", "istio-injection": "disabled", "gardener.cloud/role": "istio-ingress", "istio": "ingressgateway",
		"pod-security.kubernetes.io/enforce": "baseline", "high-availability-config.resources.gardener.cloud/consider": "true",
	}, ns.GetLabels())
	assert.Equal(t, map[string]string{"high-availability-config.resources.gardener.cloud/zones": "a,b,c"}, ns.GetAnnotations())

	sa := rendertest.MustFind(t, objs, "ServiceAccount", "istio-ingressgateway-service-account")
	assert.Equal(t, "1.25.1", sa.GetLabels()["app.kubernetes.io/version"])

	var d appsv1.Deployment
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(rendertest.MustFind(t, objs, "Deployment", "istio-ingressgateway").Object, &d))
	assert.Nil(t, d.Spec.Replicas, "the HorizontalPodAutoscaler's")
	assert.Equal(t, map[string]string{"app": "istio-ingressgateway", "istio": "ingressgateway"}, d.Spec.Selector.MatchLabels)
	assert.Equal(t, "1", d.Spec.Strategy.RollingUpdate.MaxSurge.String())
	assert.Equal(t, "0", d.Spec.Strategy.RollingUpdate.MaxUnavailable.String())
	pod := d.Spec.Template
	assert.Equal(t, "istio-ingressgateway-service-account", pod.Spec.ServiceAccountName)
	assert.Equal(t, "false", pod.Annotations["sidecar.istio.io/inject"])
	for _, label := range []string{
		"networking.gardener.cloud/to-dns", "networking.resources.gardener.cloud/to-istio-system-istiod-tcp-15012",
		"networking.resources.gardener.cloud/to-garden-nginx-ingress-controller-tcp-443", "networking.gardener.cloud/to-runtime-apiserver",
		"networking.resources.gardener.cloud/to-all-shoots-vpn-seed-server-tcp-1194", "networking.resources.gardener.cloud/to-all-shoots-vpn-seed-server-0-tcp-1194",
		"networking.resources.gardener.cloud/to-all-shoots-vpn-seed-server-1-tcp-1194", "networking.resources.gardener.cloud/to-all-shoots-kube-apiserver-tcp-443",
	} {
		assert.Equal(t, "allowed", pod.Labels[label], label)
	}
	c := pod.Spec.Containers[0]
	assert.Equal(t, "300m", c.Resources.Requests.Cpu().String())
	assert.Equal(t, "600Mi", c.Resources.Requests.Memory().String())
	assert.Equal(t, "4800Mi", c.Resources.Limits.Memory().String())
	assert.Equal(t, []int32{9443, 8132}, []int32{c.Ports[0].ContainerPort, c.Ports[1].ContainerPort})
	assert.Empty(t, pod.Spec.TopologySpreadConstraints, "the high-availability webhook spreads the pods")

	var hpa autoscalingv2.HorizontalPodAutoscaler
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(rendertest.MustFind(t, objs, "HorizontalPodAutoscaler", "istio-ingressgateway").Object, &hpa))
	assert.Equal(t, int32(6), *hpa.Spec.MinReplicas)
	assert.Equal(t, int32(18), hpa.Spec.MaxReplicas)
	require.Len(t, hpa.Spec.Metrics, 2)
	assert.Equal(t, int32(80), *hpa.Spec.Metrics[1].Resource.Target.AverageUtilization)
	assert.Equal(t, int32(1800), *hpa.Spec.Behavior.ScaleDown.StabilizationWindowSeconds)

	pdb := rendertest.MustFind(t, objs, "PodDisruptionBudget", "istio-ingressgateway")
	minAvailable, _, _ := unstructured.NestedInt64(pdb.Object, "spec", "minAvailable")
	assert.Equal(t, int64(1), minAvailable)

	var svc corev1.Service
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(rendertest.MustFind(t, objs, "Service", "istio-ingressgateway").Object, &svc))
	assert.Equal(t, `[{"port":8132,"protocol":"TCP"},{"port":8443,"protocol":"TCP"},{"port":9443,"protocol":"TCP"}]`, svc.Annotations["networking.resources.gardener.cloud/from-world-to-ports"])
	assert.Equal(t, `[{"matchLabels":{"gardener.cloud/role":"extension"}},{"matchLabels":{"gardener.cloud/role":"shoot"}},{"matchLabels":{"kubernetes.io/metadata.name":"garden"}}]`,
		svc.Annotations["networking.resources.gardener.cloud/namespace-selectors"])
	assert.Equal(t, "all-istio-ingresses", svc.Annotations["networking.resources.gardener.cloud/pod-label-selector-namespace-alias"])
	assert.Equal(t, []string{"tcp", "tls-tunnel"}, []string{svc.Spec.Ports[0].Name, svc.Spec.Ports[1].Name}, "no status port")

	filter := rendertest.MustFind(t, objs, "EnvoyFilter", "istio-ingressgateway")
	patches, _, _ := unstructured.NestedSlice(filter.Object, "spec", "configPatches")
	assert.Len(t, patches, 6, "buffer limits of listener and cluster and keepalive, per port")
	vpn := rendertest.MustFind(t, objs, "Gateway", "reversed-vpn-auth-server")
	servers, _, _ := unstructured.NestedSlice(vpn.Object, "spec", "servers")
	assert.Equal(t, map[string]any{"name": "tls-tunnel", "number": int64(8132), "protocol": "HTTP"}, servers[0].(map[string]any)["port"])
	rendertest.MustFind(t, objs, "EnvoyFilter", "reversed-vpn")
	rendertest.MustFind(t, objs, "EnvoyFilter", "http-connect-listener")
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

// istiod's namespace carries the labels and the zones annotation Gardener keeps on it
// (deployIstiod in pkg/component/networking/istio/istiod.go at Gardener v1.120.0).
func TestIstiodNamespace(t *testing.T) {
	ns := rendertest.MustFind(t, objectsOf(t, values(Values{Cluster: decodeCluster("runtime"), Zones: []string{"a", "b"}})), "Namespace", "istio-system")
	assert.Equal(t, map[string]string{
		"istio-operator-managed": "Reconcile", "istio-injection": "disabled", "pod-security.kubernetes.io/enforce": "baseline",
		"high-availability-config.resources.gardener.cloud/consider": "true", "gardener.cloud/role": "istio-system",
	}, ns.GetLabels())
	assert.Equal(t, "a,b", ns.GetAnnotations()["high-availability-config.resources.gardener.cloud/zones"])
}

// Upgrading a landscape applied by earlier versions: a gateway's ServiceAccount, once named like
// the gateway, supersedes the old one, and a renamed gateway namespace its old name.
func TestRenamedObjectsSupersedeTheirOldNames(t *testing.T) {
	gw := VirtualGardenGateway(nil)
	gw.Namespace, gw.PreviousNamespace, gw.Zone = "istio-ingress--a", "istio-ingress--zone--a", "a"
	supersedes := map[string]string{}
	for _, o := range objectsOf(t, values(Values{Cluster: decodeCluster("seed"), IngressGateways: []Gateway{gw}})) {
		if o.Supersedes != nil {
			supersedes[o.Object.GetKind()+"/"+o.Object.GetName()] = o.Supersedes.String()
		}
	}
	assert.Equal(t, map[string]string{
		"Namespace/istio-ingress--a":                          `^istio-ingress--zone--a$`,
		"ServiceAccount/istio-ingressgateway-service-account": `^istio-ingressgateway$`,
	}, supersedes)
}
