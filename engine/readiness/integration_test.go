package readiness_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/engine/readiness"
	"github.com/declarative-gardener/gardener/tests/localcluster"
)

// These tests run Wait against the runtime plane of the local control plane, where kwok nodes run
// pods and kwok stages play etcd-druid, gardener-resource-manager and the extension controllers
// (tests/localcluster/stages/gardener.yaml.tmpl).

var (
	namespacesGVR  = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	deploymentsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	crdsGVR        = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	etcdsGVR       = schema.GroupVersionResource{Group: "druid.gardener.cloud", Version: "v1alpha1", Resource: "etcds"}
	mrsGVR         = schema.GroupVersionResource{Group: "resources.gardener.cloud", Version: "v1alpha1", Resource: "managedresources"}
	dnsRecordsGVR  = schema.GroupVersionResource{Group: "extensions.gardener.cloud", Version: "v1alpha1", Resource: "dnsrecords"}
)

// env is one test's view of the runtime plane: a dynamic client and a fresh namespace.
type env struct {
	ctx       context.Context
	client    dynamic.Interface
	namespace string
}

func newEnv(t *testing.T, crds ...string) *env {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a local control plane")
	}
	plane := localcluster.Shared(t).Plane(localcluster.RuntimePlane)
	require.NotNil(t, plane)
	cfg := plane.RESTConfig()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	if len(crds) > 0 {
		var docs [][]byte
		for _, name := range crds {
			doc, err := localcluster.SeedCRD(name)
			require.NoError(t, err)
			docs = append(docs, doc)
		}
		require.NoError(t, localcluster.ApplyCRDs(ctx, cfg, docs))
	}
	client, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	e := &env{ctx: ctx, client: client, namespace: namespaceFor(t)}
	e.create(t, namespacesGVR, fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata: {name: %s}", e.namespace))
	t.Cleanup(func() {
		_ = client.Resource(namespacesGVR).Delete(context.Background(), e.namespace, metav1.DeleteOptions{})
	})
	return e
}

var unsafeChars = regexp.MustCompile(`[^a-z0-9-]+`)

// namespaceFor derives a namespace name from the test name, unique per run so that -count=N does
// not collide with a namespace still terminating.
func namespaceFor(t *testing.T) string {
	suffix := "-" + strconv.FormatInt(time.Now().UnixNano()%(36*36*36*36*36), 36)
	name := "rd-" + unsafeChars.ReplaceAllString(strings.ToLower(t.Name()), "-")
	name = strings.TrimRight(name[:min(len(name), 63-len(suffix))], "-")
	return name + suffix
}

// create creates the object in YAML form; namespaced objects go into the env's namespace.
func (e *env) create(t *testing.T, gvr schema.GroupVersionResource, doc string) *unstructured.Unstructured {
	t.Helper()
	js, err := yaml.YAMLToJSON([]byte(doc))
	require.NoError(t, err)
	obj := &unstructured.Unstructured{}
	require.NoError(t, obj.UnmarshalJSON(js))
	var res dynamic.ResourceInterface = e.client.Resource(gvr)
	if gvr != namespacesGVR && gvr != crdsGVR {
		obj.SetNamespace(e.namespace)
		res = e.client.Resource(gvr).Namespace(e.namespace)
	}
	created, err := res.Create(e.ctx, obj, metav1.CreateOptions{})
	require.NoError(t, err)
	return created
}

func (e *env) target(gvr schema.GroupVersionResource, name string) readiness.Target {
	return readiness.Target{GVR: gvr, Namespace: e.namespace, Name: name}
}

// deploymentYAML is a Deployment whose pods kwok runs; extra is appended to the pod spec.
func deploymentYAML(name string, replicas int, podSpecExtra string) string {
	return fmt.Sprintf(`
apiVersion: apps/v1
kind: Deployment
metadata: {name: %[1]s}
spec:
  replicas: %[2]d
  progressDeadlineSeconds: 600
  selector: {matchLabels: {app: %[1]s}}
  template:
    metadata: {labels: {app: %[1]s}}
    spec:
      %[3]s
      containers:
      - {name: app, image: registry.invalid/app:1}`, name, replicas, podSpecExtra)
}

// progress collects OnChange calls.
type progress struct {
	mu      sync.Mutex
	changes []readiness.Status
}

func (p *progress) record(_ readiness.Target, s readiness.Status) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.changes = append(p.changes, s)
}

func (p *progress) all() []readiness.Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]readiness.Status(nil), p.changes...)
}

func TestIntegrationDeploymentsRollOut(t *testing.T) {
	e := newEnv(t)
	e.create(t, deploymentsGVR, deploymentYAML("etcd-druid", 2, ""))
	e.create(t, deploymentsGVR, deploymentYAML("gardener-resource-manager", 1, ""))
	var p progress
	start := time.Now()
	err := readiness.Wait(e.ctx, e.client, []readiness.Target{
		e.target(deploymentsGVR, "etcd-druid"),
		e.target(deploymentsGVR, "gardener-resource-manager"),
	}, readiness.WaitOptions{Timeout: time.Minute, OnChange: p.record})
	require.NoError(t, err)
	t.Logf("ready after %s; changes: %+v", time.Since(start).Round(time.Millisecond), p.all())
	changes := p.all()
	require.NotEmpty(t, changes)
	assert.False(t, changes[0].Ready, "a fresh Deployment is not ready at once")
	assert.True(t, changes[len(changes)-1].Ready)
}

func TestIntegrationUnschedulableDeploymentTimesOut(t *testing.T) {
	e := newEnv(t)
	e.create(t, deploymentsGVR, deploymentYAML("stuck", 1, "nodeSelector: {readiness.test/no-such-node: \"true\"}"))
	e.create(t, deploymentsGVR, deploymentYAML("fine", 1, ""))
	err := readiness.Wait(e.ctx, e.client, []readiness.Target{
		e.target(deploymentsGVR, "stuck"),
		e.target(deploymentsGVR, "fine"),
	}, readiness.WaitOptions{Timeout: 8 * time.Second})
	var nre *readiness.NotReadyError
	require.ErrorAs(t, err, &nre)
	t.Log(err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.False(t, nre.Terminal)
	require.Len(t, nre.NotReady, 1, "only the unschedulable Deployment is reported")
	assert.Equal(t, "Deployment", nre.NotReady[0].Kind)
	assert.Equal(t, fmt.Sprintf("1 object not ready (context deadline exceeded): Deployment %s/stuck: "+
		"0 of 1 replicas available (Available: Deployment does not have minimum availability.)", e.namespace), err.Error())
}

func TestIntegrationCRDEstablished(t *testing.T) {
	e := newEnv(t)
	group := e.namespace + ".readiness.test"
	e.create(t, crdsGVR, fmt.Sprintf(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.%[1]s}
spec:
  group: %[1]s
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}`, group))
	t.Cleanup(func() {
		_ = e.client.Resource(crdsGVR).Delete(context.Background(), "widgets."+group, metav1.DeleteOptions{})
	})
	target := readiness.Target{GVR: crdsGVR, Name: "widgets." + group}
	require.NoError(t, readiness.Wait(e.ctx, e.client, []readiness.Target{target}, readiness.WaitOptions{Timeout: 30 * time.Second}))
	crd, err := e.client.Resource(crdsGVR).Get(e.ctx, target.Name, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, readiness.Status{Ready: true}, readiness.Check(crd))
}

func TestIntegrationEtcdBecomesReady(t *testing.T) {
	e := newEnv(t, "etcds.druid.gardener.cloud")
	created := e.create(t, etcdsGVR, `
apiVersion: druid.gardener.cloud/v1alpha1
kind: Etcd
metadata: {name: virtual-garden-etcd-main}
spec: {replicas: 1, labels: {name: etcd}, etcd: {}, backup: {}}`)
	assert.False(t, readiness.Check(created).Ready, "etcd-druid (kwok) has not reported yet")
	require.NoError(t, readiness.Wait(e.ctx, e.client, []readiness.Target{e.target(etcdsGVR, "virtual-garden-etcd-main")},
		readiness.WaitOptions{Timeout: 2 * time.Minute}))
}

func TestIntegrationManagedResourceBecomesHealthy(t *testing.T) {
	e := newEnv(t, "managedresources.resources.gardener.cloud")
	created := e.create(t, mrsGVR, `
apiVersion: resources.gardener.cloud/v1alpha1
kind: ManagedResource
metadata: {name: istio}
spec:
  class: seed
  secretRefs: [{name: managedresource-istio}]`)
	assert.Equal(t, readiness.Status{Reason: "not reconciled yet (no status.observedGeneration)"}, readiness.Check(created))
	require.NoError(t, readiness.Wait(e.ctx, e.client, []readiness.Target{e.target(mrsGVR, "istio")},
		readiness.WaitOptions{Timeout: 2 * time.Minute}))
}

func TestIntegrationExtensionReconcileRequest(t *testing.T) {
	e := newEnv(t, "dnsrecords.extensions.gardener.cloud")
	e.create(t, dnsRecordsGVR, `
apiVersion: extensions.gardener.cloud/v1alpha1
kind: DNSRecord
metadata: {name: garden-external}
spec:
  type: local
  secretRef: {name: dns, namespace: garden}
  name: api.example.test
  recordType: A
  values: [10.0.0.1]`)
	target := e.target(dnsRecordsGVR, "garden-external")
	opts := readiness.WaitOptions{Timeout: 2 * time.Minute}
	require.NoError(t, readiness.Wait(e.ctx, e.client, []readiness.Target{target}, opts))

	// A reconcile request makes the record not ready until the controller (kwok) takes it up.
	patched, err := e.client.Resource(dnsRecordsGVR).Namespace(e.namespace).Patch(e.ctx, target.Name, types.MergePatchType,
		[]byte(`{"metadata":{"annotations":{"gardener.cloud/operation":"reconcile"}}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	if _, pending := patched.GetAnnotations()["gardener.cloud/operation"]; pending {
		assert.Equal(t, readiness.Status{Reason: "gardener.cloud/operation=reconcile not yet picked up by the controller"}, readiness.Check(patched))
	}
	require.NoError(t, readiness.Wait(e.ctx, e.client, []readiness.Target{target}, opts))
	final, err := e.client.Resource(dnsRecordsGVR).Namespace(e.namespace).Get(e.ctx, target.Name, metav1.GetOptions{})
	require.NoError(t, err)
	assert.NotContains(t, final.GetAnnotations(), "gardener.cloud/operation")
}

func TestIntegrationWaitsForObjectCreatedLater(t *testing.T) {
	e := newEnv(t)
	done := make(chan error, 1)
	go func() {
		done <- readiness.Wait(e.ctx, e.client, []readiness.Target{e.target(deploymentsGVR, "late")},
			readiness.WaitOptions{Timeout: time.Minute})
	}()
	select {
	case err := <-done:
		require.FailNow(t, "Wait returned before the object existed", "%v", err)
	case <-time.After(500 * time.Millisecond):
	}
	e.create(t, deploymentsGVR, deploymentYAML("late", 1, ""))
	require.NoError(t, <-done)
}
