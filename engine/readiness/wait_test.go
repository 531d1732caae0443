package readiness

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// deployment returns a Deployment with two desired replicas of which available are available.
func deployment(t *testing.T, ns, name string, available int, rv string) *unstructured.Unstructured {
	t.Helper()
	obj := mustObject(t, fmt.Sprintf(`
apiVersion: apps/v1
kind: Deployment
metadata: {name: %s, namespace: %s, generation: 1, resourceVersion: "%s"}
spec: {replicas: 2}
status:
  observedGeneration: 1
  replicas: 2
  updatedReplicas: 2
  availableReplicas: %d
  conditions:
  - {type: Progressing, status: "True", reason: ReplicaSetUpdated, message: 'ReplicaSet "%s-1" is progressing.'}`,
		name, ns, rv, available, name))
	return obj
}

func deploymentTarget(ns, name string) Target {
	return Target{GVR: deploymentsGVR, Namespace: ns, Name: name}
}

func TestWaitReturnsAtOnceWhenReady(t *testing.T) {
	api := newFakeAPI(t, deployment(t, "garden", "a", 2, "5"))
	err := Wait(context.Background(), api.client, []Target{deploymentTarget("garden", "a")}, WaitOptions{})
	require.NoError(t, err)
	assert.Equal(t, 1, api.listCount())
	assert.Equal(t, 0, api.maxOpenWatches(), "no watch needed")
}

func TestWaitNoTargets(t *testing.T) {
	require.NoError(t, Wait(context.Background(), newFakeAPI(t).client, nil, WaitOptions{}))
}

func TestWaitBecomesReadyThroughWatch(t *testing.T) {
	api := newFakeAPI(t, deployment(t, "garden", "a", 1, "5"))
	var (
		mu      sync.Mutex
		changes []Status
	)
	done := waitResult(api, 0, []Target{deploymentTarget("garden", "a")}, WaitOptions{OnChange: func(tg Target, s Status) {
		mu.Lock()
		defer mu.Unlock()
		assert.Equal(t, deploymentTarget("garden", "a"), tg)
		changes = append(changes, s)
	}})
	w := api.nextWatch(t)
	assert.Equal(t, "10", w.Opts.ResourceVersion, "the watch resumes from the LIST")
	assert.Equal(t, "metadata.name=a", w.Opts.FieldSelector)
	assert.True(t, w.Opts.AllowWatchBookmarks)
	w.Modify(deployment(t, "garden", "a", 1, "11")) // unchanged verdict: no callback
	w.Modify(deployment(t, "garden", "a", 2, "12"))
	require.NoError(t, result(t, done))
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []Status{
		{Reason: `1 of 2 replicas available (Progressing: ReplicaSet "a-1" is progressing.)`},
		{Ready: true},
	}, changes)
}

func TestWaitStopsOnTerminalStatus(t *testing.T) {
	job := mustObject(t, `
apiVersion: batch/v1
kind: Job
metadata: {name: migrate, namespace: garden, resourceVersion: "3"}
status: {active: 1}`)
	api := newFakeAPI(t, job, deployment(t, "garden", "a", 0, "4"))
	done := waitResult(api, time.Minute, []Target{
		{GVR: jobsGVR, Namespace: "garden", Name: "migrate"},
		deploymentTarget("garden", "a"),
	}, WaitOptions{})
	var jobWatch *fakeWatch
	for jobWatch == nil {
		if w := api.nextWatch(t); w.Opts.FieldSelector == "metadata.name=migrate" {
			jobWatch = w
		}
	}
	jobWatch.Modify(mustObject(t, `
apiVersion: batch/v1
kind: Job
metadata: {name: migrate, namespace: garden, resourceVersion: "13"}
status:
  failed: 6
  conditions:
  - {type: Failed, status: "True", reason: BackoffLimitExceeded, message: Job has reached the specified backoff limit}`))
	err := result(t, done)
	var nre *NotReadyError
	require.ErrorAs(t, err, &nre)
	assert.True(t, nre.Terminal)
	assert.ErrorIs(t, err, ErrTerminal)
	assert.Equal(t, "1 object will not become ready without a change: "+
		"Job garden/migrate: job failed (Failed is True: Job has reached the specified backoff limit)", err.Error())
	require.Len(t, nre.NotReady, 2, "the report still lists every target that was not ready")
}

func TestWaitTimeoutListsNotReadyTargetsSorted(t *testing.T) {
	api := newFakeAPI(t, deployment(t, "garden", "b", 1, "5"), deployment(t, "garden", "a", 2, "5"))
	done := waitResult(api, 300*time.Millisecond, []Target{
		deploymentTarget("garden", "b"),
		deploymentTarget("shoot--x", "missing"),
		deploymentTarget("garden", "a"),
	}, WaitOptions{})
	err := result(t, done)
	var nre *NotReadyError
	require.ErrorAs(t, err, &nre)
	assert.False(t, nre.Terminal)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, "2 objects not ready (context deadline exceeded): "+
		`Deployment garden/b: 1 of 2 replicas available (Progressing: ReplicaSet "b-1" is progressing.); `+
		"deployments.apps shoot--x/missing: not found", err.Error())
}

func TestWaitRelistsAfterGone(t *testing.T) {
	api := newFakeAPI(t, deployment(t, "garden", "a", 1, "5"))
	done := waitResult(api, 0, []Target{deploymentTarget("garden", "a")}, WaitOptions{})
	w := api.nextWatch(t)
	api.mu.Lock()
	api.objects = []*unstructured.Unstructured{deployment(t, "garden", "a", 2, "30")}
	api.listRV = "30"
	api.mu.Unlock()
	gone := apierrors.NewResourceExpired("too old resource version: 10 (25)")
	w.Error(&gone.ErrStatus)
	require.NoError(t, result(t, done))
	assert.Equal(t, 2, api.listCount(), "410 Gone is answered with a fresh LIST")
}

func TestWaitResumesClosedWatchFromLastResourceVersion(t *testing.T) {
	api := newFakeAPI(t, deployment(t, "garden", "a", 0, "5"))
	done := waitResult(api, 0, []Target{deploymentTarget("garden", "a")}, WaitOptions{})
	w := api.nextWatch(t)
	w.Modify(deployment(t, "garden", "a", 1, "17"))
	w.Action(watchBookmark, bookmark(t, "21"))
	w.Stop() // the server ends the watch
	w2 := api.nextWatch(t)
	assert.Equal(t, "21", w2.Opts.ResourceVersion)
	w2.Modify(deployment(t, "garden", "a", 2, "22"))
	require.NoError(t, result(t, done))
	assert.Equal(t, 1, api.listCount(), "a closed watch resumes without a LIST")
}

func TestWaitDeletedTargetIsNotFound(t *testing.T) {
	api := newFakeAPI(t, deployment(t, "garden", "a", 0, "5"))
	var (
		mu   sync.Mutex
		last Status
	)
	done := waitResult(api, 500*time.Millisecond, []Target{deploymentTarget("garden", "a")}, WaitOptions{OnChange: func(_ Target, s Status) {
		mu.Lock()
		defer mu.Unlock()
		last = s
	}})
	w := api.nextWatch(t)
	w.Delete(deployment(t, "garden", "a", 0, "6"))
	err := result(t, done)
	require.Error(t, err)
	assert.Equal(t, "1 object not ready (context deadline exceeded): Deployment garden/a: not found", err.Error())
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, Status{Reason: "not found"}, last)
}

func TestWaitSharesOneWatchPerNamespace(t *testing.T) {
	api := newFakeAPI(t, deployment(t, "garden", "a", 1, "5"), deployment(t, "garden", "b", 1, "5"), deployment(t, "garden", "other", 0, "5"))
	done := waitResult(api, 0, []Target{deploymentTarget("garden", "a"), deploymentTarget("garden", "b")}, WaitOptions{})
	w := api.nextWatch(t)
	assert.Empty(t, w.Opts.FieldSelector, "several names share an unfiltered watch")
	w.Modify(deployment(t, "garden", "a", 2, "6"))
	w.Modify(deployment(t, "garden", "other", 2, "7"))
	w.Modify(deployment(t, "garden", "b", 2, "8"))
	require.NoError(t, result(t, done))
	assert.Equal(t, 1, api.maxOpenWatches())
}

func TestWaitBoundsConcurrentWatches(t *testing.T) {
	namespaces := []string{"n1", "n2", "n3", "n4"}
	var objs []*unstructured.Unstructured
	var targets []Target
	for _, ns := range namespaces {
		objs = append(objs, deployment(t, ns, "d", 0, "5"))
		targets = append(targets, deploymentTarget(ns, "d"))
	}
	api := newFakeAPI(t, objs...)
	done := waitResult(api, 0, targets, WaitOptions{MaxWatches: 2})
	open := []*fakeWatch{api.nextWatch(t), api.nextWatch(t)}
	select {
	case <-api.watches:
		require.FailNow(t, "a third watch opened while two were open")
	case <-time.After(300 * time.Millisecond):
	}
	for handled := 0; handled < len(namespaces); handled++ {
		w := open[0]
		open = open[1:]
		w.Modify(deployment(t, w.Namespace, "d", 2, "9"))
		if handled+1+len(open) < len(namespaces) {
			open = append(open, api.nextWatch(t)) // the freed slot lets a queued group in
		}
	}
	require.NoError(t, result(t, done))
	assert.Equal(t, 2, api.maxOpenWatches())
	assert.Equal(t, 6, api.listCount(), "one LIST per group, and a fresh one for each group that queued for a slot")
}

func TestWaitReportsListErrors(t *testing.T) {
	api := newFakeAPI(t)
	api.listErr = apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "deployments"}, "", errors.New("RBAC says no"))
	err := result(t, waitResult(api, 300*time.Millisecond, []Target{deploymentTarget("garden", "a")}, WaitOptions{}))
	require.Error(t, err)
	assert.Equal(t, "1 object not ready (context deadline exceeded): deployments.apps garden/a: "+
		`cannot list deployments.apps: deployments.apps is forbidden: RBAC says no`, err.Error())
	assert.Greater(t, api.listCount(), 1, "LIST errors are retried")
}

func TestWaitHonoursContextCancel(t *testing.T) {
	api := newFakeAPI(t, deployment(t, "garden", "a", 0, "5"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Wait(ctx, api.client, []Target{deploymentTarget("garden", "a")}, WaitOptions{}) }()
	api.nextWatch(t)
	cancel()
	err := result(t, done)
	assert.ErrorIs(t, err, context.Canceled)
}

const watchBookmark = "BOOKMARK"

// bookmark returns a watch bookmark object carrying only a resourceVersion.
func bookmark(t *testing.T, rv string) *unstructured.Unstructured {
	t.Helper()
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion("apps/v1")
	obj.SetKind("Deployment")
	obj.SetResourceVersion(rv)
	return obj
}
