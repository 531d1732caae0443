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
	deletes := func(at string) string {
		return "delete " + at + ": deletes the Shoot, confirming the deletion, at its first look after " + at + " (the cluster lifetime of Quota garden-local/trial, 7 days)"
	}
	for _, tc := range []struct {
		name         string
		mutate       func(*Values)
		objects      map[string]*unstructured.Unstructured
		live         *unstructured.Unstructured
		wantDays     int64
		wantEnds     string
		wantDeclared string
		wantNotice   string
		// wantPredictions are "action at: description", at empty for as soon as the loop looks.
		wantPredictions []string
		wantErr         string
	}{
		{name: "no binding, no lifetime", mutate: func(v *Values) { v.SecretBinding = "" }, objects: secretBinding("trial")},
		{name: "binding not created yet", objects: map[string]*unstructured.Unstructured{}},
		{name: "quota without lifetime", objects: secretBinding("limits")},
		{name: "missing quota is skipped", objects: secretBinding("absent")},
		{
			name: "no lifetime any more: the loop removes the annotation", objects: secretBinding("limits"),
			live:            liveShoot(map[string]string{AnnotationExpirationTimestamp: "2026-11-17T08:00:00Z"}),
			wantPredictions: []string{"update : removes shoot.gardener.cloud/expiration-timestamp: no Quota of the shoot's binding sets a cluster lifetime"},
		},
		{
			name: "a new shoot: the loop sets the end at its creation", objects: secretBinding("trial"),
			wantDays: 7, wantEnds: "2026-11-28T12:00:00Z",
			wantNotice: "expires at 2026-11-28T12:00:00Z (the cluster lifetime of Quota garden-local/trial, 7 days); gardener-controller-manager deletes it then",
			wantPredictions: []string{
				"update : sets shoot.gardener.cloud/expiration-timestamp=2026-11-28T12:00:00Z (the cluster lifetime of Quota garden-local/trial, 7 days)",
				deletes("2026-11-28T12:00:00Z"),
			},
		},
		{
			name: "an existing shoot without the annotation counts from its creation", objects: secretBinding("trial"), live: liveShoot(nil),
			wantDays: 7, wantEnds: "2026-11-17T08:00:00Z",
			wantPredictions: []string{
				"update : sets shoot.gardener.cloud/expiration-timestamp=2026-11-17T08:00:00Z (the cluster lifetime of Quota garden-local/trial, 7 days)",
				deletes("2026-11-17T08:00:00Z"),
			},
		},
		{
			name: "the shortest lifetime of several quotas", objects: secretBinding("long", "limits", "trial"),
			live:     liveShoot(map[string]string{AnnotationExpirationTimestamp: "2026-11-17T08:00:00Z"}),
			wantDays: 7, wantEnds: "2026-11-17T08:00:00Z", wantPredictions: []string{deletes("2026-11-17T08:00:00Z")},
		},
		{
			name: "credentials binding", mutate: func(v *Values) { v.SecretBinding, v.CredentialsBinding = "", "creds" },
			objects: map[string]*unstructured.Unstructured{
				"credentialsbindings/garden-local/creds": bindingWithQuotas("CredentialsBinding", "long"),
				"quotas/garden-local/long":               quotaWithLifetime(30),
			},
			live: liveShoot(map[string]string{AnnotationExpirationTimestamp: "2026-12-10T08:00:00Z"}), wantDays: 30, wantEnds: "2026-12-10T08:00:00Z",
			wantNotice:      "expires at 2026-12-10T08:00:00Z (the cluster lifetime of Quota garden-local/long, 30 days); gardener-controller-manager deletes it then",
			wantPredictions: []string{"delete 2026-12-10T08:00:00Z: deletes the Shoot, confirming the deletion, at its first look after 2026-12-10T08:00:00Z (the cluster lifetime of Quota garden-local/long, 30 days)"},
		},
		{
			name: "a user's later end on the Shoot holds", objects: secretBinding("trial"),
			live:     liveShoot(map[string]string{AnnotationExpirationTimestamp: "2026-11-23T08:00:00Z"}),
			wantDays: 7, wantEnds: "2026-11-23T08:00:00Z",
			wantNotice:      "expires at 2026-11-23T08:00:00Z (the cluster lifetime of Quota garden-local/trial, 7 days); gardener-controller-manager deletes it then",
			wantPredictions: []string{deletes("2026-11-23T08:00:00Z")},
		},
		{
			name: "the landscape's end is written to the Shoot", mutate: func(v *Values) { v.ExpirationTimestamp = "2026-11-22T00:00:00Z" }, objects: secretBinding("trial"),
			live:     liveShoot(map[string]string{AnnotationExpirationTimestamp: "2026-11-23T08:00:00Z"}),
			wantDays: 7, wantEnds: "2026-11-22T00:00:00Z", wantDeclared: "2026-11-22T00:00:00Z",
			wantNotice:      "expires at 2026-11-22T00:00:00Z (the cluster lifetime of Quota garden-local/trial, 7 days); gardener-controller-manager deletes it then",
			wantPredictions: []string{deletes("2026-11-22T00:00:00Z")},
		},
		{
			name: "a Shoot deleted before its end retires at its deletion, and no deletion is predicted", objects: secretBinding("trial"),
			live: func() *unstructured.Unstructured {
				u := liveShoot(map[string]string{AnnotationExpirationTimestamp: "2026-11-23T08:00:00Z"})
				deleted := metav1.NewTime(time.Date(2026, 11, 21, 11, 0, 0, 0, time.UTC))
				u.SetDeletionTimestamp(&deleted)
				return u
			}(),
			wantDays: 7, wantEnds: "2026-11-21T11:00:00Z",
		},
		{
			name: "a landscape's end beyond now plus the lifetime is refused, as gardener-apiserver's admission would", objects: secretBinding("trial"),
			mutate:  func(v *Values) { v.ExpirationTimestamp = "2026-12-01T00:00:00Z" },
			live:    liveShoot(map[string]string{AnnotationExpirationTimestamp: "2026-11-17T08:00:00Z"}),
			wantErr: "expiration_timestamp 2026-12-01T00:00:00Z is later than 2026-11-28T12:00:00Z: gardener-apiserver refuses to extend a shoot's life by more than its Quota's 7 days from now",
		},
		{
			name: "the landscape's end is not written for a shoot without a lifetime, whose annotation the loop removes", objects: secretBinding("limits"),
			mutate: func(v *Values) { v.ExpirationTimestamp = "2026-11-22T00:00:00Z" },
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
			l, err := b.decideLifetime(render.Input{Now: now, Observe: observingByName(tc.objects)}, tc.live, time.Hour)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantDays, l.days)
			assert.Equal(t, tc.wantNotice, l.notice)
			assert.Equal(t, tc.wantDeclared, l.declared)
			var got []string
			for _, p := range l.predictions {
				at := ""
				if !p.at.IsZero() {
					at = p.at.Format(time.RFC3339)
					assert.Equal(t, p.at.Add(time.Hour), p.until, "within the quota loop's sync period")
				}
				got = append(got, p.action+" "+at+": "+p.description)
			}
			assert.Equal(t, tc.wantPredictions, got)
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

// The expiration annotation is on the Shoot only when the landscape declares an end; the
// deletion is predicted, and the shoot retires at the end.
func TestLifetimeAnnotations(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	objects := map[string]*unstructured.Unstructured{
		"secretbindings/garden-local/local": bindingWithQuotas("SecretBinding", "trial"),
		"quotas/garden-local/trial":         quotaWithLifetime(7),
	}
	for _, declared := range []string{"", "2026-11-25T00:00:00Z"} {
		v := values(func(v *Values) {
			v.SecretBinding, v.CredentialsBinding = "local", ""
			v.ExpirationTimestamp = declared
		})
		b, err := newBuilder("dev", v)
		require.NoError(t, err)
		out, err := b.render(render.Input{Now: now, Observe: observingByName(objects)})
		require.NoError(t, err)
		shoot := partObject(t, out, "shoot", "Shoot")
		if declared == "" {
			assert.NotContains(t, shoot.GetAnnotations(), AnnotationExpirationTimestamp, "gardener-controller-manager sets it")
			continue
		}
		assert.Equal(t, declared, shoot.GetAnnotations()[AnnotationExpirationTimestamp])
		require.NotNil(t, out.Lifetime)
		assert.Equal(t, "the cluster lifetime of Quota garden-local/trial, 7 days", out.Lifetime.Reason)
		assert.Equal(t, out.Lifetime.Ends, out.Revisit, "the daemon plans again when the shoot expires")
		assert.Contains(t, out.Notices, "shoot dev: expires at 2026-11-25T00:00:00Z (the cluster lifetime of Quota garden-local/trial, 7 days); gardener-controller-manager deletes it then")
	}
}
