package shoot

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/render"
)

// apiShoot is the Shoot a shoot block of v writes, as a user would create it through the API.
func apiShoot(t *testing.T, v Values) *unstructured.Unstructured {
	t.Helper()
	ps := parts(t, v)
	shoot := find(t, ps["shoot"], "Shoot", "dev")
	live := shoot.DeepCopy()
	live.SetUID("4b5c8f3e-0000-4000-8000-000000000001")
	live.SetAnnotations(nil)
	return live
}

// TestRenderFromAPIRendersWhatTheBlockRenders: a Shoot created through the API with the spec a
// shoot block writes gets the same control plane, part for part and object for object, without
// the Shoot itself, which is the user's.
func TestRenderFromAPIRendersWhatTheBlockRenders(t *testing.T) {
	cases := map[string]func(*Values){
		"workers and domains": withDNS,
		"high availability":   func(v *Values) { withDNS(v); ha(FailureToleranceNode)(v) },
		"hibernated":          hibernated,
		"workerless":          workerless,
		"own dns domain": func(v *Values) {
			withDNS(v)
			v.DNSDomain = "dev.example.org"
			v.DNSProvider = &struct {
				Type      string `json:"type"`
				SecretRef string `json:"secret_ref"`
			}{Type: "local", SecretRef: "my-dns"}
		},
		"maintenance and extensions": func(v *Values) {
			v.Maintenance = &Maintenance{AutoUpdate: &AutoUpdate{KubernetesVersion: true}}
			v.Maintenance.TimeWindow = &struct {
				Begin string `json:"begin"`
				End   string `json:"end"`
			}{Begin: "220000+0000", End: "230000+0000"}
			v.Extensions = []Extension{{Type: "shoot-dns-service", ProviderConfig: map[string]any{"a": "b"}}}
			v.Tolerations = []Toleration{{Key: "dedicated", Value: "x"}}
		},
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			v := values(mutate)
			declared := byName(t, newParts(t, v))
			live := apiShoot(t, v)
			in := render.Input{Name: "dev", Now: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC), Observe: observingApplied(live)}
			out, err := RenderFromAPI(in, live, APIContext{
				Project: "local", Seed: *v.Seed, InternalDomain: v.InternalDomain, DefaultDomain: v.DefaultDomain,
				ExtensionLifecycles: v.ExtensionLifecycles,
			})
			require.NoError(t, err)
			got := map[string]render.Component{}
			for _, p := range out.Components {
				got[p.Name] = p
			}
			assert.NotContains(t, got, "shoot", "the Shoot is the user's")
			delete(declared, "shoot")
			require.ElementsMatch(t, keys(declared), keys(got))
			for name, want := range declared {
				p := got[name]
				// What the Shoot's uid decides, a shoot block renders once its Shoot exists.
				assert.Equal(t, awaitedObjects(t, want, in), p.Objects, name)
				assert.Equal(t, want.Secret, p.Secret, name)
				assert.Equal(t, want.Copy, p.Copy, name)
				assert.NotContains(t, p.DependsOn, "shoot", name)
			}
			require.Len(t, out.Reports, 1)
			assert.Equal(t, "Shoot", out.Reports[0].Kind)
			assert.Equal(t, "garden-local", out.Reports[0].Namespace)
			assert.Nil(t, out.Lifetime, "gardener-controller-manager ends a user's Shoot by deleting it")
		})
	}
}

func keys(m map[string]render.Component) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestProjectOfNamespace(t *testing.T) {
	for ns, want := range map[string]string{"garden-local": "local", "garden": "garden", "garden-": "", "team": ""} {
		p, ok := ProjectOfNamespace(ns)
		assert.Equal(t, want, p, ns)
		assert.Equal(t, want != "", ok, ns)
	}
}

// A user's reconcile request on their Shoot is carried out by the control plane's rendering and
// removed by the report, since no part renders the Shoot.
func TestRenderFromAPIConsumesAReconcileRequest(t *testing.T) {
	v := values(withDNS)
	live := apiShoot(t, v)
	live.SetAnnotations(map[string]string{AnnotationOperation: OperationReconcile})
	out, err := RenderFromAPI(render.Input{Name: "dev", Now: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC),
		Observe: func(ref render.LiveRef) (*unstructured.Unstructured, error) {
			if ref.Resource == "shoots" {
				return live, nil
			}
			return nil, nil
		}}, live,
		APIContext{Project: "local", Seed: *v.Seed, InternalDomain: v.InternalDomain, DefaultDomain: v.DefaultDomain})
	require.NoError(t, err)
	require.Len(t, out.Reports, 1)
	assert.Equal(t, map[string]string{AnnotationOperation: OperationReconcile}, out.Reports[0].Consume)
}
