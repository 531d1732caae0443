package admission

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/declarative-gardener/gardener/engine/schema"
)

// Version classifications of a cloud profile (plugin/pkg/shoot/validator/admission.go at
// Gardener v1.120.0 treats preview versions apart: they are never chosen by defaulting).
const (
	classificationPreview    = "preview"
	classificationDeprecated = "deprecated"
)

// profile is what one cloud_profile instance offers, read from its configuration. A list that
// cannot be read (a value known only after apply) is marked unknown, and nothing is judged
// against it.
type profile struct {
	inst *schema.InstanceView
	name string
	// typ is the provider type; "" when unknown.
	typ string

	kubernetes      []offeredVersion
	kubernetesKnown bool

	images      []image
	imagesKnown bool

	machineTypes      []machineType
	machineTypesKnown bool

	volumeTypes      []volumeType
	volumeTypesKnown bool

	regions      []region
	regionsKnown bool
}

// offeredVersion is a Kubernetes version or machine image version of a profile.
type offeredVersion struct {
	version        string
	parsed         *semver.Version
	classification string
	// expires is the expiration date; zero when none is given or it cannot be read.
	expires time.Time
}

func (v offeredVersion) preview() bool { return v.classification == classificationPreview }

// expired reports whether the version's expiration date has passed at now; admission allows an
// expired version only for what already uses it.
func (v offeredVersion) expired(now time.Time) bool {
	return !v.expires.IsZero() && v.expires.Before(now)
}

// image is a machine image with its versions.
type image struct {
	name     string
	versions []imageVersion
	known    bool
}

// imageVersion is one version of a machine image.
type imageVersion struct {
	offeredVersion
	cri, architectures []string
	// kubelet is the kubelet version constraint; "" when the version takes every kubelet.
	kubelet string
}

// supports reports whether the version exists for the CPU architecture.
func (v imageVersion) supports(arch string) bool { return slices.Contains(v.architectures, arch) }

// machineType is a machine type of a profile.
type machineType struct {
	name, architecture string
	usable             bool
	// storageType and storageMinSize are the fixed root volume's type and smallest size.
	storageType    string
	storageMinSize *resource.Quantity
}

// volumeType is a volume type of a profile.
type volumeType struct {
	name    string
	usable  bool
	minSize *resource.Quantity
}

// region is a region with its zones.
type region struct {
	name  string
	zones []string
	// zonesKnown is false when the zones cannot be read.
	zonesKnown bool
}

// readProfile reads a cloud_profile instance.
func readProfile(inst *schema.InstanceView, name string) *profile {
	cfg := obj{inst.Config}
	p := &profile{inst: inst, name: name}
	if t, set, ok := cfg.str("type"); ok && set {
		p.typ = t
	}
	p.kubernetes, p.kubernetesKnown = readVersions(cfg, "kubernetes_version")
	if blocks, ok := cfg.blocks("machine_image"); ok {
		p.imagesKnown = true
		for _, b := range blocks {
			img := image{known: true}
			name, set, ok := b.str("name")
			if !ok || !set {
				p.imagesKnown = false
				continue
			}
			img.name = name
			vblocks, ok := b.blocks("version")
			if !ok {
				img.known = false
			}
			for _, vb := range vblocks {
				ov, ok := readVersion(vb)
				if !ok {
					img.known = false
					continue
				}
				iv := imageVersion{offeredVersion: ov}
				iv.cri, ok = vb.strings("cri")
				iv.architectures, _ = vb.strings("architectures")
				if c, set, cok := vb.str("kubelet_version_constraint"); cok && set {
					iv.kubelet = c
				}
				if !ok {
					img.known = false
				}
				img.versions = append(img.versions, iv)
			}
			p.images = append(p.images, img)
		}
	}
	if blocks, ok := cfg.blocks("machine_type"); ok {
		p.machineTypesKnown = true
		for _, b := range blocks {
			name, set, ok := b.str("name")
			arch, _, aok := b.str("architecture")
			usable, uok := b.boolean("usable", true)
			if !ok || !set || !aok || !uok {
				p.machineTypesKnown = false
				continue
			}
			mt := machineType{name: name, architecture: arch, usable: usable}
			if storage, set, ok := b.block("storage"); ok && set {
				mt.storageType, _, _ = storage.str("type")
				mt.storageMinSize = quantity(storage, "min_size")
			}
			p.machineTypes = append(p.machineTypes, mt)
		}
	}
	if blocks, ok := cfg.blocks("volume_type"); ok {
		p.volumeTypesKnown = true
		for _, b := range blocks {
			name, set, ok := b.str("name")
			usable, uok := b.boolean("usable", true)
			if !ok || !set || !uok {
				p.volumeTypesKnown = false
				continue
			}
			p.volumeTypes = append(p.volumeTypes, volumeType{name: name, usable: usable, minSize: quantity(b, "min_size")})
		}
	}
	if blocks, ok := cfg.blocks("region"); ok {
		p.regionsKnown = true
		for _, b := range blocks {
			name, set, ok := b.str("name")
			if !ok || !set {
				p.regionsKnown = false
				continue
			}
			zones, zok := b.strings("zones")
			p.regions = append(p.regions, region{name: name, zones: zones, zonesKnown: zok})
		}
	}
	return p
}

// readVersions reads repeated version blocks labelled with their version.
func readVersions(cfg obj, name string) ([]offeredVersion, bool) {
	blocks, ok := cfg.blocks(name)
	if !ok {
		return nil, false
	}
	var out []offeredVersion
	for _, b := range blocks {
		v, vok := readVersion(b)
		if !vok {
			ok = false
			continue
		}
		out = append(out, v)
	}
	return out, ok
}

// readVersion reads one version block. A version that is not semantic is kept without parsed
// form: it can still be named, but never chosen by defaulting.
func readVersion(b obj) (offeredVersion, bool) {
	version, set, ok := b.str("version")
	class, _, cok := b.str("classification")
	exp, expSet, eok := b.str("expiration_date")
	if !ok || !set || !cok || !eok {
		return offeredVersion{}, false
	}
	v := offeredVersion{version: version, classification: class}
	if parsed, err := semver.NewVersion(version); err == nil {
		v.parsed = parsed
	}
	if expSet {
		// An expiration date that does not parse is the profile's own problem; it is not
		// taken to have passed.
		if t, err := time.Parse(time.RFC3339, exp); err == nil {
			v.expires = t
		}
	}
	return v, true
}

// quantity reads a quantity attribute; nil when unset or unreadable.
func quantity(b obj, name string) *resource.Quantity {
	s, set, ok := b.str(name)
	if !ok || !set {
		return nil
	}
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return nil
	}
	return &q
}

// kubernetesVersion returns the offered Kubernetes version.
func (p *profile) kubernetesVersion(v string) (offeredVersion, bool) {
	for _, o := range p.kubernetes {
		if o.version == v {
			return o, true
		}
	}
	return offeredVersion{}, false
}

// image returns the machine image of that name.
func (p *profile) image(name string) (image, bool) {
	for _, i := range p.images {
		if i.name == name {
			return i, true
		}
	}
	return image{}, false
}

func (p *profile) machineType(name string) (machineType, bool) {
	for _, m := range p.machineTypes {
		if m.name == name {
			return m, true
		}
	}
	return machineType{}, false
}

func (p *profile) volumeType(name string) (volumeType, bool) {
	for _, v := range p.volumeTypes {
		if v.name == name {
			return v, true
		}
	}
	return volumeType{}, false
}

func (p *profile) region(name string) (region, bool) {
	for _, r := range p.regions {
		if r.name == name {
			return r, true
		}
	}
	return region{}, false
}

// defaultImage is the machine image admission gives a worker pool without one: the first image
// of the profile with a version for the architecture (getDefaultMachineImage in
// plugin/pkg/shoot/validator/admission.go at v1.120.0); ok is false when the images are unknown.
func (p *profile) defaultImage(arch string) (img image, found, ok bool) {
	if !p.imagesKnown {
		return image{}, false, false
	}
	for _, i := range p.images {
		if !i.known {
			return image{}, false, false
		}
		if slices.ContainsFunc(i.versions, func(v imageVersion) bool { return v.supports(arch) }) {
			return i, true, true
		}
	}
	return image{}, false, true
}

// latest is the version admission picks for a worker pool that names an image without a
// version: the newest version for the architecture that is not a preview, a non-deprecated one
// if there is any (DetermineLatestMachineImageVersion in pkg/apis/core/helper at v1.120.0).
func (i image) latest(arch string) (imageVersion, bool) {
	var best, bestSupported *imageVersion
	for k := range i.versions {
		v := &i.versions[k]
		if !v.supports(arch) || v.preview() || v.parsed == nil {
			continue
		}
		if best == nil || v.parsed.GreaterThan(best.parsed) {
			best = v
		}
		if v.classification != "" && v.classification != classificationDeprecated &&
			(bestSupported == nil || v.parsed.GreaterThan(bestSupported.parsed)) {
			bestSupported = v
		}
	}
	switch {
	case bestSupported != nil:
		return *bestSupported, true
	case best != nil:
		return *best, true
	}
	return imageVersion{}, false
}

// version returns the image's version.
func (i image) version(v string) (imageVersion, bool) {
	for _, o := range i.versions {
		if o.version == v {
			return o, true
		}
	}
	return imageVersion{}, false
}

// offered lists versions for a message, the way admission lists what a new shoot may use:
// versions that have not expired, previews marked; when every version has expired, all of them,
// marked expired.
func offered(versions []offeredVersion, now time.Time) string {
	var live, all []string
	for _, v := range sortVersions(versions) {
		text := v.version
		if v.preview() {
			text += " (preview)"
		}
		if v.expired(now) {
			all = append(all, v.version+" (expired)")
			continue
		}
		live = append(live, text)
		all = append(all, text)
	}
	if len(live) > 0 {
		return strings.Join(live, ", ")
	}
	if len(all) == 0 {
		return "none"
	}
	return strings.Join(all, ", ")
}

// sortVersions sorts versions ascending, semantic versions by their order and others by name
// after them, so that messages are the same on every run.
func sortVersions(versions []offeredVersion) []offeredVersion {
	out := slices.Clone(versions)
	slices.SortStableFunc(out, func(a, b offeredVersion) int {
		switch {
		case a.parsed != nil && b.parsed != nil:
			return a.parsed.Compare(b.parsed)
		case a.parsed != nil:
			return -1
		case b.parsed != nil:
			return 1
		}
		return strings.Compare(a.version, b.version)
	})
	return out
}

// offeredVersions returns the image's versions for the architecture (all when arch is "").
func (i image) offeredVersions(arch string) []offeredVersion {
	var out []offeredVersion
	for _, v := range i.versions {
		if arch == "" || v.supports(arch) {
			out = append(out, v.offeredVersion)
		}
	}
	return out
}

// kubeletAllowed checks a kubelet version against the image version's constraint; ok is false
// when either does not parse, and then nothing is judged.
func (v imageVersion) kubeletAllowed(kubelet string) (allowed, ok bool) {
	if v.kubelet == "" {
		return true, true
	}
	c, err := semver.NewConstraint(v.kubelet)
	if err != nil {
		return false, false
	}
	k, err := semver.NewVersion(kubelet)
	if err != nil {
		return false, false
	}
	return c.Check(k), true
}

// list joins names for a message, sorted; "none" for none.
func list(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	s := slices.Clone(names)
	slices.Sort(s)
	return strings.Join(slices.Compact(s), ", ")
}

// quoteList quotes and joins names, sorted.
func quoteList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	s := slices.Clone(names)
	slices.Sort(s)
	s = slices.Compact(s)
	for i := range s {
		s[i] = fmt.Sprintf("%q", s[i])
	}
	return strings.Join(s, ", ")
}
