package helmrelease

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// clusterScoped are the built-in kinds (group/kind) that have no namespace, as served by
// Kubernetes 1.35 and the aggregator. Any other built-in kind client-go knows is namespaced.
var clusterScoped = map[string]bool{
	"/Namespace": true, "/Node": true, "/PersistentVolume": true, "/ComponentStatus": true,
	"admissionregistration.k8s.io/MutatingWebhookConfiguration":     true,
	"admissionregistration.k8s.io/ValidatingWebhookConfiguration":   true,
	"admissionregistration.k8s.io/ValidatingAdmissionPolicy":        true,
	"admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding": true,
	"admissionregistration.k8s.io/MutatingAdmissionPolicy":          true,
	"admissionregistration.k8s.io/MutatingAdmissionPolicyBinding":   true,
	"apiextensions.k8s.io/CustomResourceDefinition":                 true,
	"apiregistration.k8s.io/APIService":                             true,
	"certificates.k8s.io/CertificateSigningRequest":                 true,
	"certificates.k8s.io/ClusterTrustBundle":                        true,
	"flowcontrol.apiserver.k8s.io/FlowSchema":                       true,
	"flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration":       true,
	"networking.k8s.io/IngressClass":                                true,
	"networking.k8s.io/IPAddress":                                   true,
	"networking.k8s.io/ServiceCIDR":                                 true,
	"node.k8s.io/RuntimeClass":                                      true,
	"policy/PodSecurityPolicy":                                      true,
	"rbac.authorization.k8s.io/ClusterRole":                         true,
	"rbac.authorization.k8s.io/ClusterRoleBinding":                  true,
	"resource.k8s.io/DeviceClass":                                   true,
	"resource.k8s.io/ResourceSlice":                                 true,
	"scheduling.k8s.io/PriorityClass":                               true,
	"storage.k8s.io/CSIDriver":                                      true,
	"storage.k8s.io/CSINode":                                        true,
	"storage.k8s.io/StorageClass":                                   true,
	"storage.k8s.io/VolumeAttachment":                               true,
	"storage.k8s.io/VolumeAttributesClass":                          true,
	"storagemigration.k8s.io/StorageVersionMigration":               true,
	"internal.apiserver.k8s.io/StorageVersion":                      true,
}

// scopes knows whether a kind is namespaced: built-in kinds from the lists above, custom kinds
// from the CustomResourceDefinitions the chart renders itself.
type scopes struct {
	custom map[schema.GroupKind]bool // namespaced, by group/kind
}

// newScopes collects the scopes of the CRDs among objs.
func newScopes(objs []*unstructured.Unstructured) scopes {
	s := scopes{custom: map[schema.GroupKind]bool{}}
	for _, o := range objs {
		if d, ok := crdOf(o); ok {
			s.custom[schema.GroupKind{Group: d.group, Kind: d.kind}] = d.namespaced
		}
	}
	return s
}

// namespaced reports whether objects of gvk are known to live in a namespace. Kinds of unknown
// scope report false: the engine places them in the release namespace once discovery says so.
func (s scopes) namespaced(gvk schema.GroupVersionKind) bool {
	if clusterScoped[gvk.Group+"/"+gvk.Kind] {
		return false
	}
	if ns, ok := s.custom[gvk.GroupKind()]; ok {
		return ns
	}
	return clientgoscheme.Scheme.Recognizes(gvk)
}

// crd is what a CustomResourceDefinition tells about its kind.
type crd struct {
	group, kind string
	versions    []string
	namespaced  bool
}

// crdOf reads a CustomResourceDefinition object; ok is false for other objects.
func crdOf(o *unstructured.Unstructured) (crd, bool) {
	gvk := o.GroupVersionKind()
	if gvk.Group != "apiextensions.k8s.io" || gvk.Kind != "CustomResourceDefinition" {
		return crd{}, false
	}
	var d crd
	d.group, _, _ = unstructured.NestedString(o.Object, "spec", "group")
	d.kind, _, _ = unstructured.NestedString(o.Object, "spec", "names", "kind")
	scope, _, _ := unstructured.NestedString(o.Object, "spec", "scope")
	d.namespaced = scope != "Cluster"
	versions, _, _ := unstructured.NestedSlice(o.Object, "spec", "versions")
	for _, v := range versions {
		if vm, ok := v.(map[string]any); ok {
			if name, ok := vm["name"].(string); ok && name != "" {
				d.versions = append(d.versions, name)
			}
		}
	}
	return d, d.group != "" && d.kind != ""
}
