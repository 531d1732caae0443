package localcluster

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// The real Gardener API on a GardenerAPI plane: gardener-apiserver runs as a process beside the
// plane's kube-apiserver, stores its objects in the plane's etcd (under /registry-gardener) and is
// registered with the aggregation layer, so that every client reaches the Gardener API through
// the plane's normal address, as on a real virtual garden (Gardener's docs "Gardener API Server"
// and the gardener-apiserver chart of gardener-operator).
const (
	// gardenerAPIServerNamespace and gardenerAPIServerService name the Service the APIServices
	// point at. gardener-operator's is in the virtual garden's kube-system, where a landscape's
	// garden block renders it too; garden keeps the helper's out of the landscape's way.
	gardenerAPIServerNamespace = "garden"
	gardenerAPIServerService   = "gardener-apiserver"
	// gardenerClusterIdentity is the garden's identity as gardener-apiserver reports it (the
	// cluster-identity ConfigMap in kube-system).
	gardenerClusterIdentity = "local-virtual-garden"
)

// GardenerAPIGroupVersions are the group versions gardener-apiserver v1.120 serves, one APIService
// each (gardener-operator registers the same list).
var GardenerAPIGroupVersions = []schema.GroupVersion{
	{Group: "core.gardener.cloud", Version: "v1beta1"},
	{Group: "core.gardener.cloud", Version: "v1"},
	{Group: "security.gardener.cloud", Version: "v1alpha1"},
	{Group: "seedmanagement.gardener.cloud", Version: "v1alpha1"},
	{Group: "settings.gardener.cloud", Version: "v1alpha1"},
	{Group: "operations.gardener.cloud", Version: "v1alpha1"},
}

// apiServiceGroupPriorityMinimum and apiServiceVersionPriority are the priorities
// gardener-operator gives the Gardener APIServices.
const (
	apiServiceGroupPriorityMinimum = 10000
	apiServiceVersionPriority      = 20
)

// gardenerAPIServerArgs are gardener-apiserver's flags: the plane's etcd, the admin kubeconfig for
// the Kubernetes API (namespaces, secrets the admission plugins read) and for delegated
// authentication and authorization, and a serving certificate the aggregator verifies.
func (p *Plane) gardenerAPIServerArgs() []string {
	return []string{
		"--etcd-servers=http://127.0.0.1:" + strconv.Itoa(p.etcdClientPort),
		"--kubeconfig=" + p.kubeconfigPath,
		"--authentication-kubeconfig=" + p.kubeconfigPath,
		"--authorization-kubeconfig=" + p.kubeconfigPath,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(p.gardenerAPIServerPort),
		"--tls-cert-file=" + p.files.gardenerAPIServerCert,
		"--tls-private-key-file=" + p.files.gardenerAPIServerKey,
		"--cluster-identity=" + gardenerClusterIdentity,
		"--profiling=false",
		// As for kube-apiserver: a stopped server must not hold its watches for a minute.
		"--shutdown-watch-termination-grace-period=2s",
		"--log-level=info",
		"--log-format=text",
	}
}

// gardenerAPIServerURL is the address gardener-apiserver serves on.
func (p *Plane) gardenerAPIServerURL() string {
	return "https://127.0.0.1:" + strconv.Itoa(p.gardenerAPIServerPort)
}

// startGardenerAPIServer starts gardener-apiserver and waits until it serves. It needs the plane's
// kube-apiserver: it reads the request-header CA from kube-system/extension-apiserver-authentication
// and reviews tokens there.
func (p *Plane) startGardenerAPIServer(ctx context.Context) error {
	proc, err := p.run(binGardenerAPIServer, p.gardenerAPIServerArgs())
	if err != nil {
		return err
	}
	if err := waitHTTP(ctx, proc, p.gardenerAPIServerURL()+"/readyz", p.creds.caCertPEM, p.creds.adminToken); err != nil {
		return fmt.Errorf("plane %s gardener-apiserver: %w", p.opts.Name, err)
	}
	return nil
}

// registerGardenerAPI registers gardener-apiserver with the aggregation layer and waits until
// every APIService is Available. Endpoints may not hold loopback addresses, so the Service is of
// type ExternalName and resolves to localhost: the aggregator dials loopback, never a cluster IP.
func (p *Plane) registerGardenerAPI(ctx context.Context) error {
	cs, err := p.Clientset()
	if err != nil {
		return err
	}
	namespace, err := json.Marshal(&corev1.Namespace{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: gardenerAPIServerNamespace},
	})
	if err != nil {
		return err
	}
	if _, err := cs.CoreV1().Namespaces().Patch(ctx, gardenerAPIServerNamespace, types.ApplyPatchType, namespace, applyOptions()); err != nil {
		return fmt.Errorf("namespace %s: %w", gardenerAPIServerNamespace, err)
	}
	if err := applyLoopbackService(ctx, cs, gardenerAPIServerService, p.gardenerAPIServerPort, map[string]string{"app": "gardener", "role": "apiserver"}); err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(p.RESTConfig())
	if err != nil {
		return fmt.Errorf("dynamic client: %w", err)
	}
	apiServices := dyn.Resource(apiServiceResource)
	caBundle := base64.StdEncoding.EncodeToString(p.creds.caCertPEM)
	for _, gv := range GardenerAPIGroupVersions {
		name := gv.Version + "." + gv.Group
		apiService := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apiregistration.k8s.io/v1",
			"kind":       "APIService",
			"metadata":   map[string]any{"name": name},
			"spec": map[string]any{
				"group": gv.Group, "version": gv.Version,
				"service": map[string]any{
					"namespace": gardenerAPIServerNamespace, "name": gardenerAPIServerService,
					"port": int64(p.gardenerAPIServerPort),
				},
				"caBundle":             caBundle,
				"groupPriorityMinimum": int64(apiServiceGroupPriorityMinimum),
				"versionPriority":      int64(apiServiceVersionPriority),
			},
		}}
		if _, err := apiServices.Apply(ctx, name, apiService, metav1.ApplyOptions{FieldManager: fieldManager, Force: true}); err != nil {
			return fmt.Errorf("apiservice %s: %w", name, err)
		}
	}
	var pending string
	err = wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if err := p.checkAlive(); err != nil {
			return false, err
		}
		for _, gv := range GardenerAPIGroupVersions {
			name := gv.Version + "." + gv.Group
			s, err := apiServices.Get(ctx, name, metav1.GetOptions{})
			if err != nil || !apiServiceAvailable(s) {
				pending = name
				return false, nil //nolint:nilerr // transient until the aggregator has checked it
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("apiservice %s not available: %w; gardener-apiserver's last log lines:\n%s", pending, err,
			tailFile(filepath.Join(p.dir, binGardenerAPIServer+".log"), 15))
	}
	return p.waitGardenerDiscovery(ctx, cs)
}

// waitGardenerDiscovery waits until discovery lists the Gardener group versions: clients that
// build a REST mapper right after start-up (the engine, kwok) must find them.
func (p *Plane) waitGardenerDiscovery(ctx context.Context, cs *kubernetes.Clientset) error {
	err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(context.Context) (bool, error) {
		for _, gv := range GardenerAPIGroupVersions {
			if _, err := cs.Discovery().ServerResourcesForGroupVersion(gv.String()); err != nil {
				return false, nil //nolint:nilerr // retried until the context ends
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("gardener api discovery: %w", err)
	}
	return nil
}

// applyLoopbackService applies a Service in the garden namespace that is an ExternalName for
// localhost on port: what APIServices and webhooks of the plane's Gardener components name, so
// that kube-apiserver reaches them on loopback and never dials a cluster IP.
func applyLoopbackService(ctx context.Context, cs kubernetes.Interface, name string, port int, labels map[string]string) error {
	service, err := json.Marshal(&corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: gardenerAPIServerNamespace, Labels: labels},
		Spec: corev1.ServiceSpec{
			Type:         corev1.ServiceTypeExternalName,
			ExternalName: "localhost",
			Ports: []corev1.ServicePort{{
				Name: "https", Protocol: corev1.ProtocolTCP,
				Port: int32(port), TargetPort: intstr.FromInt32(int32(port)),
			}},
		},
	})
	if err != nil {
		return err
	}
	if _, err := cs.CoreV1().Services(gardenerAPIServerNamespace).Patch(ctx, name, types.ApplyPatchType, service, applyOptions()); err != nil {
		return fmt.Errorf("service %s: %w", name, err)
	}
	return nil
}

// applyOptions are the options of the helper's server-side applies.
func applyOptions() metav1.PatchOptions {
	force := true
	return metav1.PatchOptions{FieldManager: fieldManager, Force: &force}
}

// apiServiceResource is the aggregation layer's own resource.
var apiServiceResource = schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}

// apiServiceAvailable reports whether the aggregator found the APIService's server reachable.
func apiServiceAvailable(s *unstructured.Unstructured) bool {
	conditions, _, _ := unstructured.NestedSlice(s.Object, "status", "conditions")
	for _, c := range conditions {
		m, _ := c.(map[string]any)
		if m["type"] == "Available" && m["status"] == "True" {
			return true
		}
	}
	return false
}
