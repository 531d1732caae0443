package kubeapiserver

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/version"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/internal/unique"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Data keys of the configuration files the API server reads, as Gardener keys them
// (pkg/component/apiserver and pkg/component/kubernetes/apiserver at Gardener v1.120.0).
const (
	// EncryptionConfigKey is the key of the EncryptionConfiguration in its Secret.
	EncryptionConfigKey = "encryption-configuration.yaml"
	// AuditPolicyKey is the key of the audit policy in the ConfigMap named by AuditPolicyConfigMap.
	AuditPolicyKey       = "audit-policy.yaml"
	admissionKey         = "admission-configuration.yaml"
	authorizationKey     = "config.yaml"
	egressSelectorKey    = "egress-selector-configuration.yaml"
	staticTokensKey      = "static_tokens.csv"
	apiserverConfigGroup = "apiserver.config.k8s.io"
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

// configuration is what the API server reads besides its certificates and keys: the objects the
// component renders for it and the names its volumes mount.
type configuration struct {
	objects                                                             []runtime.Object
	admission, auditPolicy, authorization, egress, admissionKubeconfigs string
}

// configurationOf renders the configuration: the admission configuration and kubeconfigs, the
// audit policy unless the landscape names one, the structured authorization with the webhooks'
// kubeconfigs, the egress selector of the VPN without high availability, and the static token
// file.
func configurationOf(r resolved) (configuration, error) {
	var c configuration
	admission, err := admissionConfigMap(r)
	if err != nil {
		return c, err
	}
	kubeconfigs := admissionKubeconfigsSecret(r)
	c.admission, c.admissionKubeconfigs = admission.Name, kubeconfigs.Name
	c.objects = append(c.objects, admission, kubeconfigs, staticTokenSecret(r))
	c.auditPolicy = r.AuditPolicyConfigMap
	if c.auditPolicy == "" {
		policy := auditPolicyConfigMap(r)
		c.auditPolicy = policy.Name
		c.objects = append(c.objects, policy)
	}
	if r.structuredAuthorization {
		authz, err := authorizationConfigMap(r)
		if err != nil {
			return c, err
		}
		c.authorization = authz.Name
		c.objects = append(c.objects, authz)
	}
	if len(r.AuthorizationWebhooks) > 0 {
		s, err := authorizationKubeconfigsSecret(r)
		if err != nil {
			return c, err
		}
		c.objects = append(c.objects, s)
	}
	if r.VPN != nil && !r.VPN.HighAvailability {
		egress, err := egressSelectorConfigMap(r)
		if err != nil {
			return c, err
		}
		c.egress = egress.Name
		c.objects = append(c.objects, egress)
	}
	return c, nil
}

// admissionConfigMap holds the AdmissionConfiguration and, as files of their own
// (<plugin in lower case>.yaml) it points at, the configurations of the enabled plugins that have
// one, in the order the plugins are enabled (ReconcileConfigMapAdmission in
// pkg/component/apiserver/admission.go at Gardener v1.120.0).
func admissionConfigMap(r resolved) (*corev1.ConfigMap, error) {
	data := map[string]string{}
	var plugins []any
	for _, n := range r.enabledPlugins {
		raw, ok := r.AdmissionPluginConfigs[n]
		if !ok {
			continue
		}
		var c any
		if err := yaml.Unmarshal([]byte(raw), &c); err != nil {
			return nil, fmt.Errorf("admission plugin %s configuration: %w", n, err)
		}
		if _, ok := c.(map[string]any); !ok {
			return nil, fmt.Errorf("admission plugin %s configuration is not a YAML object", n)
		}
		file := strings.ToLower(n) + ".yaml"
		data[file] = raw
		plugins = append(plugins, map[string]any{"configuration": nil, "name": n, "path": dirAdmission + "/" + file})
	}
	for n := range r.AdmissionPluginConfigs {
		if !slices.Contains(r.enabledPlugins, n) {
			return nil, fmt.Errorf("admission plugin %s has a configuration but is not enabled", n)
		}
	}
	cfg, err := yaml.Marshal(map[string]any{
		"apiVersion": "apiserver.k8s.io/v1alpha1",
		"kind":       "AdmissionConfiguration",
		"plugins":    plugins,
	})
	if err != nil {
		return nil, fmt.Errorf("admission configuration: %w", err)
	}
	data[admissionKey] = string(cfg)
	return uniqueConfigMap(r, AdmissionConfigMapPrefix, data), nil
}

// defaultAuditPolicy is the policy Gardener's API servers run with when nobody gives one: nothing
// is audited (ReconcileConfigMapAuditPolicy in pkg/component/apiserver/audit.go at Gardener
// v1.120.0), written as Gardener's codec writes it.
const defaultAuditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
metadata:
  creationTimestamp: null
rules:
- level: None
`

// auditPolicyConfigMap is the component's own audit policy, when the landscape names none.
func auditPolicyConfigMap(r resolved) *corev1.ConfigMap {
	return uniqueConfigMap(r, AuditPolicyConfigMapPrefix, map[string]string{AuditPolicyKey: defaultAuditPolicy})
}

// authorizationConfigMap is the structured AuthorizationConfiguration: the Node authorizer where
// there are nodes, RBAC, then the webhooks through their kubeconfig files
// (reconcileConfigMapAuthorizationConfig in pkg/component/kubernetes/apiserver/authorization.go at
// Gardener v1.120.0).
func authorizationConfigMap(r resolved) (*corev1.ConfigMap, error) {
	var authorizers []any
	if !r.Workerless {
		authorizers = append(authorizers, map[string]any{"name": "node", "type": "Node"})
	}
	authorizers = append(authorizers, map[string]any{"name": "rbac", "type": "RBAC"})
	for _, w := range r.AuthorizationWebhooks {
		authorizers = append(authorizers, map[string]any{"name": w.Name, "type": "Webhook", "webhook": map[string]any{
			"authorizedTTL":   "1ns",
			"unauthorizedTTL": "1ns",
			"timeout":         "10s",
			"failurePolicy":   "Deny",
			"connectionInfo": map[string]any{
				"type":           "KubeConfigFile",
				"kubeConfigFile": dirAuthorizationKubeconfigs + "/" + webhookKubeconfigFile(w.Name),
			},
			"subjectAccessReviewVersion":               "v1",
			"matchConditionSubjectAccessReviewVersion": "v1",
			"matchConditions":                          []any{map[string]any{"expression": w.MatchExpression}},
		}})
	}
	data, err := yaml.Marshal(map[string]any{
		"apiVersion":  apiserverConfigGroup + "/v1beta1",
		"kind":        "AuthorizationConfiguration",
		"authorizers": authorizers,
	})
	if err != nil {
		return nil, fmt.Errorf("authorization configuration: %w", err)
	}
	return uniqueConfigMap(r, AuthorizationConfigMapPrefix, map[string]string{authorizationKey: string(data)}), nil
}

// webhookKubeconfigFile is the file of a webhook's kubeconfig in the kubeconfigs Secret.
func webhookKubeconfigFile(name string) string { return strings.ToLower(name) + "-kubeconfig.yaml" }

// authorizationKubeconfigsSecret holds a kubeconfig per authorization webhook: its server and
// CA, no credentials (NewKubeconfig in pkg/utils/kubernetes at Gardener v1.120.0, context
// authorization-webhook).
func authorizationKubeconfigsSecret(r resolved) (*corev1.Secret, error) {
	data := map[string]string{}
	for _, w := range r.AuthorizationWebhooks {
		const name = "authorization-webhook"
		cfg, err := yaml.Marshal(map[string]any{
			"apiVersion":      "v1",
			"kind":            "Config",
			"current-context": name,
			"clusters": []any{map[string]any{"name": name, "cluster": map[string]any{
				"server": w.Server, "certificate-authority-data": w.CAData,
			}}},
			"contexts":    []any{map[string]any{"name": name, "context": map[string]any{"cluster": name, "user": name}}},
			"users":       []any{map[string]any{"name": name, "user": map[string]any{}}},
			"preferences": map[string]any{},
		})
		if err != nil {
			return nil, fmt.Errorf("authorization webhook %s kubeconfig: %w", w.Name, err)
		}
		data[webhookKubeconfigFile(w.Name)] = string(cfg)
	}
	return secret(r, AuthorizationKubeconfigsSecretName, data), nil
}

// egressSelectorConfigMap routes the API server's connections to the cluster (kubelets,
// webhooks and APIServices in the shoot) through vpn-seed-server's HTTP CONNECT proxy and the
// others directly (reconcileConfigMapEgressSelector in
// pkg/component/kubernetes/apiserver/configmaps.go at Gardener v1.120.0).
func egressSelectorConfigMap(r resolved) (*corev1.ConfigMap, error) {
	direct := func(name string) any {
		return map[string]any{"name": name, "connection": map[string]any{"proxyProtocol": "Direct"}}
	}
	data, err := yaml.Marshal(map[string]any{
		"apiVersion": "apiserver.k8s.io/v1alpha1",
		"kind":       "EgressSelectorConfiguration",
		"egressSelections": []any{
			map[string]any{"name": "cluster", "connection": map[string]any{
				"proxyProtocol": "HTTPConnect",
				"transport": map[string]any{"tcp": map[string]any{
					"url": fmt.Sprintf("https://%s:%d", vpnSeedServerName, vpnSeedServerEnvoyPort),
					"tlsConfig": map[string]any{
						"caBundle":   dirCAVPN + "/" + fileBundle,
						"clientCert": dirHTTPProxy + "/" + keyCert,
						"clientKey":  dirHTTPProxy + "/" + keyKey,
					},
				}},
			}},
			direct("controlplane"),
			direct("etcd"),
		},
	})
	if err != nil {
		return nil, fmt.Errorf("egress selector configuration: %w", err)
	}
	return uniqueConfigMap(r, EgressSelectorConfigMapPrefix, map[string]string{egressSelectorKey: string(data)}), nil
}

// admissionKubeconfigsSecret holds the kubeconfigs of admission plugins that call webhooks; the
// landscape gives none, so it is empty, and mounted as Gardener mounts it
// (ReconcileSecretAdmissionKubeconfigs in pkg/component/apiserver/admission.go at Gardener
// v1.120.0).
func admissionKubeconfigsSecret(r resolved) *corev1.Secret {
	s := secret(r, AdmissionKubeconfigsSecretPrefix, nil)
	unique.Secret(s)
	return s
}

// staticTokenSecret is the token file (static_tokens.csv) with the health-check user, whose
// token the probes present: the API server admits no anonymous request, its health endpoints
// included (reconcileSecretStaticToken in pkg/component/kubernetes/apiserver/secrets.go at
// Gardener v1.120.0). The token is the generated one of HealthCheckTokenSecretName, which the
// engine fills in; the line is token,user,uid,groups with no groups.
func staticTokenSecret(r resolved) *corev1.Secret {
	line := fmt.Sprintf("%s,%s,%s,", healthCheckToken(r), healthCheckUser, healthCheckUser)
	return secret(r, StaticTokenSecretName, map[string]string{staticTokensKey: line})
}

// healthCheckToken is the marker of the health-check user's generated token.
func healthCheckToken(r resolved) string {
	return render.GeneratedRef(r.namespace, r.HealthCheckTokenSecretName, render.DataKeyToken, false)
}

// uniqueConfigMap is a configuration ConfigMap as Gardener makes it unique: named after its data,
// immutable and garbage-collectable (unique.ConfigMap).
func uniqueConfigMap(r resolved, prefix string, data map[string]string) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: prefix, Namespace: r.namespace}, Data: data}
	unique.ConfigMap(cm)
	return cm
}

func secret(r resolved, name string, data map[string]string) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: r.namespace}, Type: corev1.SecretTypeOpaque, StringData: data}
}
