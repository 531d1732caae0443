// Package nginxingress renders the nginx_ingress component: the nginx-ingress-controller that
// serves the Ingresses of a garden runtime cluster's (or seed's) own components under the
// ingress domains (.spec.runtimeCluster.ingress, Gardener's Ingress in
// docs/api-reference/operator.md; the only controller kind is nginx, Gardener's IngressController
// in docs/api-reference/core.md, "DNS Record" docs/extensions/resources/dnsrecord.md), with its
// default backend, behind a Service of type LoadBalancer (garden/nginx-ingress-controller,
// Gardener's "Provider Local" docs/extensions/provider-local.md). DNS records for the ingress
// domains are not part of it.
package nginxingress

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/images"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/kube"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Names other components need.
const (
	// DefaultNamespace is where the controller runs (Gardener's docs/extensions/provider-local.md:
	// garden/nginx-ingress-controller).
	DefaultNamespace = "garden"
	// ControllerName names the controller's Deployment, Service and ConfigMap (Gardener's
	// docs/extensions/provider-local.md, "Priority Classes" docs/development/priority-classes.md).
	ControllerName = "nginx-ingress-controller"
	// BackendName names the default backend's Deployment and Service, which answer requests no
	// Ingress matches (Gardener's docs/development/priority-classes.md names it among the seed's
	// components, Gardener's docs/development/priority-classes.md the shoot addon's
	// addons-nginx-ingress-k8s-backend).
	BackendName = "nginx-ingress-k8s-backend"
	// DefaultIngressClass is the IngressClass the controller serves; components' Ingresses name
	// it in spec.ingressClassName. Gardener's documentation is silent on the name; this is the one
	// Gardener's managed ingress controller uses.
	DefaultIngressClass = "nginx-ingress-gardener"
	// appLabel is the app label of the controller's and backend's pods (Gardener's "Network Policies"
	// docs/operations/network_policies.md: network policies select the nginx pods by
	// app=nginx-ingress).
	appLabel = "nginx-ingress"
)

// ControllerLabels are the labels of the controller's pods and its Service's selector.
func ControllerLabels() map[string]string {
	return map[string]string{"app": appLabel, "component": "controller"}
}

// BackendLabels are the labels of the default backend's pods and its Service's selector.
func BackendLabels() map[string]string {
	return map[string]string{"app": appLabel, "component": BackendName}
}

// Values are the component's typed inputs. Composites start from Type.Defaults, the schema's
// defaults.
type Values struct {
	// Cluster is the runtime cluster (or seed) the controller runs in.
	Cluster decode.Cluster `json:"cluster"`
	// Namespace is the controller's namespace.
	Namespace string `json:"namespace"`
	// Images overrides image vector entries by name (nginx-ingress-controller,
	// ingress-default-backend).
	Images map[string]string `json:"images"`
	// HighAvailability runs the controller and the default backend with 2 replicas instead of 1
	// (Gardener's "High Availability Of Components"
	// docs/development/high-availability-of-components.md: servers run with 2 replicas). A seed's
	// controller always runs with 2 (Gardener's docs/development/high-availability-of-components.md),
	// so seeds set it.
	HighAvailability bool `json:"high_availability"`
	// LoadBalancerAnnotations are added to the controller's Service (Gardener's "Gardener Operator"
	// docs/concepts/operator.md).
	LoadBalancerAnnotations map[string]string `json:"load_balancer_annotations"`
	// IngressClass is the IngressClass the controller serves.
	IngressClass string `json:"ingress_class"`
	// Config overrides or adds entries of the controller's ConfigMap (ingress-nginx's
	// configuration options, as a Shoot's nginx addon offers them, Gardener's NginxIngress in
	// docs/api-reference/core.md).
	Config map[string]string `json:"config"`
	// PriorityClassName is the pods' class (Gardener's docs/development/priority-classes.md). Seeds use gardener-system-600 (Gardener's
	// docs/development/priority-classes.md).
	PriorityClassName string `json:"priority_class_name"`
}

// Type is the nginx_ingress component type as the catalog registers it: its schema (schema.go) and
// its render function.
var Type = component.Define(typeSchema, component.Objects(Objects))

// Objects renders the controller with its RBAC, configuration, IngressClass and Service, and the
// default backend.
func Objects(v Values) ([]render.Object, error) {
	v, err := withDefaults(v)
	if err != nil {
		return nil, err
	}
	imgs, err := images.Resolve(v.Images, images.NginxIngressController, images.IngressDefaultBackend)
	if err != nil {
		return nil, fmt.Errorf("nginx ingress: %w", err)
	}
	var typed []runtime.Object
	typed = append(typed, controllerObjects(v, imgs[images.NginxIngressController])...)
	typed = append(typed, backendObjects(v, imgs[images.IngressDefaultBackend])...)
	return kube.Typed(v.Cluster.Name, typed...)
}

// withDefaults rejects values no cluster would accept.
func withDefaults(v Values) (Values, error) {
	if errs := validation.IsDNS1123Label(v.Namespace); len(errs) > 0 {
		return v, fmt.Errorf("nginx ingress: namespace %q: %s", v.Namespace, strings.Join(errs, "; "))
	}
	if errs := validation.IsDNS1123Subdomain(v.IngressClass); len(errs) > 0 {
		return v, fmt.Errorf("nginx ingress: ingress class %q: %s", v.IngressClass, strings.Join(errs, "; "))
	}
	for _, k := range slices.Sorted(maps.Keys(v.LoadBalancerAnnotations)) {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return v, fmt.Errorf("nginx ingress: load balancer annotation %q: %s", k, strings.Join(errs, "; "))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(v.Config)) {
		if errs := validation.IsConfigMapKey(k); len(errs) > 0 {
			return v, fmt.Errorf("nginx ingress: config key %q: %s", k, strings.Join(errs, "; "))
		}
	}
	return v, nil
}
