package diff

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

// setupKind is how a setup step writes an object.
type setupKind int

const (
	applyOp  setupKind = iota // server-side apply of doc
	createOp                  // POST of doc (an Update-operation managedFields entry)
	updateOp                  // GET, edit, PUT: an out-of-band edit such as kubectl edit
	resetOp                   // clear managedFields, as for objects created before field management
)

// setupStep prepares the live object of a scenario.
type setupStep struct {
	op      setupKind
	manager string
	doc     string
	edit    func(u *unstructured.Unstructured)
	force   bool
}

// scenario is one corpus case: the live object the setup produces, the desired object, and what
// both the local diff and the server's dry-run must say.
type scenario struct {
	name    string
	setup   []setupStep
	desired string
	force   bool
	// want are the changed paths; empty means a no-op.
	want      []string
	conflicts []Conflict
	// immutable, when set, is the local Immutable list; the server must reject the dry-run.
	immutable []string
	sensitive bool
}

func apply(manager, doc string) setupStep {
	return setupStep{op: applyOp, manager: manager, doc: doc, force: true}
}
func create(manager, doc string) setupStep {
	return setupStep{op: createOp, manager: manager, doc: doc}
}
func update(manager, doc string, edit func(u *unstructured.Unstructured)) setupStep {
	return setupStep{op: updateOp, manager: manager, doc: doc, edit: edit}
}
func reset(doc string) setupStep { return setupStep{op: resetOp, doc: doc} }

// TestCorpus proves the local diff equal to a real server-side apply dry-run, scenario by
// scenario: same changed paths, same create/update/no-op decision, same conflicts.
func TestCorpus(t *testing.T) {
	env := sharedEnv(t)
	scenarios := corpus()
	require.GreaterOrEqual(t, len(scenarios), 30)
	for i, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			ns := fmt.Sprintf("corpus-%02d", i)
			env.namespace(t, ns)
			env.run(t, ns, sc)
		})
	}
}

func (e *clusterEnv) run(t *testing.T, ns string, sc scenario) {
	ctx := context.Background()
	for _, s := range sc.setup {
		e.setup(t, ns, s)
	}
	desired := e.parseDoc(t, sc.desired, ns)
	res := e.resource(t, desired, ns)

	// A controller may write the object (status, annotations) between our reads; retry until
	// the live object did not move while we compared.
	var local, server *Result
	var serverConflicts []Conflict
	var dryRunErr error
	for attempt := 0; ; attempt++ {
		live, err := res.Get(ctx, desired.GetName(), metav1.GetOptions{})
		require.NoError(t, err)
		local, err = e.differ.DiffContext(ctx, desired, live, sc.force)
		require.NoError(t, err)
		slow, err := e.slowDiffer.DiffContext(ctx, desired, live, sc.force)
		require.NoError(t, err)
		assert.Equal(t, paths(slow), paths(local), "fast path == full apply")
		assert.Equal(t, slow.Action, local.Action, "fast path == full apply")
		e.assertOwnership(t, desired, live)

		serverConflicts, dryRunErr = nil, nil
		dryRun, err := res.Apply(ctx, desired.GetName(), desired, metav1.ApplyOptions{FieldManager: "gardener", Force: sc.force, DryRun: []string{metav1.DryRunAll}})
		if err != nil && apierrors.IsConflict(err) && !sc.force {
			var ok bool
			serverConflicts, ok = e.differ.ServerConflicts(ctx, desired.GroupVersionKind(), err)
			require.True(t, ok, "conflict causes in %v", err)
			dryRun, err = res.Apply(ctx, desired.GetName(), desired, metav1.ApplyOptions{FieldManager: "gardener", Force: true, DryRun: []string{metav1.DryRunAll}})
		}
		dryRunErr = err
		if err == nil {
			server, err = e.differ.FromServer(ctx, live, dryRun)
			require.NoError(t, err)
		}
		again, err := res.Get(ctx, desired.GetName(), metav1.GetOptions{})
		require.NoError(t, err)
		if again.GetResourceVersion() == live.GetResourceVersion() {
			break
		}
		require.Less(t, attempt, 20, "live object keeps changing")
		time.Sleep(100 * time.Millisecond)
	}

	t.Logf("local %v %v conflicts %v immutable %v; server %v err %v", local.Action, paths(local), local.Conflicts, local.Immutable, serverPaths(server), dryRunErr)
	assert.Equal(t, sc.want, paths(local), "local changes")
	assert.Equal(t, sc.conflicts, local.Conflicts, "local conflicts")
	assert.Equal(t, sc.conflicts, serverConflicts, "server conflicts")
	assert.Equal(t, sc.immutable, local.Immutable, "local immutable fields")
	for _, c := range local.Changes {
		assert.Equal(t, sc.sensitive, c.Sensitive, "sensitive %s", c.Path)
	}
	if len(sc.immutable) > 0 {
		require.Error(t, dryRunErr, "the server must reject an immutable field change")
		assert.True(t, apierrors.IsInvalid(dryRunErr), "rejection %v", dryRunErr)
		return
	}
	require.NoError(t, dryRunErr)
	assert.Equal(t, paths(server), paths(local), "local diff == server dry-run")
	assert.Equal(t, server.Action, local.Action, "action")
	if len(sc.want) == 0 {
		assert.Equal(t, NoOp, local.Action)
	} else {
		assert.Equal(t, Update, local.Action)
	}
}

func (e *clusterEnv) resource(t *testing.T, u *unstructured.Unstructured, ns string) dynamic.ResourceInterface {
	t.Helper()
	gvk := u.GroupVersionKind()
	m, err := e.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	require.NoError(t, err)
	if m.Scope.Name() == "namespace" {
		return e.dyn.Resource(m.Resource).Namespace(u.GetNamespace())
	}
	return e.dyn.Resource(m.Resource)
}

func (e *clusterEnv) setup(t *testing.T, ns string, s setupStep) {
	t.Helper()
	ctx := context.Background()
	switch s.op {
	case applyOp:
		u := e.parseDoc(t, s.doc, ns)
		_, err := e.resource(t, u, ns).Apply(ctx, u.GetName(), u, metav1.ApplyOptions{FieldManager: s.manager, Force: s.force})
		require.NoError(t, err)
		if u.GetKind() == "CustomResourceDefinition" {
			// The server refuses a new scope or kind only once the definition is Established.
			e.waitEstablished(t, u)
		}
	case createOp:
		u := e.parseDoc(t, s.doc, ns)
		_, err := e.resource(t, u, ns).Create(ctx, u, metav1.CreateOptions{FieldManager: s.manager})
		require.NoError(t, err)
	case updateOp, resetOp:
		// The scenario's object is the last one a step applied or created.
		u := e.parseDoc(t, lastDoc(t, s), ns)
		res := e.resource(t, u, ns)
		if s.op == resetOp {
			_, err := res.Patch(ctx, u.GetName(), types.MergePatchType, []byte(`{"metadata":{"managedFields":[{}]}}`), metav1.PatchOptions{})
			require.NoError(t, err)
			return
		}
		require.Eventually(t, func() bool {
			live, err := res.Get(ctx, u.GetName(), metav1.GetOptions{})
			require.NoError(t, err)
			s.edit(live)
			_, err = res.Update(ctx, live, metav1.UpdateOptions{FieldManager: s.manager})
			return err == nil || !apierrors.IsConflict(err)
		}, 10*time.Second, 50*time.Millisecond)
	}
}

// waitEstablished waits until the CustomResourceDefinition reports Established=True.
func (e *clusterEnv) waitEstablished(t *testing.T, u *unstructured.Unstructured) {
	t.Helper()
	res := e.resource(t, u, "")
	require.Eventually(t, func() bool {
		live, err := res.Get(context.Background(), u.GetName(), metav1.GetOptions{})
		require.NoError(t, err)
		conds, _, _ := unstructured.NestedSlice(live.Object, "status", "conditions")
		for _, c := range conds {
			if m, _ := c.(map[string]any); m["type"] == "Established" && m["status"] == "True" {
				return true
			}
		}
		return false
	}, 30*time.Second, 50*time.Millisecond, "%s is not established", u.GetName())
}

// lastDoc is the document an update or reset step works on, recorded in its doc field.
func lastDoc(t *testing.T, s setupStep) string {
	t.Helper()
	require.NotEmpty(t, s.doc, "update and reset steps name their object through doc")
	return s.doc
}

// parseDoc decodes a scenario document and places namespaced objects in the scenario's namespace.
func (e *clusterEnv) parseDoc(t *testing.T, doc, ns string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	require.NoError(t, yaml.Unmarshal([]byte(strings.TrimSpace(doc)), &u.Object))
	gvk := u.GroupVersionKind()
	m, err := e.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	require.NoError(t, err)
	if m.Scope.Name() == "namespace" {
		u.SetNamespace(ns)
	}
	return u
}

func serverPaths(r *Result) []string {
	if r == nil {
		return nil
	}
	return paths(r)
}

// assertOwnership checks the fast path's field-ownership walk against structured-merge-diff's
// own field set of the desired object, whenever live has an Apply entry of ours.
func (e *clusterEnv) assertOwnership(t *testing.T, desired, live *unstructured.Unstructured) {
	t.Helper()
	entries, err := managedEntries(live.Object)
	require.NoError(t, err)
	typ, err := e.differ.schemas.Type(context.Background(), desired.GroupVersionKind())
	require.NoError(t, err)
	for _, en := range entries {
		if en.meta.Manager != gardener || en.meta.Operation != metav1.ManagedFieldsOperationApply {
			continue
		}
		cfg := applyConfig(desired.Object)
		tv, err := typ.Parseable().FromUnstructured(cfg)
		require.NoError(t, err)
		want, err := tv.ToFieldSet()
		require.NoError(t, err)
		owned, err := fieldsToSet(en.fields)
		require.NoError(t, err)
		p := typ.Parseable()
		assert.Equal(t, want.RecursiveDifference(resetSet).Difference(stripSet).Equals(owned),
			ownsExactly(p.Schema, p.TypeRef, en.fields, cfg), "ownership walk == field set comparison")
	}
}
