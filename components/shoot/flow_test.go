package shoot

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/declarative-gardener/gardener/engine/render"
)

// waitsFor asserts that part waits for on, directly or through other parts.
func waitsFor(t *testing.T, ps map[string]render.Component, part, on string) {
	t.Helper()
	assert.True(t, reaches(t, ps, part, on), "%s waits for %s", part, on)
}

// doesNotWaitFor asserts that part waits for on neither directly nor through other parts.
func doesNotWaitFor(t *testing.T, ps map[string]render.Component, part, on string) {
	t.Helper()
	assert.False(t, reaches(t, ps, part, on), "%s does not wait for %s", part, on)
}

// reaches is whether on is among the dependencies of part, followed transitively.
func reaches(t *testing.T, ps map[string]render.Component, part, on string) bool {
	t.Helper()
	require.Contains(t, ps, part)
	require.Contains(t, ps, on)
	seen := map[string]bool{}
	next := append([]string{}, ps[part].DependsOn...)
	for len(next) > 0 {
		d := next[0]
		next = next[1:]
		if d == on {
			return true
		}
		if !seen[d] {
			seen[d] = true
			next = append(next, ps[d].DependsOn...)
		}
	}
	return false
}

// forDeletion are the parts with the dependencies deleting the shoot follows
// (DeletionDependsOn where set): a part is deleted before those it waits for here.
func forDeletion(ps map[string]render.Component) map[string]render.Component {
	out := map[string]render.Component{}
	for name, p := range ps {
		if p.DeletionDependsOn != nil {
			p.DependsOn = p.DeletionDependsOn
		}
		out[name] = p
	}
	return out
}

// Deleting a shoot follows gardenlet's delete flow (pkg/gardenlet/controller/shoot/shoot/reconciler_delete.go
// in gardener/gardener v1.120.0), awake or hibernated: the Worker before machine-controller-manager,
// the OperatingSystemConfigs and the system components' ManagedResources, the ControlPlane before the kube-apiserver and the Infrastructure, the
// kube-apiserver before gardener-resource-manager, the DNS records and the etcds.
func TestDeleteFlowOrder(t *testing.T) {
	for _, hibernate := range []bool{false, true} {
		ps := parts(t, values(func(v *Values) {
			withDNS(v)
			if hibernate {
				hibernated(v)
			}
		}))
		del := forDeletion(ps)
		for _, pair := range [][2]string{
			{"worker", "machine_controller_manager"},
			{"worker", "operating_system_configs"},
			{"operating_system_configs", "control_plane"},
			{"network", "control_plane"},
			{"control_plane", "kube_apiserver"},
			{"control_plane", "infrastructure"},
			{"worker", "system_components"},
			{"worker", "kube_apiserver_shoot_resources"},
			{"system_components", "kube_apiserver"},
			{"kube_apiserver", "gardener_resource_manager"},
			{"kube_apiserver", "dns_record_internal"},
			{"kube_apiserver", "dns_record_external"},
			{"kube_apiserver", "kube_apiserver_service"},
			{"kube_apiserver", "etcd_main"},
			{"kube_apiserver", "etcd_events"},
		} {
			// pair[0] is deleted first: it waits for pair[1] in the deletion order.
			waitsFor(t, del, pair[0], pair[1])
		}
		doesNotWaitFor(t, del, "gardener_resource_manager", "kube_apiserver")
		doesNotWaitFor(t, del, "dns_record_internal", "kube_apiserver")
		seq := deletionOrder(t, ps)
		before(t, seq, "kube_apiserver", "gardener_resource_manager")
		before(t, seq, "kube_apiserver", "dns_record_internal")
		assert.Equal(t, []string{"namespace", "shoot"}, seq[len(seq)-2:], "the namespace goes last, then the Shoot")
	}
}
