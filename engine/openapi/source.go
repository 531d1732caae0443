package openapi

import (
	"context"
	"net/url"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Fetcher reads a server's OpenAPI v3 documents. observe.Cluster implements it; tests use fakes.
type Fetcher interface {
	// OpenAPIV3Index maps each document path ("api/v1", "apis/apps/v1") to its serverRelativeURL,
	// whose hash query parameter changes whenever the document does.
	OpenAPIV3Index(ctx context.Context) (map[string]string, error)
	// OpenAPIV3 returns the document of one path.
	OpenAPIV3(ctx context.Context, path string) ([]byte, error)
}

// Source says where a group version's document came from, for diagnostics and tests.
type Source string

// The sources of a document.
const (
	// SourceServer is a document fetched from the server during this run.
	SourceServer Source = "server"
	// SourceCache is a document read from the on-disk cache under the server's current hash.
	SourceCache Source = "cache"
	// SourceEmbedded is the built-in copy compiled into the binary.
	SourceEmbedded Source = "embedded"
)

// PathOf is the OpenAPI v3 document path of a group version: "api/v1" for the core group,
// "apis/<group>/<version>" otherwise.
func PathOf(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "api/" + gv.Version
	}
	return "apis/" + gv.Group + "/" + gv.Version
}

// hashOf extracts the hash query parameter of a serverRelativeURL; empty when there is none.
func hashOf(serverRelativeURL string) string {
	u, err := url.Parse(serverRelativeURL)
	if err != nil {
		return ""
	}
	return u.Query().Get("hash")
}
