package admission

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/stretchr/testify/assert"
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/schema"
)

func imageVersionOf(v, class string, archs ...string) imageVersion {
	if len(archs) == 0 {
		archs = []string{"amd64"}
	}
	return imageVersion{offeredVersion: offeredVersion{version: v, parsed: semver.MustParse(v), classification: class}, architectures: archs}
}

// The version admission defaults a pool's machine image to: the newest that is not a preview,
// preferring versions classified and not deprecated, for the pool's architecture.
func TestImageLatest(t *testing.T) {
	tests := map[string]struct {
		versions []imageVersion
		arch     string
		want     string
		found    bool
	}{
		"newest supported":             {[]imageVersion{imageVersionOf("1.0.0", "supported"), imageVersionOf("1.2.0", "supported")}, "amd64", "1.2.0", true},
		"previews are never defaulted": {[]imageVersion{imageVersionOf("1.0.0", "supported"), imageVersionOf("2.0.0", "preview")}, "amd64", "1.0.0", true},
		"deprecated only when nothing else": {
			[]imageVersion{imageVersionOf("1.0.0", "supported"), imageVersionOf("1.5.0", "deprecated")}, "amd64", "1.0.0", true,
		},
		"newest deprecated":                {[]imageVersion{imageVersionOf("1.0.0", "deprecated"), imageVersionOf("1.5.0", "deprecated")}, "amd64", "1.5.0", true},
		"unclassified count as the newest": {[]imageVersion{imageVersionOf("1.0.0", ""), imageVersionOf("1.5.0", "")}, "amd64", "1.5.0", true},
		"other architecture":               {[]imageVersion{imageVersionOf("1.0.0", "supported", "arm64")}, "amd64", "", false},
		"only previews":                    {[]imageVersion{imageVersionOf("2.0.0", "preview")}, "amd64", "", false},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			v, found := image{name: "x", versions: tt.versions, known: true}.latest(tt.arch)
			assert.Equal(t, tt.found, found)
			assert.Equal(t, tt.want, v.version)
		})
	}
}

func TestVersionPrefix(t *testing.T) {
	tests := map[string]struct {
		parts        []string
		major, minor int64
		ok           bool
	}{
		"major":       {[]string{"1"}, 1, -1, true},
		"major minor": {[]string{"1", "2"}, 1, 2, true},
		"empty":       {[]string{""}, 0, 0, false},
		"not numbers": {[]string{"a", "b"}, 0, 0, false},
		"too long":    {[]string{"1", "2", "3", "4"}, 0, 0, false},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			major, minor, ok := versionPrefix(tt.parts)
			assert.Equal(t, tt.ok, ok)
			if ok {
				assert.Equal(t, tt.major, major)
				assert.Equal(t, tt.minor, minor)
			}
		})
	}
}

func TestKubeletAllowed(t *testing.T) {
	tests := map[string]struct {
		constraint, kubelet string
		allowed, ok         bool
	}{
		"no constraint":         {"", "1.31.1", true, true},
		"inside":                {">= 1.30", "1.31.1", true, true},
		"outside":               {"< 1.30", "1.31.1", false, true},
		"range":                 {">= 1.28, < 1.31", "1.30.2", true, true},
		"unreadable constraint": {"newest", "1.31.1", false, false},
		"unreadable version":    {">= 1.30", "latest", false, false},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			allowed, ok := imageVersion{kubelet: tt.constraint}.kubeletAllowed(tt.kubelet)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.allowed, allowed)
		})
	}
}

// Offered versions are listed as admission lists them for a new shoot: ascending, previews
// marked, expired ones left out unless nothing else is offered.
func TestOffered(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	past := now.Add(-time.Hour)
	v := func(s, class string, expires time.Time) offeredVersion {
		return offeredVersion{version: s, parsed: semver.MustParse(s), classification: class, expires: expires}
	}
	assert.Equal(t, "1.9.0, 1.10.0, 1.11.0 (preview)", offered([]offeredVersion{
		v("1.11.0", "preview", time.Time{}), v("1.10.0", "", time.Time{}), v("1.9.0", "", time.Time{}), v("1.8.0", "", past),
	}, now))
	assert.Equal(t, "1.8.0 (expired)", offered([]offeredVersion{v("1.8.0", "", past)}, now))
	assert.Equal(t, "none", offered(nil, now))
	assert.Equal(t, "1.0.0, 0.1", offered([]offeredVersion{{version: "0.1"}, v("1.0.0", "", time.Time{})}, now), "unparsable versions go last")
}

func TestLookup(t *testing.T) {
	inst := &schema.InstanceView{Addr: "component.credentials_binding.x"}
	known := func(name, namespace string) object {
		return object{inst: inst, name: name, namespace: namespace, nameKnown: true, namespaceKnown: true}
	}
	tests := map[string]struct {
		objects []object
		want    lookupState
	}{
		"found":                      {[]object{known("a", "garden-dev")}, lookupFound},
		"other name in namespace":    {[]object{known("b", "garden-dev")}, lookupMissing},
		"only in other namespaces":   {[]object{known("a", "garden-qa")}, lookupMissingUnmanaged},
		"none declared":              {nil, lookupMissingUnmanaged},
		"a namespace not certain":    {[]object{known("b", "garden-dev"), {inst: inst, name: "c", nameKnown: true}}, lookupUncertain},
		"found before the uncertain": {[]object{known("a", "garden-dev"), {inst: inst}}, lookupFound},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			_, state := lookup(tt.objects, "a", "garden-dev")
			assert.Equal(t, tt.want, state)
		})
	}
}

// Reading never panics and never yields an uncertain value, whatever the configuration holds.
func TestObjReadsOnlyCertainValues(t *testing.T) {
	secret := cty.StringVal("s3cr3t").Mark("sensitive")
	cfg := obj{cty.ObjectVal(map[string]cty.Value{
		"known":    cty.StringVal("a"),
		"null":     cty.NullVal(cty.String),
		"unknown":  cty.UnknownVal(cty.String),
		"marked":   secret,
		"number":   cty.NumberIntVal(1),
		"list":     cty.ListVal([]cty.Value{cty.StringVal("x"), cty.UnknownVal(cty.String)}),
		"blocks":   cty.UnknownVal(cty.List(cty.EmptyObject)),
		"flag":     cty.True,
		"unset":    cty.NullVal(cty.Bool),
		"single":   cty.NullVal(cty.EmptyObject),
		"dynamics": cty.DynamicVal,
	})}
	s, set, ok := cfg.str("known")
	assert.Equal(t, []any{"a", true, true}, []any{s, set, ok})
	_, set, ok = cfg.str("null")
	assert.Equal(t, []any{false, true}, []any{set, ok})
	for _, name := range []string{"unknown", "marked", "number", "dynamics", "absent"} {
		_, _, ok := cfg.str(name)
		assert.Equal(t, name == "absent", ok, name) // an absent attribute reads as unset
	}
	_, ok = cfg.strings("list")
	assert.False(t, ok)
	_, ok = cfg.blocks("blocks")
	assert.False(t, ok)
	b, ok := cfg.boolean("unset", true)
	assert.True(t, b && ok)
	_, set, ok = cfg.block("single")
	assert.True(t, ok && !set)

	for _, v := range []cty.Value{cty.NilVal, cty.DynamicVal, cty.NullVal(cty.DynamicPseudoType), cty.StringVal("x"), cty.ObjectVal(map[string]cty.Value{"a": secret}).Mark("sensitive")} {
		o := obj{v}
		_, _, ok := o.str("a")
		assert.False(t, ok)
		_, ok = o.blocks("a")
		assert.False(t, ok)
	}
}

// Rules judge nothing about instances they cannot read: failed blocks, unknown or odd values.
func TestRulesOnUnreadableInstances(t *testing.T) {
	odd := []cty.Value{cty.DynamicVal, cty.NullVal(cty.DynamicPseudoType), cty.StringVal("x"), cty.EmptyObjectVal,
		cty.ObjectVal(map[string]cty.Value{"workers": cty.StringVal("x"), "provider": cty.NumberIntVal(1), "cloud_profile": cty.UnknownVal(cty.String)})}
	var view schema.LandscapeView
	for i, v := range odd {
		for _, kt := range []struct {
			kind schema.Kind
			typ  string
		}{{schema.KindShoot, "shoot"}, {schema.KindSeed, "seed"}, {schema.KindComponent, typeCloudProfile}, {schema.KindComponent, typeControllerRegistration}, {schema.KindComponent, typeCredentialsBinding}} {
			view.Instances = append(view.Instances, &schema.InstanceView{Addr: string(kt.kind) + "." + kt.typ + string(rune('a'+i)), Kind: kt.kind, Type: kt.typ, Name: "x", Config: v})
		}
	}
	slices.SortFunc(view.Instances, func(a, b *schema.InstanceView) int { return strings.Compare(a.Addr, b.Addr) })
	for _, rule := range Rules() {
		var findings []schema.Finding
		assert.NotPanics(t, func() { findings = rule.Func(&view) }, rule.Name)
		assert.Empty(t, findings, rule.Name)
	}
}
