package extension

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/controllerregistration"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The conditions gardenlet's controllers report on an installation, derived from its
// ManagedResource and the extension resources in the seed, with Gardener's reasons and messages
// (pkg/gardenlet/controller/controllerinstallation/{controllerinstallation,care,required} at
// v1.120.0).
func TestInstallationReport(t *testing.T) {
	managedResource := func(generation, observed int64, conds ...map[string]any) map[string]any {
		list := make([]any, len(conds))
		for i, c := range conds {
			list[i] = c
		}
		return map[string]any{"apiVersion": "resources.gardener.cloud/v1alpha1", "kind": "ManagedResource",
			"metadata": map[string]any{"name": "provider-local-x7k2p", "namespace": "garden", "generation": generation},
			"status":   map[string]any{"observedGeneration": observed, "conditions": list}}
	}
	cond := func(typ, status, message string) map[string]any {
		return map[string]any{"type": typ, "status": status, "message": message}
	}
	healthyMR := managedResource(2, 2, cond("ResourcesApplied", "True", ""), cond("ResourcesHealthy", "True", ""), cond("ResourcesProgressing", "False", ""))
	infrastructure := map[string]any{"apiVersion": "extensions.gardener.cloud/v1alpha1", "kind": "Infrastructure",
		"metadata": map[string]any{"name": "dev", "namespace": "shoot--local--dev"}, "spec": map[string]any{"type": "local"}}
	valid := "Valid True (RegistrationValid): chart could be rendered successfully."
	notRequired := "Required False (NoExtensionObjects): no extension objects exist in the seed having the kind/type combinations the controller is responsible for"
	tests := []struct {
		name      string
		resources []controllerregistration.Resource
		garden    fakeGarden
		want      []string
	}{
		{
			name:      "installed, healthy, rolled out, not required",
			resources: []controllerregistration.Resource{{Kind: "Infrastructure", Type: "local"}},
			garden:    fakeGarden{healthyMR},
			want: []string{valid,
				"Installed True (InstallationSuccessful): The controller was successfully installed in the seed cluster.",
				"Healthy True (ControllerHealthy): The controller running in the seed cluster is healthy.",
				"Progressing False (ControllerRolledOut): The controller has been rolled out successfully.",
				notRequired},
		},
		{
			name:      "required while its extension resources exist",
			resources: []controllerregistration.Resource{{Kind: "Infrastructure", Type: "local"}},
			garden:    fakeGarden{healthyMR, infrastructure},
			want: []string{valid,
				"Installed True (InstallationSuccessful): The controller was successfully installed in the seed cluster.",
				"Healthy True (ControllerHealthy): The controller running in the seed cluster is healthy.",
				"Progressing False (ControllerRolledOut): The controller has been rolled out successfully.",
				"Required True (ExtensionObjectsExist): extension objects still exist in the seed: [Infrastructure/local]"},
		},
		{
			name:      "a ManagedResource not applied in its generation, unhealthy and progressing",
			resources: []controllerregistration.Resource{{Kind: "Infrastructure", Type: "local"}},
			garden:    fakeGarden{managedResource(3, 2, cond("ResourcesApplied", "True", ""), cond("ResourcesHealthy", "False", "pods crash"), cond("ResourcesProgressing", "True", "1 of 2 replicas updated"))},
			want: []string{valid,
				"Installed False (InstallationPending): observed generation of managed resource garden/provider-local-x7k2p outdated (2/3)",
				"Healthy False (ControllerNotHealthy): condition ResourcesHealthy of managed resource garden/provider-local-x7k2p is False: pods crash",
				"Progressing True (ControllerNotRolledOut): condition ResourcesProgressing of managed resource garden/provider-local-x7k2p is True: 1 of 2 replicas updated",
				notRequired},
		},
		{
			name:      "no ManagedResource",
			resources: []controllerregistration.Resource{{Kind: "Infrastructure", Type: "local"}},
			want: []string{valid,
				`Installed Unknown (SeedReadError): Failed to get ManagedResource "garden/provider-local-x7k2p": managedresources.resources.gardener.cloud "provider-local-x7k2p" not found`,
				`Healthy Unknown (SeedReadError): Failed to get ManagedResource "garden/provider-local-x7k2p": managedresources.resources.gardener.cloud "provider-local-x7k2p" not found`,
				`Progressing Unknown (SeedReadError): Failed to get ManagedResource "garden/provider-local-x7k2p": managedresources.resources.gardener.cloud "provider-local-x7k2p" not found`,
				notRequired},
		},
		{
			// gardenlet's required controller does not decide for a kind it does not watch.
			name:      "a kind gardenlet does not watch: no Required",
			resources: []controllerregistration.Resource{{Kind: "Garden", Type: "local"}},
			garden:    fakeGarden{healthyMR},
			want: []string{valid,
				"Installed True (InstallationSuccessful): The controller was successfully installed in the seed cluster.",
				"Healthy True (ControllerHealthy): The controller running in the seed cluster is healthy.",
				"Progressing False (ControllerRolledOut): The controller has been rolled out successfully."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := &installer{
				v:    Values{Name: "provider-local", VirtualCluster: decode.Cluster{Name: "virtual"}, Resources: tt.resources},
				seed: Seed{Name: "local", Cluster: decode.Cluster{Name: "runtime"}},
			}
			r := x.report(liveInstallation([]unstructured.Unstructured{{Object: liveInstallationOf("provider-local-x7k2p", "provider-local", "local")}}, "provider-local", "local"))
			assert.Equal(t, render.StatusReport{Cluster: "virtual", APIVersion: InstallationAPIVersion, Kind: InstallationKind, Name: "provider-local-x7k2p"},
				render.StatusReport{Cluster: r.Cluster, APIVersion: r.APIVersion, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name})
			conds, err := r.Conditions(tt.garden.input("provider-local", ""))
			require.NoError(t, err)
			var got []string
			for _, c := range conds {
				got = append(got, c.String())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}
