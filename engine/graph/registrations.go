package graph

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/declarative-gardener/gardener/engine/config"
)

// The Gardener API kinds whose admission depends on ControllerRegistrations. gardener-apiserver's
// ExtensionValidator admission plugin (plugin/pkg/global/extensionvalidation/admission.go at
// Gardener v1.120.0) refuses to create or change the spec of a Seed, Shoot or BackupBucket that
// names an extension kind and type no ControllerRegistration registers as primary, so such an
// object must come after the registrations of every type it names.
var (
	registrationGroupKind = schema.GroupKind{Group: "core.gardener.cloud", Kind: "ControllerRegistration"}
	seedGroupKind         = schema.GroupKind{Group: "core.gardener.cloud", Kind: "Seed"}
	shootGroupKind        = schema.GroupKind{Group: "core.gardener.cloud", Kind: "Shoot"}
	backupBucketGroupKind = schema.GroupKind{Group: "core.gardener.cloud", Kind: "BackupBucket"}
)

// extensionType is an extension kind and type, such as Network/calico.
type extensionType struct{ kind, typ string }

func (t extensionType) String() string { return t.kind + "/" + t.typ }

// registered is one primary resource of a ControllerRegistration.
type registered struct {
	inst config.InstanceAddress
	// name is the ControllerRegistration's name.
	name string
	// clusters is the resource's clusterCompatibility; empty means every cluster type.
	clusters []string
}

// registeredTypes lists the kinds and types a ControllerRegistration registers as primary: a
// resource without primary, or with primary true, counts; a secondary one does not, since
// admission looks at primary registrations only.
func registeredTypes(o *unstructured.Unstructured) map[extensionType][]string {
	resources, _, _ := unstructured.NestedSlice(o.Object, "spec", "resources")
	out := map[extensionType][]string{}
	for _, r := range resources {
		res, ok := r.(map[string]any)
		if !ok {
			continue
		}
		kind, _ := res["kind"].(string)
		typ, _ := res["type"].(string)
		if kind == "" || typ == "" {
			continue
		}
		if primary, set := res["primary"].(bool); set && !primary {
			continue
		}
		var clusters []string
		if cc, ok := res["clusterCompatibility"].([]any); ok {
			for _, c := range cc {
				if s, ok := c.(string); ok {
					clusters = append(clusters, s)
				}
			}
		}
		out[extensionType{kind, typ}] = clusters
	}
	return out
}

// neededTypes lists the extension kinds and types a Seed, Shoot or BackupBucket names, the way
// admission collects them, and the cluster type ("seed" or "shoot") a registration's
// clusterCompatibility must allow; nothing for other objects.
func neededTypes(o *unstructured.Unstructured) (string, []extensionType) {
	var out []extensionType
	add := func(kind, typ string) {
		if typ != "" && !slices.Contains(out, extensionType{kind, typ}) {
			out = append(out, extensionType{kind, typ})
		}
	}
	str := func(m map[string]any, path ...string) string {
		s, _, _ := unstructured.NestedString(m, path...)
		return s
	}
	extensions := func(spec map[string]any) {
		list, _, _ := unstructured.NestedSlice(spec, "extensions")
		for _, e := range list {
			if m, ok := e.(map[string]any); ok {
				add("Extension", str(m, "type"))
			}
		}
	}
	spec, _ := o.Object["spec"].(map[string]any) // read only: NestedMap would copy it
	switch o.GroupVersionKind().GroupKind() {
	case seedGroupKind:
		add("ControlPlane", str(spec, "provider", "type"))
		if backup := str(spec, "backup", "provider"); backup != "" {
			add("BackupBucket", backup)
			add("BackupEntry", backup)
		}
		if _, ingress := spec["ingress"]; ingress {
			add("DNSRecord", str(spec, "dns", "provider", "type"))
		}
		extensions(spec)
		return "seed", out
	case shootGroupKind:
		workers, _, _ := unstructured.NestedSlice(spec, "provider", "workers")
		if len(workers) > 0 { // a workerless Shoot needs no provider or networking extension
			provider := str(spec, "provider", "type")
			add("ControlPlane", provider)
			add("Infrastructure", provider)
			add("Worker", provider)
			add("Network", str(spec, "networking", "type"))
		}
		providers, _, _ := unstructured.NestedSlice(spec, "dns", "providers")
		for _, p := range providers {
			m, ok := p.(map[string]any)
			if primary, _ := m["primary"].(bool); !ok || !primary {
				continue
			}
			if typ := str(m, "type"); typ != "unmanaged" {
				add("DNSRecord", typ)
			}
		}
		extensions(spec)
		for _, w := range workers {
			pool, ok := w.(map[string]any)
			if !ok {
				continue
			}
			runtimes, _, _ := unstructured.NestedSlice(pool, "cri", "containerRuntimes")
			for _, r := range runtimes {
				if m, ok := r.(map[string]any); ok {
					add("ContainerRuntime", str(m, "type"))
				}
			}
			add("OperatingSystemConfig", str(pool, "machine", "image", "name"))
		}
		return "shoot", out
	case backupBucketGroupKind:
		add("BackupBucket", str(spec, "provider", "type"))
	}
	return "", out
}

// admittedObject is a Seed, Shoot or BackupBucket an instance renders: what admission checks
// against the ControllerRegistrations.
type admittedObject struct {
	inst   config.InstanceAddress
	object *unstructured.Unstructured
}

// registrationEdges are the edges from every instance rendering a Seed, Shoot or BackupBucket to
// the instances rendering the ControllerRegistrations of the extension types it names, one per
// pair with every type in the reason. A type no rendered registration provides adds no edge: it
// may be registered outside the landscape, and admission says so when it is not.
func registrationEdges(registrations map[extensionType][]registered, admitted []admittedObject) []Edge {
	if len(registrations) == 0 {
		return nil
	}
	var edges []Edge
	for _, a := range admitted {
		inst, o := a.inst, a.object
		clusterType, needed := neededTypes(o)
		if len(needed) == 0 {
			continue
		}
		// by target instance: the types it registers for this object, and under which names
		types := map[config.InstanceAddress][]string{}
		names := map[config.InstanceAddress][]string{}
		for _, t := range needed {
			for _, r := range registrations[t] {
				if r.inst == inst || (len(r.clusters) > 0 && clusterType != "" && !slices.Contains(r.clusters, clusterType)) {
					continue
				}
				if !slices.Contains(types[r.inst], t.String()) {
					types[r.inst] = append(types[r.inst], t.String())
				}
				if !slices.Contains(names[r.inst], r.name) {
					names[r.inst] = append(names[r.inst], r.name)
				}
			}
		}
		for to, ts := range types {
			slices.Sort(ts)
			slices.Sort(names[to])
			reason := fmt.Sprintf("its %s %s uses %s, which ControllerRegistration %s registers (Gardener admits it only then)",
				o.GetKind(), o.GetName(), strings.Join(ts, ", "), strings.Join(names[to], ", "))
			edges = append(edges, Edge{From: inst, To: to, Reason: reason, Kind: Implicit})
		}
	}
	return edges
}
