// Package gardenerapiserver renders the gardener_apiserver component: the aggregated API server
// that serves Gardener's API groups in the virtual garden (Gardener's "Gardener API Server"
// docs/concepts/apiserver.md). gardener-operator runs it in the garden runtime cluster next to the
// virtual garden's kube-apiserver, storing its data in the same virtual-garden-etcd-main
// (Gardener's "Gardener Operator" docs/concepts/operator.md, "Topology Aware Routing"
// docs/operations/topology_aware_routing.md). It must run before gardener-admission-controller,
// which watches Gardener resources through it (Gardener's "Scoped API Access for gardenlets and
// Extensions" docs/deployment/gardenlet_api_access.md).
//
// In the runtime cluster it renders the Deployment, the Service gardener-apiserver (443), a
// HorizontalPodAutoscaler (min 2, 3 with high availability, max 6; Gardener's "Autoscaling
// Specifics for Components" docs/development/autoscaling-specifics-for-components.md), a
// PodDisruptionBudget and the token-requestor Secret of its virtual garden identity. In the virtual
// garden it renders its RBAC (delegated authentication and authorization, admission plugins) and,
// unless turned off, the APIServices for its groups with the kube-system Service they point at
// (Gardener's docs/concepts/operator.md).
package gardenerapiserver

import (
	"github.com/declarative-gardener/gardener/components/gardenercontrolplane"
)

// Name is the name of the Deployment, the Services and the virtual garden ServiceAccount.
const Name = "gardener-apiserver"

// Values are the component's typed inputs. Composites start from Type.Defaults, the schema's
// defaults.
type Values struct {
	gardenercontrolplane.Common

	// ClusterIdentity is the identity of the garden (--cluster-identity), immutable in Gardener's
	// Garden API (Gardener's Gardener in docs/api-reference/operator.md). Required.
	ClusterIdentity string `json:"cluster_identity"`
	// EtcdEndpoint is virtual-garden-etcd-main's client URL; "" means
	// https://virtual-garden-etcd-main-client.<namespace>.svc:2379 (Gardener's
	// docs/operations/topology_aware_routing.md).
	EtcdEndpoint string `json:"etcd_endpoint"`
	// EtcdCASecretName names the Secret with the etcd CA (key ca.crt).
	EtcdCASecretName string `json:"etcd_ca_secret_name"`
	// EtcdClientSecretName names the Secret with the etcd client certificate (keys tls.crt,
	// tls.key).
	EtcdClientSecretName string `json:"etcd_client_secret_name"`
	// EncryptionConfigSecretName names the Secret with the EncryptionConfiguration (key
	// encryption-configuration.yaml). The landscape provides it, covering the resources
	// EncryptedResources returns.
	EncryptionConfigSecretName string `json:"encryption_config_secret_name"`
	// EncryptedResources are resources to encrypt besides the always-encrypted ones
	// (Gardener's docs/concepts/operator.md), as <plural>.<group>.
	EncryptedResources []string `json:"encrypted_resources"`
	// AuditPolicyConfigMapName, when set, names a ConfigMap (key audit-policy.yaml) with the audit
	// policy; audit events are then logged to standard output.
	AuditPolicyConfigMapName string `json:"audit_policy_config_map_name"`
	// DefaultWatchCacheSize, when set, is --default-watch-cache-size (0 disables the watch cache,
	// Gardener's GardenerAPIServerConfig in docs/api-reference/operator.md).
	DefaultWatchCacheSize *int `json:"default_watch_cache_size"`
	// TLSSecretName names the serving certificate Secret (keys tls.crt, tls.key). Its names must
	// include gardener-apiserver.kube-system.svc, the name the aggregator verifies.
	TLSSecretName string `json:"tls_secret_name"`
	// RegisterAPIServices registers the APIServices (and their kube-system Service) in the
	// virtual garden. Turn it off where the Gardener API is served otherwise.
	RegisterAPIServices bool `json:"register_api_services"`
	// CABundle is the CA that signed the serving certificate, for the APIServices: PEM, base64 or
	// an engine marker of a generated certificate. Empty omits caBundle.
	CABundle string `json:"ca_bundle"`
	// RuntimeServiceAddress is where the virtual garden's kube-system/gardener-apiserver Service
	// leads: a DNS name gives an ExternalName Service, an IP address a selectorless Service with
	// Endpoints and an EndpointSlice. "" means gardener-apiserver.<namespace>.svc.
	RuntimeServiceAddress string `json:"runtime_service_address"`
}
