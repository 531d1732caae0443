package report

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"

	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/kinds"
	"github.com/declarative-gardener/gardener/engine/render"
)

// FieldManager is the field manager of the engine's reports (inventory.ReportFieldManager).
const FieldManager = inventory.ReportFieldManager

// Identity is who reports, in status.gardener: the engine's process as gardenlet puts its pod
// there (DetermineIdentity in pkg/utils/gardener/identity.go at Gardener v1.120.0).
type Identity struct {
	ID   string
	Name string
}

// Writer writes reports.
type Writer struct {
	// Clients reach the reported objects' clusters, by cluster block name.
	Clients map[string]dynamic.Interface
	// Resource maps a kind to its resource in a cluster; nil, or a kind it does not know, falls
	// back to the kind's lower-case plural.
	Resource func(cluster string, gk schema.GroupKind) (schema.GroupVersionResource, bool)
	// Now is the clock; nil means time.Now.
	Now      func() time.Time
	Identity Identity
}

func (w *Writer) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

// ErrNotFound is returned by writes for a reported object that does not exist (yet): there is
// nothing to report on, which is no failure of the apply.
var ErrNotFound = errors.New("the reported object does not exist")

// Start reports that the instance's operation starts: the finalizer first, then lastOperation
// Processing at 0 %, observedGeneration and the component's fields. It returns the operation
// type it reported.
func (w *Writer) Start(ctx context.Context, r render.Report) (string, error) {
	if r.Operation == nil {
		return "", nil
	}
	var typ string
	err := w.update(ctx, r, func(live *unstructured.Unstructured, status map[string]any) {
		typ = operationType(live, r.Operation)
		w.common(r, live, status)
		status["lastOperation"] = map[string]any{
			"type": typ, "state": StateProcessing, "progress": int64(0),
			"description": startDescription(r.Operation, typ), "lastUpdateTime": w.stamp(),
		}
	})
	return typ, err
}

// Progress reports how far the operation of type typ got: done of total parts finished, the
// running ones named.
func (w *Writer) Progress(ctx context.Context, r render.Report, typ string, done, total int, running []string) error {
	if r.Operation == nil || total == 0 {
		return nil
	}
	progress := done * 100 / total
	if progress >= 100 {
		progress = 99 // 100 % is the end, which Finish reports
	}
	return w.update(ctx, r, func(live *unstructured.Unstructured, status map[string]any) {
		last, _, _ := unstructured.NestedMap(live.Object, "status", "lastOperation")
		if last == nil || last["state"] != StateProcessing {
			return // another writer ended it, or it never started
		}
		last = copyMap(last)
		last["progress"], last["description"], last["lastUpdateTime"] = int64(progress), progressDescription(r.Operation, typ, progress, running), w.stamp()
		status["lastOperation"] = last
	})
}

// Finish reports the end of the operation of type typ with the instance's conditions: Succeeded
// at 100 % without a failure; otherwise Error (Failed for Gardener's non-retryable codes) with
// the failure in lastErrors, for kinds that report them.
func (w *Writer) Finish(ctx context.Context, r render.Report, typ string, conds []Condition, failure *Failure) error {
	return w.update(ctx, r, func(live *unstructured.Unstructured, status map[string]any) {
		w.common(r, live, status)
		setConditions(live, status, conds, w.now())
		if r.Operation == nil {
			return
		}
		if failure == nil {
			status["lastOperation"] = map[string]any{
				"type": typ, "state": StateSucceeded, "progress": int64(100),
				"description": successDescription(r.Operation, typ), "lastUpdateTime": w.stamp(),
			}
			if r.Operation.LastErrors {
				status["lastErrors"] = nil
			}
			return
		}
		last, _, _ := unstructured.NestedMap(live.Object, "status", "lastOperation")
		progress := int64(0)
		if p, ok := last["progress"].(int64); ok {
			progress = p // gardenlet keeps the progress of a failed operation
		}
		state, description := StateError, upperFirst(failure.Err.Error())
		if r.Operation.LastErrors {
			state = failedState(*failure)
			entry := map[string]any{"description": failure.Err.Error(), "taskID": failure.Part, "lastUpdateTime": w.stamp()}
			if len(failure.Codes) > 0 {
				entry["codes"] = toAny(failure.Codes)
			}
			status["lastErrors"] = []any{entry}
		}
		if state == StateError {
			description += " Operation will be retried."
		}
		status["lastOperation"] = map[string]any{
			"type": typ, "state": state, "progress": progress, "description": description, "lastUpdateTime": w.stamp(),
		}
	})
}

// Sync brings the report up to date without an operation: the finalizer, the component's fields
// and the conditions; and where the object's generation moved on without the engine having
// anything to change (or it never reported), a Reconcile that Succeeded for that generation, as
// gardenlet reports a reconcile that found nothing to do.
//
// observed, when not nil, is the object as the caller last saw it (a daemon's watch cache): when
// it needs no write, Sync sends no request.
func (w *Writer) Sync(ctx context.Context, r render.Report, conds []Condition, observed *unstructured.Unstructured) error {
	if observed != nil && !w.needsWrite(r, observed, func(live *unstructured.Unstructured, status map[string]any) {
		w.syncStatus(r, conds, live, status)
	}) {
		return nil
	}
	return w.update(ctx, r, func(live *unstructured.Unstructured, status map[string]any) {
		w.syncStatus(r, conds, live, status)
	})
}

// needsWrite reports whether mutate would change observed, or its finalizer is missing.
func (w *Writer) needsWrite(r render.Report, observed *unstructured.Unstructured, mutate func(live *unstructured.Unstructured, status map[string]any)) bool {
	gv, err := schema.ParseGroupVersion(r.APIVersion)
	if err != nil {
		return true
	}
	if f := kinds.ReportFinalizer(gv.WithKind(r.Kind).GroupKind()); f != "" && observed.GetDeletionTimestamp() == nil && !slices.Contains(observed.GetFinalizers(), f) {
		return true
	}
	status := map[string]any{}
	mutate(observed, status)
	return len(changedFields(observed, status)) > 0
}

// syncStatus is what Sync writes: the common fields, the conditions, and a Reconcile that
// Succeeded where the generation moved on.
func (w *Writer) syncStatus(r render.Report, conds []Condition, live *unstructured.Unstructured, status map[string]any) {
	w.common(r, live, status)
	setConditions(live, status, conds, w.now())
	if r.Operation == nil || live.GetDeletionTimestamp() != nil {
		return
	}
	if r.Error != "" {
		w.unserved(r, live, status)
		return
	}
	observed, _, _ := unstructured.NestedInt64(live.Object, "status", "observedGeneration")
	last, hasLast, _ := unstructured.NestedMap(live.Object, "status", "lastOperation")
	if hasLast && observed == live.GetGeneration() && last["state"] == StateSucceeded {
		return
	}
	typ := operationType(live, r.Operation)
	status["lastOperation"] = map[string]any{
		"type": typ, "state": StateSucceeded, "progress": int64(100),
		"description": successDescription(r.Operation, typ), "lastUpdateTime": w.stamp(),
	}
	if r.Operation.LastErrors {
		status["lastErrors"] = nil
	}
}

// Consume removes the annotations the report's operation carried out (render.Report.Consume)
// from the live object, each only while it has the value the rendering read, under the
// resourceVersion read: a request made again meanwhile stays for the next operation.
func (w *Writer) Consume(ctx context.Context, r render.Report) error {
	if len(r.Consume) == 0 {
		return nil
	}
	ri, live, err := w.reported(ctx, r)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	remove := map[string]any{}
	for key, value := range r.Consume {
		if v, ok := live.GetAnnotations()[key]; ok && v == value {
			remove[key] = nil
		}
	}
	if len(remove) == 0 {
		return nil
	}
	_, err = w.patch(ctx, ri, r.Name, map[string]any{"metadata": map[string]any{"resourceVersion": live.GetResourceVersion(), "annotations": remove}}, "")
	if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// reported reads the live object a report is about, with the resource interface to write it
// through; ErrNotFound when it does not exist.
func (w *Writer) reported(ctx context.Context, r render.Report) (dynamic.ResourceInterface, *unstructured.Unstructured, error) {
	gv, err := schema.ParseGroupVersion(r.APIVersion)
	if err != nil {
		return nil, nil, err
	}
	ri, err := w.resource(r.Cluster, gv.WithKind(r.Kind), r.Namespace)
	if err != nil {
		return nil, nil, err
	}
	live, err := ri.Get(ctx, r.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil, ErrNotFound
	}
	if err != nil {
		return nil, nil, err
	}
	return ri, live, nil
}

// unserved reports an object the engine cannot serve (render.Report.Error): its operation in
// Error with the reason, and the reason in lastErrors for kinds that keep them, as gardenlet
// reports a reconciliation that failed and will be retried.
func (w *Writer) unserved(r render.Report, live *unstructured.Unstructured, status map[string]any) {
	typ := operationType(live, r.Operation)
	status["lastOperation"] = map[string]any{
		"type": typ, "state": StateError, "progress": int64(0),
		"description": upperFirst(r.Error) + ". Operation will be retried.", "lastUpdateTime": w.stamp(),
	}
	if r.Operation.LastErrors {
		status["lastErrors"] = []any{map[string]any{"description": r.Error, "lastUpdateTime": w.stamp()}}
	}
}

// Finalize ends the deletion of a reported object the engine deleted or a user deleted and the
// engine tore down: a Delete that Succeeded, then its report finalizer goes, which lets the API
// server remove the object. Gardener's admission refuses the finalizer's removal before that
// operation is written (plugin/pkg/global/finalizerremoval at Gardener v1.120.0).
func (w *Writer) Finalize(ctx context.Context, cluster, apiVersion, kind, namespace, name string) error {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return err
	}
	finalizer := kinds.ReportFinalizer(gv.WithKind(kind).GroupKind())
	if finalizer == "" {
		return nil
	}
	ri, err := w.resource(cluster, gv.WithKind(kind), namespace)
	if err != nil {
		return err
	}
	live, err := ri.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if !slices.Contains(live.GetFinalizers(), finalizer) || !reportedBy(live, FieldManager) {
		// Not the engine's to end: a gardenlet reports the object and keeps the finalizer
		// until its own delete flow is done (a Shoot on a seed handed to gardenlet).
		return nil
	}
	subject := kind + " cluster"
	patch := map[string]any{
		"metadata": map[string]any{"resourceVersion": live.GetResourceVersion()},
		"status": map[string]any{"lastOperation": map[string]any{
			"type": OperationDelete, "state": StateSucceeded, "progress": int64(100),
			"description": fmt.Sprintf("%s has been successfully deleted.", subject), "lastUpdateTime": w.stamp(),
		}},
	}
	if _, err := w.patch(ctx, ri, name, patch, "status"); err != nil {
		return fmt.Errorf("report the deletion of %s %s: %w", kind, name, err)
	}
	return w.removeFinalizer(ctx, ri, name, finalizer)
}

// reportedBy reports whether manager wrote the object's status: the engine added the report
// finalizer before its first status write, so the finalizer is its own to remove.
func reportedBy(live *unstructured.Unstructured, manager string) bool {
	for _, m := range live.GetManagedFields() {
		if m.Manager == manager && m.Subresource == "status" {
			return true
		}
	}
	return false
}

// common sets what every write carries: observedGeneration, status.gardener and the component's
// own fields; and, before the engine's first write, its finalizer (ensureFinalizer runs first).
func (w *Writer) common(r render.Report, live *unstructured.Unstructured, status map[string]any) {
	for k, v := range r.Status {
		status[k] = v
	}
	status["observedGeneration"] = live.GetGeneration()
	if r.CopyUID {
		status["uid"] = string(live.GetUID())
	}
	g := map[string]any{"id": w.Identity.ID, "name": w.Identity.Name}
	if r.GardenerVersion != "" {
		g["version"] = r.GardenerVersion
	}
	status["gardener"] = g
}

// setConditions merges conds into live's conditions when they change any of them.
func setConditions(live *unstructured.Unstructured, status map[string]any, conds []Condition, now time.Time) {
	if len(conds) == 0 {
		return
	}
	current, _, _ := unstructured.NestedSlice(live.Object, "status", "conditions")
	if merged, changed := mergeConditions(current, conds, now); changed {
		status["conditions"] = merged
	}
}

// update reads the reported object, lets mutate fill the status fields to write, and patches
// the status subresource with what changes, under the resourceVersion read; a conflict reads
// again. The finalizer comes first, in a write of its own, as gardenlet adds it before any
// status write.
func (w *Writer) update(ctx context.Context, r render.Report, mutate func(live *unstructured.Unstructured, status map[string]any)) error {
	return w.updateStatus(ctx, target{r.Cluster, r.APIVersion, r.Kind, r.Namespace, r.Name}, true, mutate)
}

// target is a reported object: its cluster block, API version, kind, namespace and name.
type target struct {
	cluster, apiVersion, kind, namespace, name string
}

// updateStatus is update for any reported object; withFinalizer adds the kind's report
// finalizer (kinds.ReportFinalizer) first.
func (w *Writer) updateStatus(ctx context.Context, t target, withFinalizer bool, mutate func(live *unstructured.Unstructured, status map[string]any)) error {
	gv, err := schema.ParseGroupVersion(t.apiVersion)
	if err != nil {
		return err
	}
	gvk := gv.WithKind(t.kind)
	ri, err := w.resource(t.cluster, gvk, t.namespace)
	if err != nil {
		return err
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		live, err := ri.Get(ctx, t.name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if f := kinds.ReportFinalizer(gvk.GroupKind()); withFinalizer && f != "" && live.GetDeletionTimestamp() == nil && !slices.Contains(live.GetFinalizers(), f) {
			patch := map[string]any{"metadata": map[string]any{
				"resourceVersion": live.GetResourceVersion(), "finalizers": toAny(append(live.GetFinalizers(), f)),
			}}
			if live, err = w.patch(ctx, ri, t.name, patch, ""); err != nil {
				return err
			}
		}
		status := map[string]any{}
		mutate(live, status)
		changes := changedFields(live, status)
		if len(changes) == 0 {
			return nil
		}
		_, err = w.patch(ctx, ri, t.name, map[string]any{
			"metadata": map[string]any{"resourceVersion": live.GetResourceVersion()},
			"status":   changes,
		}, "status")
		return err
	})
}

// changedFields are the fields of want whose values differ from live's status. Timestamps alone
// do not make a change: a lastOperation that says the same thing is not written again.
func changedFields(live *unstructured.Unstructured, want map[string]any) map[string]any {
	current, _, _ := unstructured.NestedMap(live.Object, "status")
	out := map[string]any{}
	for k, v := range want {
		if !sameIgnoringTimes(normalise(current[k]), normalise(v)) {
			out[k] = v
		}
	}
	return out
}

// sameIgnoringTimes compares two status values leaving out lastUpdateTime, which every write
// stamps anew.
func sameIgnoringTimes(a, b any) bool {
	strip := func(v any) any {
		if m, ok := v.(map[string]any); ok {
			m = copyMap(m)
			delete(m, "lastUpdateTime")
			return m
		}
		return v
	}
	return reflect.DeepEqual(strip(a), strip(b))
}

// normalise makes a value compare as the API server stores it: through JSON, so that int64 and
// float64 numbers and typed slices meet.
func normalise(v any) any {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return v
	}
	return out
}

func (w *Writer) patch(ctx context.Context, ri dynamic.ResourceInterface, name string, patch map[string]any, subresource string) (*unstructured.Unstructured, error) {
	body, err := json.Marshal(patch)
	if err != nil {
		return nil, err
	}
	var sub []string
	if subresource != "" {
		sub = []string{subresource}
	}
	return ri.Patch(ctx, name, types.MergePatchType, body, metav1.PatchOptions{FieldManager: FieldManager}, sub...)
}

func (w *Writer) removeFinalizer(ctx context.Context, ri dynamic.ResourceInterface, name, finalizer string) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		live, err := ri.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		kept := slices.DeleteFunc(slices.Clone(live.GetFinalizers()), func(f string) bool { return f == finalizer })
		if len(kept) == len(live.GetFinalizers()) {
			return nil
		}
		_, err = w.patch(ctx, ri, name, map[string]any{"metadata": map[string]any{
			"resourceVersion": live.GetResourceVersion(), "finalizers": toAny(kept),
		}}, "")
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	})
}

func (w *Writer) resource(cluster string, gvk schema.GroupVersionKind, namespace string) (dynamic.ResourceInterface, error) {
	client := w.Clients[cluster]
	if client == nil {
		return nil, fmt.Errorf("no client for cluster %s", cluster)
	}
	gvr, ok := schema.GroupVersionResource{}, false
	if w.Resource != nil {
		gvr, ok = w.Resource(cluster, gvk.GroupKind())
	}
	if !ok {
		gvr = gvk.GroupVersion().WithResource(strings.ToLower(gvk.Kind) + "s")
	}
	if namespace == "" {
		return client.Resource(gvr), nil
	}
	return client.Resource(gvr).Namespace(namespace), nil
}

func (w *Writer) stamp() string { return w.now().UTC().Format(time.RFC3339) }

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// upperFirst is gardenlet's FormatLastErrDescription: the error with its first letter in upper
// case.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
