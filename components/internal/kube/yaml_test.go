package kube

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/internal/yamlkeys"
)

// TestYAMLWritesWhatSigsYAMLWrites: YAML is byte for byte what sigs.k8s.io/yaml.Marshal writes,
// for objects it writes directly and for those that take the detour through JSON.
func TestYAMLWritesWhatSigsYAMLWrites(t *testing.T) {
	replicas := int32(3)
	deployment, err := ToUnstructured(&appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "garden", Labels: map[string]string{"app": "web", "on": "yes"}},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: "web", Image: "web:1", Args: []string{"--port=443", "--v=2", ""},
				Ports:     []corev1.ContainerPort{{ContainerPort: 443, Protocol: corev1.ProtocolTCP}},
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m")}},
				LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
					Path: "/healthz", Port: intstr.FromInt32(443), Scheme: corev1.URISchemeHTTPS,
				}}},
			}},
		}}},
	})
	require.NoError(t, err)
	cases := map[string]struct {
		obj    map[string]any
		direct bool
	}{
		"a typed object": {obj: deployment.Object, direct: true},
		"strings YAML would read as other types": {obj: map[string]any{
			"a": "true", "b": "no", "c": "123", "d": "1.5", "e": "null", "f": "~", "g": "", "h": "0x1f",
			"i": "1e3", "j": ":colon", "k": "- dash", "l": "#hash", "m": "a: b", "n": "'quoted'", "o": `"double"`,
			"p": "yes", "q": "on", "r": "y", "s": "2026-11-28", "t": "<html>&amp;</html>", "u": "12:30:00",
		}, direct: true},
		"keys YAML would read as other types": {obj: map[string]any{"true": 1, "123": "x", "null": nil, "": "empty", "a b": []any{}}, direct: true},
		"multi-line text and control characters": {obj: map[string]any{
			"script": "#!/bin/sh\nset -e\n\necho \"hello\"\n", "trailing": "a\n\n", "tab": "a\tb", "bell": "a\u0007b", "cr": "a\r\nb",
			"long": strings.Repeat("word ", 60),
		}, direct: true},
		"nested lists and empty values": {obj: map[string]any{
			"l": []any{[]any{int64(1), int64(-2)}, map[string]any{}, []any{}, nil, true, false},
			"m": map[string]any{"z": map[string]any{"y": int64(9007199254740993)}, "10": int64(0), "9": int(1), "a2": int32(2), "a10": "x"},
		}, direct: true},
		"floating-point numbers":          {obj: map[string]any{"a": 1.0, "b": 0.5, "c": 1e8, "d": 1e21, "e": -0.0}},
		"non-ASCII text":                  {obj: map[string]any{"a": "grüße", "b": "\u2028", "c": "\ufeffbom", "d": "\u007f"}},
		"non-ASCII key":                   {obj: map[string]any{"schlüssel": "x"}},
		"a key beyond YAML's simple keys": {obj: map[string]any{strings.Repeat("k", 1100): "x"}},
		"other Go types":                  {obj: map[string]any{"a": []string{"x"}, "b": map[string]string{"c": "d"}, "e": uint64(1)}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.direct, plainJSON(tc.obj), "written directly")
			want, wantErr := yaml.Marshal(tc.obj)
			got, err := YAML(tc.obj)
			if wantErr != nil {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got))
		})
	}
}

// referenceKeys are the keys of the reference annotations of a kube-apiserver Deployment
// (Gardener's pkg/controllerutils/references): hashes that go-yaml v2's key comparison, which
// reads runs of digits as numbers, orders in a circle.
var referenceKeys = []string{
	"reference.resources.gardener.cloud/configmap-d4419cd4", "reference.resources.gardener.cloud/secret-0acc967c",
	"reference.resources.gardener.cloud/secret-3ddd1800", "reference.resources.gardener.cloud/secret-8ddd8e24",
	"reference.resources.gardener.cloud/secret-17c26aa4", "reference.resources.gardener.cloud/secret-77bc5458",
	"reference.resources.gardener.cloud/secret-389fbba5", "reference.resources.gardener.cloud/secret-998b2966",
	"reference.resources.gardener.cloud/secret-3055c21f", "reference.resources.gardener.cloud/secret-5613e39f",
	"reference.resources.gardener.cloud/secret-69590970", "reference.resources.gardener.cloud/secret-a92da147",
}

// TestYAMLOrdersKeysTheSameEveryTime: keys that go-yaml's comparison does not order totally come
// out in one order, run after run, whether the object is written directly or takes the detour;
// sigs.k8s.io/yaml sorts them from a Go map's random order.
func TestYAMLOrdersKeysTheSameEveryTime(t *testing.T) {
	circle := func() bool {
		for _, a := range referenceKeys {
			for _, b := range referenceKeys {
				for _, c := range referenceKeys {
					if yamlkeys.Less(a, b) && yamlkeys.Less(b, c) && yamlkeys.Less(c, a) {
						return true
					}
				}
			}
		}
		return false
	}
	require.True(t, circle(), "the keys compare in a circle, so go-yaml's order depends on the order it sorts from")

	annotations := map[string]any{}
	for _, k := range referenceKeys {
		annotations[k] = "v"
	}
	for name, extra := range map[string]any{"written directly": "1", "through the detour": 1.5} {
		t.Run(name, func(t *testing.T) {
			obj := map[string]any{"metadata": map[string]any{"annotations": annotations, "extra": extra},
				"spec": map[string]any{"template": []any{map[string]any{"annotations": annotations}}}}
			first, err := YAML(obj)
			require.NoError(t, err)
			for range 50 {
				again, err := YAML(obj)
				require.NoError(t, err)
				require.Equal(t, string(first), string(again))
			}
			var back map[string]any
			require.NoError(t, yaml.Unmarshal(first, &back))
			assert.Equal(t, annotations, back["metadata"].(map[string]any)["annotations"], "the same annotations")
			assert.Equal(t, annotations, obj["metadata"].(map[string]any)["annotations"], "the object is left as it was")
		})
	}
}
