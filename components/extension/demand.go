package extension

import (
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/internal/gardenapi"
	"github.com/declarative-gardener/gardener/engine/render"
)

// liveDemand is what the virtual garden says a seed needs beyond what the landscape declares: the
// kinds and types the Shoots scheduled to it use, by the first Shoot using each, and whether the
// extension's ControllerInstallation there still reports Required.
type liveDemand struct {
	// Shoots are the Shoots on the seed, "namespace/name", sorted.
	Shoots []string
	// Types maps each kind/type ("Infrastructure/local") to the first Shoot using it.
	Types map[string]string
	// Disabled maps each Extension type to the number of the seed's Shoots that disable it
	// (.spec.extensions[].disabled), which a globally enabled Extension then skips (Gardener's
	// ControllerResource in docs/api-reference/core.md).
	Disabled map[string]int
	// StillRequired says the live ControllerInstallation's Required condition is True: extension
	// resources on the seed still use the controller (Gardener's "gardenlet"
	// docs/concepts/gardenlet.md).
	StillRequired bool
	// Installed says the extension's ControllerInstallation for the seed exists.
	Installed bool
}

// shootsRef and installationRef are the Gardener resources the decision reads.
var (
	shootsRef       = render.ListRef{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots"}
	installationRef = render.LiveRef{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "controllerinstallations"}
)

// observeDemand reads what gardener-controller-manager reads to decide a seed's
// ControllerInstallations (Gardener's "Gardener Controller Manager"
// docs/concepts/controller-manager.md): "a live list of" the Shoots, whose kinds and types the
// seeds they are scheduled to need; a Shoot moving to another seed counts for both its seeds until
// the move is done (.spec.seedName and .status.seedName; inferred); and it reads the installations'
// Required condition, which keeps an installation that would go while resources still use it
// (Gardener's docs/concepts/gardenlet.md). Shoots the landscape declares but has not applied yet
// reach the decision through the seed's shoot_types instead.
func observeDemand(in render.Input, v Values) (map[string]*liveDemand, error) {
	ref := shootsRef
	ref.Cluster = v.VirtualCluster.Name
	shoots, err := in.Listed(ref)
	if err != nil {
		return nil, fmt.Errorf("extension %s: list the shoots of the virtual garden: %w", v.Name, err)
	}
	out := map[string]*liveDemand{}
	for _, s := range v.Seeds {
		out[s.Name] = &liveDemand{Types: map[string]string{}, Disabled: map[string]int{}}
	}
	for i := range shoots {
		shoot := &shoots[i]
		id := shoot.GetNamespace() + "/" + shoot.GetName()
		types, disabled := shootTypes(shoot)
		for _, seed := range shootSeeds(shoot) {
			d, ok := out[seed]
			if !ok {
				continue
			}
			d.Shoots = append(d.Shoots, id)
			for _, t := range types {
				if _, seen := d.Types[t]; !seen {
					d.Types[t] = id
				}
			}
			for _, t := range disabled {
				d.Disabled[t]++
			}
		}
	}
	for _, s := range v.Seeds {
		d := out[s.Name]
		sort.Strings(d.Shoots)
		ref := installationRef
		ref.Cluster, ref.Name = v.VirtualCluster.Name, v.Name+"-"+s.Name
		live, err := in.Observed(ref)
		if err != nil {
			return nil, fmt.Errorf("extension %s: read the ControllerInstallation %s: %w", v.Name, ref.Name, err)
		}
		d.Installed = live != nil
		required, ok := gardenapi.LiveCondition(live, "Required")
		d.StillRequired = ok && required.Status == "True"
	}
	return out, nil
}

// shootSeeds are the seeds a Shoot occupies: the one it is scheduled to and, while it moves, the
// one it is still on.
func shootSeeds(shoot *unstructured.Unstructured) []string {
	spec, _, _ := unstructured.NestedString(shoot.Object, "spec", "seedName")
	status, _, _ := unstructured.NestedString(shoot.Object, "status", "seedName")
	var out []string
	for _, s := range []string{spec, status} {
		if s != "" && (len(out) == 0 || out[0] != s) {
			out = append(out, s)
		}
	}
	return out
}

// shootTypes are the extension kinds and types a Shoot uses, sorted, and the Extension types it
// disables. Gardener's documentation gives the rule by example (Gardener's
// docs/concepts/controller-manager.md: a shoot of provider gcp needs Infrastructure/gcp); which
// field feeds which kind follows the Shoot's fields that name an extension type: the provider for
// Infrastructure, ControlPlane and Worker, the networking type for Network, the pools' machine
// images and container runtimes, the DNS providers and the enabled extensions. A shoot without
// workers needs none of the worker kinds (inferred).
func shootTypes(shoot *unstructured.Unstructured) (types, disabled []string) {
	set := map[string]bool{}
	add := func(kind, typ string) {
		if typ != "" {
			set[kind+"/"+typ] = true
		}
	}
	provider, _, _ := unstructured.NestedString(shoot.Object, "spec", "provider", "type")
	workers, _, _ := unstructured.NestedSlice(shoot.Object, "spec", "provider", "workers")
	if len(workers) > 0 {
		add("Infrastructure", provider)
		add("ControlPlane", provider)
		add("Worker", provider)
		network, _, _ := unstructured.NestedString(shoot.Object, "spec", "networking", "type")
		add("Network", network)
	}
	for _, w := range workers {
		pool, ok := w.(map[string]any)
		if !ok {
			continue
		}
		image, _, _ := unstructured.NestedString(pool, "machine", "image", "name")
		add("OperatingSystemConfig", image)
		runtimes, _, _ := unstructured.NestedSlice(pool, "cri", "containerRuntimes")
		for _, r := range runtimes {
			if m, ok := r.(map[string]any); ok {
				t, _ := m["type"].(string)
				add("ContainerRuntime", t)
			}
		}
	}
	providers, _, _ := unstructured.NestedSlice(shoot.Object, "spec", "dns", "providers")
	for _, p := range providers {
		if m, ok := p.(map[string]any); ok {
			t, _ := m["type"].(string)
			add("DNSRecord", t)
		}
	}
	extensions, _, _ := unstructured.NestedSlice(shoot.Object, "spec", "extensions")
	for _, e := range extensions {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		t, _ := m["type"].(string)
		if off, _ := m["disabled"].(bool); off {
			disabled = append(disabled, t)
			continue
		}
		add("Extension", t)
	}
	for t := range set {
		types = append(types, t)
	}
	sort.Strings(types)
	return types, disabled
}

// changeNotices tell the plan's reader why the extension comes to or leaves a seed, for the seeds
// where the decision differs from the installations that exist: the plan shows the objects, the
// notice the reason (the shoot that needs it, the policy).
func changeNotices(v Values, installations []Installation) []string {
	var out []string
	for _, i := range installations {
		d := v.live[i.Seed]
		if d == nil || d.Installed == i.Installed {
			continue
		}
		verb := "is installed on"
		if !i.Installed {
			verb = "is removed from"
		}
		out = append(out, fmt.Sprintf("extension %s %s seed %s: %s", v.Name, verb, i.Seed, i.Reason))
	}
	return out
}
