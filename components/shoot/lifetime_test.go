package shoot

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/render"
)

// partObject finds the object of kind in the rendered part named part.
func partObject(t *testing.T, out *render.Output, part, kind string) *unstructured.Unstructured {
	t.Helper()
	for _, p := range out.Components {
		if p.Name == part {
			require.Len(t, p.Objects, 1)
			assert.Equal(t, kind, p.Objects[0].Object.GetKind())
			return p.Objects[0].Object
		}
	}
	require.Failf(t, "no part", "%s", part)
	return nil
}

// observingByName answers Observe with objects keyed resource/namespace/name.
func observingByName(objects map[string]*unstructured.Unstructured) func(render.LiveRef) (*unstructured.Unstructured, error) {
	return func(ref render.LiveRef) (*unstructured.Unstructured, error) {
		return objects[ref.Resource+"/"+ref.Namespace+"/"+ref.Name], nil
	}
}

func quotaWithLifetime(days int64) *unstructured.Unstructured {
	spec := map[string]any{"scope": map[string]any{"apiVersion": "v1", "kind": "Secret"}}
	if days > 0 {
		spec["clusterLifetimeDays"] = days
	}
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Quota", "spec": spec}}
}

func bindingWithQuotas(kind string, quotas ...string) *unstructured.Unstructured {
	var refs []any
	for _, q := range quotas {
		refs = append(refs, map[string]any{"name": q, "namespace": "garden-local"})
	}
	u := &unstructured.Unstructured{Object: map[string]any{"kind": kind}}
	if refs != nil {
		u.Object["quotas"] = refs
	}
	return u
}

func TestDecideLifetime(t *testing.T) {
	created := time.Date(2026, 11, 10, 8, 0, 0, 0, time.UTC)
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	liveShoot := func(annotations map[string]string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot"}}
		u.SetCreationTimestamp(metav1.NewTime(created))
		u.SetAnnotations(annotations)
		return u
	}
	secretBinding := func(quotas ...string) map[string]*unstructured.Unstructured {
		objects := map[string]*unstructured.Unstructured{"secretbindings/garden-local/local": bindingWithQuotas("SecretBinding", quotas...)}
		objects["quotas/garden-local/trial"] = quotaWithLifetime(7)
		objects["quotas/garden-local/long"] = quotaWithLifetime(30)
		objects["quotas/garden-local/limits"] = quotaWithLifetime(0)
		return objects
	}
	for _, tc := range []struct {
		name       string
		mutate     func(*Values)
		objects    map[string]*unstructured.Unstructured
		live       *unstructured.Unstructured
		wantDays   int64
		wantEnds   string
		wantNotice string
	}{
		{name: "no binding, no lifetime", mutate: func(v *Values) { v.SecretBinding = "" }, objects: secretBinding("trial")},
		{name: "binding not created yet", objects: map[string]*unstructured.Unstructured{}},
		{name: "quota without lifetime", objects: secretBinding("limits")},
		{name: "missing quota is skipped", objects: secretBinding("absent")},
		{
			name: "a new shoot's lifetime starts now", objects: secretBinding("trial"),
			wantDays: 7, wantEnds: "2026-11-28T12:00:00Z", wantNotice: "expires at 2026-11-28T12:00:00Z (the cluster lifetime of Quota garden-local/trial, 7 days)",
		},
		{
			name: "counts from the creation", objects: secretBinding("trial"), live: liveShoot(nil),
			wantDays: 7, wantEnds: "2026-11-17T08:00:00Z",
		},
		{
			name: "the shortest lifetime of several quotas", objects: secretBinding("long", "limits", "trial"), live: liveShoot(nil),
			wantDays: 7, wantEnds: "2026-11-17T08:00:00Z",
		},
		{
			name: "credentials binding", mutate: func(v *Values) { v.SecretBinding, v.CredentialsBinding = "", "creds" },
			objects: map[string]*unstructured.Unstructured{
				"credentialsbindings/garden-local/creds": bindingWithQuotas("CredentialsBinding", "long"),
				"quotas/garden-local/long":               quotaWithLifetime(30),
			},
			live: liveShoot(nil), wantDays: 30, wantEnds: "2026-12-10T08:00:00Z",
			wantNotice: "expires at 2026-12-10T08:00:00Z (the cluster lifetime of Quota garden-local/long, 30 days)",
		},
		{
			name: "a user's later end on the Shoot holds", objects: secretBinding("trial"),
			live:     liveShoot(map[string]string{AnnotationExpirationTimestamp: "2026-11-23T08:00:00Z"}),
			wantDays: 7, wantEnds: "2026-11-23T08:00:00Z", wantNotice: "expires at 2026-11-23T08:00:00Z (the cluster lifetime of Quota garden-local/trial, 7 days)",
		},
		{
			name: "at most twice the lifetime", objects: secretBinding("trial"),
			live:     liveShoot(map[string]string{AnnotationExpirationTimestamp: "2027-01-01T00:00:00Z"}),
			wantDays: 7, wantEnds: "2026-11-24T08:00:00Z",
			wantNotice: "expiration timestamp 2027-01-01T00:00:00Z is later than twice the lifetime allows; the shoot expires at 2026-11-24T08:00:00Z (the cluster lifetime of Quota garden-local/trial, 7 days)",
		},
		{
			name: "a mangled annotation counts as none", objects: secretBinding("trial"),
			live:     liveShoot(map[string]string{AnnotationExpirationTimestamp: "tomorrow"}),
			wantDays: 7, wantEnds: "2026-11-17T08:00:00Z",
			wantNotice: `expiration timestamp "tomorrow" is not an RFC 3339 time; the shoot expires at 2026-11-17T08:00:00Z (the cluster lifetime of Quota garden-local/trial, 7 days)`,
		},
		{
			name: "the landscape's end wins over the Shoot's", mutate: func(v *Values) { v.ExpirationTimestamp = "2026-11-22T00:00:00Z" }, objects: secretBinding("trial"),
			live:     liveShoot(map[string]string{AnnotationExpirationTimestamp: "2026-11-23T08:00:00Z"}),
			wantDays: 7, wantEnds: "2026-11-22T00:00:00Z", wantNotice: "expires at 2026-11-22T00:00:00Z (the cluster lifetime of Quota garden-local/trial, 7 days)",
		},
		{
			name: "an end the landscape no longer declares is dropped", objects: secretBinding("trial"),
			live:     liveShoot(map[string]string{AnnotationExpirationTimestamp: "2026-11-23T08:00:00Z", AnnotationExpirationDeclared: "2026-11-23T08:00:00Z"}),
			wantDays: 7, wantEnds: "2026-11-17T08:00:00Z",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := values(func(v *Values) {
				v.SecretBinding, v.CredentialsBinding = "local", ""
				if tc.mutate != nil {
					tc.mutate(v)
				}
			})
			b, err := newBuilder("dev", v)
			require.NoError(t, err)
			l, err := b.decideLifetime(render.Input{Now: now, Observe: observingByName(tc.objects)}, tc.live)
			require.NoError(t, err)
			assert.Equal(t, tc.wantDays, l.days)
			assert.Equal(t, tc.wantNotice, l.notice)
			if tc.wantDays == 0 {
				assert.Nil(t, l.output())
				return
			}
			assert.Equal(t, tc.wantEnds, l.ends.Format(time.RFC3339))
			require.NotNil(t, l.output())
			assert.Equal(t, l.ends, l.output().Ends)
		})
	}
}

// The expiration annotation is on the Shoot, with the landscape's own end recorded beside it.
func TestLifetimeAnnotations(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	v := values(func(v *Values) {
		v.SecretBinding, v.CredentialsBinding = "local", ""
		v.ExpirationTimestamp = "2026-11-25T00:00:00Z"
	})
	objects := map[string]*unstructured.Unstructured{
		"secretbindings/garden-local/local": bindingWithQuotas("SecretBinding", "trial"),
		"quotas/garden-local/trial":         quotaWithLifetime(7),
	}
	b, err := newBuilder("dev", v)
	require.NoError(t, err)
	out, err := b.render(render.Input{Now: now, Observe: observingByName(objects)})
	require.NoError(t, err)
	shoot := partObject(t, out, "shoot", "Shoot")
	assert.Equal(t, "2026-11-25T00:00:00Z", shoot.GetAnnotations()[AnnotationExpirationTimestamp])
	assert.Equal(t, "2026-11-25T00:00:00Z", shoot.GetAnnotations()[AnnotationExpirationDeclared])
	require.NotNil(t, out.Lifetime)
	assert.Equal(t, "the cluster lifetime of Quota garden-local/trial, 7 days", out.Lifetime.Reason)
	assert.Equal(t, out.Lifetime.Ends, out.Revisit, "the daemon plans again when the shoot expires")
	assert.Contains(t, out.Notices, "shoot dev: expires at 2026-11-25T00:00:00Z (the cluster lifetime of Quota garden-local/trial, 7 days)")
}
