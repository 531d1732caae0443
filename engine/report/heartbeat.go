package report

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/declarative-gardener/gardener/engine/render"
)

var leases = schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}

// Renew renews the report's heartbeat Lease as gardenlet's seed-lease controller does
// (pkg/gardenlet/controller/seed/lease/reconciler.go at Gardener v1.120.0): holder the reported
// object's name, renewTime now, owned by the reported object; created when missing. Then the
// report's conditions that stand for the engine's presence (those without parts, GardenletReady)
// are set where someone else changed them (gardener-controller-manager turns GardenletReady
// Unknown when the Lease was not renewed in time). A reported object that does not exist yet has
// no heartbeat.
func (w *Writer) Renew(ctx context.Context, r render.Report) error {
	hb := r.Heartbeat
	if hb == nil {
		return nil
	}
	_, owner, err := w.reported(ctx, r)
	if err != nil {
		return err
	}
	if err := w.renewLease(ctx, r, owner); err != nil {
		return fmt.Errorf("renew Lease %s/%s: %w", hb.Namespace, hb.Name, err)
	}
	var presence []Condition
	for _, c := range r.Conditions {
		if len(c.Parts) == 0 {
			presence = append(presence, Condition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message})
		}
	}
	if len(presence) == 0 {
		return nil
	}
	return w.update(ctx, r, func(live *unstructured.Unstructured, status map[string]any) {
		setConditions(live, status, presence, w.now())
	})
}

func (w *Writer) renewLease(ctx context.Context, r render.Report, owner *unstructured.Unstructured) error {
	hb := r.Heartbeat
	client := w.Clients[hb.Cluster]
	if client == nil {
		return fmt.Errorf("no client for cluster %s", hb.Cluster)
	}
	ri := client.Resource(leases).Namespace(hb.Namespace)
	duration := int64(hb.Duration / time.Second)
	if duration < 1 {
		duration = 1
	}
	spec := map[string]any{
		"holderIdentity":       r.Name,
		"leaseDurationSeconds": duration,
		"renewTime":            w.now().UTC().Format("2006-01-02T15:04:05.000000Z07:00"),
	}
	body, err := json.Marshal(map[string]any{"spec": spec})
	if err != nil {
		return err
	}
	_, err = ri.Patch(ctx, hb.Name, types.MergePatchType, body, metav1.PatchOptions{FieldManager: FieldManager})
	if !apierrors.IsNotFound(err) {
		return err
	}
	lease := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
		"metadata": map[string]any{
			"name": hb.Name, "namespace": hb.Namespace,
			// The owner, without controller or blockOwnerDeletion, as gardenlet sets it.
			"ownerReferences": []any{map[string]any{
				"apiVersion": owner.GetAPIVersion(), "kind": owner.GetKind(), "name": owner.GetName(), "uid": string(owner.GetUID()),
			}},
		},
		"spec": spec,
	}}
	_, err = ri.Create(ctx, lease, metav1.CreateOptions{FieldManager: FieldManager})
	if apierrors.IsAlreadyExists(err) {
		_, err = ri.Patch(ctx, hb.Name, types.MergePatchType, body, metav1.PatchOptions{FieldManager: FieldManager})
	}
	return err
}
