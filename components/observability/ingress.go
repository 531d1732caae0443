package observability

import (
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/nginxingress"
)

// Annotations by which the nginx-ingress controller asks for HTTP basic authentication: the
// Secret's key auth holds htpasswd lines, "the user name with SHA-1 representation of the
// password" as Gardener's observability credentials carry it (Gardener's "Shoot Credentials
// Rotation" docs/usage/shoot-operations/shoot_credentials_rotation.md).
const (
	annotationAuthType      = "nginx.ingress.kubernetes.io/auth-type"
	annotationAuthSecret    = "nginx.ingress.kubernetes.io/auth-secret"
	annotationAuthRealm     = "nginx.ingress.kubernetes.io/auth-realm"
	annotationServerSnippet = "nginx.ingress.kubernetes.io/server-snippet"
)

// Server snippets by which the Ingresses of a shoot's Prometheus and Alertmanager refuse the
// management endpoints and the list of targets (prometheus/ingress.go, alertmanager/ingress.go).
const (
	prometheusBlockedPaths   = "location /-/reload {\n  return 403;\n}\nlocation /-/quit {\n  return 403;\n}\nlocation /api/v1/targets {\n  return 403;\n}"
	alertmanagerBlockedPaths = "location /-/reload {\n  return 403;\n}"
)

// ingress publishes the port of the Service name as host through Gardener's nginx-ingress
// controller, which every seed runs to expose Plutono and Prometheus of the seed and its shoots
// (Gardener's "DNS Record" docs/extensions/resources/dnsrecord.md), with TLS: the named
// certificate, or the controller's default. With authSecret the controller demands the credentials
// in that Secret first.
func ingress(namespace, name string, labels map[string]string, host, tlsSecret, authSecret string, port intstr.IntOrString) *networkingv1.Ingress {
	backend := networkingv1.ServiceBackendPort{Number: port.IntVal}
	if port.Type == intstr.String {
		backend = networkingv1.ServiceBackendPort{Name: port.StrVal}
	}
	ing := &networkingv1.Ingress{
		ObjectMeta: meta(name, namespace, labels),
		Spec: networkingv1.IngressSpec{
			IngressClassName: ptr.To(nginxingress.DefaultIngressClass),
			TLS:              []networkingv1.IngressTLS{{Hosts: []string{host}, SecretName: tlsSecret}},
			Rules: []networkingv1.IngressRule{{
				Host: host,
				IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
					Paths: []networkingv1.HTTPIngressPath{{
						Path:     "/",
						PathType: ptr.To(networkingv1.PathTypePrefix),
						Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
							Name: name,
							Port: backend,
						}},
					}},
				}},
			}},
		},
	}
	if authSecret != "" {
		ing.Annotations = map[string]string{
			annotationAuthType:   "basic",
			annotationAuthSecret: authSecret,
			annotationAuthRealm:  "Authentication Required",
		}
	}
	return ing
}
