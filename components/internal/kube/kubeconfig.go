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
