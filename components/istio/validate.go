package istio

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// reservedPorts are the proxy's own ports, which a gateway's Service ports must not reuse.
var reservedPorts = map[int32]string{StatusPort: "the status port", envoyMetricsPort: "the Envoy metrics port"}

// gatewayWithDefaults fills in a gateway's defaults that are not the schema's (labels, ports and
// target ports) and checks it.
func gatewayWithDefaults(gw Gateway) (Gateway, error) {
	if gw.Namespace == "" {
		return gw, fmt.Errorf("istio: ingress gateway %q has no namespace", gw.Name)
	}
	if err := checkName("ingress gateway namespace", gw.Namespace); err != nil {
		return gw, err
	}
	where := "istio: ingress gateway " + gw.Namespace
	if err := checkName("ingress gateway "+gw.Namespace+" name", gw.Name); err != nil {
		return gw, err
	}
	if len(gw.Labels) == 0 {
		gw.Labels = DefaultGatewayLabels()
	}
	for k, val := range gw.Labels {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return gw, fmt.Errorf("%s: label key %q: %s", where, k, strings.Join(errs, "; "))
		}
		if errs := validation.IsValidLabelValue(val); len(errs) > 0 {
			return gw, fmt.Errorf("%s: label %s value %q: %s", where, k, val, strings.Join(errs, "; "))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(gw.LoadBalancerAnnotations)) {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return gw, fmt.Errorf("%s: load balancer annotation %q: %s", where, k, strings.Join(errs, "; "))
		}
	}
	switch gw.ServiceType {
	case corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeNodePort, corev1.ServiceTypeClusterIP:
	default:
		return gw, fmt.Errorf("%s: service type %q is not one of LoadBalancer, NodePort, ClusterIP", where, gw.ServiceType)
	}
	if gw.Zone != "" {
		if errs := validation.IsValidLabelValue(gw.Zone); len(errs) > 0 {
			return gw, fmt.Errorf("%s: zone %q: %s", where, gw.Zone, strings.Join(errs, "; "))
		}
	}
	if len(gw.Ports) == 0 {
		gw.Ports = DefaultGatewayPorts()
	}
	ports := make([]Port, len(gw.Ports))
	names, numbers, targets := map[string]bool{}, map[int32]bool{}, map[int32]bool{}
	for i, p := range gw.Ports {
		if p.TargetPort == 0 {
			p.TargetPort = p.Port
		}
		if errs := validation.IsValidPortName(p.Name); len(errs) > 0 {
			return gw, fmt.Errorf("%s: port name %q: %s", where, p.Name, strings.Join(errs, "; "))
		}
		for _, n := range []int32{p.Port, p.TargetPort} {
			if errs := validation.IsValidPortNum(int(n)); len(errs) > 0 {
				return gw, fmt.Errorf("%s: port %s: %d: %s", where, p.Name, n, strings.Join(errs, "; "))
			}
		}
		if p.TargetPort < 1024 {
			return gw, fmt.Errorf("%s: port %s: target port %d is below 1024, which the proxy, not running as root, cannot listen on", where, p.Name, p.TargetPort)
		}
		if what, ok := reservedPorts[p.TargetPort]; ok {
			return gw, fmt.Errorf("%s: port %s: target port %d is %s of the proxy", where, p.Name, p.TargetPort, what)
		}
		if p.Name == "status-port" || numbers[p.Port] || names[p.Name] || targets[p.TargetPort] || p.Port == StatusPort {
			return gw, fmt.Errorf("%s: port %s (%d -> %d) repeats a name, port or target port", where, p.Name, p.Port, p.TargetPort)
		}
		names[p.Name], numbers[p.Port], targets[p.TargetPort] = true, true, true
		ports[i] = p
	}
	gw.Ports = ports
	return gw, nil
}

// checkName rejects names Kubernetes would refuse: namespaces, and the gateway's Service name,
// must be DNS labels.
func checkName(what, name string) error {
	if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
		return fmt.Errorf("istio: %s %q: %s", what, name, strings.Join(errs, "; "))
	}
	return nil
}

// sortedPairs renders a label map deterministically, for messages and comparisons.
func sortedPairs(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k+"="+m[k])
	}
	return out
}
