package extension

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/declarative-gardener/gardener/engine/kinds"
)

// The cases of this file are Gardener's own unit tests of the rule at v1.120.0, with their
// fixtures and expectations: pkg/controllermanager/controller/controllerregistration/seed/reconciler_test.go,
// pkg/utils/gardener/shoot_test.go (#ComputeRequiredExtensionsForShoot) and
// pkg/utils/gardener/seed_test.go (#ComputeRequiredExtensionsForSeed).

func ids(items ...string) set {
	out := set{}
	out.add(items...)
	return out
}

// The fixtures of the reconciler's tests.
var (
	reconcilerSeed = gcmSeed{Name: "seed", ProviderType: "type11", BackupProvider: "type8"}

	reconcilerBuckets = []gcmBackupBucket{
		{Name: "bb1", SeedName: "seed", ProviderType: "type2"},
		{Name: "bb2", SeedName: "seed", ProviderType: "type3"},
		{Name: "sourceBackupBucket", SeedName: "sourceSeed", ProviderType: "sourceType"},
	}
	reconcilerEntries = []gcmBackupEntry{
		{Name: "be2", SeedName: "seed", BucketName: "bb1"},
		{Name: "be3", SeedName: "seed", BucketName: "bb1"},
		{Name: "sourceBackupEntry", SeedName: "seed", BucketName: "sourceBackupBucket"},
	}
	reconcilerShoots = []gcmShoot{
		{Name: "s1", ProviderType: "type1"},
		{Name: "s2", SeedName: "seed", ProviderType: "type2", Workers: []gcmWorker{{ImageName: "type5"}}, NetworkingType: "type3",
			Extensions: []gcmExtension{{Type: "type4"}}},
		{Name: "s3", SeedName: "seed", ProviderType: "type6", Workers: []gcmWorker{{ContainerRuntimes: []string{"type12"}}}, NetworkingType: "type3"},
	}
	reconcilerRegistrations = []gcmRegistration{
		{Name: "cr1", Resources: []gcmResource{
			{Kind: kinds.BackupBucketKind, Type: "type1"},
			{Kind: kinds.ExtensionKind, Type: "type10", AutoEnable: []string{clusterTypeShoot}},
			{Kind: kinds.NetworkKind, Type: "type2"},
		}},
		{Name: "cr2", Policy: policyOnDemand, Resources: []gcmResource{{Kind: kinds.NetworkKind, Type: "type2"}, {Kind: kinds.ContainerRuntimeKind, Type: "type12"}}},
		{Name: "cr3", Policy: policyOnDemand, Resources: []gcmResource{{Kind: kinds.ControlPlaneKind, Type: "type3"}, {Kind: kinds.InfrastructureKind, Type: "type3"}, {Kind: kinds.WorkerKind, Type: "type3"}}},
		{Name: "cr4", Policy: policyAlways},
		{Name: "cr5", Policy: policyAlways, SeedSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"bar": "foo"}}},
		{Name: "cr6"},
		{Name: "cr7", Policy: policyOnDemand},
		{Name: "cr8", Policy: policyAlwaysExceptNoShoots},
	}
	reconcilerInstallations = []gcmInstallation{
		{Name: "ci1", Seed: "another-seed", Registration: "cr1"},
		{Name: "ci2", Seed: "seed", Registration: "cr2"},
		{Name: "ci3", Seed: "seed", Registration: "cr3"},
		{Name: "ci4", Seed: "seed", Registration: "cr4"},
		{Name: "ci7", Seed: "seed", Registration: "cr7", Required: true},
	}
)

func TestKindTypesForBackups(t *testing.T) {
	assert.Empty(t, kindTypesForBackupBuckets(nil, "seed"), "empty input")
	assert.Equal(t, ids("BackupBucket/type2", "BackupBucket/type3"), kindTypesForBackupBuckets(reconcilerBuckets, "seed"))
	assert.Empty(t, kindTypesForBackupEntries(nil, nil, "seed"), "empty input")
	assert.Equal(t, ids("BackupEntry/type2", "BackupEntry/sourceType"), kindTypesForBackupEntries(reconcilerEntries, reconcilerBuckets, "seed"))
}

func TestKindTypesForShoots(t *testing.T) {
	internal := &gcmDomain{Provider: "type9"}
	seedTypes := []string{"BackupBucket/type8", "BackupEntry/type8", "ControlPlane/type11"}
	autoEnabled := []string{"Extension/type10", "DNSRecord/type9"}
	tests := []struct {
		name   string
		shoots []gcmShoot
		want   []string
	}{
		{"for a seed", reconcilerShoots, append(append([]string{
			"ControlPlane/type2", "Infrastructure/type2", "Worker/type2", "OperatingSystemConfig/type5", "Network/type3", "Extension/type4",
			"ControlPlane/type6", "Infrastructure/type6", "Worker/type6", "ContainerRuntime/type12",
		}, seedTypes...), autoEnabled...)},
		{"shoot that has the Seed's name as status not spec", []gcmShoot{{Name: "s4", SeedName: "anotherSeed", StatusSeedName: "seed",
			ProviderType: "type2", Workers: []gcmWorker{{ImageName: "type5"}}, NetworkingType: "type3", Extensions: []gcmExtension{{Type: "type4"}}}},
			append(append([]string{
				"ControlPlane/type2", "Infrastructure/type2", "Worker/type2", "OperatingSystemConfig/type5", "Network/type3", "Extension/type4",
			}, seedTypes...), autoEnabled...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, ids(tt.want...), kindTypesForShoots(tt.shoots, reconcilerSeed, reconcilerRegistrations, internal, nil))
		})
	}
}

func TestKindTypesForSeed(t *testing.T) {
	tests := []struct {
		name string
		seed gcmSeed
		want []string
	}{
		{"should add the DNSRecord extension", gcmSeed{ProviderType: "type1", DNSProviderType: "fake-provider-type"},
			[]string{"DNSRecord/fake-provider-type", "ControlPlane/type1", "Infrastructure/type1", "Worker/type1"}},
		{"should not add an extension if Seed has a deletion timestamp", gcmSeed{Deleting: true, DNSProviderType: "fake-provider-type"}, nil},
		{"should only add seed provider type extensions", gcmSeed{ProviderType: "type1"},
			[]string{"ControlPlane/type1", "Infrastructure/type1", "Worker/type1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, ids(tt.want...), kindTypesForSeed(tt.seed, nil))
		})
	}
}

func TestWantedRegistrations(t *testing.T) {
	seed := gcmSeed{Name: "seed", Labels: map[string]string{"foo": "bar"}}
	deleting := seed
	deleting.Deleting = true
	tests := []struct {
		name   string
		wanted set
		shoots int
		seed   gcmSeed
		want   []string
	}{
		{"should correctly compute the result w/o error", ids("Network/type2", "ControlPlane/type3"), len(reconcilerShoots), seed,
			[]string{"cr1", "cr2", "cr3", "cr4", "cr7", "cr8"}},
		{"should not consider 'always-deploy-if-shoots' registrations when seed has no shoots", ids(), 0, seed, []string{"cr4", "cr7"}},
		{"should consider 'always-deploy' registrations when seed has no shoots but no deletion timestamp", ids(), 0, seed, []string{"cr4", "cr7"}},
		{"should not consider 'always-deploy' registrations when seed has no shoots and deletion timestamp", ids(), 0, deleting, []string{"cr7"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := wantedRegistrations(tt.wanted, reconcilerInstallations, reconcilerRegistrations, tt.shoots, tt.seed)
			require.NoError(t, err)
			assert.Equal(t, ids(tt.want...), got)
		})
	}
	t.Run("a wanted kind and type no registration serves fails the reconciliation", func(t *testing.T) {
		_, err := wantedRegistrations(ids("Network/cilium"), nil, reconcilerRegistrations, 1, seed)
		assert.EqualError(t, err, `need to install an extension controller for "Network/cilium" but no appropriate ControllerRegistration found`)
	})
}

func TestRequiredForShoot(t *testing.T) {
	registrations := []gcmRegistration{
		{Resources: []gcmResource{{Kind: kinds.ContainerRuntimeKind, Type: "extension3"}}},
		{Resources: []gcmResource{{Kind: kinds.ExtensionKind, Type: "extension1"}}},
		{Resources: []gcmResource{{Kind: kinds.ExtensionKind, Type: "extension2", AutoEnable: []string{clusterTypeShoot}}}},
	}
	internal, external := &gcmDomain{Provider: "dnsprovider1"}, &gcmDomain{Provider: "dnsprovider2"}
	shoot := func(change func(*gcmShoot)) gcmShoot {
		s := gcmShoot{
			ProviderType:   "providertype",
			Workers:        []gcmWorker{{ImageName: "osctype", ContainerRuntimes: []string{"containerruntimetype"}}},
			NetworkingType: "networkingtype",
			Extensions:     []gcmExtension{{Type: "extension1"}},
			DNSProviders:   []gcmDNSProvider{{Type: "dnsprovider3"}},
		}
		if change != nil {
			change(&s)
		}
		return s
	}
	seed := &gcmSeed{BackupProvider: "backupprovider", ProviderType: "seedprovider"}
	noBackup := &gcmSeed{ProviderType: "seedprovider"}
	backup := []string{"BackupBucket/backupprovider", "BackupEntry/backupprovider"}
	workers := []string{"ControlPlane/providertype", "Infrastructure/providertype", "Network/networkingtype", "Worker/providertype",
		"OperatingSystemConfig/osctype", "ContainerRuntime/containerruntimetype"}
	domains := []string{"DNSRecord/dnsprovider1", "DNSRecord/dnsprovider2"}
	join := func(lists ...[]string) []string {
		var out []string
		for _, l := range lists {
			out = append(out, l...)
		}
		return out
	}
	tests := []struct {
		name          string
		shoot         gcmShoot
		seed          *gcmSeed
		registrations []gcmRegistration
		want          []string
	}{
		{"should compute the correct list of required extensions", shoot(nil), seed, registrations,
			join(backup, []string{"ControlPlane/seedprovider"}, workers, []string{"Extension/extension1", "Extension/extension2"}, domains)},
		{"no seed backup", shoot(nil), noBackup, registrations,
			join([]string{"ControlPlane/seedprovider"}, workers, []string{"Extension/extension1", "Extension/extension2"}, domains)},
		{"shoot explicitly disables automatically enabled extension", shoot(func(s *gcmShoot) {
			s.Extensions = append(s.Extensions, gcmExtension{Type: "extension2", Disabled: true})
		}), seed, registrations, join(backup, []string{"ControlPlane/seedprovider"}, workers, []string{"Extension/extension1"}, domains)},
		{"workerless Shoot", shoot(func(s *gcmShoot) { s.Workers = nil }), seed, registrations,
			join(backup, []string{"ControlPlane/seedprovider", "Extension/extension1"}, domains)},
		{"no seed", shoot(nil), nil, registrations, join(workers, []string{"Extension/extension1", "Extension/extension2"}, domains)},
		{"workerless Shoot and globally enabled extension", shoot(func(s *gcmShoot) { s.Extensions, s.Workers = nil, nil }), seed, []gcmRegistration{
			{Resources: []gcmResource{{Kind: kinds.ExtensionKind, Type: "extension1", AutoEnable: []string{clusterTypeShoot}}}},
			{Resources: []gcmResource{{Kind: kinds.ExtensionKind, Type: "extension2", AutoEnable: []string{clusterTypeShoot}, WorkerlessSupported: true}}},
			{Resources: []gcmResource{{Kind: kinds.ExtensionKind, Type: "extension3", AutoEnable: []string{clusterTypeShoot}}}},
		}, join(backup, []string{"ControlPlane/seedprovider", "Extension/extension2"}, domains)},
		{"autonomous shoot with backup", shoot(func(s *gcmShoot) {
			s.Workers = append(s.Workers, gcmWorker{ControlPlane: true, BackupProvider: "backupprovider"})
		}), nil, registrations, join(backup, workers, []string{"Extension/extension1", "Extension/extension2"}, domains)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, ids(tt.want...), requiredForShoot(tt.shoot, tt.seed, tt.registrations, internal, external))
		})
	}
}

func TestRequiredForSeed(t *testing.T) {
	registrations := []gcmRegistration{
		{Resources: []gcmResource{{Kind: kinds.ExtensionKind, Type: "extension1", AutoEnable: []string{clusterTypeShoot, clusterTypeSeed}}}},
		{Resources: []gcmResource{{Kind: kinds.ExtensionKind, Type: "extension2", AutoEnable: []string{clusterTypeShoot}}}},
		{Resources: []gcmResource{{Kind: kinds.ContainerRuntimeKind, Type: "extension3"}}},
		{Resources: []gcmResource{{Kind: kinds.ExtensionKind, Type: "extension3", AutoEnable: []string{clusterTypeSeed}}}},
	}
	provider := []string{"ControlPlane/providerA", "Infrastructure/providerA", "Worker/providerA"}
	tests := []struct {
		name string
		seed gcmSeed
		want []string
	}{
		{"should return the required types for seed", gcmSeed{ProviderType: "providerA"},
			append([]string{"Extension/extension1", "Extension/extension3"}, provider...)},
		{"seed has DNS provider", gcmSeed{ProviderType: "providerA", DNSProviderType: "providerB"},
			append([]string{"Extension/extension1", "Extension/extension3", "DNSRecord/providerB"}, provider...)},
		{"seed has extensions", gcmSeed{ProviderType: "providerA", Extensions: []gcmExtension{{Type: "extensionA"}}},
			append([]string{"Extension/extensionA", "Extension/extension1", "Extension/extension3"}, provider...)},
		{"should exclude disabled extensions", gcmSeed{ProviderType: "providerA", Extensions: []gcmExtension{{Type: "extensionA"}, {Type: "extension3", Disabled: true}}},
			append([]string{"Extension/extensionA", "Extension/extension1"}, provider...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, ids(tt.want...), requiredForSeed(tt.seed, registrations))
		})
	}
}

// ConstructExternalDomain's cases that decide the provider: a default domain's, else the primary
// provider's, else none.
func TestExternalDomainOf(t *testing.T) {
	defaults := []gcmDomain{{Provider: "aws-route53", Domain: "example.com"}}
	tests := []struct {
		name  string
		shoot gcmShoot
		want  *gcmDomain
	}{
		{"no domain", gcmShoot{}, nil},
		{"a default domain", gcmShoot{DNSDomain: "dev.garden-local.example.com"}, &gcmDomain{Provider: "aws-route53", Domain: "dev.garden-local.example.com"}},
		{"the primary provider", gcmShoot{DNSDomain: "dev.other.org", DNSProviders: []gcmDNSProvider{{Type: "gcp"}, {Type: "azure", Primary: true}}},
			&gcmDomain{Provider: "azure", Domain: "dev.other.org"}},
		{"incomplete", gcmShoot{DNSDomain: "dev.other.org"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, externalDomainOf(tt.shoot, defaults))
		})
	}
}

func TestDecideSeed(t *testing.T) {
	g := gardenState{Registrations: reconcilerRegistrations, Installations: reconcilerInstallations, Shoots: reconcilerShoots,
		Buckets: reconcilerBuckets, Entries: reconcilerEntries}
	d := decideSeed(gcmSeed{Name: "seed", ProviderType: "type3", Labels: map[string]string{"foo": "bar"}}, g, nil)
	// BackupBucket/type2 and type3 have no registration: Gardener gives up on the seed.
	require.Error(t, d.Err)

	g.Buckets, g.Entries = nil, nil
	d = decideSeed(gcmSeed{Name: "seed", ProviderType: "type3", Labels: map[string]string{"foo": "bar"}}, g, nil)
	require.Error(t, d.Err, "the shoots' types type2, type5, type6 have none either")

	g.Shoots = nil
	d = decideSeed(gcmSeed{Name: "seed", ProviderType: "type3", Labels: map[string]string{"foo": "bar"}}, g, nil)
	require.NoError(t, d.Err)
	assert.Equal(t, ids("cr3", "cr4", "cr7"), d.Wanted, "the seed's provider, Always (cr5's selector does not match) and the Required installation")
}
