// Package observe reads the live state a plan compares against, at a cost that grows with the
// number of kinds a landscape uses, not with the number of objects: one paged LIST per GroupKind
// with the inventory label selector, plus a GET only for desired objects the LISTs did not return.
// It reads through Cluster, which a live client, a recorder and a snapshot all implement, so that
// the same plan runs against a cluster or, byte for byte, against a recording of one.
package observe

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Cluster is everything a plan reads from one cluster. Implementations must be safe for
// concurrent use.
type Cluster interface {
	// ServerVersion is the API server's git version, such as "v1.37.1"; caches are keyed by it.
	ServerVersion(ctx context.Context) (string, error)
	// Resources lists every resource the server serves (discovery), main resources only.
	Resources(ctx context.Context) ([]Resource, error)
	// List returns every object of a resource matching labelSelector, following continue tokens
	// until the last page. An empty namespace lists across all namespaces (or a cluster-scoped
	// resource).
	List(ctx context.Context, gvr schema.GroupVersionResource, namespace, labelSelector string) ([]unstructured.Unstructured, error)
	// Get returns one object, or nil and no error when it does not exist.
	Get(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error)
	// OpenAPIV3Index returns the server's OpenAPI v3 index (GET /openapi/v3): for each group
	// version path ("api/v1", "apis/apps/v1") its serverRelativeURL, whose hash query parameter
	// changes whenever the document does, so documents can be cached by it.
	OpenAPIV3Index(ctx context.Context) (map[string]string, error)
	// OpenAPIV3 returns the server's OpenAPI v3 document of one group version, by its path
	// relative to /openapi/v3 ("api/v1", "apis/apps/v1").
	OpenAPIV3(ctx context.Context, path string) ([]byte, error)
}

// Resource is one served resource, as discovery reports it.
type Resource struct {
	// GroupVersionKind is the kind in the server's preferred version of its group.
	schema.GroupVersionKind
	// Resource is the plural resource name ("deployments").
	Resource   string
	Namespaced bool
	// Verbs are the verbs the server allows ("list", "get", "patch", ...).
	Verbs []string
}

// GVR is the resource's GroupVersionResource.
func (r Resource) GVR() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Resource}
}

// GroupKind is the resource's GroupKind.
func (r Resource) GroupKind() schema.GroupKind { return r.GroupVersionKind.GroupKind() }
