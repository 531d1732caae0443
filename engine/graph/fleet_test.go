package graph

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/config"
)

// fleetSeeds is how many seeds the fleet spreads its shoots over, as landscapes/scale does.
const fleetSeeds = 3

// fleetShootParts is how many parts each shoot of the fleet has; a shoot of landscapes/scale has
// about 57 (its Shoot, namespace, secrets, etcds, API server, controllers, extension resources).
const fleetShootParts = 57

// fleet is a landscape shaped like landscapes/scale at n shoots, for measuring how graph building
// grows with the landscape: a garden, three seeds whose Seed parts need an extension's
// ControllerRegistration, an extension that refers to every seed and whose installations follow
// the Seeds and the Shoots, and n shoots spread over the seeds, each made of fleetShootParts
// parts that wait for their namespace, for earlier parts and for their seed's resource manager
// and CRDs. It returns what the planner passes to Build: the evaluated landscape, the implicit
// edges (ImplicitEdges over rendered objects per cluster, and the Follows edges) and the parts.
type fleet struct {
	ev       *config.Evaluated
	rendered map[string]map[config.InstanceAddress][]*unstructured.Unstructured
	follows  []Edge
	parts    []Part
}

func newFleet(tb testing.TB, shoots int) *fleet {
	tb.Helper()
	src := header + `
garden "g" { cluster = cluster.runtime }
component "thing" "project" { value = garden.g.name }
component "thing" "ext" { value = join(",", [seed.s1.name, seed.s2.name, seed.s3.name]) }
locals {
  shoots = { for i in range(var.shoots) : format("shoot-%04d", i) => i % 3 }
}
variable "shoots" { type = number }
`
	for s := 1; s <= fleetSeeds; s++ {
		src += fmt.Sprintf(`seed "s%[1]d" {
  garden  = garden.g
  cluster = cluster.runtime
}
shoot "on_s%[1]d" {
  for_each = { for name, seed in local.shoots : name => seed if seed == %[2]d }
  seed     = seed.s%[1]d
  value    = component.thing.project.name
}
`, s, s-1)
	}
	dir := tb.TempDir()
	require.NoError(tb, os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(src), 0o644))
	res, diags := config.Load(dir, testRegistry(tb), config.InputSources{Vars: []string{fmt.Sprintf("shoots=%d", shoots)}})
	require.False(tb, diags.HasErrors(), diags.Error())

	f := &fleet{ev: res.Evaluated, rendered: map[string]map[config.InstanceAddress][]*unstructured.Unstructured{}}
	render := func(cluster string, inst config.InstanceAddress, objs ...*unstructured.Unstructured) {
		if f.rendered[cluster] == nil {
			f.rendered[cluster] = map[config.InstanceAddress][]*unstructured.Unstructured{}
		}
		f.rendered[cluster][inst] = append(f.rendered[cluster][inst], objs...)
	}
	part := func(parent config.InstanceAddress, name string, after ...config.InstanceAddress) config.InstanceAddress {
		addr := parent + config.InstanceAddress("."+name)
		f.parts = append(f.parts, Part{Addr: addr, Parent: parent, DependsOn: after})
		return addr
	}

	garden := config.InstanceAddress("garden.g")
	gardenNamespace := part(garden, "namespace")
	render("runtime", gardenNamespace, object("v1", "Namespace", "", "garden"))
	previous := gardenNamespace
	for i := range 30 {
		previous = part(garden, fmt.Sprintf("p%02d", i), previous)
		render("runtime", previous, object("v1", "ConfigMap", "garden", fmt.Sprintf("p%02d", i)))
	}

	ext := config.InstanceAddress("component.thing.ext")
	registration := part(ext, "registration")
	render("virtual", registration, registrationObject("ext", "Network", "Extension"))
	for s := 1; s <= fleetSeeds; s++ {
		seed := config.InstanceAddress(fmt.Sprintf("seed.s%d", s))
		cluster := fmt.Sprintf("seed-%d", s)
		crds := part(seed, "crds")
		render(cluster, crds, crd("extensions.gardener.cloud", "Cluster"))
		namespace := part(seed, "namespace")
		render(cluster, namespace, object("v1", "Namespace", "", "garden"))
		manager := part(seed, "resource_manager", namespace)
		render(cluster, manager, object("apps/v1", "Deployment", "garden", "gardener-resource-manager"),
			crd("resources.gardener.cloud", "ManagedResource"))
		system := part(seed, "system", manager)
		render(cluster, system, object("apps/v1", "Deployment", "garden", "istiod"))
		seedObject := part(seed, "seed", crds, system)
		render("virtual", seedObject, seedShootObject("Seed", fmt.Sprintf("s%d", s), "calico"))
		installation := Part{Addr: ext + config.InstanceAddress(fmt.Sprintf(".installation_s%d", s)), Parent: ext,
			DependsOn: []config.InstanceAddress{registration}, Detached: true}
		f.parts = append(f.parts, installation)
		f.follows = append(f.follows, Edge{From: installation.Addr, To: seedObject, Kind: Follows, Reason: "installed once the Seed exists"})
	}

	for addr, inst := range f.ev.Instances {
		if !strings.HasPrefix(string(addr), "shoot.") {
			continue
		}
		seedName := string(inst.Block.Addr)[len("shoot.on_"):]
		cluster := "seed-" + seedName[1:]
		name := inst.Key.AsString()
		namespace := "shoot--" + name
		shootObject := part(addr, "shoot")
		render("virtual", shootObject, seedShootObject("Shoot", name, "calico"))
		f.follows = append(f.follows, Edge{From: ext + config.InstanceAddress(".installation_"+seedName), To: shootObject, Kind: Follows,
			Reason: "installed once a Shoot is scheduled to the seed"})
		ns := part(addr, "namespace", shootObject)
		render(cluster, ns, object("v1", "Namespace", "", namespace))
		earlier := []config.InstanceAddress{ns}
		for i := 2; i < fleetShootParts; i++ {
			// Each part waits for the one before and one further back, as the control plane's
			// parts wait for their secrets and the API server.
			after := []config.InstanceAddress{earlier[len(earlier)-1], earlier[len(earlier)/2]}
			p := part(addr, fmt.Sprintf("p%02d", i), after...)
			objs := []*unstructured.Unstructured{object("v1", "ConfigMap", namespace, fmt.Sprintf("p%02d", i))}
			switch i % 3 {
			case 0: // managed by the seed's resource manager
				objs = append(objs, object("resources.gardener.cloud/v1alpha1", "ManagedResource", namespace, fmt.Sprintf("p%02d", i)))
			case 1: // an extension resource, whose CRD the seed installs
				objs = append(objs, object("extensions.gardener.cloud/v1alpha1", "Cluster", "", namespace))
			}
			render(cluster, p, objs...)
			earlier = append(earlier, p)
		}
	}
	return f
}

// build runs what the planner runs to make the graph: ImplicitEdges per cluster, then Build.
func (f *fleet) build() (*Graph, error) {
	implicit := append([]Edge(nil), f.follows...)
	for _, objects := range f.rendered {
		implicit = append(implicit, ImplicitEdges(objects)...)
	}
	g, diags := Build(f.ev, implicit, f.parts...)
	if diags.HasErrors() {
		return nil, diags
	}
	return g, nil
}

func object(apiVersion, kind, namespace, name string) *unstructured.Unstructured {
	o := &unstructured.Unstructured{Object: map[string]any{}}
	o.SetAPIVersion(apiVersion)
	o.SetKind(kind)
	o.SetNamespace(namespace)
	o.SetName(name)
	return o
}

func crd(group, kind string) *unstructured.Unstructured {
	o := object("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", kind+"s."+group)
	o.Object["spec"] = map[string]any{"group": group, "names": map[string]any{"kind": kind}}
	return o
}

// registrationObject registers the type calico for each kind.
func registrationObject(name string, kinds ...string) *unstructured.Unstructured {
	o := object("core.gardener.cloud/v1beta1", "ControllerRegistration", "", name)
	var resources []any
	for _, k := range kinds {
		resources = append(resources, map[string]any{"kind": k, "type": "calico"})
	}
	o.Object["spec"] = map[string]any{"resources": resources}
	return o
}

func seedShootObject(kind, name, network string) *unstructured.Unstructured {
	o := object("core.gardener.cloud/v1beta1", kind, "", name)
	o.Object["spec"] = map[string]any{
		"provider":   map[string]any{"type": "local", "workers": []any{map[string]any{"name": "w"}}},
		"networking": map[string]any{"type": network},
		"extensions": []any{map[string]any{"type": network}},
	}
	return o
}

func TestFleetIsShapedLikeTheScaleLandscape(t *testing.T) {
	f := newFleet(t, 30)
	g, err := f.build()
	require.NoError(t, err)
	garden, project, ext, seed, shoot := 1+31, 1, 1+1+fleetSeeds, 1+5, 1+fleetShootParts
	assert.Equal(t, garden+project+ext+fleetSeeds*seed+30*shoot, g.Len(), "every instance and part is a vertex")
	first := config.InstanceAddress(`shoot.on_s1["shoot-0000"]`)
	assert.Equal(t, addrs(`seed.s1`, "component.thing.ext.registration", "component.thing.project"), g.Dependencies(first+".shoot"),
		"the first part of a shoot inherits the shoot's references, and its Shoot waits for the registration of its network")
	assert.Contains(t, g.Dependencies(first+".p03"), config.InstanceAddress("seed.s1.resource_manager"),
		"a part with objects the seed's resource manager manages waits for it")
	assert.Contains(t, g.Dependencies("seed.s1.seed"), config.InstanceAddress("component.thing.ext.registration"),
		"the Seed waits for the registration of its network type")
	registration := g.Dependencies("component.thing.ext.registration")
	assert.NotContains(t, registration, config.InstanceAddress("seed.s1"),
		"the registration, which the Seed needs, waits for the seed's parts but the Seed, not for the whole seed")
	assert.Contains(t, registration, config.InstanceAddress("seed.s1.system"))
	assert.Len(t, g.Dependencies("component.thing.ext.installation_s1"), 2+10, "an installation follows its Seed and the seed's shoots")
}

// BenchmarkBuildFleet measures graph building (ImplicitEdges and Build, as the planner runs them)
// at 100 and 1,000 shoots: linear building takes about ten times as long for the larger fleet,
// the same time per vertex (ns/vertex). cpu-ns/vertex is the process's CPU time per vertex, the
// garbage collector's included, which other work on a shared machine disturbs less than the
// elapsed time.
func BenchmarkBuildFleet(b *testing.B) {
	for _, shoots := range []int{100, 1000} {
		b.Run(fmt.Sprintf("shoots=%d", shoots), func(b *testing.B) {
			f := newFleet(b, shoots)
			runtime.GC()
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cpuTime(b)
			var g *Graph
			for b.Loop() {
				var err error
				if g, err = f.build(); err != nil {
					b.Fatal(err)
				}
			}
			cpu = cpuTime(b) - cpu
			perVertex := float64(b.N) * float64(g.Len())
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/perVertex, "ns/vertex")
			b.ReportMetric(float64(cpu.Nanoseconds())/perVertex, "cpu-ns/vertex")
		})
	}
}

// cpuTime is the CPU time the process has used, in user and system mode.
func cpuTime(tb testing.TB) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
