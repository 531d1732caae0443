package apishoots

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/components/seed"
	"github.com/declarative-gardener/gardener/engine/inventory"
	"github.com/declarative-gardener/gardener/engine/render"
)

func seedValues(mutate func(*seed.Values)) seed.Values {
	v := rendertest.Overlay(seed.Type.Defaults(), seed.Values{
		Garden:  seed.GardenRef{Name: "local", VirtualEndpoint: "https://api.virtual-garden.example.com", CABundle: "ca", VirtualCluster: "virtual_garden", RuntimeCluster: "runtime", ObservabilityEnabled: true},
		Cluster: decode.Cluster{Name: "runtime"},
	})
	v.Provider.Type, v.Provider.Region, v.Provider.Zones = "local", "local", []string{"0"}
	v.Networks.Pods, v.Networks.Services = "10.1.0.0/16", "10.2.0.0/16"
	v.Networks.ShootDefaults = &struct {
		Pods     string `json:"pods"`
		Services string `json:"services"`
	}{Pods: "10.3.0.0/16", Services: "10.4.0.0/16"}
	v.Ingress = component.BlockDefaults[seed.Ingress](seed.Type.Schema, "ingress")()
	v.Ingress.Domain = "ingress.local.seed.example.com"
	v.DNS.Provider.Type, v.DNS.Provider.SecretRef = "local", "internal-domain"
	if mutate != nil {
		mutate(&v)
	}
	return v
}

func obj(apiVersion, kind, namespace, name string, fields map[string]any) unstructured.Unstructured {
	u := unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind}}
	for k, v := range fields {
		u.Object[k] = v
	}
	u.SetNamespace(namespace)
	u.SetName(name)
	return u
}

// apiShoot is a Shoot a user created with kubectl, as gardener-apiserver holds it after the
// scheduler assigned seed local.
func apiShoot(name string, mutate func(u *unstructured.Unstructured)) unstructured.Unstructured {
	u := obj("core.gardener.cloud/v1beta1", "Shoot", "garden-local", name, map[string]any{"spec": map[string]any{
		"seedName": "local", "region": "local", "purpose": "evaluation",
		"cloudProfile":           map[string]any{"kind": "CloudProfile", "name": "local"},
		"credentialsBindingName": "local",
		"kubernetes":             map[string]any{"version": "1.31.1", "kubeProxy": map[string]any{"enabled": true, "mode": "IPTables"}},
		"networking":             map[string]any{"type": "calico", "pods": "10.3.0.0/16", "services": "10.4.0.0/16", "nodes": "10.5.0.0/16"},
		"provider": map[string]any{"type": "local", "workers": []any{map[string]any{
			"name": "local", "minimum": int64(1), "maximum": int64(2),
			"machine": map[string]any{"type": "local", "image": map[string]any{"name": "local", "version": "1.0.0"}},
		}}},
		"maintenance": map[string]any{"timeWindow": map[string]any{"begin": "220000+0000", "end": "230000+0000"},
			"autoUpdate": map[string]any{"kubernetesVersion": true, "machineImageVersion": true}},
		"dns": map[string]any{"domain": name + ".local.shoot.example.com"},
	}})
	u.SetUID("0b7f6f3e-0000-4000-8000-00000000000a")
	if mutate != nil {
		mutate(&u)
	}
	return u
}

// garden is the virtual garden the seed lists: the Shoots, the registrations, the project and
// the domains' Secrets.
func garden(shoots ...unstructured.Unstructured) func(render.ListRef) ([]unstructured.Unstructured, error) {
	registration := obj("core.gardener.cloud/v1beta1", "ControllerRegistration", "", "provider-local", map[string]any{"spec": map[string]any{"resources": []any{
		map[string]any{"kind": "Infrastructure", "type": "local"}, map[string]any{"kind": "ControlPlane", "type": "local"},
		map[string]any{"kind": "Worker", "type": "local"}, map[string]any{"kind": "Network", "type": "calico"},
		map[string]any{"kind": "Extension", "type": "shoot-dns-service", "lifecycle": map[string]any{"reconcile": "BeforeKubeAPIServer"}},
	}}})
	project := obj("core.gardener.cloud/v1beta1", "Project", "", "local", map[string]any{"spec": map[string]any{"namespace": "garden-local"}})
	domain := func(name, role, domain string) unstructured.Unstructured {
		s := obj("v1", "Secret", "garden", name, map[string]any{"data": map[string]any{"key": "c2VjcmV0"}})
		s.SetLabels(map[string]string{"gardener.cloud/role": role})
		s.SetAnnotations(map[string]string{"dns.gardener.cloud/provider": "local", "dns.gardener.cloud/domain": domain})
		return s
	}
	return func(ref render.ListRef) ([]unstructured.Unstructured, error) {
		switch {
		case ref.Resource == "shoots":
			return shoots, nil
		case ref.Resource == "controllerregistrations":
			return []unstructured.Unstructured{registration}, nil
		case ref.Resource == "projects":
			return []unstructured.Unstructured{project}, nil
		case ref.Resource == "secrets" && ref.LabelSelector == "gardener.cloud/role=internal-domain":
			return []unstructured.Unstructured{domain("internal-domain", "internal-domain", "internal.example.com")}, nil
		case ref.Resource == "secrets" && ref.LabelSelector == "gardener.cloud/role=default-domain":
			return []unstructured.Unstructured{domain("default-domain", "default-domain", "shoot.example.com")}, nil
		}
		return nil, nil
	}
}

func renderWith(t *testing.T, v seed.Values, shoots ...unstructured.Unstructured) *render.Output {
	t.Helper()
	byName := map[string]*unstructured.Unstructured{}
	for i := range shoots {
		byName[shoots[i].GetNamespace()+"/"+shoots[i].GetName()] = &shoots[i]
	}
	out, err := renderSeed(render.Input{Name: "local", Now: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC), List: garden(shoots...),
		Observe: func(ref render.LiveRef) (*unstructured.Unstructured, error) {
			if ref.Resource == "shoots" {
				return byName[ref.Namespace+"/"+ref.Name], nil
			}
			return nil, nil
		}}, v)
	require.NoError(t, err)
	return out
}

func partNames(out *render.Output, prefix string) map[string]render.Component {
	m := map[string]render.Component{}
	for _, p := range out.Components {
		if strings.HasPrefix(p.Name, prefix) {
			m[p.Name] = p
		}
	}
	return m
}

func reportOf(t *testing.T, out *render.Output, name string) render.Report {
	t.Helper()
	for _, r := range out.Reports {
		if r.Kind == "Shoot" && r.Name == name {
			return r
		}
	}
	require.Failf(t, "no report", "of Shoot %s", name)
	return render.Report{}
}

func TestShootsCreatedThroughTheAPIGetControlPlanes(t *testing.T) {
	alone := renderWith(t, seedValues(nil))
	out := renderWith(t, seedValues(nil), apiShoot("mine", nil))

	own := partNames(alone, "")
	prefix := Prefix("local", "mine")
	parts := partNames(out, prefix)
	require.NotEmpty(t, parts)
	assert.Len(t, out.Components, len(own)+len(parts), "the seed's parts, then the Shoot's")
	for _, name := range []string{"namespace", "etcd_main", "kube_apiserver", "kube_controller_manager", "worker", "garden_publication", "dns_record_internal", "dns_record_external"} {
		assert.Contains(t, parts, prefix+name)
	}
	assert.NotContains(t, parts, prefix+"shoot", "the Shoot is the user's")
	for name, p := range parts {
		require.NotEmpty(t, p.DependsOn, name)
		for _, d := range p.DependsOn {
			assert.True(t, d == "seed" || strings.HasPrefix(d, prefix), "%s depends on %s", name, d)
		}
	}
	assert.Equal(t, []string{"seed"}, parts[prefix+"namespace"].DependsOn, "after the Seed, which waits for the seed's system components")

	seedReport := out.Reports[0]
	assert.Equal(t, "Seed", seedReport.Kind)
	assert.ElementsMatch(t, keys(own), seedReport.Parts, "the Seed's operation is the seed's own parts'")
	r := reportOf(t, out, "mine")
	assert.Equal(t, "garden-local", r.Namespace)
	assert.ElementsMatch(t, keys(parts), r.Parts)
	assert.Equal(t, "shoot--local--mine", r.Status["technicalID"])
	for _, c := range r.Conditions {
		for _, p := range c.Parts {
			assert.True(t, strings.HasPrefix(p, prefix), "condition %s judges %s", c.Type, p)
		}
	}
	assert.Empty(t, r.Error)
	assert.Empty(t, out.Requested)
}

func TestShootsTheEngineDoesNotServe(t *testing.T) {
	declared := apiShoot("declared", func(u *unstructured.Unstructured) {
		u.SetLabels(map[string]string{inventory.LandscapeLabel: "local"})
	})
	elsewhere := apiShoot("elsewhere", func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(u.Object, "other", "spec", "seedName")
	})
	unregistered := apiShoot("cilium", func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(u.Object, "cilium", "spec", "networking", "type")
	})
	invalid := apiShoot("zonal", func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(u.Object, map[string]any{"highAvailability": map[string]any{"failureTolerance": map[string]any{"type": "zone"}}}, "spec", "controlPlane")
	})
	out := renderWith(t, seedValues(nil), declared, elsewhere, unregistered, invalid, apiShoot("fine", nil))

	for _, name := range []string{"declared", "elsewhere"} {
		for _, r := range out.Reports {
			assert.NotEqual(t, name, r.Name, "a shoot block's Shoot and another seed's are not this seed's")
		}
		assert.Empty(t, partNames(out, Prefix("local", name)))
	}
	assert.Equal(t, "no ControllerRegistration registers Network/cilium", reportOf(t, out, "cilium").Error)
	assert.Empty(t, partNames(out, Prefix("local", "cilium")))
	assert.Contains(t, reportOf(t, out, "zonal").Error, "needs a seed with at least three zones")
	assert.NotEmpty(t, partNames(out, Prefix("local", "fine")), "a Shoot the engine cannot serve blocks no other")

	gardenlet := renderWith(t, seedValues(func(v *seed.Values) { v.ManagedBy = seed.ManagedByGardenlet }), apiShoot("fine", nil))
	assert.Empty(t, partNames(gardenlet, "shoot__"), "a gardenlet seed's Shoots are gardenlet's")
	for _, r := range gardenlet.Reports {
		assert.NotEqual(t, "Shoot", r.Kind, "gardenlet reports them")
	}
	var released []string
	for _, h := range gardenlet.HandedOver {
		if h.Kind == "Deployment" && h.Namespace == "shoot--local--fine" {
			released = append(released, h.Name.String()+" to "+h.Controller)
		}
	}
	assert.Contains(t, released, "^kube-apiserver$ to gardenlet", "what the engine deployed for them before is released")
}

func TestADeletedShootsControlPlaneGoes(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 11, 28, 11, 0, 0, 0, time.UTC))
	deleting := apiShoot("mine", func(u *unstructured.Unstructured) {
		u.SetDeletionTimestamp(&now)
		u.SetFinalizers([]string{"gardener"})
	})
	out := renderWith(t, seedValues(nil), deleting)
	prefix := Prefix("local", "mine")
	assert.Empty(t, partNames(out, prefix), "nothing of it is rendered: the plan deletes what the seed applied for it")
	assert.Equal(t, []render.RequestedDeletion{{PartPrefix: prefix, Why: "Shoot garden-local/mine deleted through the API"}}, out.Requested)
	assert.True(t, reportOf(t, out, "mine").Finalize)
	assert.Equal(t, prefix, reportOf(t, out, "mine").FinalizeAfter)

	gone := apiShoot("mine", func(u *unstructured.Unstructured) { u.SetDeletionTimestamp(&now) })
	out = renderWith(t, seedValues(nil), gone)
	assert.Empty(t, out.Requested, "without the finalizer its deletion is finished")
	assert.Len(t, out.Reports, 1)
}

func keys(m map[string]render.Component) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
