package cluster

import (
	"context"
	"encoding/base64"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// shootsResource is the Shoots of the Gardener API, whose adminkubeconfig subresource issues
// kubeconfigs.
var shootsResource = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots"}

// IssuedKubeconfig is a kubeconfig an API server issued, and when its credential expires.
type IssuedKubeconfig struct {
	Kubeconfig []byte
	Expires    time.Time
}

// AdminKubeconfig asks gardener-apiserver, through cfg (a client of the virtual garden), for an
// administrator's kubeconfig of the Shoot namespace/name: an AdminKubeconfigRequest
// (authentication.gardener.cloud/v1alpha1) posted to the Shoot's adminkubeconfig subresource, as
// gardenctl and the dashboard do. gardener-apiserver signs a client certificate for the
// requesting user (in the group system:masters of the shoot) with the shoot's client CA, valid
// for expiration (it shortens a longer one to its --shoot-admin-kubeconfig-max-expiration, 24h by
// default), and points the kubeconfig at the Shoot's advertised addresses. The user needs the
// permission to create shoots/adminkubeconfig in the project.
func AdminKubeconfig(ctx context.Context, cfg *rest.Config, namespace, name string, expiration time.Duration) (*IssuedKubeconfig, error) {
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	req := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "authentication.gardener.cloud/v1alpha1", "kind": "AdminKubeconfigRequest",
		"metadata": map[string]any{"name": name, "namespace": namespace},
		"spec":     map[string]any{"expirationSeconds": int64(expiration / time.Second)},
	}}
	res, err := client.Resource(shootsResource).Namespace(namespace).Create(ctx, req, metav1.CreateOptions{}, "adminkubeconfig")
	if err != nil {
		return nil, fmt.Errorf("admin kubeconfig of shoot %s/%s: %w", namespace, name, err)
	}
	encoded, _, _ := unstructured.NestedString(res.Object, "status", "kubeconfig")
	data, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil || len(data) == 0 {
		return nil, fmt.Errorf("admin kubeconfig of shoot %s/%s: the answer holds no kubeconfig", namespace, name)
	}
	issued := &IssuedKubeconfig{Kubeconfig: data}
	if s, _, _ := unstructured.NestedString(res.Object, "status", "expirationTimestamp"); s != "" {
		if t, err := time.Parse(time.RFC3339, s); err == nil {
			issued.Expires = t
		}
	}
	return issued, nil
}

// FlatKubeconfig is the kubeconfig access names, reduced to its one context and made
// self-contained: certificate and key files are inlined, so that the file works wherever it is
// copied to. It carries the credential access does (a client certificate, a token, or an exec
// plugin, which stays a program to run), with that credential's lifetime.
func FlatKubeconfig(access Access) ([]byte, error) {
	if access.InCluster {
		return nil, fmt.Errorf("the cluster is reached with the service account of a Pod (in_cluster), which is no kubeconfig to hand out")
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if access.Kubeconfig != "" {
		rules.ExplicitPath = access.Kubeconfig
	}
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: access.Context})
	// ClientConfig checks what RawConfig does not: the files exist and the context is there.
	if _, err := loader.ClientConfig(); err != nil {
		return nil, accessError(access, rules, err)
	}
	raw, err := loader.RawConfig()
	if err != nil {
		return nil, accessError(access, rules, err)
	}
	if access.Context != "" {
		raw.CurrentContext = access.Context
	}
	if err := clientcmdapi.MinifyConfig(&raw); err != nil {
		return nil, accessError(access, rules, err)
	}
	if err := clientcmdapi.FlattenConfig(&raw); err != nil {
		return nil, accessError(access, rules, err)
	}
	return clientcmd.Write(raw)
}
