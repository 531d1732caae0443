package cluster

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// DryRunApply server-side applies obj with dryRun=All and returns the object the server would
// store, managedFields included: the exact answer `plan --server-dry-run` compares against, at
// the price of one request per object. Nothing is persisted, so it is retried like a read,
// except on 500 Internal Error, which is how the server rejects an object that does not fit its
// schema.
func (c *Client) DryRunApply(ctx context.Context, gvr schema.GroupVersionResource, obj *unstructured.Unstructured, fieldManager string, force bool) (*unstructured.Unstructured, error) {
	opts := metav1.ApplyOptions{FieldManager: fieldManager, Force: force, DryRun: []string{metav1.DryRunAll}}
	var out *unstructured.Unstructured
	err := c.retryIf(ctx, retriableApply, func() error {
		var err error
		out, err = c.dynamic.Resource(gvr).Namespace(obj.GetNamespace()).Apply(ctx, obj.GetName(), obj, opts)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("dry-run apply %s: %w", describe(gvr, obj.GetNamespace(), obj.GetName()), err)
	}
	return out, nil
}
