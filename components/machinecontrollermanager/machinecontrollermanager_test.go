package machinecontrollermanager

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/declarative-gardener/gardener/components/crds"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/golden"
)

// values are the type's defaults with what v sets, as a composite builds them.
func values(v Values) Values { return rendertest.Overlay(Type.Defaults(), v) }

func minimal() Values {
	return values(Values{Cluster: decode.Cluster{Name: "seed"}, Namespace: "shoot--dev--a"})
}

func cases() map[string]Values {
	custom := minimal()
	custom.Replicas = int32(0)
	custom.Images = map[string]string{"machine-controller-manager": "v0.59.0"}
	custom.GenericKubeconfigSecretName = "generic-token-kubeconfig-1a2b3c4d"
	custom.PriorityClassName = "gardener-system-200"
	return map[string]Values{"default": minimal(), "hibernated-customised": custom}
}

func TestObjectsGolden(t *testing.T) {
	for name, v := range cases() {
		t.Run(name, func(t *testing.T) {
			objs, err := Objects(v)
			require.NoError(t, err)
			golden.Assert(t, name, objs)
		})
	}
}

// TestHibernation checks that a hibernated controller has no replicas whatever Replicas says
// (Gardener's "Shoot Hibernation" docs/usage/shoot/shoot_hibernate.md, "Component Checklist"
// docs/development/component-checklist.md), and that Replicas counts otherwise.
func TestHibernation(t *testing.T) {
	for _, tc := range []struct {
		name     string
		replicas int32
		asleep   bool
		want     int32
	}{
		{"awake default", 0, false, 1},
		{"awake replicas 2", 2, false, 2},
		{"hibernated default", 0, true, 0},
		{"hibernated wins over replicas", 2, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := minimal()
			if tc.replicas != 0 {
				v.Replicas = tc.replicas
			}
			v.Hibernated = tc.asleep
			objs, err := Objects(v)
			require.NoError(t, err)
			var d appsv1.Deployment
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(rendertest.MustFind(t, objs, "Deployment", Name).Object, &d))
			require.NotNil(t, d.Spec.Replicas)
			assert.Equal(t, tc.want, *d.Spec.Replicas)
		})
	}
}

// TestCRDsAreStructural checks that the machine.sapcloud.io CRDs would be accepted by an API
// server: structural schemas of apiextensions.k8s.io/v1.
func TestCRDsAreStructural(t *testing.T) {
	objs, err := CRDs("seed")
	require.NoError(t, err)
	require.Len(t, objs, 4)
	for _, name := range CRDNames {
		crd, err := crds.Get(name)
		require.NoError(t, err)
		assert.Equal(t, "machine.sapcloud.io", crd.Spec.Group)
		for _, ver := range crd.Spec.Versions {
			internal := &apiextensions.JSONSchemaProps{}
			require.NoError(t, apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(ver.Schema.OpenAPIV3Schema, internal, nil))
			s, err := structuralschema.NewStructural(internal)
			require.NoError(t, err, name)
			assert.Empty(t, structuralschema.ValidateStructural(nil, s), name)
		}
	}
}

func TestErrors(t *testing.T) {
	v := minimal()
	v.Namespace = ""
	_, err := Objects(v)
	assert.ErrorContains(t, err, "namespace")
	v = minimal()
	v.Replicas = int32(-1)
	_, err = Objects(v)
	assert.Error(t, err)
	v = minimal()
	v.Images = map[string]string{"mcm": "x"}
	_, err = Objects(v)
	assert.Error(t, err)
}

func TestRender(t *testing.T) {
	out, err := Type.RenderConfig(render.Input{Config: rendertest.FromJSON(t, `{"cluster": {"name": "seed"}, "namespace": "shoot--dev--a", "replicas": 1}`)})
	require.NoError(t, err)
	assert.Len(t, out.Objects, 9)
	_, err = Type.RenderConfig(render.Input{Config: rendertest.FromJSON(t, `{"cluster": {"name": "seed"}, "bogus": 1}`)})
	assert.Error(t, err)
}
