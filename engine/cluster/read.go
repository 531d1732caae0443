package cluster

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// maxListRestarts bounds how often a LIST starts over because its continue token expired (the
// server compacted past the list's snapshot, which happens only when a list takes minutes).
const maxListRestarts = 3

// List returns every object of a resource that matches labelSelector, in pages of
// Options.PageSize, following continue tokens to the end. A continue token that expired (410
// Gone) restarts the list from the first page; each page is retried on transient errors.
func (c *Client) List(ctx context.Context, gvr schema.GroupVersionResource, namespace, labelSelector string) ([]unstructured.Unstructured, error) {
	for restarts := 0; ; restarts++ {
		items, err := c.listPages(ctx, gvr, namespace, labelSelector)
		if err == nil {
			return items, nil
		}
		if (apierrors.IsResourceExpired(err) || apierrors.IsGone(err)) && restarts < maxListRestarts {
			continue
		}
		return nil, fmt.Errorf("list %s: %w", describe(gvr, namespace, ""), err)
	}
}

// listPages reads one consistent list, page by page.
func (c *Client) listPages(ctx context.Context, gvr schema.GroupVersionResource, namespace, labelSelector string) ([]unstructured.Unstructured, error) {
	var items []unstructured.Unstructured
	opts := metav1.ListOptions{LabelSelector: labelSelector, Limit: c.opts.PageSize}
	for {
		var page []unstructured.Unstructured
		var next string
		err := c.retry(ctx, func() error {
			var err error
			page, next, err = c.listPage(ctx, gvr, namespace, opts)
			return err
		})
		if err != nil {
			return nil, err
		}
		items = append(items, page...)
		opts.Continue = next
		if opts.Continue == "" {
			return items, nil
		}
	}
}

// Get returns one object, or nil and no error when it does not exist.
func (c *Client) Get(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error) {
	var obj *unstructured.Unstructured
	err := c.retry(ctx, func() error {
		var err error
		obj, err = c.dynamic.Resource(gvr).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
		return err
	})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", describe(gvr, namespace, name), err)
	}
	return obj, nil
}

// describe names a resource (and object) in errors: "deployments.apps/v1 garden/etcd-druid",
// "configmaps/v1 in namespace garden".
func describe(gvr schema.GroupVersionResource, namespace, name string) string {
	s := gvr.Resource
	if gvr.Group != "" {
		s += "." + gvr.Group
	}
	s += "/" + gvr.Version
	switch {
	case name != "" && namespace != "":
		s += " " + namespace + "/" + name
	case name != "":
		s += " " + name
	case namespace != "":
		s += " in namespace " + namespace
	}
	return s
}
