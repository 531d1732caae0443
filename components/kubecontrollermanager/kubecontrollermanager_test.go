package kubecontrollermanager

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/golden"
)

func minimal() Values {
	return rendertest.Overlay(Type.Defaults(), Values{Cluster: decode.Cluster{Name: "runtime"}, KubernetesVersion: "1.31.4"})
}

func cases() map[string]Values {
	ha := minimal()
	ha.HighAvailability = true
	ha.CertificateSigningDuration = "48h"
	ha.FeatureGates = map[string]bool{"B": false, "A": true}
	ha.Images = map[string]string{"kube-controller-manager": "v1.31.5"}
	shoot := minimal()
	shoot.NamePrefix = ""
	shoot.Namespace = "shoot--dev--a"
	shoot.PriorityClassName = "gardener-system-300"
	return map[string]Values{"default": minimal(), "ha-customised": ha, "shoot": shoot}
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

func deploymentOf(t *testing.T, v Values) appsv1.Deployment {
	t.Helper()
	objs, err := Objects(v)
	require.NoError(t, err)
	var d appsv1.Deployment
	for _, o := range objs {
		if o.Object.GetKind() == "Deployment" {
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object.Object, &d))
		}
	}
	require.NotEmpty(t, d.Name)
	return d
}

func flag(args []string, name string) (string, bool) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v, true
		}
	}
	return "", false
}

func TestServiceAccountTokenControllerIsDisabled(t *testing.T) {
	d := deploymentOf(t, minimal())
	controllers, ok := flag(d.Spec.Template.Spec.Containers[0].Args, "controllers")
	require.True(t, ok)
	list := strings.Split(controllers, ",")
	// Gardener's "Gardener Operator" docs/concepts/operator.md, Gardener's docs/concepts/operator.md:
	// serviceaccount-token is unconditionally disabled.
	assert.Contains(t, list, "-serviceaccount-token")
	assert.NotContains(t, list, "serviceaccount-token")
	assert.NotContains(t, list, "*", "only the named controllers run")
	for _, c := range []string{"namespace", "serviceaccount", "garbagecollector", "csrsigning", "root-ca-cert-publisher"} {
		assert.Contains(t, list, c)
	}
}

func TestDocumentedFacts(t *testing.T) {
	for _, tc := range []struct {
		ha       bool
		replicas int32
		pdb      bool
	}{
		// Controllers: 1 replica without, 2 with high availability (Gardener's "High Availability Of
		// Components" docs/development/high-availability-of-components.md).
		{false, 1, false},
		{true, 2, true},
	} {
		v := minimal()
		v.HighAvailability = tc.ha
		d := deploymentOf(t, v)
		// Gardener's docs/concepts/operator.md: the name; Gardener's "Priority Classes"
		// docs/development/priority-classes.md: gardener-garden-system-300.
		assert.Equal(t, "virtual-garden-kube-controller-manager", d.Name)
		assert.Equal(t, "garden", d.Namespace)
		assert.Equal(t, "gardener-garden-system-300", d.Spec.Template.Spec.PriorityClassName)
		assert.Equal(t, tc.replicas, *d.Spec.Replicas)
		for k, val := range d.Spec.Selector.MatchLabels {
			assert.Equal(t, val, d.Spec.Template.Labels[k], k)
		}
		assert.Equal(t, "allowed", d.Spec.Template.Labels["networking.resources.gardener.cloud/to-virtual-garden-kube-apiserver-tcp-443"])
		c := d.Spec.Template.Spec.Containers[0]
		assert.Equal(t, "registry.k8s.io/kube-controller-manager:v1.31.4", c.Image)
		duration, _ := flag(c.Args, "cluster-signing-duration")
		assert.Equal(t, "720h", duration)
		assert.Contains(t, c.Args, "--use-service-account-credentials=true")
		assert.Contains(t, c.Args, "--root-ca-file=/srv/kubernetes/ca/ca.crt")

		objs, err := Objects(v)
		require.NoError(t, err)
		kinds := map[string]bool{}
		for _, o := range objs {
			kinds[o.Object.GetKind()] = true
			if o.Object.GetKind() == "Service" {
				var s corev1.Service
				require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object.Object, &s))
				assert.Equal(t, int32(10257), s.Spec.Ports[0].Port)
			}
		}
		assert.Equal(t, tc.pdb, kinds["PodDisruptionBudget"])
	}
}

// TestHibernation checks that a hibernated controller manager has no replicas, with or without
// high availability (Gardener's "Shoot Hibernation" docs/usage/shoot/shoot_hibernate.md, "Component
// Checklist" docs/development/component-checklist.md).
func TestHibernation(t *testing.T) {
	for _, tc := range []struct {
		name       string
		ha, asleep bool
		replicas   int32
	}{
		{"awake", false, false, 1},
		{"awake HA", true, false, 2},
		{"hibernated", false, true, 0},
		{"hibernated HA", true, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := minimal()
			v.HighAvailability, v.Hibernated = tc.ha, tc.asleep
			d := deploymentOf(t, v)
			require.NotNil(t, d.Spec.Replicas)
			assert.Equal(t, tc.replicas, *d.Spec.Replicas)
		})
	}
}

func TestRender(t *testing.T) {
	out, err := Type.RenderConfig(render.Input{Config: rendertest.ConfigOf(Type, map[string]cty.Value{
		"cluster":                      cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("runtime")}),
		"kubernetes_version":           cty.StringVal("1.32.1"),
		"certificate_signing_duration": cty.StringVal("24h"),
	})})
	require.NoError(t, err)
	assert.Len(t, out.Objects, 2)
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*Values)
		err    string
	}{
		{"no version", func(v *Values) { v.KubernetesVersion = "" }, "kubernetes version is required"},
		{"bad duration", func(v *Values) { v.CertificateSigningDuration = "a year" }, `certificate signing duration "a year"`},
		{"unknown image", func(v *Values) { v.Images = map[string]string{"kcm": "v1"} }, `kube-controller-manager images: image "kcm" is not in the image vector`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := minimal()
			tc.change(&v)
			_, err := Objects(v)
			assert.ErrorContains(t, err, tc.err)
		})
	}
}
