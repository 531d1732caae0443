package extension

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/controllerregistration"
	"github.com/declarative-gardener/gardener/engine/render"
)

// liveShoot is a Shoot of the virtual garden as the decision reads it.
func liveShoot(name, specSeed, statusSeed string, spec map[string]any) unstructured.Unstructured {
	if specSeed != "" {
		spec["seedName"] = specSeed
	}
	obj := map[string]any{"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot",
		"metadata": map[string]any{"name": name, "namespace": "garden-dev"}, "spec": spec}
	if statusSeed != "" {
		obj["status"] = map[string]any{"seedName": statusSeed}
	}
	return unstructured.Unstructured{Object: obj}
}

// workerShoot uses the local provider with one pool of image gardenlinux and runtime gvisor.
func workerShoot() map[string]any {
	return map[string]any{
		"provider": map[string]any{"type": "local", "workers": []any{map[string]any{
			"name": "a", "machine": map[string]any{"image": map[string]any{"name": "gardenlinux"}},
			"cri": map[string]any{"name": "containerd", "containerRuntimes": []any{map[string]any{"type": "gvisor"}}},
		}}},
		"networking": map[string]any{"type": "calico"},
		"dns":        map[string]any{"providers": []any{map[string]any{"type": "aws-route53"}}},
		"extensions": []any{map[string]any{"type": "shoot-dns-service"}, map[string]any{"type": "audit", "disabled": true}},
	}
}

// The kinds and types of a live Shoot, from the fields that name extension types.
func TestShootTypes(t *testing.T) {
	shoot := liveShoot("a", "local", "", workerShoot())
	types, disabled := shootTypes(&shoot)
	assert.Equal(t, []string{
		"ContainerRuntime/gvisor", "ControlPlane/local", "DNSRecord/aws-route53", "Extension/shoot-dns-service",
		"Infrastructure/local", "Network/calico", "OperatingSystemConfig/gardenlinux", "Worker/local",
	}, types)
	assert.Equal(t, []string{"audit"}, disabled)

	workerless := liveShoot("b", "local", "", map[string]any{"provider": map[string]any{"type": "local"}, "networking": map[string]any{"type": "calico"}})
	types, _ = shootTypes(&workerless)
	assert.Empty(t, types, "a shoot without workers needs no worker kinds")
}

// demandInput answers the decision's reads: the Shoots of the virtual garden and the
// ControllerInstallations by name.
func demandInput(shoots []unstructured.Unstructured, installations map[string]map[string]any) render.Input {
	return render.Input{
		List: func(ref render.ListRef) ([]unstructured.Unstructured, error) {
			if ref.Resource != "shoots" || ref.Cluster != "virtual" {
				return nil, errors.New("unexpected list " + ref.Key())
			}
			return shoots, nil
		},
		Observe: func(ref render.LiveRef) (*unstructured.Unstructured, error) {
			if status, ok := installations[ref.Name]; ok {
				return &unstructured.Unstructured{Object: map[string]any{"status": status}}, nil
			}
			return nil, nil
		},
	}
}

func requiredCondition(status string) map[string]any {
	return map[string]any{"conditions": []any{map[string]any{"type": "Required", "status": status}}}
}

// What the Shoots of the virtual garden use decides like what the seeds declare: a shoot moving
// to another seed counts on both, an installation no longer wanted stays while it reports
// Required, and a globally enabled Extension goes where every shoot disables it.
func TestInstallationsFromLiveShoots(t *testing.T) {
	global := []controllerregistration.Resource{resource(controllerregistration.Resource{Kind: "Extension", Type: "audit", GloballyEnabled: ptr(true)})}
	tests := []struct {
		name          string
		policy        string
		resources     []controllerregistration.Resource
		shoots        []unstructured.Unstructured
		installations map[string]map[string]any
		want          map[string]string // seed → reason; absent means not installed
	}{
		{name: "on demand, a shoot on the seed", shoots: []unstructured.Unstructured{liveShoot("a", "one", "one", workerShoot())},
			want: map[string]string{"one": "policy OnDemand and Infrastructure/local is used by shoot garden-dev/a on the seed"}},
		{name: "a shoot moving from one to two", shoots: []unstructured.Unstructured{liveShoot("a", "two", "one", workerShoot())},
			want: map[string]string{
				"one": "policy OnDemand and Infrastructure/local is used by shoot garden-dev/a on the seed",
				"two": "policy OnDemand and Infrastructure/local is used by shoot garden-dev/a on the seed",
			}},
		{name: "still required", installations: map[string]map[string]any{"provider-local-one": requiredCondition("True"), "provider-local-two": requiredCondition("False")},
			want: map[string]string{"one": "policy OnDemand and none of the registration's kinds and types is used on the seed, but its ControllerInstallation still reports Required: extension resources on the seed use it"}},
		{name: "always except no shoots", policy: "AlwaysExceptNoShoots", shoots: []unstructured.Unstructured{liveShoot("b", "two", "", map[string]any{})},
			want: map[string]string{"two": "policy AlwaysExceptNoShoots and shoot garden-dev/b runs on the seed"}},
		{name: "globally enabled, disabled by the only shoot", resources: global, shoots: []unstructured.Unstructured{liveShoot("a", "one", "", workerShoot())},
			want: map[string]string{}},
		{name: "globally enabled, one shoot keeps it", resources: global,
			shoots: []unstructured.Unstructured{liveShoot("a", "one", "", workerShoot()), liveShoot("c", "one", "", map[string]any{})},
			want:   map[string]string{"one": "policy OnDemand and Extension/audit is globally enabled and shoots on the seed do not disable it"}},
		{name: "shoots of seeds the extension does not know", shoots: []unstructured.Unstructured{liveShoot("a", "elsewhere", "", workerShoot())},
			want: map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := values(tt.policy, seed("one", nil), seed("two", nil))
			if tt.resources != nil {
				v.Resources = tt.resources
			}
			var err error
			v.live, err = observeDemand(demandInput(tt.shoots, tt.installations), v)
			require.NoError(t, err)
			got := map[string]string{}
			for _, i := range Installations(v) {
				if i.Installed {
					got[i.Seed] = i.Reason
				}
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// A list that fails fails the rendering, naming what was read.
func TestObserveDemandFails(t *testing.T) {
	in := render.Input{List: func(render.ListRef) ([]unstructured.Unstructured, error) {
		return nil, errors.New("connection refused")
	}}
	_, err := observeDemand(in, values("", seed("one", nil)))
	assert.EqualError(t, err, "extension provider-local: list the shoots of the virtual garden: connection refused")
}

// The plan says why the extension comes to a seed or leaves one, and stays quiet where the
// installations that exist are the ones wanted.
func TestChangeNotices(t *testing.T) {
	v := values("", seed("one", nil), seed("two", nil), seed("three", nil))
	shoots := []unstructured.Unstructured{liveShoot("a", "two", "one", workerShoot())}
	var err error
	v.live, err = observeDemand(demandInput(shoots, map[string]map[string]any{
		"provider-local-one": {}, "provider-local-three": {},
	}), v)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"extension provider-local is installed on seed two: policy OnDemand and Infrastructure/local is used by shoot garden-dev/a on the seed",
		"extension provider-local is removed from seed three: policy OnDemand and none of the registration's kinds and types is used on the seed",
	}, changeNotices(v, Installations(v)))
}
