package plan

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/observe"
	"github.com/declarative-gardener/gardener/engine/render"
)

func contentsSecret(data map[string]any, field string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": "managedresource-shoot-core-coredns", "namespace": "shoot--dev--a",
			"labels": map[string]any{render.ManagedResourceContentsLabel: "true"}},
		field: data,
	}}
}

const corefileV1 = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: coredns\n  namespace: kube-system\ndata:\n  Corefile: v1\n"

func TestManagedContentsShowsTheObjectsInside(t *testing.T) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	live := contentsSecret(map[string]any{
		"configmap__kube-system__coredns.yaml": b64(corefileV1),
		"secret__kube-system__token.yaml":      b64("apiVersion: v1\nkind: Secret\nmetadata:\n  name: token\n  namespace: kube-system\ndata:\n  token: b2xk\n"),
		"service__kube-system__old.yaml":       b64("apiVersion: v1\nkind: Service\nmetadata:\n  name: old\n  namespace: kube-system\n"),
	}, "data")
	desired := contentsSecret(map[string]any{
		"configmap__kube-system__coredns.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: coredns\n  namespace: kube-system\n  labels:\n    app: coredns\ndata:\n  Corefile: v2\n",
		"secret__kube-system__token.yaml":      "apiVersion: v1\nkind: Secret\nmetadata:\n  name: token\n  namespace: kube-system\ndata:\n  token: bmV3\n",
	}, "stringData")
	opaque := []FieldChange{{Path: ".stringData[configmap__kube-system__coredns.yaml]", Sensitive: true, HasAfter: true}}
	got := managedContents(opaque, desired, live, nil)
	byPath := map[string]FieldChange{}
	for _, c := range got {
		byPath[c.Path] = c
	}
	assert.NotContains(t, byPath, ".stringData[configmap__kube-system__coredns.yaml]", "the opaque change is replaced")
	cm := byPath[".contents[configmap__kube-system__coredns.yaml].data[Corefile]"]
	assert.Equal(t, "v1", cm.Before)
	assert.Equal(t, "v2", cm.After)
	assert.Equal(t, "coredns", byPath[".contents[configmap__kube-system__coredns.yaml].metadata.labels[app]"].After)
	token := byPath[".contents[secret__kube-system__token.yaml].data[token]"]
	assert.True(t, token.Sensitive, "Secrets inside stay secret")
	assert.Nil(t, token.Before)
	assert.Nil(t, token.After)
	removed := byPath[".contents[service__kube-system__old.yaml].kind"]
	assert.Equal(t, "Service", removed.Before)
	assert.False(t, removed.HasAfter, "an object dropped from the contents is shown as removed")

	created := managedContents(nil, desired, nil, nil)
	assert.NotEmpty(t, created)
	for _, c := range created {
		assert.Contains(t, c.Path, ".contents[", "a creation lists the contents' fields")
	}

	plain := contentsSecret(map[string]any{"x": "y"}, "stringData")
	plain.SetLabels(nil)
	assert.Equal(t, opaque, managedContents(opaque, plain, nil, nil), "other Secrets are left alone")
}

// A Secret packed into a ManagedResource may hold a generated secret's private key (vpn-shoot's
// client certificate reaches the shoot only that way): neither the plan's view of the contents
// nor a saved plan shows it.
func TestPackedSecretsAreNeverShown(t *testing.T) {
	key := base64.StdEncoding.EncodeToString([]byte("-----BEGIN EC PRIVATE KEY-----\nsecret\n-----END EC PRIVATE KEY-----\n"))
	desired := contentsSecret(map[string]any{
		"objects.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: client\n  namespace: kube-system\ndata:\n  tls.key: " + key + "\n",
	}, "stringData")

	changes := managedContents(nil, desired, nil, render.NewRedactor(nil))
	require.NotEmpty(t, changes)
	shown, err := json.Marshal(changes)
	require.NoError(t, err)
	assert.NotContains(t, string(shown), key)
	saved, err := json.Marshal(NewFile("dir", &Result{Plan: &Plan{}, Redactor: render.NewRedactor(nil),
		Desired: []*Desired{{Cluster: "runtime", Component: "garden.local.mr", Object: desired}}}, nil))
	require.NoError(t, err)
	assert.NotContains(t, string(saved), key)
}

// TestPredecessorOfAContentsSecret: a ManagedResource's Secret renamed after its new contents is
// compared with the live Secret it supersedes, so that a plan shows which objects inside changed.
func TestPredecessorOfAContentsSecret(t *testing.T) {
	named := func(name, ns string, labels map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret",
			"metadata": map[string]any{"name": name, "namespace": ns, "labels": labels}}}
	}
	contents := map[string]any{render.ManagedResourceContentsLabel: "true"}
	versions := regexp.MustCompile(`^managedresource-shoot-core-coredns(-[0-9a-f]{8})?$`)
	desired := &Desired{Object: named("managedresource-shoot-core-coredns-bbbbbbbb", "shoot--dev--a", contents), Supersedes: versions}
	old := named("managedresource-shoot-core-coredns-aaaaaaaa", "shoot--dev--a", contents)
	older := named("managedresource-shoot-core-coredns", "shoot--dev--a", contents)
	obs := &observe.Observed{Objects: map[object.Ref]*unstructured.Unstructured{
		object.RefOf(old):   old,
		object.RefOf(older): older,
		// Another namespace's and another ManagedResource's Secrets are no predecessors.
		object.RefOf(named("managedresource-shoot-core-coredns-cccccccc", "shoot--dev--b", contents)):   named("managedresource-shoot-core-coredns-cccccccc", "shoot--dev--b", contents),
		object.RefOf(named("managedresource-shoot-core-vpn-shoot-dddddddd", "shoot--dev--a", contents)): named("managedresource-shoot-core-vpn-shoot-dddddddd", "shoot--dev--a", contents),
	}}
	assert.Same(t, old, predecessor(desired, obs, newLiveIndex(obs)), "of several, the name that sorts last")

	desired.Supersedes = nil
	assert.Nil(t, predecessor(desired, obs, newLiveIndex(obs)), "only a versioned object has one")
	desired.Supersedes = versions
	desired.Object.SetLabels(nil)
	assert.Nil(t, predecessor(desired, obs, newLiveIndex(obs)), "only a contents Secret")
}

// TestDecodeObjectAsSigsYAML: decodeObject gives what sigs.k8s.io/yaml.Unmarshal gives into a
// map, for documents it converts directly and for those that take the detour through JSON.
func TestDecodeObjectAsSigsYAML(t *testing.T) {
	cases := map[string]string{
		"an object": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels:\n    app: web\nspec:\n  replicas: 3\n" +
			"  template:\n    spec:\n      containers:\n      - name: web\n        args: [\"--v=2\", \"\"]\n        ports:\n        - containerPort: 443\n",
		"scalars YAML reads as other types": "a: \"true\"\nb: yes\nc: \"123\"\nd: 1.5\ne: null\nf: ~\ng: \"\"\nh: 0x1f\ni: 1e3\nj: 2026-11-28\nk: 12:30:00\nl: -0.0\n",
		"large and negative integers":       "a: 9007199254740993\nb: -42\nc: 18446744073709551615\nd: 123456789012345678901234567890\n",
		"nested lists and empty values":     "l:\n- [1, -2]\n- {}\n- []\n- null\n- true\nm: {}\nn: []\n",
		"text blocks":                       "script: |\n  #!/bin/sh\n  echo hi\nfolded: >\n  a\n  b\n",
		"anchors and merges":                "base: &b {x: 1}\nderived:\n  <<: *b\n  y: 2\n",
		"keys that are not strings":         "1: one\ntrue: yes\n1.5: x\n",
		"not a number":                      "a: .nan\nb: .inf\n",
		"not valid UTF-8":                   "a: \"\\xff\"\n",
		"a list":                            "- a\n- b\n",
		"a scalar":                          "just text\n",
		"nothing":                           "",
		"null":                              "null\n",
		"invalid YAML":                      "a: [\n",
	}
	for name, doc := range cases {
		t.Run(name, func(t *testing.T) {
			var want map[string]any
			wantErr := yaml.Unmarshal([]byte(doc), &want)
			got, err := decodeObject(doc)
			if wantErr != nil {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
}

// BenchmarkPredecessors finds the predecessors of 1,000 new contents Secrets, one per shoot
// namespace, in a cluster of 100,000 live objects (100 per namespace): each looks at the objects
// of its kind in its namespace, not at the whole cluster.
func BenchmarkPredecessors(b *testing.B) {
	secret := func(name, ns string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret",
			"metadata": map[string]any{"name": name, "namespace": ns, "labels": map[string]any{render.ManagedResourceContentsLabel: "true"}}}}
	}
	versions := regexp.MustCompile(`^managedresource-shoot-core-coredns(-[0-9a-f]{8})?$`)
	obs := &observe.Observed{Objects: map[object.Ref]*unstructured.Unstructured{}}
	var desired []*Desired
	for s := range 1000 {
		ns := fmt.Sprintf("shoot--dev--%04d", s)
		for i := range 99 {
			o := secret(fmt.Sprintf("other-%02d", i), ns)
			obs.Objects[object.RefOf(o)] = o
		}
		old := secret("managedresource-shoot-core-coredns-aaaaaaaa", ns)
		obs.Objects[object.RefOf(old)] = old
		desired = append(desired, &Desired{Object: secret("managedresource-shoot-core-coredns-bbbbbbbb", ns), Supersedes: versions})
	}
	for b.Loop() {
		live := newLiveIndex(obs)
		for _, d := range desired {
			if predecessor(d, obs, live) == nil {
				b.Fatal("no predecessor")
			}
		}
	}
}
