package apply

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/planner"
)

// --allow-destroy follows address.Address.Matches: a block address allows its instances and
// their parts, an instance address the instance and its parts, a part's address that part.
func TestAllowed(t *testing.T) {
	components := []string{
		"shoot.dev", `shoot.dev.etcd_main`, `shoot.qa["a"]`, `shoot.qa["a"].etcd_main`, `shoot.qa["a.b"].etcd_main`, `shoot.qa["b"].etcd_main`,
		"shoot.qa2", "component.manifests.crd", "component.manifests.crd[1]", "component.manifests.crds",
	}
	out := &planner.Outcome{Result: &plan.Result{Plan: &plan.Plan{}}}
	for _, c := range components {
		out.Result.Plan.Components = append(out.Result.Plan.Components, &plan.Component{Address: c})
	}
	allows := func(addrs ...string) []string {
		var got []string
		for _, c := range components {
			if allowed(out, addrs)[c] {
				got = append(got, c)
			}
		}
		return got
	}
	for _, tt := range []struct {
		allow []string
		want  []string
	}{
		{[]string{"shoot.dev"}, []string{"shoot.dev", "shoot.dev.etcd_main"}},
		{[]string{"shoot.qa"}, []string{`shoot.qa["a"]`, `shoot.qa["a"].etcd_main`, `shoot.qa["a.b"].etcd_main`, `shoot.qa["b"].etcd_main`}},
		{[]string{`shoot.qa["a"]`}, []string{`shoot.qa["a"]`, `shoot.qa["a"].etcd_main`}},
		{[]string{`shoot.qa["b"].etcd_main`, "component.manifests.crd"}, []string{`shoot.qa["b"].etcd_main`, "component.manifests.crd", "component.manifests.crd[1]"}},
		{[]string{"component.manifests"}, nil},
		{[]string{"shoot.q"}, nil},
	} {
		assert.Equal(t, tt.want, allows(tt.allow...), tt.allow)
	}
}
