package observability

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/declarative-gardener/gardener/components/internal/unique"
	"github.com/declarative-gardener/gardener/engine/render"
)

// must fails the test on a rendering error and returns the objects otherwise.
func must(t *testing.T) func([]render.Object, error) []render.Object {
	t.Helper()
	return func(objs []render.Object, err error) []render.Object {
		require.NoError(t, err)
		return objs
	}
}

// pods describes an object that runs pods: its priority class, replicas and namespace.
type pods struct {
	priorityClass string
	replicas      int64
	namespace     string
}

// podRunners lists the objects that run pods by kind/name: workloads and the Prometheus and
// Alertmanager custom resources.
func podRunners(t *testing.T, objs []render.Object) map[string]pods {
	t.Helper()
	out := map[string]pods{}
	for _, o := range objs {
		u := o.Object
		var path []string
		switch u.GetKind() {
		case "Deployment", "StatefulSet", "DaemonSet":
			path = []string{"spec", "template", "spec", "priorityClassName"}
		case "Prometheus", "Alertmanager":
			path = []string{"spec", "priorityClassName"}
		default:
			continue
		}
		n, _, err := unstructured.NestedInt64(u.Object, "spec", "replicas")
		require.NoError(t, err, u.GetName())
		out[u.GetKind()+"/"+u.GetName()] = pods{priorityClass: str(t, u, path...), replicas: n, namespace: u.GetNamespace()}
	}
	return out
}

// checkObjects runs the checks every rendering must pass: custom resources valid for the
// embedded CRDs, workloads that select their own pods, DNS-valid names and hosts, a namespace
// on every namespaced object, and typed objects that decode strictly into their Go types.
func checkObjects(t *testing.T, objs []render.Object) {
	t.Helper()
	v := newValidator(t)
	clusterScoped := map[string]bool{"CustomResourceDefinition": true, "ClusterRole": true, "ClusterRoleBinding": true}
	typed := map[string]func() runtime.Object{
		"Deployment":     func() runtime.Object { return &appsv1.Deployment{} },
		"StatefulSet":    func() runtime.Object { return &appsv1.StatefulSet{} },
		"Service":        func() runtime.Object { return &corev1.Service{} },
		"ConfigMap":      func() runtime.Object { return &corev1.ConfigMap{} },
		"Secret":         func() runtime.Object { return &corev1.Secret{} },
		"ServiceAccount": func() runtime.Object { return &corev1.ServiceAccount{} },
		"Ingress":        func() runtime.Object { return &networkingv1.Ingress{} },
	}
	for _, o := range objs {
		u := o.Object
		id := u.GetKind() + "/" + u.GetName()
		assert.NotEmpty(t, o.Cluster, id)
		assert.Equal(t, !clusterScoped[u.GetKind()], u.GetNamespace() != "", "%s: namespace %q", id, u.GetNamespace())
		if !strings.HasPrefix(u.GetKind(), "Cluster") && u.GetKind() != "Role" && u.GetKind() != "RoleBinding" {
			assert.Empty(t, validation.IsDNS1123Subdomain(u.GetName()), id)
		}
		checkMetadata(t, id, u.GetLabels(), u.GetAnnotations())
		if l, found, _ := unstructured.NestedStringMap(u.Object, "spec", "template", "metadata", "labels"); found {
			checkMetadata(t, id+" pods", l, nil)
		}
		if u.GroupVersionKind().Group == "monitoring.coreos.com" {
			v.check(t, u.Object)
		}
		if newObj, ok := typed[u.GetKind()]; ok {
			obj := newObj()
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u.Object, obj, true), id)
		}
		switch u.GetKind() {
		case "Deployment", "StatefulSet":
			sel, _, _ := unstructured.NestedStringMap(u.Object, "spec", "selector", "matchLabels")
			labels, _, _ := unstructured.NestedStringMap(u.Object, "spec", "template", "metadata", "labels")
			for k, val := range sel {
				assert.Equal(t, val, labels[k], "%s: the selector selects the pods", id)
			}
		case "Ingress":
			rules, _, _ := unstructured.NestedSlice(u.Object, "spec", "rules")
			for _, r := range rules {
				assert.Empty(t, validation.IsDNS1123Subdomain(r.(map[string]any)["host"].(string)), id)
			}
		}
	}
}

// checkMetadata checks label keys and values and annotation keys as the API server does.
func checkMetadata(t *testing.T, id string, labels, annotations map[string]string) {
	t.Helper()
	for k, val := range labels {
		assert.Empty(t, validation.IsQualifiedName(k), "%s: label %s", id, k)
		assert.Empty(t, validation.IsValidLabelValue(val), "%s: label %s=%s", id, k, val)
	}
	for k := range annotations {
		assert.Empty(t, validation.IsQualifiedName(k), "%s: annotation %s", id, k)
	}
}

// ingressHosts maps each Ingress to its host.
func ingressHosts(objs []render.Object) map[string]string {
	out := map[string]string{}
	for _, o := range objs {
		if o.Object.GetKind() != "Ingress" {
			continue
		}
		rules, _, _ := unstructured.NestedSlice(o.Object.Object, "spec", "rules")
		out[o.Object.GetName()] = rules[0].(map[string]any)["host"].(string)
	}
	return out
}

// podLabels are the labels of a Deployment's or StatefulSet's pods, or of a Prometheus'.
func podLabels(t *testing.T, u *unstructured.Unstructured) map[string]string {
	t.Helper()
	require.NotNil(t, u)
	path := []string{"spec", "template", "metadata", "labels"}
	if u.GroupVersionKind().Group == "monitoring.coreos.com" {
		path = []string{"spec", "podMetadata", "labels"}
	}
	l, _, err := unstructured.NestedStringMap(u.Object, path...)
	require.NoError(t, err)
	return l
}

// findVersion finds the content-addressed object whose name is base with a checksum appended.
func findVersion(objs []render.Object, kind, base string) *unstructured.Unstructured {
	for _, o := range objs {
		if o.Object.GetKind() == kind && o.Object.GetName() != base && unique.Versions(base).MatchString(o.Object.GetName()) {
			return o.Object
		}
	}
	return nil
}

// selectorOf is the matchLabels of a custom resource's selector.
func selectorOf(t *testing.T, u *unstructured.Unstructured, field string) map[string]string {
	t.Helper()
	require.NotNil(t, u)
	l, _, err := unstructured.NestedStringMap(u.Object, "spec", field, "matchLabels")
	require.NoError(t, err)
	return l
}

func TestGardenObjectsPassChecks(t *testing.T) {
	for _, extra := range []map[string]cty.Value{nil, customised} {
		checkObjects(t, render1(t, extra))
	}
}
