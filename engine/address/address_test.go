package address

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/engine/schema"
)

func TestParse(t *testing.T) {
	shoot := func(name string, key Key, part string) Address {
		return Address{Kind: schema.KindShoot, Name: name, Key: key, Part: part}
	}
	component := func(typ, name string, key Key) Address {
		return Address{Kind: schema.KindComponent, Type: typ, Name: name, Key: key}
	}
	tests := []struct {
		in   string
		want Address
		// canonical is what String writes when it differs from in.
		canonical string
	}{
		{in: "garden.local", want: Address{Kind: schema.KindGarden, Name: "local"}},
		{in: "seed.a", want: Address{Kind: schema.KindSeed, Name: "a"}},
		{in: "shoot.my-shoot", want: shoot("my-shoot", Key{}, "")},
		{in: `shoot.local["dev"]`, want: shoot("local", StringKey("dev"), "")},
		{in: "shoot.dev[0]", want: shoot("dev", IntKey(0), "")},
		{in: "shoot.dev[10]", want: shoot("dev", IntKey(10), "")},
		{in: `shoot.local["7"]`, want: shoot("local", StringKey("7"), ""), canonical: `shoot.local["7"]`},
		{in: `shoot.local[""]`, want: shoot("local", StringKey(""), "")},
		{in: "component.manifests.crds", want: component("manifests", "crds", Key{})},
		{in: "component.manifests.crds[0]", want: component("manifests", "crds", IntKey(0))},
		{in: `component.helm_release.cert_manager["a"]`, want: component("helm_release", "cert_manager", StringKey("a"))},
		{in: "component.garden.x", want: component("garden", "x", Key{})},

		// Quoted keys hold dots, brackets, quotes and escapes.
		{in: `shoot.local["a.b"]`, want: shoot("local", StringKey("a.b"), "")},
		{in: `shoot.local["a]b.c"].etcd`, want: shoot("local", StringKey("a]b.c"), "etcd")},
		{in: `shoot.local["[0]"]`, want: shoot("local", StringKey("[0]"), "")},
		{in: `shoot.local["say \"hi\""]`, want: shoot("local", StringKey(`say "hi"`), "")},
		{in: `shoot.local["back\\slash"]`, want: shoot("local", StringKey(`back\slash`), "")},
		{in: `shoot.local["tab\there"]`, want: shoot("local", StringKey("tab\there"), "")},
		{in: `shoot.local["é"]`, want: shoot("local", StringKey("é"), "")},
		{in: `shoot.local["\u00e9"]`, want: shoot("local", StringKey("é"), ""), canonical: `shoot.local["é"]`},
		{in: `shoot.local["\x41"]`, want: shoot("local", StringKey("A"), ""), canonical: `shoot.local["A"]`},

		// Parts of composite instances.
		{in: "garden.local.virtual_garden_etcd_main", want: Address{Kind: schema.KindGarden, Name: "local", Part: "virtual_garden_etcd_main"}},
		{in: `shoot.local["dev"].kube_apiserver`, want: shoot("local", StringKey("dev"), "kube_apiserver")},
		{in: "seed.s[2].gardenlet", want: Address{Kind: schema.KindSeed, Name: "s", Key: IntKey(2), Part: "gardenlet"}},
		// Parts of a component that renders parts (an extension's installation on a seed).
		{in: "component.extension.calico.installation_local", want: Address{Kind: schema.KindComponent, Type: "extension", Name: "calico", Part: "installation_local"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			want := tt.in
			if tt.canonical != "" {
				want = tt.canonical
			}
			assert.Equal(t, want, got.String())
			again, err := Parse(got.String())
			require.NoError(t, err)
			assert.Equal(t, got, again, "String writes what Parse reads")
		})
	}
}

func TestParseMalformed(t *testing.T) {
	tests := []struct{ in, err string }{
		{"", `"" is not an address: it names no garden, seed, shoot or component block`},
		{"other.thing.x", `"other.thing.x" is not an address: it names no garden, seed, shoot or component block`},
		{"var.x", `"var.x" is not an address: it names no garden, seed, shoot or component block`},
		{" shoot.local", `it names no garden, seed, shoot or component block`},
		{"shoot", `"shoot" is not an address: a shoot address names the block's name`},
		{"shoot.", `"" is not a name`},
		{"shoot..x", `"" is not a name`},
		{"shoot.9x", `"9x" is not a name`},
		{"shoot.a b", `"a b" is not a name`},
		{"component.manifests", `a component address names the component's type and name`},
		{"component.manifests[0]", `a component address names the component's type and name`},
		{`shoot.local["dev`, `its instance key is not a closed quoted string`},
		{`shoot.local["dev]`, `its instance key is not a closed quoted string`},
		{`shoot.local["dev"`, `its instance key is not closed by ]`},
		{`shoot.local["dev" ]`, `its instance key is not closed by ]`},
		{`shoot.local[0`, `its instance key is not closed by ]`},
		{`shoot.local[dev]`, `its instance key dev is neither a quoted string nor a whole number`},
		{`shoot.local[-1]`, `its instance key -1 is neither a quoted string nor a whole number`},
		{`shoot.local[1.5]`, `its instance key 1.5 is neither a quoted string nor a whole number`},
		{`shoot.local[01]`, `its instance key 01 is neither a quoted string nor a whole number`},
		{`shoot.local[]`, `its instance key  is neither a quoted string nor a whole number`},
		{`shoot.local['a']`, `its instance key 'a' is neither a quoted string nor a whole number`},
		{`shoot.local["a"]x`, `"x" follows it`},
		{`shoot.local["a"]["b"]`, `"[\"b\"]" follows it`},
		{`shoot.local["a"].`, `"" is not the name of a part`},
		{"shoot.local.a.b", `".b" follows it`},
		{"shoot.local.a[0]", `"[0]" follows it`},
		{"shoot.local.9", `"9" is not the name of a part`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := Parse(tt.in)
			assert.ErrorContains(t, err, tt.err)
		})
	}
}

func TestBlockAndParent(t *testing.T) {
	tests := []struct {
		in, block, parent string // parent empty: no part
	}{
		{"garden.local", "garden.local", ""},
		{"garden.local.vpa", "garden.local", "garden.local"},
		{`shoot.dev["a.b"]`, "shoot.dev", ""},
		{`shoot.dev["a.b"].etcd`, "shoot.dev", `shoot.dev["a.b"]`},
		{"seed.s[2].gardenlet", "seed.s", "seed.s[2]"},
		{"component.manifests.a", "component.manifests.a", ""},
		{"component.manifests.a[3]", "component.manifests.a", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			a, err := Parse(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.block, a.Block().String())
			parent, ok := a.Parent()
			assert.Equal(t, tt.parent != "", ok)
			assert.Equal(t, tt.parent != "", a.IsPart())
			if ok {
				assert.Equal(t, tt.parent, parent.String())
			} else {
				assert.Equal(t, a, parent, "no part: the address itself")
			}
		})
	}
}

// The --target and --allow-destroy rule: a block address stands for its instances and their
// parts, an instance address for the instance and its parts, a part's address for the part.
func TestMatches(t *testing.T) {
	tests := []struct {
		target, addr string
		want         bool
	}{
		{"shoot.local", "shoot.local", true},
		{"shoot.local", `shoot.local["a"]`, true},
		{"shoot.local", "shoot.local[0]", true},
		{"shoot.local", "shoot.local.etcd", true},
		{"shoot.local", `shoot.local["a"].etcd`, true},
		{"shoot.local", "shoot.local2", false},
		{"shoot.local", "shoot.loca", false},
		{"shoot.local", "seed.local", false},
		{"shoot.local", "component.shoot.local", false},
		{`shoot.local["a"]`, `shoot.local["a"]`, true},
		{`shoot.local["a"]`, `shoot.local["a"].etcd`, true},
		{`shoot.local["a"]`, `shoot.local["b"]`, false},
		{`shoot.local["a"]`, `shoot.local["a.b"]`, false},
		{`shoot.local["a"]`, "shoot.local", false},
		{`shoot.local["0"]`, "shoot.local[0]", false},
		{`shoot.local["a"].etcd`, `shoot.local["a"].etcd`, true},
		{`shoot.local["a"].etcd`, `shoot.local["a"].etcd_events`, false},
		{`shoot.local["a"].etcd`, `shoot.local["a"]`, false},
		{"shoot.local.etcd", `shoot.local["a"].etcd`, false},
		{"component.manifests.a", "component.manifests.a[1]", true},
		{"component.manifests.a[1]", "component.manifests.a[1]", true},
		{"component.manifests.a[1]", "component.manifests.a[10]", false},
		{"component.manifests.a", "component.manifests.ab", false},
		{"component.manifests.a", "component.helm_release.a", false},
	}
	for _, tt := range tests {
		t.Run(tt.target+" "+tt.addr, func(t *testing.T) {
			target, err := Parse(tt.target)
			require.NoError(t, err)
			addr, err := Parse(tt.addr)
			require.NoError(t, err)
			assert.Equal(t, tt.want, target.Matches(addr))
		})
	}
}

func TestKeyCompare(t *testing.T) {
	ordered := []Key{{}, IntKey(0), IntKey(2), IntKey(10), StringKey(""), StringKey("10"), StringKey("2"), StringKey("a")}
	for i, a := range ordered {
		for j, b := range ordered {
			want := 0
			switch {
			case i < j:
				want = -1
			case i > j:
				want = 1
			}
			assert.Equal(t, want, a.Compare(b), "%s %s", a, b)
		}
	}
	assert.Equal(t, `"a"`, StringKey("a").Literal())
	assert.Equal(t, "3", IntKey(3).Literal())
	assert.Empty(t, Key{}.Literal())
	assert.True(t, Key{}.IsZero())
	assert.False(t, StringKey("").IsZero(), "an empty string is a key")
}
