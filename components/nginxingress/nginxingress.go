// Package nginxingress renders the nginx_ingress component: the nginx-ingress-controller that
// serves the Ingresses of a garden runtime cluster's (or seed's) own components under the
// ingress domains (.spec.runtimeCluster.ingress, Gardener's Ingress in
// docs/api-reference/operator.md; the only controller kind is nginx, Gardener's IngressController
// in docs/api-reference/core.md), with its default backend. gardenlet and gardener-operator deploy
// it with the objects of pkg/component/networking/nginxingress (cluster type seed, gardener/gardener
// v1.120.0), which this package renders field for field. In a seed the controller sits behind the
// seed's Istio ingress gateway (a ClusterIP Service, and an Istio Gateway passing TLS for the
// ingress domain through to it), and the seed's wildcard DNS record points at the gateway; without
// Istio values it gets a Service of type LoadBalancer, as the garden composite renders it so far.
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
	"github.com/declarative-gardener/gardener/components/internal/unique"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Names other components need.
const (
	// DefaultNamespace is where the controller runs.
	DefaultNamespace = "garden"
	// ControllerName names the controller's Deployment, Service, PodDisruptionBudget,
	// VerticalPodAutoscaler and Istio objects, and (content-addressed) its ConfigMap.
	ControllerName = "nginx-ingress-controller"
	// BackendName names the default backend's Deployment and Service, which answer requests no
	// Ingress matches.
	BackendName = "nginx-ingress-k8s-backend"
	// DefaultIngressClass is the IngressClass the controller serves (v1beta1constants.SeedNginxIngressClass);
	// components' Ingresses name it in spec.ingressClassName.
	DefaultIngressClass = "nginx-ingress-gardener"
	// serviceAccountName names the ServiceAccount and, prefixed, the RBAC objects.
	serviceAccountName = "nginx-ingress"
	// appLabel is the app label of every object of the component.
	appLabel = "nginx-ingress"
)

// ControllerLabels are the labels of the controller's objects and its Service's selector.
func ControllerLabels() map[string]string {
	return map[string]string{"app": appLabel, "component": "controller"}
}

// BackendLabels are the labels of the default backend's objects and its Service's selector.
func BackendLabels() map[string]string {
	return map[string]string{"app": appLabel, "component": BackendName}
}

// withRelease is a pod selector: the labels with release=addons, which Gardener's Deployments
// select their pods by.
func withRelease(labels map[string]string) map[string]string {
	out := maps.Clone(labels)
	out["release"] = "addons"
	return out
}

// Istio exposes the controller through an Istio ingress gateway: for TLS on port 443 of the
// gateway and one of the domains, the gateway passes the connection through to the controller's
// ClusterIP Service (newNginxIngressController in pkg/gardenlet/controller/seed/seed/components.go).
type Istio struct {
	// GatewayLabels are the labels of the gateway's pods, which the Istio Gateway selects.
	GatewayLabels map[string]string
	// Domains are the wildcard domains the gateway passes through ("*.<ingress domain>").
	Domains []string
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
	// LoadBalancerAnnotations are added to the controller's Service (Gardener's "Gardener Operator"
	// docs/concepts/operator.md), whatever its type.
	LoadBalancerAnnotations map[string]string `json:"load_balancer_annotations"`
	// IngressClass is the IngressClass the controller serves.
	IngressClass string `json:"ingress_class"`
	// Config overrides or adds entries of the controller's ConfigMap (ingress-nginx's
	// configuration options, like the Seed's .spec.ingress.controller.providerConfig).
	Config map[string]string `json:"config"`
	// PriorityClassName is the pods' class: gardener-garden-system-300 in a garden runtime cluster,
	// gardener-system-600 in a seed.
	PriorityClassName string `json:"priority_class_name"`
	// Istio, when set, puts the controller behind an Istio ingress gateway (a seed's); nil gives it
	// a Service of type LoadBalancer. Set from Go only.
	Istio *Istio `json:"-"`
}

// Type is the nginx_ingress component type as the catalog registers it: its schema (schema.go) and
// its render function.
var Type = component.Define(typeSchema, component.Objects(Objects))

// Objects renders the controller with its RBAC, content-addressed configuration, IngressClass,
// Service, PodDisruptionBudget, VerticalPodAutoscaler and (behind Istio) the Istio objects, and the
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
	objs, err := kube.Typed(v.Cluster.Name, typed...)
	if err != nil {
		return nil, err
	}
	objs = append(objs, kube.On(v.Cluster.Name, "", controllerVerticalAutoscaler(v.Namespace))...)
	if v.Istio != nil {
		objs = append(objs, kube.On(v.Cluster.Name, "", istioObjects(v)...)...)
	}
	unique.MarkVersions(objs, "ConfigMap", ControllerName)
	return objs, nil
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
	if v.Istio != nil && (len(v.Istio.GatewayLabels) == 0 || len(v.Istio.Domains) == 0) {
		return v, fmt.Errorf("nginx ingress: behind Istio it needs the gateway's labels and at least one domain")
	}
	for _, k := range slices.Sorted(maps.Keys(v.Config)) {
		if errs := validation.IsConfigMapKey(k); len(errs) > 0 {
			return v, fmt.Errorf("nginx ingress: config key %q: %s", k, strings.Join(errs, "; "))
		}
	}
	return v, nil
}
