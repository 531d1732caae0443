package graph

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/engine/config"
)

const (
	providerLocal = `apiVersion: core.gardener.cloud/v1beta1
kind: ControllerRegistration
metadata: {name: provider-local}
spec:
  resources:
  - {kind: ControlPlane, type: local}
  - {kind: Infrastructure, type: local}
  - {kind: Worker, type: local}
  - {kind: OperatingSystemConfig, type: local}
  - {kind: DNSRecord, type: local}
  - {kind: BackupBucket, type: local, primary: true}
  - {kind: BackupEntry, type: local}`
	networkingCalico = `apiVersion: core.gardener.cloud/v1beta1
kind: ControllerRegistration
metadata: {name: networking-calico}
spec:
  resources:
  - {kind: Network, type: calico}`
	// secondaryCalico serves Network/calico as a secondary controller, which admission ignores.
	secondaryCalico = `apiVersion: core.gardener.cloud/v1beta1
kind: ControllerRegistration
metadata: {name: calico-helper}
spec:
  resources:
  - {kind: Network, type: calico, primary: false}`
	// seedOnlyExtension registers an Extension type for seeds only.
	seedOnlyExtension = `apiVersion: core.gardener.cloud/v1beta1
kind: ControllerRegistration
metadata: {name: audit}
spec:
  resources:
  - {kind: Extension, type: audit, clusterCompatibility: [seed]}`
	seedObject = `apiVersion: core.gardener.cloud/v1beta1
kind: Seed
metadata: {name: local}
spec:
  provider: {type: local, region: local}
  ingress: {domain: ingress.local}
  dns: {provider: {type: local}}
  backup: {provider: local}`
	shootObject = `apiVersion: core.gardener.cloud/v1beta1
kind: Shoot
metadata: {name: dev, namespace: garden-local}
spec:
  provider:
    type: local
    workers:
    - name: pool
      machine: {type: local, image: {name: local, version: 1.0.0}}
  networking: {type: calico}
  extensions: [{type: audit}]`
	workerlessShoot = `apiVersion: core.gardener.cloud/v1beta1
kind: Shoot
metadata: {name: ops, namespace: garden-local}
spec:
  provider: {type: local}
  networking: {services: 10.9.0.0/16}
  dns:
    providers:
    - {type: local, primary: true}
    - {type: other}`
)

const (
	seedReason  = "its Seed local uses BackupBucket/local, BackupEntry/local, ControlPlane/local, DNSRecord/local, which ControllerRegistration provider-local registers (Gardener admits it only then)"
	shootLocal  = "its Shoot dev uses ControlPlane/local, Infrastructure/local, OperatingSystemConfig/local, Worker/local, which ControllerRegistration provider-local registers (Gardener admits it only then)"
	shootCalico = "its Shoot dev uses Network/calico, which ControllerRegistration networking-calico registers (Gardener admits it only then)"
)

func TestRegistrationEdges(t *testing.T) {
	tests := []struct {
		name     string
		rendered map[config.InstanceAddress][]string
		want     []string
	}{
		{
			name: "the Seed and the Shoot after the registrations of the types they use",
			rendered: map[config.InstanceAddress][]string{
				"component.extension.provider_local":    {providerLocal},
				"component.extension.networking_calico": {networkingCalico},
				"seed.local.seed":                       {seedObject},
				"shoot.dev.shoot":                       {shootObject},
			},
			want: []string{
				"seed.local.seed -> component.extension.provider_local (implicit): " + seedReason,
				"shoot.dev.shoot -> component.extension.networking_calico (implicit): " + shootCalico,
				"shoot.dev.shoot -> component.extension.provider_local (implicit): " + shootLocal,
			},
		},
		{
			name: "a workerless Shoot needs only its primary DNS provider's type",
			rendered: map[config.InstanceAddress][]string{
				"component.controller_registration.local": {providerLocal},
				"shoot.ops.shoot":                         {workerlessShoot},
			},
			want: []string{
				"shoot.ops.shoot -> component.controller_registration.local (implicit): its Shoot ops uses DNSRecord/local, which ControllerRegistration provider-local registers (Gardener admits it only then)",
			},
		},
		{
			name: "secondary registrations and registrations for other cluster types do not count",
			rendered: map[config.InstanceAddress][]string{
				"component.controller_registration.helper": {secondaryCalico},
				"component.controller_registration.audit":  {seedOnlyExtension},
				"shoot.dev.shoot":                          {shootObject},
			},
		},
		{
			name: "types nobody in the landscape registers add no edge, and other kinds need none",
			rendered: map[config.InstanceAddress][]string{
				"component.extension.networking_calico": {networkingCalico},
				"seed.local.seed":                       {seedObject},
				"component.manifests.x":                 {clusterRole, configMapInGarden},
			},
		},
		{
			name: "a component rendering both needs no edge to itself",
			rendered: map[config.InstanceAddress][]string{
				"component.manifests.all": {providerLocal, seedObject},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 5 { // the same edges whatever order maps iterate in
				rendered := map[config.InstanceAddress][]*unstructured.Unstructured{}
				for inst, docs := range tt.rendered {
					rendered[inst] = objects(t, docs...)
				}
				got := ImplicitEdges(rendered)
				if len(tt.want) == 0 {
					assert.Empty(t, got)
					continue
				}
				assert.Equal(t, tt.want, edgeLines(got))
			}
		})
	}
}

func TestNeededTypes(t *testing.T) {
	tests := []struct {
		name, doc, cluster string
		want               []string
	}{
		{"seed", seedObject, "seed", []string{"ControlPlane/local", "BackupBucket/local", "BackupEntry/local", "DNSRecord/local"}},
		{"shoot with workers", shootObject, "shoot", []string{"ControlPlane/local", "Infrastructure/local", "Worker/local", "Network/calico", "Extension/audit", "OperatingSystemConfig/local"}},
		{"workerless shoot", workerlessShoot, "shoot", []string{"DNSRecord/local"}},
		{"other kinds", clusterRole, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cluster, types := neededTypes(objects(t, tt.doc)[0])
			assert.Equal(t, tt.cluster, cluster)
			var got []string
			for _, typ := range types {
				got = append(got, typ.String())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}
