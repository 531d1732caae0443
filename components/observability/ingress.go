package observability

import (
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/utils/ptr"

	"github.com/declarative-gardener/gardener/components/nginxingress"
)

// Annotations by which the nginx-ingress controller asks for HTTP basic authentication: the
// Secret's key auth holds htpasswd lines, "the user name with SHA-1 representation of the
// password" as Gardener's observability credentials carry it (Gardener's "Shoot Credentials
// Rotation" docs/usage/shoot-operations/shoot_credentials_rotation.md).
const (
	annotationAuthType   = "nginx.ingress.kubernetes.io/auth-type"
	annotationAuthSecret = "nginx.ingress.kubernetes.io/auth-secret"
	annotationAuthRealm  = "nginx.ingress.kubernetes.io/auth-realm"
)

// ingress publishes the web port of the Service name as host through Gardener's nginx-ingress
// controller, which every seed runs to expose Plutono and Prometheus of the seed and its shoots
// (Gardener's "DNS Record" docs/extensions/resources/dnsrecord.md, "High Availability Of
// Components" docs/development/high-availability-of-components.md), with TLS: the named
// certificate, or the controller's default. With authSecret the controller demands the credentials
// in that Secret first.
func ingress(namespace, name, app, host, tlsSecret, authSecret string) *networkingv1.Ingress {
	ing := &networkingv1.Ingress{
		ObjectMeta: meta(name, namespace, app),
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
							Port: networkingv1.ServiceBackendPort{Name: "web"},
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
