package admission

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/declarative-gardener/gardener/engine/diag"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// profileState says what a shoot's cloud_profile names.
type profileState int

const (
	// profileFound: a cloud_profile component of the landscape with that name.
	profileFound profileState = iota
	// profileUnknown: the name, or a cloud profile's name, is not certain (known after apply,
	// or a cloud_profile component failed); nothing is judged.
	profileUnknown
	// profileMissing: no cloud_profile component of the landscape has that name.
	profileMissing
	// profileNamespaced: the shoot names a NamespacedCloudProfile, which no component declares.
	profileNamespaced
)

// declaredProfile is a cloud_profile instance and, unless it failed or its name is not certain,
// what it offers.
type declaredProfile struct {
	object
	profile *profile
}

// profiles reads every cloud_profile instance of the landscape.
func (l landscape) profiles() []declaredProfile {
	var out []declaredProfile
	for _, o := range l.objects(typeCloudProfile, false) {
		d := declaredProfile{object: o}
		if !o.inst.Failed && o.nameKnown {
			d.profile = readProfile(o.inst, o.name)
		}
		out = append(out, d)
	}
	return out
}

// shootProfile finds the cloud profile a shoot names.
func (l landscape) shootProfile(profiles []declaredProfile, shoot *schema.InstanceView) (*profile, profileState) {
	cfg := obj{shoot.Config}
	kind, _, ok := cfg.str("cloud_profile_kind")
	if !ok {
		return nil, profileUnknown
	}
	if kind != "" && kind != "CloudProfile" {
		return nil, profileNamespaced
	}
	name, ok := l.stringAt(shoot, path("cloud_profile"))
	if !ok {
		return nil, profileUnknown
	}
	uncertain := false
	for _, d := range profiles {
		if d.profile == nil {
			uncertain = true
			continue
		}
		if d.name == name {
			return d.profile, profileFound
		}
	}
	if uncertain {
		return nil, profileUnknown
	}
	return nil, profileMissing
}

// checkCloudProfiles mirrors the checks of plugin/pkg/shoot/validator/admission.go at Gardener
// v1.120.0 that compare a new Shoot with its CloudProfile: the provider type, region and zones,
// Kubernetes versions, and each worker pool's machine type, machine image and volume.
// Expiration and usability are rules for new shoots and new worker pools only (an existing one
// keeps what it uses), and the engine cannot tell offline whether a Shoot exists, so they are
// warnings; what the profile does not offer at all is an error.
func checkCloudProfiles(v *schema.LandscapeView) []schema.Finding {
	l := landscape{view: v}
	profiles := l.profiles()
	var out []schema.Finding
	for _, shoot := range l.healthy(schema.KindShoot, string(schema.KindShoot)) {
		p, state := l.shootProfile(profiles, shoot)
		if state != profileFound {
			continue // checkReferences reports a missing profile
		}
		c := shootCheck{l: l, p: p, shoot: shoot, cfg: obj{shoot.Config}}
		c.providerType()
		c.region()
		c.kubernetesVersion(path("kubernetes", "version"), "the shoot's")
		c.workers()
		out = append(out, c.out...)
	}
	return out
}

// shootCheck compares one shoot with its cloud profile.
type shootCheck struct {
	l     landscape
	p     *profile
	shoot *schema.InstanceView
	cfg   obj
	out   []schema.Finding
}

// report adds a finding about the shoot at attribute path p.
func (c *shootCheck) report(p cty.Path, severity schema.Severity, summary, detail string) {
	c.out = append(c.out, schema.Finding{Instance: c.shoot.Addr, Path: p, Severity: severity, Summary: summary, Detail: detail})
}

// validator is how the messages name the admission plugin that would refuse the Shoot.
const validator = "gardener-apiserver's ShootValidator admission plugin"

// providerType: a shoot must use its cloud profile's provider (validateProviderType).
func (c *shootCheck) providerType() {
	provider, set, ok := c.cfg.block("provider")
	if !ok || !set || c.p.typ == "" {
		return
	}
	t, set, ok := provider.str("type")
	if !ok || !set || t == c.p.typ {
		return
	}
	c.report(path("provider", "type"), schema.SeverityError, "Provider type differs from the cloud profile's",
		fmt.Sprintf("The shoot's provider type %q is not the type %q of cloud profile %q. %s refuses a Shoot whose provider type differs from its CloudProfile's.",
			t, c.p.typ, c.p.name, validator))
}

// region: the shoot's region must be one of the profile's (validateRegion).
func (c *shootCheck) region() {
	if !c.p.regionsKnown {
		return
	}
	name, set, ok := c.cfg.str("region")
	if !ok || !set {
		return
	}
	if _, found := c.p.region(name); found {
		return
	}
	var names []string
	for _, r := range c.p.regions {
		names = append(names, r.name)
	}
	c.report(path("region"), schema.SeverityError, "Region not offered",
		fmt.Sprintf("Region %q is not offered by cloud profile %q (offers %s). %s refuses a Shoot in a region its CloudProfile does not list.%s",
			name, c.p.name, list(names), validator, diag.DidYouMean(name, names)))
}

// kubernetesVersion checks the shoot's or a pool's Kubernetes version at p; whose names it.
func (c *shootCheck) kubernetesVersion(p cty.Path, whose string) {
	if !c.p.kubernetesKnown {
		return
	}
	version, ok := stringIn(c.shoot.Config, p)
	if !ok {
		return
	}
	offeredList := offered(c.p.kubernetes, c.l.view.Now)
	o, found := c.p.kubernetesVersion(version)
	if !found {
		c.report(p, schema.SeverityError, "Kubernetes version not offered",
			fmt.Sprintf("Kubernetes version %s is not offered by cloud profile %q (offers %s). %s refuses %s version when its CloudProfile does not list it.",
				version, c.p.name, offeredList, validator, whose))
		return
	}
	if o.expired(c.l.view.Now) {
		c.report(p, schema.SeverityWarning, "Kubernetes version expired",
			fmt.Sprintf("Kubernetes version %s of cloud profile %q expired on %s (offers %s). %s refuses it for a new Shoot or worker pool; an existing one keeps it until maintenance updates it.",
				version, c.p.name, o.expires.UTC().Format("2006-01-02T15:04:05Z07:00"), offeredList, validator))
	}
}

// workers checks every pool against the profile (validateProvider), with its kubelet version: the
// pool's own Kubernetes version, or the control plane's.
func (c *shootCheck) workers() {
	workers, ok := c.cfg.blocks("workers")
	if !ok {
		return
	}
	cp, cpOK := stringIn(c.shoot.Config, path("kubernetes", "version"))
	regionName, _, _ := c.cfg.str("region")
	for i, w := range workers {
		arch, _, archOK := w.str("architecture")
		if !archOK {
			continue
		}
		c.machineType(i, w, arch)
		kubelet, kok := cp, cpOK
		if v, set, ok := w.str("kubernetes_version"); ok && set {
			kubelet, kok = v, true
			c.kubernetesVersion(path("workers", i, "kubernetes_version"), "a worker pool's")
		} else if !ok {
			kok = false
		}
		c.machineImage(i, w, arch, kubelet, kok)
		c.volume(i, w)
		c.zones(i, w, regionName)
	}
}

// machineType: the pool's machine type must be offered, for its architecture and usable
// (validateMachineTypes).
func (c *shootCheck) machineType(i int, w obj, arch string) {
	if !c.p.machineTypesKnown {
		return
	}
	name, set, ok := w.str("machine_type")
	if !ok || !set {
		return
	}
	// What admission lists as the supported types: usable ones of the pool's architecture.
	var supported, all []string
	for _, m := range c.p.machineTypes {
		all = append(all, m.name)
		if m.usable && m.architecture == arch {
			supported = append(supported, m.name)
		}
	}
	p := path("workers", i, "machine_type")
	m, found := c.p.machineType(name)
	switch {
	case !found:
		c.report(p, schema.SeverityError, "Machine type not offered",
			fmt.Sprintf("Machine type %q is not offered by cloud profile %q (offers %s for %s). %s refuses a worker pool whose machine type its CloudProfile does not list.%s",
				name, c.p.name, list(supported), arch, validator, diag.DidYouMean(name, all)))
	case m.architecture != arch:
		c.report(p, schema.SeverityError, "Machine type of another architecture",
			fmt.Sprintf("Machine type %q of cloud profile %q has the CPU architecture %s, not the pool's %s (offers %s for %s). %s refuses a worker pool whose machine type does not support its architecture.",
				name, c.p.name, m.architecture, arch, list(supported), arch, validator))
	case !m.usable:
		c.report(p, schema.SeverityWarning, "Machine type not usable",
			fmt.Sprintf("Machine type %q of cloud profile %q is marked not usable (offers %s for %s). %s refuses it for a new Shoot or worker pool; an existing pool keeps it.",
				name, c.p.name, list(supported), arch, validator))
	}
}

// machineImage checks a pool's machine image and version, or the ones admission defaults it to
// when the pool leaves them out (ensureMachineImage and validateMachineImagesConstraints in
// plugin/pkg/shoot/validator/admission.go at v1.120.0).
func (c *shootCheck) machineImage(i int, w obj, arch, kubelet string, kubeletKnown bool) {
	if !c.p.imagesKnown {
		return
	}
	block, set, ok := w.block("machine_image")
	if !ok {
		return
	}
	var names []string
	for _, img := range c.p.images {
		names = append(names, img.name)
	}
	poolPath := path("workers", i)
	var img image
	if !set {
		found, ok := false, false
		img, found, ok = c.p.defaultImage(arch)
		if !ok {
			return
		}
		if !found {
			// A warning, as for expired versions: admission defaults the image of a new pool only
			// (ensureMachineImage keeps an existing pool's), which an offline check cannot tell.
			c.report(poolPath, schema.SeverityWarning, "No machine image for the architecture",
				fmt.Sprintf("The pool names no machine image, and cloud profile %q has none for the CPU architecture %s to give it (offers %s). %s refuses a new worker pool without a machine image it can default.",
					c.p.name, arch, list(names), validator))
			return
		}
	} else {
		name, nset, ok := block.str("name")
		if !ok || !nset {
			return
		}
		found := false
		img, found = c.p.image(name)
		if !found {
			c.report(path("workers", i, "machine_image", "name"), schema.SeverityError, "Machine image not offered",
				fmt.Sprintf("Machine image %q is not offered by cloud profile %q (offers %s). %s refuses a worker pool whose machine image its CloudProfile does not list.%s",
					name, c.p.name, list(names), validator, diag.DidYouMean(name, names)))
			return
		}
	}
	if !img.known {
		return
	}
	version, vset, vok := "", false, true
	if set {
		version, vset, vok = block.str("version")
	}
	if !vok {
		return
	}
	versionPath := path("workers", i, "machine_image", "version")
	offeredList := offered(img.offeredVersions(arch), c.l.view.Now)
	var chosen imageVersion
	switch parts := strings.Split(strings.TrimPrefix(version, "v"), "."); {
	case vset && len(parts) == 3:
		v, found := img.version(version)
		if !found {
			c.report(versionPath, schema.SeverityError, "Machine image version not offered",
				fmt.Sprintf("Version %s of machine image %q is not offered by cloud profile %q (offers %s for %s). %s refuses a worker pool with a machine image version its CloudProfile does not list.",
					version, img.name, c.p.name, offeredList, arch, validator))
			return
		}
		chosen = v
	default:
		// No version, or only MAJOR or MAJOR.MINOR: admission picks the newest matching one.
		where := versionPath
		if !vset {
			where = path("workers", i, "machine_image")
			if !set {
				where = poolPath
			}
		}
		candidate := img
		if vset {
			major, minor, ok := versionPrefix(parts)
			if !ok {
				c.report(versionPath, schema.SeverityError, "Machine image version not offered",
					fmt.Sprintf("Version %q of machine image %q is neither a version nor a MAJOR or MAJOR.MINOR prefix of one (offers %s for %s). %s refuses a worker pool whose machine image version it cannot read.",
						version, img.name, offeredList, arch, validator))
				return
			}
			candidate.versions = slices.DeleteFunc(slices.Clone(img.versions), func(v imageVersion) bool {
				return v.parsed == nil || int64(v.parsed.Major()) != major || minor >= 0 && int64(v.parsed.Minor()) != minor
			})
		}
		v, found := candidate.latest(arch)
		if !found {
			c.report(where, schema.SeverityWarning, "No machine image version to default to",
				fmt.Sprintf("Machine image %q of cloud profile %q has no version for %s%s that is not a preview, which admission would choose for the pool (offers %s). %s refuses a new worker pool whose machine image version it cannot default.",
					img.name, c.p.name, arch, prefixNote(version, vset), offeredList, validator))
			return
		}
		chosen, versionPath = v, where
	}
	shown := fmt.Sprintf("%s:%s", img.name, chosen.version)
	switch {
	case !chosen.supports(arch):
		c.report(versionPath, schema.SeverityError, "Machine image version of another architecture",
			fmt.Sprintf("Machine image version %s of cloud profile %q is not available for the pool's CPU architecture %s (it is for %s; offers %s for %s). %s refuses a worker pool whose machine image does not support its architecture.",
				shown, c.p.name, arch, list(chosen.architectures), offeredList, arch, validator))
		return
	case chosen.expired(c.l.view.Now):
		c.report(versionPath, schema.SeverityWarning, "Machine image version expired",
			fmt.Sprintf("Machine image version %s of cloud profile %q expired on %s (offers %s for %s). %s refuses it for a new Shoot or worker pool; an existing pool keeps it until maintenance updates it.",
				shown, c.p.name, chosen.expires.UTC().Format("2006-01-02T15:04:05Z07:00"), offeredList, arch, validator))
	}
	if cri, set, ok := w.block("cri"); ok && set {
		if name, nset, ok := cri.str("name"); ok && nset && !slices.Contains(chosen.cri, name) {
			c.report(path("workers", i, "cri", "name"), schema.SeverityError, "Container runtime not supported by the machine image",
				fmt.Sprintf("Machine image version %s of cloud profile %q does not support the container runtime %s (supports %s). %s refuses a worker pool whose machine image does not support its runtime.",
					shown, c.p.name, name, list(chosen.cri), validator))
		}
	}
	if kubeletKnown {
		if allowed, ok := chosen.kubeletAllowed(kubelet); ok && !allowed {
			c.report(versionPath, schema.SeverityError, "Kubelet version not supported by the machine image",
				fmt.Sprintf("Machine image version %s of cloud profile %q supports kubelet versions %s, not the pool's %s. %s refuses a worker pool whose kubelet version its machine image does not support.",
					shown, c.p.name, chosen.kubelet, kubelet, validator))
		}
	}
}

// versionPrefix reads MAJOR or MAJOR.MINOR; minor is -1 when only the major version is given.
func versionPrefix(parts []string) (major, minor int64, ok bool) {
	if len(parts) > 2 || parts[0] == "" {
		return 0, 0, false
	}
	major, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil || major < 0 {
		return 0, 0, false
	}
	minor = -1
	if len(parts) == 2 && parts[1] != "" {
		if minor, err = strconv.ParseInt(parts[1], 10, 64); err != nil || minor < 0 {
			return 0, 0, false
		}
	}
	return major, minor, true
}

// prefixNote names a version prefix in a message.
func prefixNote(version string, set bool) string {
	if !set {
		return ""
	}
	return " matching " + version
}

// volume checks a pool's volume type and size (validateVolumeTypes and validateVolumeSize).
func (c *shootCheck) volume(i int, w obj) {
	vol, set, ok := w.block("volume")
	if !ok || !set || !c.p.volumeTypesKnown {
		return
	}
	typ, tset, ok := vol.str("type")
	if !ok || !tset {
		return
	}
	var supported, all []string
	for _, v := range c.p.volumeTypes {
		all = append(all, v.name)
		if v.usable {
			supported = append(supported, v.name)
		}
	}
	typePath := path("workers", i, "volume", "type")
	vt, found := c.p.volumeType(typ)
	switch {
	case !found:
		c.report(typePath, schema.SeverityError, "Volume type not offered",
			fmt.Sprintf("Volume type %q is not offered by cloud profile %q (offers %s). %s refuses a worker pool whose volume type its CloudProfile does not list.%s",
				typ, c.p.name, list(supported), validator, diag.DidYouMean(typ, all)))
		return
	case !vt.usable:
		c.report(typePath, schema.SeverityWarning, "Volume type not usable",
			fmt.Sprintf("Volume type %q of cloud profile %q is marked not usable (offers %s). %s refuses it for a new Shoot or worker pool; an existing pool keeps it.",
				typ, c.p.name, list(supported), validator))
	}
	size := quantity(vol, "size")
	if size == nil {
		return
	}
	// A machine type's fixed root volume of this type sets the minimum before the volume type.
	min, source := (*resource.Quantity)(nil), ""
	if mtName, set, ok := w.str("machine_type"); ok && set && c.p.machineTypesKnown {
		if m, found := c.p.machineType(mtName); found && m.storageType == typ && m.storageMinSize != nil && size.Cmp(*m.storageMinSize) < 0 {
			min, source = m.storageMinSize, fmt.Sprintf("machine type %q", mtName)
		}
	}
	if min == nil && vt.minSize != nil && size.Cmp(*vt.minSize) < 0 {
		min, source = vt.minSize, fmt.Sprintf("volume type %q", typ)
	}
	if min != nil {
		c.report(path("workers", i, "volume", "size"), schema.SeverityError, "Volume smaller than the cloud profile allows",
			fmt.Sprintf("The volume of %s is smaller than %s, the minimum cloud profile %q sets for %s. %s refuses a worker pool with a smaller volume.",
				size.String(), min.String(), c.p.name, source, validator))
	}
}

// zones checks a pool's zones against its region's (validateZones).
func (c *shootCheck) zones(i int, w obj, regionName string) {
	zones, ok := w.strings("zones")
	if !ok || len(zones) == 0 || !c.p.regionsKnown {
		return
	}
	r, found := c.p.region(regionName)
	if !found || !r.zonesKnown {
		return // the region's own finding comes first
	}
	seen := map[string]bool{}
	for j, z := range zones {
		p := path("workers", i, "zones", j)
		switch {
		case len(r.zones) == 0:
			c.report(p, schema.SeverityError, "Zones not offered",
				fmt.Sprintf("Region %q of cloud profile %q has no zones, so the pool cannot name zone %q. %s refuses zones in a region without any.",
					regionName, c.p.name, z, validator))
		case !slices.Contains(r.zones, z):
			c.report(p, schema.SeverityError, "Zone not offered",
				fmt.Sprintf("Zone %q is not offered in region %q of cloud profile %q (offers %s). %s refuses a worker pool in a zone its region does not list.%s",
					z, regionName, c.p.name, list(r.zones), validator, diag.DidYouMean(z, r.zones)))
		}
		if seen[z] {
			c.report(p, schema.SeverityError, "Duplicate zone",
				fmt.Sprintf("Zone %q appears twice in the pool's zones. %s refuses a worker pool that names a zone twice.", z, validator))
		}
		seen[z] = true
	}
}

// stringIn reads a known, set string at a path of a configuration.
func stringIn(cfg cty.Value, p cty.Path) (string, bool) {
	v, err := p.Apply(cfg)
	if err != nil || v.IsNull() || !v.IsKnown() || v.IsMarked() || !v.Type().Equals(cty.String) {
		return "", false
	}
	return v.AsString(), true
}
