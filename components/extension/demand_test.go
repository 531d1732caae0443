package extension

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// A live Shoot as the rule reads it: every field that names an extension type.
func TestShootFromLive(t *testing.T) {
	u := unstructured.Unstructured{Object: liveShootOf("garden-dev", "a", "local", map[string]any{
		"provider": map[string]any{"type": "local", "workers": []any{
			map[string]any{"name": "a", "machine": map[string]any{"image": map[string]any{"name": "gardenlinux"}},
				"cri": map[string]any{"name": "containerd", "containerRuntimes": []any{map[string]any{"type": "gvisor"}}}},
			map[string]any{"name": "cp", "controlPlane": map[string]any{"backup": map[string]any{"provider": "s3"}}},
		}},
		"networking": map[string]any{"type": "calico"},
		"dns": map[string]any{"domain": "a.dev.example.com", "providers": []any{
			map[string]any{"type": "aws-route53", "primary": true}, map[string]any{"type": "azure"}}},
		"extensions": []any{map[string]any{"type": "shoot-dns-service"}, map[string]any{"type": "audit", "disabled": true}},
	})}
	require.NoError(t, unstructured.SetNestedField(u.Object, "old", "status", "seedName"))
	assert.Equal(t, gcmShoot{
		Name: "garden-dev/a", SeedName: "local", StatusSeedName: "old", ProviderType: "local",
		Workers: []gcmWorker{
			{ImageName: "gardenlinux", ContainerRuntimes: []string{"gvisor"}},
			{ControlPlane: true, BackupProvider: "s3"},
		},
		NetworkingType: "calico", DNSDomain: "a.dev.example.com",
		DNSProviders: []gcmDNSProvider{{Type: "aws-route53", Primary: true}, {Type: "azure"}},
		Extensions:   []gcmExtension{{Type: "shoot-dns-service"}, {Type: "audit", Disabled: true}},
	}, shootFromLive(&u))
}

// A live ControllerRegistration, with what gardener-apiserver's defaulting does for a globally
// enabled Extension.
func TestRegistrationFromLive(t *testing.T) {
	u := unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "audit"}, "spec": map[string]any{
		"deployment": map[string]any{"policy": "Always", "seedSelector": map[string]any{"matchLabels": map[string]any{"env": "prod"}}},
		"resources": []any{
			map[string]any{"kind": "Extension", "type": "audit", "globallyEnabled": true, "workerlessSupported": true},
			map[string]any{"kind": "Extension", "type": "seed-audit", "autoEnable": []any{"seed"}},
		},
	}}}
	assert.Equal(t, gcmRegistration{Name: "audit", Policy: "Always",
		SeedSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}},
		Resources: []gcmResource{
			{Kind: "Extension", Type: "audit", AutoEnable: []string{"shoot"}, WorkerlessSupported: true},
			{Kind: "Extension", Type: "seed-audit", AutoEnable: []string{"seed"}},
		}}, registrationFromLive(&u))
}

// The garden's domains come from its domain Secrets' annotations; a Secret without them does not
// count.
func TestDomainsOf(t *testing.T) {
	secret := func(name, role string, annotations map[string]any) unstructured.Unstructured {
		return unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{
			"name": name, "labels": map[string]any{"gardener.cloud/role": role}, "annotations": annotations}}}
	}
	internal, defaults := domainsOf([]unstructured.Unstructured{
		secret("internal", "internal-domain", map[string]any{"dns.gardener.cloud/provider": "local", "dns.gardener.cloud/domain": "internal.local"}),
		secret("default", "default-domain", map[string]any{"dns.gardener.cloud/provider": "aws-route53", "dns.gardener.cloud/domain": "example.com"}),
		secret("broken", "default-domain", map[string]any{"dns.gardener.cloud/provider": "aws-route53"}),
	})
	assert.Equal(t, &gcmDomain{Provider: "local", Domain: "internal.local"}, internal)
	assert.Equal(t, []gcmDomain{{Provider: "aws-route53", Domain: "example.com"}}, defaults)
}

// The seed as its entry declares it; deleting as the live Seed is.
func TestSeedOf(t *testing.T) {
	s := Seed{Name: "a", Labels: map[string]string{"env": "dev"}, Spec: map[string]any{
		"provider":   map[string]any{"type": "local"},
		"dns":        map[string]any{"provider": map[string]any{"type": "local-dns"}},
		"backup":     map[string]any{"provider": "s3"},
		"extensions": []any{map[string]any{"type": "x"}},
	}}
	live := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "a"}}}
	now := metav1.Now()
	live.SetDeletionTimestamp(&now)
	assert.Equal(t, gcmSeed{Name: "a", Labels: map[string]string{"env": "dev"}, ProviderType: "local", DNSProviderType: "local-dns",
		BackupProvider: "s3", Extensions: []gcmExtension{{Type: "x"}}, Deleting: true}, seedOf(s, live))
}
