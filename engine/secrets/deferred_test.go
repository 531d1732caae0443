package secrets

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Defer decides as Generate does, reuses what Generate would reuse, and otherwise generates
// nothing: the Secret holds the placeholder, without issue or expiry times, so that plans that
// do not read live clusters are the same on every run.
func TestDeferReusesOrGeneratesNothing(t *testing.T) {
	ca := generate(t, caRequest("ca"), nil, t0, false)
	server := generate(t, serverRequest(ca.Material), nil, t0, false)
	tests := []struct {
		name     string
		req      Request
		existing *Result
		rotate   bool
		action   Action
	}{
		{name: "nothing exists", req: caRequest("ca"), action: Created},
		{name: "a token, nothing exists", req: Request{Name: "t", Namespace: "garden", Class: ClassToken}, action: Created},
		{name: "reusable material", req: caRequest("ca"), existing: ca, action: Reused},
		{name: "rotation asked", req: caRequest("ca"), existing: ca, rotate: true, action: Rotated},
		{name: "a certificate of a reused CA", req: serverRequest(ca.Material), existing: server, action: Reused},
		{name: "a certificate of a CA generated at apply", req: serverRequest(deferredCA(t)), existing: server, action: Renewed},
		{name: "a new certificate of a CA generated at apply", req: serverRequest(deferredCA(t)), action: Created},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			existing := applied(nil)
			if tt.existing != nil {
				existing = applied(tt.existing.Secret)
			}
			res, err := Defer(tt.req, existing, own, t0, tt.rotate)
			require.NoError(t, err)
			again, err := Defer(tt.req, existing, own, t0, tt.rotate)
			require.NoError(t, err)
			assert.Equal(t, res.Secret, again.Secret, "no randomness")
			assert.Equal(t, tt.action, res.Action)
			if tt.action == Reused {
				assert.Equal(t, tt.existing.Secret.Object["data"], res.Secret.Object["data"])
				assert.False(t, res.Material.Deferred())
				return
			}
			assert.True(t, res.Material.Deferred())
			assert.Contains(t, res.Reason, "generated at apply")
			data := secretData(t, res.Secret)
			require.ElementsMatch(t, tt.req.Class.DataKeys(), keysOf(data))
			for _, v := range data {
				assert.Equal(t, DeferredValue, string(v))
			}
			annotations := res.Secret.GetAnnotations()
			assert.NotEmpty(t, annotations[ConfigHashAnnotation])
			assert.NotContains(t, annotations, IssuedAtAnnotation)
			assert.NotContains(t, annotations, ValidUntilAnnotation)
		})
	}
}

func deferredCA(t *testing.T) *Material {
	t.Helper()
	res, err := Defer(caRequest("ca"), nil, own, t0, false)
	require.NoError(t, err)
	return res.Material
}
