// Package openapi provides the OpenAPI v3 schemas a local server-side-apply diff needs: for each
// GroupVersionKind a structured-merge-diff type, built from the group version's document exactly
// as the API server's field manager builds it.
//
// Documents are read lazily, once per group version and run, through a Fetcher (an
// observe.Cluster). The server's OpenAPI v3 index names every document with a content hash, so a
// document is cached on disk under that hash: an unchanged schema is never fetched again and a
// changed CRD schema is refetched because its hash changes. When the server cannot be reached or
// does not serve a built-in group version, the package falls back to an embedded copy of the
// built-in Kubernetes group versions and of the Gardener API (the groups gardener-apiserver
// serves through the aggregation layer, which no CRD defines, so that offline plans can type
// Gardener objects); that copy is also used without fetching whenever its hash equals the one
// the server announces.
//
// Stored documents (cache and embedded copy) are compacted: only components.schemas is kept and
// descriptions are dropped, which makes them several times smaller and faster to parse.
//
// The embedded copy lives in builtin/ and is regenerated from a local control plane with
//
//	go run ./tests/openapigen
//
// (see that program for its flags; it can also read from any cluster through -kubeconfig).
package openapi
