package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/observe"
)

// floorStallTimeout is how long the write floor keeps retrying objects none of which could be
// applied in a pass: a kind whose CRD is applied but not established yet, a namespace that a
// controller creates (the project's), an object admission refuses until another exists.
const floorStallTimeout = 3 * time.Minute

// floorOutcome is what the write floor measured.
type floorOutcome struct {
	Seconds float64
	// Passes is the most passes any cluster needed.
	Passes int
}

// writeFloor applies every object of the rendered files (one directory per cluster block) by
// server-side apply as gardener's field manager, the clusters at once and up to parallelism
// requests in flight per cluster, with no client-side rate limit and no readiness wait: the
// floor under any apply from empty, set by the API servers' write rate. Its time runs from the
// first request to the last answer.
//
// Each pass applies the Namespaces and CustomResourceDefinitions still to apply first, then the
// rest; an object that fails (its kind is not served yet because its CRD is not established,
// its namespace does not exist yet, admission refuses it until another object exists) is
// applied again in the next pass, after discovery is refreshed. The run fails when no object
// could be applied for floorStallTimeout.
func writeFloor(ctx context.Context, kubeconfig, rendered string, parallelism int) (floorOutcome, error) {
	clusters, err := os.ReadDir(rendered)
	if err != nil {
		return floorOutcome{}, err
	}
	type work struct {
		client  *cluster.Client
		objects []*unstructured.Unstructured
	}
	var all []work
	for _, cl := range clusters {
		objects, err := decodeRendered(filepath.Join(rendered, cl.Name()))
		if err != nil {
			return floorOutcome{}, err
		}
		// QPS below zero: client-go builds no rate limiter; parallelism is the only bound.
		c, err := cluster.Connect(cluster.Access{Kubeconfig: kubeconfig, Context: contextOf(cl.Name())}, cluster.Options{NoDiskCache: true, QPS: -1})
		if err != nil {
			return floorOutcome{}, err
		}
		// Discovery before the clock starts, as gardener's apply has it from its plan; the first
		// pass reads it from the cache.
		if _, err := c.Resources(ctx); err != nil {
			return floorOutcome{}, err
		}
		all = append(all, work{client: c, objects: objects})
	}
	start := time.Now()
	passes := make([]int, len(all))
	errs := make([]error, len(all))
	var wg sync.WaitGroup
	for i, w := range all {
		wg.Go(func() {
			passes[i], errs[i] = applyAll(ctx, w.client, w.objects, parallelism)
		})
	}
	wg.Wait()
	out := floorOutcome{Seconds: time.Since(start).Seconds()}
	for _, p := range passes {
		out.Passes = max(out.Passes, p)
	}
	return out, errors.Join(errs...)
}

// decodeRendered reads one cluster's rendered objects in apply order.
func decodeRendered(dir string) ([]*unstructured.Unstructured, error) {
	docs, err := renderedDocuments(dir)
	if err != nil {
		return nil, err
	}
	objects := make([]*unstructured.Unstructured, 0, len(docs))
	for _, doc := range docs {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc.text), &obj.Object); err != nil {
			return nil, fmt.Errorf("%s: %w", doc.file, err)
		}
		objects = append(objects, obj)
	}
	return objects, nil
}

// applyAll applies objects to one cluster in passes until every one is applied, and returns the
// number of passes. Each pass reads discovery once (afresh after the first) for the kinds the
// cluster serves.
func applyAll(ctx context.Context, c *cluster.Client, objects []*unstructured.Unstructured, parallelism int) (int, error) {
	pending := objects
	lastProgress := time.Now()
	for pass := 1; ; pass++ {
		resources, err := c.Resources(ctx)
		if err != nil {
			return pass, err
		}
		served := map[schema.GroupKind]observe.Resource{}
		for _, r := range resources {
			served[r.GroupKind()] = r
		}
		first, rest := foundationsFirst(pending)
		failed := append(applyParallel(ctx, c, served, first, parallelism), applyParallel(ctx, c, served, rest, parallelism)...)
		if len(failed) == 0 {
			return pass, nil
		}
		if len(failed) < len(pending) {
			lastProgress = time.Now()
		} else if time.Since(lastProgress) > floorStallTimeout {
			return pass, fmt.Errorf("cluster %s: %d objects not applied after %s without progress, such as %w", c.Host(), len(failed), floorStallTimeout, failed[0].err)
		}
		pending = make([]*unstructured.Unstructured, 0, len(failed))
		for _, f := range failed {
			pending = append(pending, f.obj)
		}
		c.RefreshMapper()
		select {
		case <-ctx.Done():
			return pass, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// foundationsFirst splits objects into Namespaces and CustomResourceDefinitions, which others
// need to exist, and the rest, keeping their order.
func foundationsFirst(objects []*unstructured.Unstructured) (first, rest []*unstructured.Unstructured) {
	for _, o := range objects {
		gk := o.GroupVersionKind().GroupKind()
		if gk == (schema.GroupKind{Kind: "Namespace"}) || gk == (schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}) {
			first = append(first, o)
		} else {
			rest = append(rest, o)
		}
	}
	return first, rest
}

// failure is an object a pass could not apply.
type failure struct {
	obj *unstructured.Unstructured
	err error
}

// applyParallel applies objects with up to parallelism requests in flight and returns those that
// failed, in their order. An object of a kind the cluster does not serve fails without a request.
func applyParallel(ctx context.Context, c *cluster.Client, served map[schema.GroupKind]observe.Resource, objects []*unstructured.Unstructured, parallelism int) []failure {
	errs := make([]error, len(objects))
	sem := make(chan struct{}, max(parallelism, 1))
	var wg sync.WaitGroup
	for i, o := range objects {
		gvk := o.GroupVersionKind()
		r, ok := served[gvk.GroupKind()]
		if !ok {
			errs[i] = fmt.Errorf("%s %s: the cluster does not serve the kind (yet)", gvk, o.GetName())
			continue
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			errs[i] = applyOne(ctx, c, schema.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: r.Resource}, r.Namespaced, o)
		})
	}
	wg.Wait()
	var failed []failure
	for i, err := range errs {
		if err != nil {
			failed = append(failed, failure{obj: objects[i], err: err})
		}
	}
	return failed
}

// applyOne server-side applies one object as gardener's field manager, taking fields from
// other managers as gardener apply does.
func applyOne(ctx context.Context, c *cluster.Client, gvr schema.GroupVersionResource, namespaced bool, o *unstructured.Unstructured) error {
	r := c.Dynamic().Resource(gvr)
	opts := metav1.ApplyOptions{FieldManager: inventory.FieldManager, Force: true}
	var err error
	if namespaced {
		_, err = r.Namespace(o.GetNamespace()).Apply(ctx, o.GetName(), o, opts)
	} else {
		_, err = r.Apply(ctx, o.GetName(), o, opts)
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", o.GetKind(), strings.Trim(o.GetNamespace()+"/"+o.GetName(), "/"), err)
	}
	return nil
}

// sortedKeys is the keys of a map in order, for deterministic output.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
