package landscapetest

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

// CreateYAML creates the object a YAML document describes, as a test's fixture that something
// other than the engine made (a Shoot a user ordered, a Secret gardenlet wrote); one that exists
// already is left as it is. The resource is the kind's regular plural, which every kind the tests
// create has.
func CreateYAML(ctx context.Context, t testing.TB, client dynamic.Interface, doc string) {
	t.Helper()
	u := &unstructured.Unstructured{}
	require.NoError(t, yaml.Unmarshal([]byte(doc), &u.Object))
	gvk := u.GroupVersionKind()
	ri := client.Resource(gvk.GroupVersion().WithResource(strings.ToLower(gvk.Kind) + "s"))
	var err error
	if ns := u.GetNamespace(); ns != "" {
		_, err = ri.Namespace(ns).Create(ctx, u, metav1.CreateOptions{})
	} else {
		_, err = ri.Create(ctx, u, metav1.CreateOptions{})
	}
	if !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err, "create %s %s", gvk.Kind, u.GetName())
	}
}
