package localcluster

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// gardener-admission-controller on a GardenerAPI plane: the real binary of the pinned release,
// serving its webhooks on loopback. As with gardener-apiserver, the helper registers them the way
// gardener-operator does, through a Service that is an ExternalName for localhost, so that
// kube-apiserver never dials a cluster IP.
const (
	// gardenerAdmissionControllerService names the Service the webhooks point at.
	gardenerAdmissionControllerService = "gardener-admission-controller"
	// gardenerAdmissionWebhooksName names the helper's ValidatingWebhookConfiguration; a
	// landscape's own configuration ("gardener-admission-controller") stays apart from it.
	gardenerAdmissionWebhooksName = "localcluster-gardener-admission-controller"
)

// admissionWebhook is one webhook of gardener-admission-controller the helper registers.
type admissionWebhook struct {
	name, path string
	resource   string
	operations []string
}

// gardenerAdmissionWebhooks are the handlers that decide on what a landscape writes to a virtual
// garden without gardenlets (pkg/admissioncontroller/webhook/admission at Gardener v1.120.0):
// Secrets holding kubeconfigs may not carry exec plugins or file references, and a project's
// namespace is deleted only with its Project.
var gardenerAdmissionWebhooks = []admissionWebhook{
	{name: "validate-kubeconfig-secrets.gardener.cloud", path: "/webhooks/validate-kubeconfig-secrets", resource: "secrets", operations: []string{"CREATE", "UPDATE"}},
	{name: "validate-namespace-deletion.gardener.cloud", path: "/webhooks/validate-namespace-deletion", resource: "namespaces", operations: []string{"DELETE"}},
}

// gardenerAdmissionControllerConfig is its AdmissionControllerConfiguration: the plane's admin
// kubeconfig, the webhook server on loopback with its certificate, and health and metrics ports
// of their own (the defaults are fixed ports, which parallel planes would share).
func (p *Plane) gardenerAdmissionControllerConfig() string {
	return fmt.Sprintf(`apiVersion: admissioncontroller.config.gardener.cloud/v1alpha1
kind: AdmissionControllerConfiguration
gardenClientConnection:
  kubeconfig: %s
logLevel: info
logFormat: text
server:
  webhooks:
    bindAddress: 127.0.0.1
    port: %d
    tls:
      serverCertDir: %s
  healthProbes:
    bindAddress: 127.0.0.1
    port: %d
  metrics:
    bindAddress: 127.0.0.1
    port: %d
`, p.kubeconfigPath, p.admissionWebhookPort, p.files.gardenerAdmissionControllerCertDir, p.admissionHealthPort, p.admissionMetricsPort)
}

// startGardenerAdmissionController starts gardener-admission-controller, waits until it is
// healthy and registers its webhooks. It needs the Gardener API: its handlers read Projects and
// Shoots.
func (p *Plane) startGardenerAdmissionController(ctx context.Context) error {
	configPath := filepath.Join(p.dir, binGardenerAdmissionController+".yaml")
	for attempt := 1; ; attempt++ {
		if err := os.WriteFile(configPath, []byte(p.gardenerAdmissionControllerConfig()), 0o600); err != nil {
			return fmt.Errorf("plane %s gardener-admission-controller config: %w", p.opts.Name, err)
		}
		proc, err := p.run(binGardenerAdmissionController, []string{"--config=" + configPath})
		if err != nil {
			return err
		}
		err = waitHTTP(ctx, proc, "http://127.0.0.1:"+strconv.Itoa(p.admissionHealthPort)+"/healthz", nil, "")
		if err == nil {
			break
		}
		// Its ports were chosen with the API server's and are bound only now: another process may
		// have taken one meanwhile (parallel test packages start planes too). Choose again.
		if attempt == portAttempts || !proc.exited() || !strings.Contains(tailFile(proc.logPath, 5), "address already in use") {
			return fmt.Errorf("plane %s gardener-admission-controller: %w", p.opts.Name, err)
		}
		ports, perr := choosePorts(3)
		if perr != nil {
			return fmt.Errorf("plane %s: %w", p.opts.Name, perr)
		}
		p.admissionWebhookPort, p.admissionHealthPort, p.admissionMetricsPort = ports[0], ports[1], ports[2]
	}
	return p.registerAdmissionWebhooks(ctx)
}

// registerAdmissionWebhooks registers gardenerAdmissionWebhooks against an ExternalName Service
// for localhost, failing closed as Gardener's do.
func (p *Plane) registerAdmissionWebhooks(ctx context.Context) error {
	cs, err := p.Clientset()
	if err != nil {
		return err
	}
	if err := applyLoopbackService(ctx, cs, gardenerAdmissionControllerService, p.admissionWebhookPort, nil); err != nil {
		return err
	}
	port := int64(p.admissionWebhookPort)
	caBundle := base64.StdEncoding.EncodeToString(p.creds.caCertPEM)
	var webhooks []any
	for _, w := range gardenerAdmissionWebhooks {
		operations := make([]any, len(w.operations))
		for i, op := range w.operations {
			operations[i] = op
		}
		webhooks = append(webhooks, map[string]any{
			"name":                    w.name,
			"admissionReviewVersions": []any{"v1"},
			"sideEffects":             "None",
			"failurePolicy":           "Fail",
			"timeoutSeconds":          int64(10),
			"clientConfig": map[string]any{
				"caBundle": caBundle,
				"service": map[string]any{
					"namespace": gardenerAPIServerNamespace, "name": gardenerAdmissionControllerService,
					"port": port, "path": w.path,
				},
			},
			"rules": []any{map[string]any{
				"apiGroups": []any{""}, "apiVersions": []any{"v1"},
				"operations": operations, "resources": []any{w.resource},
			}},
		})
	}
	config := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
		"metadata": map[string]any{"name": gardenerAdmissionWebhooksName},
		"webhooks": webhooks,
	}}
	dyn, err := dynamic.NewForConfig(p.RESTConfig())
	if err != nil {
		return fmt.Errorf("dynamic client: %w", err)
	}
	configs := dyn.Resource(schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"})
	if _, err := configs.Apply(ctx, gardenerAdmissionWebhooksName, config, metav1.ApplyOptions{FieldManager: fieldManager, Force: true}); err != nil {
		return fmt.Errorf("validatingwebhookconfiguration %s: %w", gardenerAdmissionWebhooksName, err)
	}
	return nil
}
