package kubeapiserver

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/version"
	"sigs.k8s.io/yaml"
)

// Data keys of the configuration files the API server reads.
const (
	// EncryptionConfigKey is the key of the EncryptionConfiguration in its Secret.
	EncryptionConfigKey = "encryption-configuration.yaml"
	// AuditPolicyKey is the key of the audit policy in the ConfigMap named by AuditPolicyConfigMap.
	AuditPolicyKey = "audit-policy.yaml"
	admissionKey   = "admission-configuration.yaml"
)

// resourceRE is resource or resource.group in lower case, as EncryptionConfiguration spells it.
var resourceRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// EncryptedResources lists the resources the API server encrypts at rest, sorted: Secrets always,
// plus extra (Gardener's "Gardener Operator" docs/concepts/operator.md). Custom resources can be
// encrypted only from Kubernetes 1.26 on (Gardener's docs/concepts/operator.md); a resource counts
// as custom when its group has a dot and is not a *.k8s.io group.
func EncryptedResources(kubernetesVersion string, extra []string) ([]string, error) {
	out := []string{"secrets"}
	for _, r := range extra {
		if !resourceRE.MatchString(r) {
			return nil, fmt.Errorf("encrypted resource %q is not of the form resource or resource.group in lower case", r)
		}
		if isCustom(r) {
			v, err := version.ParseGeneric(kubernetesVersion)
			if err != nil {
				return nil, fmt.Errorf("kubernetes version %q: %w", kubernetesVersion, err)
			}
			if v.LessThan(version.MajorMinor(1, 26)) {
				return nil, fmt.Errorf("encrypted resource %q is a custom resource, which Kubernetes %s cannot encrypt; it needs 1.26 or later", r, kubernetesVersion)
			}
		}
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out, nil
}

func isCustom(resource string) bool {
	_, group, ok := strings.Cut(resource, ".")
	return ok && strings.Contains(group, ".") && !strings.HasSuffix(group, ".k8s.io")
}

// EncryptionKey is one AES-CBC key of an EncryptionConfiguration: Secret is the base64 encoding
// of 32 random bytes. Keys come from the engine's secret generation, never from a landscape.
type EncryptionKey struct {
	Name   string
	Secret string
}

// EncryptionConfiguration renders the file --encryption-provider-config reads: resources encrypted
// with aescbc under keys (the first encrypts, all decrypt), falling back to identity so that data
// written before encryption was turned on stays readable. The result holds key material and
// belongs into the Secret named by Values.EncryptionConfigSecretName under EncryptionConfigKey.
func EncryptionConfiguration(resources []string, keys []EncryptionKey) ([]byte, error) {
	if len(resources) == 0 {
		return nil, fmt.Errorf("encryption configuration: no resources")
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("encryption configuration: no keys")
	}
	ks := make([]any, 0, len(keys))
	for i, k := range keys {
		if k.Name == "" || k.Secret == "" {
			return nil, fmt.Errorf("encryption configuration: key %d needs a name and a secret", i+1)
		}
		ks = append(ks, map[string]any{"name": k.Name, "secret": k.Secret})
	}
	rs := make([]any, len(resources))
	for i, r := range resources {
		rs[i] = r
	}
	cfg := map[string]any{
		"apiVersion": "apiserver.config.k8s.io/v1",
		"kind":       "EncryptionConfiguration",
		"resources": []any{map[string]any{
			"resources": rs,
			"providers": []any{
				map[string]any{"aescbc": map[string]any{"keys": ks}},
				map[string]any{"identity": map[string]any{}},
			},
		}},
	}
	data, err := yaml.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("encryption configuration: %w", err)
	}
	return data, nil
}

// admissionConfigName is the ConfigMap with the AdmissionConfiguration.
func admissionConfigName(prefix string) string { return Name(prefix) + "-admission-config" }

// admissionConfigMap renders the AdmissionConfiguration with the configured plugins' settings,
// sorted by plugin name.
func admissionConfigMap(r resolved) (*corev1.ConfigMap, error) {
	names := make([]string, 0, len(r.AdmissionPluginConfigs))
	for n := range r.AdmissionPluginConfigs {
		names = append(names, n)
	}
	slices.Sort(names)
	plugins := make([]any, 0, len(names))
	for _, n := range names {
		var c any
		if err := yaml.Unmarshal([]byte(r.AdmissionPluginConfigs[n]), &c); err != nil {
			return nil, fmt.Errorf("admission plugin %s configuration: %w", n, err)
		}
		if _, ok := c.(map[string]any); !ok {
			return nil, fmt.Errorf("admission plugin %s configuration is not a YAML object", n)
		}
		plugins = append(plugins, map[string]any{"name": n, "configuration": c})
	}
	data, err := yaml.Marshal(map[string]any{
		"apiVersion": "apiserver.config.k8s.io/v1",
		"kind":       "AdmissionConfiguration",
		"plugins":    plugins,
	})
	if err != nil {
		return nil, fmt.Errorf("admission configuration: %w", err)
	}
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: admissionConfigName(r.prefix), Namespace: r.namespace, Labels: SelectorLabels(r.prefix)},
		Data:       map[string]string{admissionKey: string(data)},
	}, nil
}
