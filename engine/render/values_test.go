package render

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
)

func TestRedactor(t *testing.T) {
	r := NewRedactor([]string{"hunter22"})
	tests := []struct {
		value     any
		sensitive bool
	}{
		{"hunter22", true},
		{"password=hunter22;", true},
		{"other", false},
		{map[string]any{"a": []any{"x", "hunter22"}}, true},
		{map[string]any{"hunter22": "key"}, true},
		{int64(3), false},
		{nil, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.sensitive, r.Sensitive(tt.value), "%v", tt.value)
	}
	var none *Redactor
	assert.False(t, none.Sensitive("hunter22"))
	assert.True(t, Unknown(map[string]any{"a": []any{"x-" + UnknownString}}))
	assert.False(t, Unknown("known"))
}

// The index behind Sensitive finds secrets of any length at any position, also several sharing
// their first bytes and secrets added later, exactly as a search for each secret would.
func TestRedactorIndex(t *testing.T) {
	secrets := []string{"abcdefgh-one", "abcdefgh-two", "xyz", "longer-secret-value-0123456789"}
	r := NewRedactor(secrets[:2])
	r.Add(secrets[2:]...)
	values := []string{"", "ab", "xy", "xyz", "..xyz..", "abcdefgh-on", "abcdefgh-one", "prefix-abcdefgh-two-suffix",
		"abcdefgh-three", "longer-secret-value-012345678", "a longer-secret-value-0123456789", "x", "yzx"}
	for _, v := range values {
		want := false
		for _, s := range secrets {
			want = want || strings.Contains(v, s)
		}
		assert.Equal(t, want, r.Sensitive(v), "%q", v)
	}
	r.Add("hidden-later")
	assert.True(t, r.Sensitive("the hidden-later value"), "an added secret is indexed")
	assert.True(t, NewRedactor([]string{""}).Sensitive("anything"), "the empty string is in every string")
	assert.False(t, NewRedactor(nil).Sensitive("anything"))
}

// Redact hides every secret a message holds, a secret containing another whole, exactly as
// replacing each secret of the landscape longest first would.
func TestRedact(t *testing.T) {
	secrets := []string{"abc", "abcdef", "xyz-secret", "zz"}
	r := NewRedactor(secrets[:1])
	r.Add(secrets[1:]...)
	tests := map[string]string{
		"nothing here":                  "nothing here",
		"x abcdef abc":                  "x (sensitive value) (sensitive value)",
		"xyz-secret/zz":                 "(sensitive value)/(sensitive value)",
		"abcabc":                        "(sensitive value)(sensitive value)",
		"xyz-secre":                     "xyz-secre",
		"prefix-abcdefabc-xyz-secretzz": "prefix-(sensitive value)(sensitive value)-(sensitive value)(sensitive value)",
	}
	for msg, want := range tests {
		assert.Equal(t, want, r.Redact(msg), "%q", msg)
		slow := msg
		for _, s := range []string{"xyz-secret", "abcdef", "abc", "zz"} { // longest first
			slow = strings.ReplaceAll(slow, s, "(sensitive value)")
		}
		assert.Equal(t, slow, r.Redact(msg), "the same as replacing every secret, %q", msg)
	}
	var none *Redactor
	assert.Equal(t, "abc", none.Redact("abc"))
}

// A message without secrets costs a scan of its length, not a pass per secret: plans redact
// every field path and object name they show.
func BenchmarkRedact(b *testing.B) {
	secrets := make([]string, 10000)
	for i := range secrets {
		secrets[i] = fmt.Sprintf("secret-value-%05d-%x", i, i*7919)
	}
	r := NewRedactor(secrets)
	msg := ".spec.template.spec.containers[name=kube-apiserver].args"
	b.ResetTimer()
	for b.Loop() {
		_ = r.Redact(msg)
	}
}

func TestClusterName(t *testing.T) {
	cfg := cty.ObjectVal(map[string]cty.Value{
		"cluster": cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal("runtime")}),
		"other":   cty.StringVal("x"),
	})
	name, err := ClusterName(cfg, "cluster")
	require.NoError(t, err)
	assert.Equal(t, "runtime", name)
	_, err = ClusterName(cfg, "other")
	assert.ErrorContains(t, err, "not a cluster reference")
	_, err = ClusterName(cfg, "missing")
	assert.ErrorContains(t, err, "no missing attribute")
}

func TestSecretPart(t *testing.T) {
	p := SecretPart("ca_etcd", "runtime", "garden", SecretSpec{Name: "ca-etcd", Class: "ca"}, "namespace", "")
	assert.Equal(t, Component{Name: "ca_etcd", Type: "generated_secret", DependsOn: []string{"namespace"},
		Secret: &SecretSpec{Cluster: "runtime", Namespace: "garden", Name: "ca-etcd", Class: "ca"}}, p)
	assert.Nil(t, SecretPart("ca", "runtime", "garden", SecretSpec{}, "").DependsOn, "no dependencies without names")
}
