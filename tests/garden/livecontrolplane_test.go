package garden

import (
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/apishoots"
	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/seed"
	"github.com/declarative-gardener/gardener/components/shoot"
	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/tests/landscapetest"
)

// declaredShoots are the shoot blocks of landscapes/local, all in the project local.
var declaredShoots = []string{"dev", "qa", "ops"}

// liveControlPlanes: the control plane of every declared shoot, rendered from its Shoot as the
// real gardener-apiserver holds it (with the defaults its defaulting functions and mutating
// admission plugins filled in), is the one the landscape renders from its declared spec, part for
// part and object for object; only the Shoot itself (the shoot part) is the landscape's alone.
// Both are rendered in one plan with the same input: the seed block reads the garden as it does
// for the Shoots users create through the API (apishoots.ShootContext), the shoot block renders
// its declared values and then the live Shoot (shoot.RenderFromAPI).
func liveControlPlanes(t *testing.T, dir string) {
	t.Helper()
	var (
		mu       sync.Mutex
		live     = map[string]*unstructured.Unstructured{}
		contexts = map[string]shoot.APIContext{}
		declared = map[string]*render.Output{}
		fromAPI  = map[string]*render.Output{}
		errs     []error
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		errs = append(errs, err)
	}
	seedType := component.Define(seed.Type.Schema, func(in render.Input, v seed.Values) (*render.Output, error) {
		out, err := apishoots.Type.Render(in, v)
		if err != nil {
			return out, err
		}
		for _, name := range declaredShoots {
			s, err := in.Observe(render.LiveRef{Cluster: v.Garden.VirtualCluster, Group: shootsGVR.Group, Version: shootsGVR.Version,
				Resource: shootsGVR.Resource, Namespace: "garden-local", Name: name})
			if err != nil || s == nil {
				fail(fmt.Errorf("read Shoot %s: %v (exists: %t)", name, err, s != nil))
				continue
			}
			ctx, err := apishoots.ShootContext(in, v, s)
			if err != nil {
				fail(err)
				continue
			}
			mu.Lock()
			live[name], contexts[name] = s, ctx
			mu.Unlock()
		}
		return out, nil
	})
	shootType := component.Define(shoot.Type.Schema, func(in render.Input, v shoot.Values) (*render.Output, error) {
		out, err := shoot.Type.Render(in, v)
		if err != nil {
			return out, err
		}
		mu.Lock()
		s, ctx := live[in.Name], contexts[in.Name]
		mu.Unlock()
		if s == nil {
			fail(fmt.Errorf("shoot %s was rendered before its seed read its Shoot", in.Name))
			return out, nil
		}
		api, err := shoot.RenderFromAPI(in, s, ctx)
		if err != nil {
			fail(fmt.Errorf("render shoot %s from its Shoot: %w", in.Name, err))
			return out, nil
		}
		mu.Lock()
		declared[in.Name], fromAPI[in.Name] = out, api
		mu.Unlock()
		return out, nil
	})
	opts := landscapetest.Options(dir, planner.LiveConnector(cluster.Options{NoDiskCache: true}))
	opts.Renderers = maps.Clone(opts.Renderers)
	opts.Renderers["seed"], opts.Renderers["shoot"] = seedType.RenderConfig, shootType.RenderConfig
	landscapetest.Plan(t, opts)
	require.Empty(t, errs)

	for _, name := range declaredShoots {
		require.Contains(t, declared, name)
		want, got := parts(declared[name]), parts(fromAPI[name])
		delete(want, "shoot") // the landscape's Shoot, which a user's Shoot has no part for
		require.ElementsMatch(t, slices.Collect(maps.Keys(want)), slices.Collect(maps.Keys(got)), "shoot %s: the same parts", name)
		for part, w := range want {
			g := got[part]
			if part == "cluster" {
				// The declared shoot embeds the CloudProfile as its block renders it, a Shoot
				// from the API the profile the garden holds, with gardener-apiserver's defaults.
				assertSameClusterBesidesProfileDefaults(t, name, w.Objects, g.Objects)
				continue
			}
			assert.Equal(t, w.Objects, g.Objects, "shoot %s, part %s: the live Shoot's control plane is the declared one", name, part)
			assert.Equal(t, w.Secret, g.Secret, "shoot %s, part %s", name, part)
			assert.Equal(t, w.Copy, g.Copy, "shoot %s, part %s", name, part)
		}
	}
}

// assertSameClusterBesidesProfileDefaults compares the extensions Cluster of a declared shoot with
// the one rendered from its live Shoot: equal but for the embedded CloudProfile, whose declared
// fields the live profile holds with the same values (it may hold more: the API server's
// defaults).
func assertSameClusterBesidesProfileDefaults(t *testing.T, shoot string, want, got []render.Object) {
	t.Helper()
	require.Len(t, got, len(want), "shoot %s: the Cluster part", shoot)
	for i := range want {
		w, g := want[i].Object.DeepCopy(), got[i].Object.DeepCopy()
		wp, _, _ := unstructured.NestedMap(w.Object, "spec", "cloudProfile")
		gp, _, _ := unstructured.NestedMap(g.Object, "spec", "cloudProfile")
		require.NotEmpty(t, gp, "shoot %s: the Cluster from the live Shoot embeds the garden's CloudProfile", shoot)
		assertHolds(t, shoot+" Cluster spec.cloudProfile", wp, gp)
		unstructured.RemoveNestedField(w.Object, "spec", "cloudProfile")
		unstructured.RemoveNestedField(g.Object, "spec", "cloudProfile")
		assert.Equal(t, w, g, "shoot %s, part cluster: the live Shoot's Cluster is the declared one", shoot)
	}
}

// assertHolds checks that every field of want is in got with the same value (lists item by item).
func assertHolds(t *testing.T, path string, want, got any) {
	t.Helper()
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !assert.True(t, ok, "%s: an object", path) {
			return
		}
		for k, v := range w {
			assertHolds(t, path+"."+k, v, g[k])
		}
	case []any:
		g, ok := got.([]any)
		if !assert.True(t, ok, "%s: a list", path) || !assert.Len(t, g, len(w), path) {
			return
		}
		for i := range w {
			assertHolds(t, fmt.Sprintf("%s[%d]", path, i), w[i], g[i])
		}
	default:
		assert.Equal(t, fmt.Sprint(want), fmt.Sprint(got), path)
	}
}

// parts are an output's parts by name.
func parts(out *render.Output) map[string]render.Component {
	m := map[string]render.Component{}
	for _, p := range out.Components {
		m[p.Name] = p
	}
	return m
}
