package planner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/diff"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/openapi"
	"github.com/declarative-gardener/gardener/engine/plan"
)

// LocalDiffers diffs locally with each cluster's OpenAPI schemas, cached on disk under cacheDir
// (empty: the user's cache directory). Snapshots carry their own schemas and are never cached;
// nor is a recording, which must fetch every schema it uses to record it.
func LocalDiffers(cacheDir string) DifferFactory {
	return func(_ string, c observe.Cluster) (plan.Differ, error) {
		dir := cacheDir
		_, isSnapshot := c.(*observe.Snapshot)
		_, isRecording := c.(*observe.Recorder)
		if isSnapshot || isRecording {
			dir = ""
		} else if dir == "" {
			if base, err := os.UserCacheDir(); err == nil {
				dir = filepath.Join(base, "gardener", "openapi")
			}
		}
		return diff.New(openapi.New(c, dir), inventory.FieldManager), nil
	}
}

// serverDryRun checks one object with a forced server-side apply dry-run and compares what the
// server would store with the live object, with the same paths and exclusions as local diffs.
func serverDryRun(ctx context.Context, c observe.Cluster, d plan.Differ, gvr schema.GroupVersionResource, desired, live *unstructured.Unstructured) ([]diff.Change, error) {
	runner, ok := c.(interface {
		DryRunApply(ctx context.Context, gvr schema.GroupVersionResource, obj *unstructured.Unstructured, fieldManager string, force bool) (*unstructured.Unstructured, error)
	})
	if !ok {
		return nil, fmt.Errorf("server dry-runs need a live cluster")
	}
	fromServer, ok := d.(interface {
		FromServer(ctx context.Context, live, dryRun *unstructured.Unstructured) (*diff.Result, error)
	})
	if !ok {
		return nil, fmt.Errorf("the differ cannot compare server results")
	}
	stored, err := runner.DryRunApply(ctx, gvr, desired, inventory.FieldManager, true)
	if err != nil {
		return nil, err
	}
	r, err := fromServer.FromServer(ctx, live, stored)
	if err != nil {
		return nil, err
	}
	return r.Changes, nil
}
