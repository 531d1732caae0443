package admission

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/diag"
	"github.com/declarative-gardener/gardener/engine/kinds"
	"github.com/declarative-gardener/gardener/engine/schema"
)

const (
	// dnsUnmanaged is the DNS provider type that needs no extension.
	dnsUnmanaged = "unmanaged"
)

// registrations are the extension kinds and types the landscape's extension and
// controller_registration components register as primary, which is what admission counts.
type registrations struct {
	// declared is false when the landscape registers no extension at all: then it leaves
	// registration to someone else and nothing is judged.
	declared bool
	// unknown is set when some registration cannot be read (a failed component, resources
	// known only after apply): then nothing is certain and nothing is judged.
	unknown bool
	types   map[string][]string
	// workerless are the Extension types that support shoots without workers.
	workerless map[string]bool
}

// readRegistrations reads the resource blocks of every extension and controller_registration.
func readRegistrations(v *schema.LandscapeView) registrations {
	r := registrations{types: map[string][]string{}, workerless: map[string]bool{}}
	for _, typ := range []string{typeExtension, typeControllerRegistration} {
		for _, inst := range v.Of(schema.KindComponent, typ) {
			r.declared = true
			if inst.Failed {
				r.unknown = true
				continue
			}
			resources, ok := obj{inst.Config}.blocks("resource")
			if !ok {
				r.unknown = true
				continue
			}
			for _, res := range resources {
				kind, kset, kok := res.str("kind")
				t, tset, tok := res.str("type")
				primary, pok := res.boolean("primary", true)
				if !kok || !tok || !pok || !kset || !tset {
					r.unknown = true
					continue
				}
				// Workerless support counts for secondary registrations too
				// (computeWorkerlessSupportedExtensionTypes ignores primary).
				if kind == kinds.ExtensionKind {
					if w, ok := res.boolean("workerless_supported", false); !ok {
						r.unknown = true
					} else if w {
						r.workerless[t] = true
					}
				}
				if !primary {
					continue
				}
				r.types[kind] = append(r.types[kind], t)
			}
		}
	}
	return r
}

func (r registrations) has(kind, typ string) bool { return slices.Contains(r.types[kind], typ) }

// need is one extension type an object uses: the kinds it needs of that type, at the attribute
// that names it.
type need struct {
	path  cty.Path
	typ   string
	kinds []string
	// what names the use for messages, such as "The shoot's provider type"; note, when set,
	// explains it further.
	what, note string
}

// checkExtensions mirrors plugin/pkg/global/extensionvalidation/admission.go at Gardener
// v1.120.0: every extension kind and type a Seed or Shoot uses must be registered by a primary
// ControllerRegistration; a shoot without workers may enable only Extension types that support
// workerless shoots.
func checkExtensions(v *schema.LandscapeView) []schema.Finding {
	reg := readRegistrations(v)
	if !reg.declared || reg.unknown {
		return nil
	}
	l := landscape{view: v}
	var out []schema.Finding
	for _, seed := range l.healthy(schema.KindSeed, string(schema.KindSeed)) {
		out = append(out, reg.check(seed, "Seed", seedNeeds(obj{seed.Config}))...)
	}
	profiles := l.profiles()
	for _, shoot := range l.healthy(schema.KindShoot, string(schema.KindShoot)) {
		needs, workerless := shootNeeds(l, profiles, shoot)
		out = append(out, reg.check(shoot, "Shoot", needs)...)
		if workerless {
			out = append(out, reg.checkWorkerless(shoot, needs)...)
		}
	}
	return out
}

// seedNeeds are the extension types a Seed uses: its provider's ControlPlane, its DNS provider's
// DNSRecord (a seed always has an ingress), and its backup provider's BackupBucket and
// BackupEntry.
func seedNeeds(cfg obj) []need {
	var needs []need
	if provider, set, ok := cfg.block("provider"); ok && set {
		if t, set, ok := provider.str("type"); ok && set {
			needs = append(needs, need{path: path("provider", "type"), typ: t, kinds: []string{kinds.ControlPlaneKind}, what: "The seed's provider type"})
		}
	}
	if dns, set, ok := cfg.block("dns"); ok && set {
		if provider, set, ok := dns.block("provider"); ok && set {
			if t, set, ok := provider.str("type"); ok && set {
				needs = append(needs, need{path: path("dns", "provider", "type"), typ: t, kinds: []string{kinds.DNSRecordKind}, what: "The seed's DNS provider type"})
			}
		}
	}
	if backup, set, ok := cfg.block("backup"); ok && set {
		if t, set, ok := backup.str("provider"); ok && set {
			needs = append(needs, need{path: path("backup", "provider"), typ: t, kinds: []string{kinds.BackupBucketKind, kinds.BackupEntryKind}, what: "The seed's backup provider"})
		}
	}
	return needs
}

// isWorkerless reports a shoot known to have no worker pools.
func isWorkerless(shoot *schema.InstanceView) bool {
	workers, known := obj{shoot.Config}.blocks("workers")
	return known && len(workers) == 0
}

// shootNeeds are the extension types a Shoot uses. A shoot with workers needs its provider's
// Infrastructure, ControlPlane and Worker, its networking type's Network and an
// OperatingSystemConfig for every pool's machine image, the image admission defaults from the
// cloud profile when the pool names none; every shoot needs its DNS provider's DNSRecord and its
// extensions' Extension types. workerless reports a shoot without worker pools.
func shootNeeds(l landscape, profiles []declaredProfile, shoot *schema.InstanceView) (needs []need, workerless bool) {
	cfg := obj{shoot.Config}
	workers, workersKnown := cfg.blocks("workers")
	workerless = isWorkerless(shoot)
	if workersKnown && !workerless {
		if provider, set, ok := cfg.block("provider"); ok && set {
			if t, set, ok := provider.str("type"); ok && set {
				needs = append(needs, need{path: path("provider", "type"), typ: t, kinds: []string{kinds.ControlPlaneKind, kinds.InfrastructureKind, kinds.WorkerKind}, what: "The shoot's provider type"})
			}
		}
		if networking, set, ok := cfg.block("networking"); ok && set {
			if t, set, ok := networking.str("type"); ok && set {
				needs = append(needs, need{path: path("networking", "type"), typ: t, kinds: []string{kinds.NetworkKind}, what: "The shoot's networking type"})
			}
		}
	}
	if dns, set, ok := cfg.block("dns_provider"); ok && set {
		if t, set, ok := dns.str("type"); ok && set && t != dnsUnmanaged {
			needs = append(needs, need{path: path("dns_provider", "type"), typ: t, kinds: []string{kinds.DNSRecordKind}, what: "The shoot's DNS provider type"})
		}
	}
	if exts, ok := cfg.blocks("extensions"); ok {
		for i, e := range exts {
			if t, set, ok := e.str("type"); ok && set {
				needs = append(needs, need{path: path("extensions", i, "type"), typ: t, kinds: []string{kinds.ExtensionKind}, what: "The shoot's extension"})
			}
		}
	}
	for i, w := range workers {
		image, set, ok := w.block("machine_image")
		if !ok {
			continue
		}
		if set {
			if name, set, ok := image.str("name"); ok && set {
				needs = append(needs, need{path: path("workers", i, "machine_image", "name"), typ: name, kinds: []string{kinds.OperatingSystemConfigKind}, what: "The pool's machine image"})
			}
			continue
		}
		// Admission defaults the image before the extension types are validated.
		p, state := l.shootProfile(profiles, shoot)
		arch, _, aok := w.str("architecture")
		if state != profileFound || !aok {
			continue
		}
		if img, found, ok := p.defaultImage(arch); ok && found {
			needs = append(needs, need{path: path("workers", i), typ: img.name, kinds: []string{kinds.OperatingSystemConfigKind}, what: "The pool's machine image",
				note: fmt.Sprintf(" (the pool names none, so admission gives it the first image of cloud profile %q)", p.name)})
		}
	}
	return needs, workerless
}

// check reports the needs whose kinds are not all registered for their type, one finding per
// attribute naming every missing kind.
func (r registrations) check(inst *schema.InstanceView, object string, needs []need) []schema.Finding {
	var out []schema.Finding
	for _, n := range needs {
		var missing []string
		for _, k := range n.kinds {
			if !r.has(k, n.typ) {
				missing = append(missing, k)
			}
		}
		if len(missing) == 0 {
			continue
		}
		var offered []string
		var candidates []string
		for _, k := range missing {
			offered = append(offered, fmt.Sprintf("%s: %s", k, list(r.types[k])))
			candidates = append(candidates, r.types[k]...)
		}
		out = append(out, schema.Finding{
			Instance: inst.Addr, Path: n.path, Severity: schema.SeverityError,
			Summary: "Extension type not registered",
			Detail: fmt.Sprintf("%s %q%s needs %s of that type, which no extension of the landscape registers (it registers %s). "+
				"gardener-apiserver's ExtensionValidator admission plugin refuses a %s that uses an extension type no ControllerRegistration registers as primary.%s",
				n.what, n.typ, n.note, kindPhrase(missing), strings.Join(offered, "; "), object, diag.DidYouMean(n.typ, candidates)),
		})
	}
	return out
}

// checkWorkerless reports Extension types of a workerless shoot that do not support such shoots.
func (r registrations) checkWorkerless(inst *schema.InstanceView, needs []need) []schema.Finding {
	var supported []string
	for t := range r.workerless {
		supported = append(supported, t)
	}
	var out []schema.Finding
	for _, n := range needs {
		if !slices.Contains(n.kinds, kinds.ExtensionKind) || !r.has(kinds.ExtensionKind, n.typ) || r.workerless[n.typ] {
			continue
		}
		out = append(out, schema.Finding{
			Instance: inst.Addr, Path: n.path, Severity: schema.SeverityError,
			Summary: "Extension type not supported for workerless shoots",
			Detail: fmt.Sprintf("The extension %q is not registered with workerless_supported, and the shoot has no worker pools (types registered for workerless shoots: %s). "+
				"gardener-apiserver's ExtensionValidator admission plugin refuses a workerless Shoot with such an extension.", n.typ, list(supported)),
		})
	}
	return out
}

// kindPhrase names extension kinds: "a Network extension", "ControlPlane and Worker extensions".
func kindPhrase(kinds []string) string {
	switch len(kinds) {
	case 0:
		return "no extension"
	case 1:
		article := "a"
		if strings.ContainsRune("AEIOU", rune(kinds[0][0])) {
			article = "an"
		}
		return article + " " + kinds[0] + " extension"
	}
	return strings.Join(kinds[:len(kinds)-1], ", ") + " and " + kinds[len(kinds)-1] + " extensions"
}
