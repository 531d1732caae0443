package cluster

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	kjson "sigs.k8s.io/json"
)

// listPage reads one page of a LIST and decodes it in one pass. The dynamic client decodes a
// list's JSON four times over (the serializer's validation, the list's item boundaries, the whole
// list into maps, then every item into maps again), which was about a fifth of a no-op plan's CPU;
// this reads the same request (the path and query parameters the dynamic client sends) and
// decodes the body once into the same maps: integers as int64, keys case-sensitive, and items
// without kind and apiVersion (a typed list's) given those of the list, as
// unstructured.UnstructuredList does.
func (c *Client) listPage(ctx context.Context, gvr schema.GroupVersionResource, namespace string, opts metav1.ListOptions) ([]unstructured.Unstructured, string, error) {
	if msgs := rest.IsValidPathSegmentName(namespace); namespace != "" && len(msgs) != 0 {
		return nil, "", fmt.Errorf("invalid namespace %q: %v", namespace, msgs)
	}
	req := c.lists.Get().AbsPath(resourcePath(gvr, namespace)...)
	if opts.LabelSelector != "" {
		req = req.Param("labelSelector", opts.LabelSelector)
	}
	if opts.Limit > 0 {
		req = req.Param("limit", strconv.FormatInt(opts.Limit, 10))
	}
	if opts.Continue != "" {
		req = req.Param("continue", opts.Continue)
	}
	res := req.Do(ctx)
	if err := res.Error(); err != nil {
		return nil, "", err // the server's Status where it sent one, as the dynamic client reports it
	}
	body, err := res.Raw()
	if err != nil {
		return nil, "", err
	}
	return decodeList(body)
}

// resourcePath is the path of a resource's collection, as the dynamic client builds it.
func resourcePath(gvr schema.GroupVersionResource, namespace string) []string {
	path := []string{"api"}
	if gvr.Group != "" {
		path = []string{"apis", gvr.Group}
	}
	path = append(path, gvr.Version)
	if namespace != "" {
		path = append(path, "namespaces", namespace)
	}
	return append(path, gvr.Resource)
}

// decodeList decodes a LIST's body into its items and the continue token of the next page.
func decodeList(body []byte) ([]unstructured.Unstructured, string, error) {
	if len(body) == 0 {
		return nil, "", errors.New("list: empty response")
	}
	var list map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(body, &list); err != nil {
		return nil, "", fmt.Errorf("list: %w", err)
	}
	kind, _ := list["kind"].(string)
	apiVersion, _ := list["apiVersion"].(string)
	if kind == "Status" {
		// A failure the server reported with a success code, as rest.Result.Into reports it.
		var status metav1.Status
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(list, &status); err == nil && status.Status != metav1.StatusSuccess {
			return nil, "", apierrors.FromObject(&status)
		}
	}
	raw, ok := list["items"].([]any)
	if !ok && list["items"] != nil {
		return nil, "", fmt.Errorf("list: items is not an array")
	}
	itemKind := strings.TrimSuffix(kind, "List")
	items := make([]unstructured.Unstructured, 0, len(raw))
	for i, item := range raw {
		obj, ok := item.(map[string]any)
		if !ok {
			return nil, "", fmt.Errorf("list: item %d is not an object", i)
		}
		u := unstructured.Unstructured{Object: obj}
		if u.GetKind() == "" && u.GetAPIVersion() == "" {
			u.SetKind(itemKind)
			u.SetAPIVersion(apiVersion)
		}
		items = append(items, u)
	}
	var next string
	if meta, ok := list["metadata"].(map[string]any); ok {
		next, _ = meta["continue"].(string)
	}
	return items, next, nil
}
