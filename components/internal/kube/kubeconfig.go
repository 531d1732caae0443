package kube

import "sigs.k8s.io/yaml"

// TokenKubeconfig is a kubeconfig for an API server reached in-cluster at server that trusts the
// base64 CA caData (usually a render.GeneratedRef with base64 set) and authenticates with the
// token in tokenFile. Gardener's control-plane components combine such a kubeconfig with the
// token that gardener-resource-manager's token requestor writes into their access Secret
// (Gardener's "Gardener Operator" docs/concepts/operator.md), so the kubeconfig itself carries no
// credential.
func TokenKubeconfig(name, server, caData, tokenFile string) (string, error) {
	cfg := map[string]any{
		"apiVersion":      "v1",
		"kind":            "Config",
		"current-context": name,
		"clusters": []any{map[string]any{"name": name, "cluster": map[string]any{
			"server":                     server,
			"certificate-authority-data": caData,
		}}},
		"contexts": []any{map[string]any{"name": name, "context": map[string]any{"cluster": name, "user": "token"}}},
		"users":    []any{map[string]any{"name": "token", "user": map[string]any{"tokenFile": tokenFile}}},
	}
	out, err := yaml.Marshal(cfg)
	return string(out), err
}

// CertificateKubeconfig is a kubeconfig for the API server at server, trusting the base64 CA
// caData, that authenticates with the base64 client certificate and key certData and keyData
// (usually render.GeneratedRef markers with base64 set, so that only a Secret may hold it).
// Cluster, context and user are all called name, as in the kubeconfigs Gardener's secrets manager
// writes for control-plane secrets (pkg/utils/secrets/control_plane.go at gardener/gardener
// v1.120.0).
func CertificateKubeconfig(name, server, caData, certData, keyData string) (string, error) {
	cfg := map[string]any{
		"apiVersion":      "v1",
		"kind":            "Config",
		"current-context": name,
		"clusters": []any{map[string]any{"name": name, "cluster": map[string]any{
			"server":                     server,
			"certificate-authority-data": caData,
		}}},
		"contexts": []any{map[string]any{"name": name, "context": map[string]any{"cluster": name, "user": name}}},
		"users": []any{map[string]any{"name": name, "user": map[string]any{
			"client-certificate-data": certData,
			"client-key-data":         keyData,
		}}},
	}
	out, err := yaml.Marshal(cfg)
	return string(out), err
}
