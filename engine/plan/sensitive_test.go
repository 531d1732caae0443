package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/rendering"
)

func TestParsePath(t *testing.T) {
	for _, tt := range []struct {
		path string
		want []pathStep
	}{
		{".spec.replicas", []pathStep{{true, "spec"}, {true, "replicas"}}},
		{".metadata.labels[app.kubernetes.io/name]", []pathStep{{true, "metadata"}, {true, "labels"}, {false, "app.kubernetes.io/name"}}},
		{".spec.containers[name=etcd].args[2]", []pathStep{{true, "spec"}, {true, "containers"}, {false, "name=etcd"}, {true, "args"}, {false, "2"}}},
		{".data[a]b]", []pathStep{{true, "data"}, {false, "a]b"}}},
		{".contents[configmap__kube-system__x.yaml].data[k]", []pathStep{{true, "contents"}, {false, "configmap__kube-system__x.yaml"}, {true, "data"}, {false, "k"}}},
	} {
		t.Run(tt.path, func(t *testing.T) {
			got := parsePath(tt.path)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.path, formatPath(got), "printed as it was")
		})
	}
}

// marked is a Deployment whose replicas, paused flag, second argument and one label key depend
// on sensitive values.
func marked() *Desired {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "app", "namespace": "apps", "labels": map[string]any{"team-s3cret": "x", "app": "app"}},
		"spec": map[string]any{"replicas": int64(7), "paused": true, "template": map[string]any{"spec": map[string]any{"containers": []any{
			map[string]any{"name": "app", "args": []any{"--mode=fast", "--token=S3CRET"}, "ports": []any{map[string]any{"containerPort": int64(8443), "protocol": "TCP"}}},
		}}}},
	}}
	s := (*render.Sensitivity)(nil).
		Mark(func(s *render.Sensitivity) { s.Value = true }, "spec", "replicas").
		Mark(func(s *render.Sensitivity) { s.Value = true }, "spec", "paused").
		Mark(func(s *render.Sensitivity) { s.Key, s.Value = true, true }, "metadata", "labels", "team-s3cret").
		Mark(func(s *render.Sensitivity) { s.Value = true }, "spec", "template", "spec", "containers", 0, "args", 1).
		Mark(func(s *render.Sensitivity) { s.Value = true }, "spec", "template", "spec", "containers", 0, "ports", 0, "containerPort")
	s.Strings = []string{"s3cret"}
	return &Desired{Object: u, Sensitive: s}
}

func TestMarksHideValuesAndKeysByPlace(t *testing.T) {
	m := newMarks(marked(), render.NewRedactor(nil))
	for _, tt := range []struct {
		path, shown string
		hide        bool
	}{
		{".spec.replicas", ".spec.replicas", true},
		{".spec.paused", ".spec.paused", true},
		{".spec.template.spec.containers[name=app].args[1]", ".spec.template.spec.containers[name=app].args[1]", true},
		{".spec.template.spec.containers[name=app].args[0]", ".spec.template.spec.containers[name=app].args[0]", false},
		{".spec.template.spec.containers[name=app].args", ".spec.template.spec.containers[name=app].args", true},
		{".spec.template.spec.containers[name=app].ports[containerPort=8443,protocol=TCP].containerPort",
			".spec.template.spec.containers[name=app].ports[containerPort=(sensitive value),protocol=TCP].containerPort", true},
		{".spec.template.spec.containers[name=app].ports[containerPort=8443,protocol=TCP].protocol",
			".spec.template.spec.containers[name=app].ports[containerPort=(sensitive value),protocol=TCP].protocol", false},
		{".metadata.labels[team-s3cret]", ".metadata.labels[team-(sensitive value)]", true},
		{".metadata.labels[app]", ".metadata.labels[app]", false},
		{".metadata.labels[team-0ld]", ".metadata.labels[(sensitive value)]", true},
		{".metadata.labels", ".metadata.labels", true},
		{".spec.minReadySeconds", ".spec.minReadySeconds", false},
	} {
		t.Run(tt.path, func(t *testing.T) {
			hide, shown := m.field(tt.path)
			assert.Equal(t, tt.hide, hide)
			assert.Equal(t, tt.shown, m.redact(shown))
		})
	}
	changes := m.changes([]FieldChange{
		{Path: ".spec.replicas", Before: int64(3), After: int64(7), HasBefore: true, HasAfter: true},
		{Path: ".spec.minReadySeconds", After: int64(5), HasAfter: true},
	})
	assert.Equal(t, FieldChange{Path: ".spec.replicas", HasBefore: true, HasAfter: true, Sensitive: true}, changes[0], "the earlier value too")
	assert.Equal(t, int64(5), changes[1].After)
}

// The objects a ManagedResource's Secret packs are resolved in their documents.
func TestMarksInsidePackedDocuments(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "managedresource-x", "namespace": "garden",
			"labels": map[string]any{render.ManagedResourceContentsLabel: "true"}},
		"stringData": map[string]any{"configmap__kube-system__cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  token: s3cret\n  mode: fast\n"},
	}}
	doc := (*render.Sensitivity)(nil).Mark(func(s *render.Sensitivity) { s.Value = true }, "data", "token")
	s := (*render.Sensitivity)(nil).Mark(func(s *render.Sensitivity) { s.Value, s.Doc = true, doc }, "stringData", "configmap__kube-system__cm.yaml")
	m := newMarks(&Desired{Object: u, Sensitive: s}, nil)
	hide, _ := m.field(".contents[configmap__kube-system__cm.yaml].data[token]")
	assert.True(t, hide)
	hide, _ = m.field(".contents[configmap__kube-system__cm.yaml].data[mode]")
	assert.False(t, hide)
	hide, _ = m.field(".stringData[configmap__kube-system__cm.yaml]")
	assert.True(t, hide, "the Secret's own field")
}

func TestRedactInPlaceBySensitivity(t *testing.T) {
	d := marked()
	obj := d.Object.DeepCopy().Object
	assert.True(t, redactInPlace(obj, render.NewRedactor(nil), d.Sensitive))
	b, err := json.Marshal(obj)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "s3cret")
	assert.NotContains(t, string(b), "S3CRET")
	assert.NotContains(t, string(b), "8443")
	spec := obj["spec"].(map[string]any)
	assert.Equal(t, Redacted, spec["replicas"], "a number")
	assert.Equal(t, Redacted, spec["paused"], "a boolean")
	assert.Equal(t, map[string]any{"app": "app", Redacted: Redacted}, obj["metadata"].(map[string]any)["labels"], "a key")
}

// An error of the API server about an object with sensitive values keeps its reason and fields
// and loses its messages, which quote values; others keep their messages, redacted.
func TestRedactError(t *testing.T) {
	invalid := func(name string, value any) error {
		return apierrors.NewInvalid(schema.GroupKind{Group: "apps", Kind: "Deployment"}, name, field.ErrorList{
			field.Invalid(field.NewPath("spec", "replicas"), value, "must be greater than or equal to 0"),
		})
	}
	d := marked()
	d.redactor = render.NewRedactor([]string{"s3cret"})
	err := d.RedactError(fmt.Errorf("apply: %w", invalid("app", -1987654321)))
	assert.NotContains(t, err.Error(), "1987654321")
	assert.Contains(t, err.Error(), "spec.replicas: Invalid value")
	assert.True(t, apierrors.IsInvalid(err), "its reason stays")
	var se *apierrors.StatusError
	require.True(t, errors.As(err, &se))
	assert.NotContains(t, fmt.Sprint(se.ErrStatus.Details), "1987654321")

	plain := &Desired{Object: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "app"}}},
		redactor: render.NewRedactor([]string{"s3cret"})}
	err = plain.RedactError(invalid("app", "s3cret"))
	assert.Contains(t, err.Error(), "must be greater than or equal to 0", "an object without sensitive values keeps the message")
	assert.NotContains(t, err.Error(), "s3cret", "without the landscape's secrets")

	conflict := d.RedactError(apierrors.NewApplyConflict([]metav1.StatusCause{{Type: metav1.CauseTypeFieldManagerConflict, Field: ".spec.replicas", Message: `conflict with "kubectl"`}},
		`Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas`))
	assert.True(t, apierrors.IsConflict(conflict))
	assert.Contains(t, conflict.Error(), `conflict with "kubectl"`, "a conflict names managers and fields, not values, and keeps its message")

	other := plain.RedactError(fmt.Errorf("dial: %w", errors.New("connection to s3cret refused")))
	assert.NotContains(t, other.Error(), "s3cret")
	assert.Nil(t, plain.RedactError(nil))
}

// A plan hides a name that depends on a sensitive value in the object line and the JSON, marks
// the object so that a later plan hides it when deleting it, and hides values by place.
func TestBuildHidesSensitiveNamesKeysAndValues(t *testing.T) {
	old := live(t, cm("apps", "settings", map[string]any{"token": "0ld-t0ken", "mode": "fast"}), "component.manifests.a")
	gone := live(t, cm("apps", "cm-9f8e7d", map[string]any{"mode": "fast"}), "component.manifests.a")
	annotations := gone.GetAnnotations()
	annotations[SensitiveIdentityAnnotation] = "name"
	gone.SetAnnotations(annotations)
	c := &fakeCluster{objects: []*unstructured.Unstructured{old, gone}}
	settings := cm("apps", "settings", map[string]any{"token": "n3w-t0ken", "mode": "fast"})
	named := cm("apps", "cm-1a2b3c", map[string]any{"mode": "fast"})
	objs := objects(settings, named)
	objs[0].Sensitive = (*render.Sensitivity)(nil).Mark(func(s *render.Sensitivity) { s.Value = true }, "data", "token")
	objs[1].Sensitive = (*render.Sensitivity)(nil).Mark(func(s *render.Sensitivity) { s.Value = true }, "metadata", "name")
	objs[1].Sensitive.Strings = []string{"1a2b3c"}
	res := buildPlan(t, c, map[config.InstanceAddress]*rendering.Rendered{"component.manifests.a": {Address: "component.manifests.a", Objects: objs}}, nil)

	var js bytes.Buffer
	require.NoError(t, json.NewEncoder(&js).Encode(res.Plan))
	for _, leak := range []string{"0ld-t0ken", "n3w-t0ken", "1a2b3c", "9f8e7d"} {
		assert.NotContains(t, js.String(), leak)
	}
	shown := map[string]*ObjectChange{}
	for _, o := range res.Plan.Components[0].Objects {
		shown[o.Shown().Name] = o
	}
	require.Contains(t, shown, "cm-(sensitive value)", "only the part that depends on it")
	assert.Equal(t, "cm-1a2b3c", shown["cm-(sensitive value)"].Ref.Name, "apply still has the real name")
	require.Contains(t, shown, "(sensitive value)", "a deleted object the landscape marked")
	assert.Equal(t, Delete, shown["(sensitive value)"].Action)
	assert.Equal(t, []FieldChange{{Path: ".data[token]", HasBefore: true, HasAfter: true, Sensitive: true}}, shown["settings"].Changes,
		"the value changed from one secret to another: neither is shown")
	for _, d := range res.Desired {
		if d.Object.GetName() == "cm-1a2b3c" {
			assert.Equal(t, "name", d.Object.GetAnnotations()[SensitiveIdentityAnnotation])
		}
	}
	assert.Equal(t, "(sensitive value)", res.Redactor.Redact("cm-1a2b3c"), "messages do not quote the name either")

	f := NewFile("dir", res, nil)
	b, err := json.Marshal(f)
	require.NoError(t, err)
	for _, leak := range []string{"0ld-t0ken", "n3w-t0ken", "1a2b3c", "9f8e7d"} {
		assert.NotContains(t, string(b), leak, "the saved plan")
	}
}

func TestHiddenIdentity(t *testing.T) {
	ref := object.Ref{Kind: "ConfigMap", Namespace: "ns-s3cret", Name: "s3cret"}
	u := cm("ns-s3cret", "s3cret", nil)
	assert.Equal(t, ref, hiddenIdentity(ref, u), "without the annotation")
	u.SetAnnotations(map[string]string{SensitiveIdentityAnnotation: "name,namespace"})
	assert.Equal(t, object.Ref{Kind: "ConfigMap", Namespace: hidden, Name: hidden}, hiddenIdentity(ref, u))
	assert.Equal(t, "namespace", SensitiveIdentity(ref, object.Ref{Kind: "ConfigMap", Namespace: hidden, Name: "s3cret"}))
}

// TestWouldRedactAgreesWithRedactInPlace: wouldRedact says whether redactInPlace replaces
// anything, without changing the object.
func TestWouldRedactAgreesWithRedactInPlace(t *testing.T) {
	red := render.NewRedactor([]string{"s3cret-value"})
	cm := func(data map[string]any) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cm"}, "data": data}
	}
	cases := map[string]struct {
		obj       map[string]any
		sensitive *render.Sensitivity
		want      bool
	}{
		"nothing secret":           {obj: cm(map[string]any{"a": "b", "n": int64(1), "l": []any{"x", nil}}), want: false},
		"a secret value":           {obj: cm(map[string]any{"a": "with s3cret-value inside"}), want: true},
		"a secret key":             {obj: cm(map[string]any{"s3cret-value": "b"}), want: true},
		"a secret in a list":       {obj: cm(map[string]any{"l": []any{map[string]any{"x": "s3cret-value"}}}), want: true},
		"a Secret's data":          {obj: map[string]any{"apiVersion": "v1", "kind": "Secret", "data": map[string]any{"k": "dg=="}}, want: true},
		"a Secret without data":    {obj: map[string]any{"apiVersion": "v1", "kind": "Secret", "data": map[string]any{}}, want: false},
		"a marked number":          {obj: cm(map[string]any{"n": int64(1)}), sensitive: (*render.Sensitivity)(nil).Mark(func(s *render.Sensitivity) { s.Value = true }, "data", "n"), want: true},
		"a marked key":             {obj: cm(map[string]any{"k": "v"}), sensitive: (*render.Sensitivity)(nil).Mark(func(s *render.Sensitivity) { s.Key = true }, "data", "k"), want: true},
		"a mark on an absent path": {obj: cm(map[string]any{"k": "v"}), sensitive: (*render.Sensitivity)(nil).Mark(func(s *render.Sensitivity) { s.Value = true }, "data", "other"), want: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u := &unstructured.Unstructured{Object: tc.obj}
			before := u.DeepCopy()
			assert.Equal(t, tc.want, wouldRedact(u.Object, red, tc.sensitive))
			assert.Equal(t, before.Object, u.Object, "wouldRedact changes nothing")
			assert.Equal(t, tc.want, redactInPlace(before.Object, red, tc.sensitive), "redactInPlace agrees")
		})
	}
}
