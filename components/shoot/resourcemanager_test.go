package shoot

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/components/resourcemanager"
	"github.com/declarative-gardener/gardener/engine/render"
)

// The shoot's gardener-resource-manager has a working identity in the shoot
// (pkg/component/gardener/resourcemanager, pkg/component/shared/resourcemanager.go and
// pkg/gardenlet/operation/botanist/resource_manager.go at gardener/gardener v1.120.0).

// renderedParts renders the shoot with the live objects observe finds.
func renderedParts(t *testing.T, v Values, observe func(render.LiveRef) (*unstructured.Unstructured, error)) map[string]render.Component {
	t.Helper()
	out, err := Type.Render(render.Input{Name: "dev", Now: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC), Observe: observe}, v)
	require.NoError(t, err)
	ps := map[string]render.Component{}
	for _, p := range out.Components {
		ps[p.Name] = p
	}
	return ps
}

// withoutToken is the live state after the first apply where no token requestor answered yet:
// the access Secret exists without a token.
func withoutToken(ref render.LiveRef) (*unstructured.Unstructured, error) {
	if ref.Resource == "secrets" && ref.Name == resourcemanager.AccessSecretName {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{
			"name": ref.Name, "namespace": ref.Namespace}}}, nil
	}
	return nil, nil
}

// withToken is the live state once the GRM's token requestor wrote its token and its
// ManagedResource applied: the access Secret renewed in the future.
func withToken(ref render.LiveRef) (*unstructured.Unstructured, error) {
	switch {
	case ref.Resource == "secrets" && ref.Name == resourcemanager.AccessSecretName:
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{
			"name": ref.Name, "namespace": ref.Namespace,
			"annotations": map[string]any{"serviceaccount.resources.gardener.cloud/token-renew-timestamp": "2026-11-29T07:00:00Z"},
		}, "data": map[string]any{"token": "c2VjcmV0"}}}, nil
	case ref.Resource == "managedresources" && ref.Name == resourcemanager.ShootManagedResourceName:
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "resources.gardener.cloud/v1alpha1", "kind": "ManagedResource",
			"metadata": map[string]any{"name": ref.Name, "namespace": ref.Namespace}}}, nil
	}
	return nil, nil
}

func grmDeployment(t *testing.T, p render.Component) appsv1.Deployment {
	t.Helper()
	var d appsv1.Deployment
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(find(t, p, "Deployment", "gardener-resource-manager").Object, &d))
	return d
}

func mountPaths(d appsv1.Deployment) map[string]string {
	out := map[string]string{}
	for _, m := range d.Spec.Template.Spec.Containers[0].VolumeMounts {
		out[m.Name] = m.MountPath
	}
	return out
}

// TestResourceManagerBootstrapsItsToken: without a token the GRM starts with the bootstrap
// kubeconfig, a client certificate of system:masters from the client CA, valid 10 minutes; with
// its token it mounts the generic kubeconfig and the token, and the bootstrap is gone.
func TestResourceManagerBootstrapsItsToken(t *testing.T) {
	// A new shoot: no access Secret yet, so the GRM is deployed with its token path at once
	// (resourcemanager.MustBootstrap, a difference on purpose from gardenlet, which bootstraps).
	fresh := renderedParts(t, values(withDNS), nil)
	assert.NotContains(t, fresh, "gardener_resource_manager_bootstrap")
	assert.Equal(t, "/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig", mountPaths(grmDeployment(t, fresh["gardener_resource_manager"]))["kubeconfig"])

	// The access Secret without a token: the GRM bootstraps.
	waiting := renderedParts(t, values(withDNS), withoutToken)
	cert := waiting["gardener_resource_manager_bootstrap"]
	require.NotNil(t, cert.Secret, "the bootstrap certificate is generated")
	assert.Equal(t, render.SecretSpec{
		Cluster: "seed1", Namespace: "shoot--local--dev", Name: "shoot-access-gardener-resource-manager-bootstrap-certificate",
		Class: "client-cert", CommonName: "gardener.cloud:system:gardener-resource-manager", Organization: []string{"system:masters"},
		Validity: 10 * time.Minute, CA: "ca-client",
	}, *cert.Secret)
	grm := waiting["gardener_resource_manager"]
	assert.Contains(t, grm.DependsOn, "gardener_resource_manager_bootstrap")
	assert.Contains(t, grm.Note, "bootstrap kubeconfig")
	assert.Contains(t, grm.Note, "has not written a token yet")
	find(t, grm, "Secret", resourcemanager.BootstrapKubeconfigSecretName)
	assert.Equal(t, "/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig", mountPaths(grmDeployment(t, grm))["kubeconfig-bootstrap"])

	bootstrapped := renderedParts(t, values(withDNS), withToken)
	assert.NotContains(t, bootstrapped, "gardener_resource_manager_bootstrap")
	grm = bootstrapped["gardener_resource_manager"]
	assert.NotContains(t, grm.DependsOn, "gardener_resource_manager_bootstrap")
	assert.Empty(t, grm.Note)
	mounts := mountPaths(grmDeployment(t, grm))
	assert.NotContains(t, mounts, "kubeconfig-bootstrap")
	assert.Equal(t, "/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig", mounts["kubeconfig"])
	for _, o := range grm.Objects {
		assert.NotEqual(t, resourcemanager.BootstrapKubeconfigSecretName, o.Object.GetName())
	}

	// Hibernated, the GRM has no pods to bootstrap.
	assert.NotContains(t, renderedParts(t, values(func(v *Values) { withDNS(v); hibernated(v) }), withoutToken), "gardener_resource_manager_bootstrap")
}

// TestTokenPathsAgree: the generic token kubeconfig names the token file that the GRM and
// kube-controller-manager mount beside it, from their own access Secrets (the review's defect:
// a kubeconfig naming a token path that was not mounted).
func TestTokenPathsAgree(t *testing.T) {
	ps := renderedParts(t, values(withDNS), withToken)
	generic := find(t, ps["access"], "Secret", "generic-token-kubeconfig")
	text, _, _ := unstructured.NestedString(generic.Object, "stringData", "kubeconfig")
	var kubeconfig struct {
		Users []struct {
			User struct {
				TokenFile string `json:"tokenFile"`
			}
		}
	}
	require.NoError(t, yaml.Unmarshal([]byte(text), &kubeconfig))
	tokenFile := kubeconfig.Users[0].User.TokenFile
	assert.Equal(t, "/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig/token", tokenFile)

	for _, tc := range []struct{ part, deployment, container, access string }{
		{"gardener_resource_manager", "gardener-resource-manager", "gardener-resource-manager", "shoot-access-gardener-resource-manager"},
		{"kube_controller_manager", "kube-controller-manager", "kube-controller-manager", "shoot-access-kube-controller-manager"},
	} {
		var d appsv1.Deployment
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(find(t, ps[tc.part], "Deployment", tc.deployment).Object, &d))
		var projected *corev1.ProjectedVolumeSource
		var volume string
		for _, v := range d.Spec.Template.Spec.Volumes {
			if v.Projected != nil && len(v.Projected.Sources) == 2 && v.Projected.Sources[0].Secret != nil && v.Projected.Sources[0].Secret.Name == "generic-token-kubeconfig" {
				projected, volume = v.Projected, v.Name
			}
		}
		require.NotNil(t, projected, tc.part)
		assert.Equal(t, tc.access, projected.Sources[1].Secret.Name, tc.part)
		assert.Equal(t, []corev1.KeyToPath{{Key: "token", Path: "token"}}, projected.Sources[1].Secret.Items, tc.part)
		var dir string
		for _, c := range d.Spec.Template.Spec.Containers {
			for _, m := range c.VolumeMounts {
				if c.Name == tc.container && m.Name == volume {
					dir = m.MountPath
				}
			}
		}
		assert.Equal(t, tokenFile, dir+"/token", "%s mounts its token where the kubeconfig reads it", tc.part)
	}
	access := find(t, ps["gardener_resource_manager"], "Secret", resourcemanager.AccessSecretName)
	assert.Equal(t, "token-requestor", access.GetLabels()["resources.gardener.cloud/purpose"])
}

// TestResourceManagerTarget: the shoot's GRM as gardenlet configures it for this shoot.
func TestResourceManagerTarget(t *testing.T) {
	b, err := newBuilder("dev", values(func(v *Values) {
		withDNS(v)
		v.Kubernetes.Version = "1.32.2"
		v.Workers[0].Taints = append(v.Workers[0].Taints, struct {
			Key    string `json:"key"`
			Value  string `json:"value"`
			Effect string `json:"effect"`
		}{Key: "dedicated", Value: "system", Effect: "NoSchedule"}, struct {
			Key    string `json:"key"`
			Value  string `json:"value"`
			Effect string `json:"effect"`
		}{Key: "gpu", Effect: "NoExecute"})
	}))
	require.NoError(t, err)
	target := b.resourceManagerTarget()
	assert.Equal(t, "api.dev.local.internal.example.com", target.KubernetesServiceHost, "the internal domain")
	assert.Equal(t, "local", target.ClusterIdentity)
	assert.Equal(t, "ca", target.CASecretName)
	assert.True(t, target.AuthorizeWithSelectors, "from Kubernetes 1.32")
	assert.False(t, target.PodTopologySpreadConstraints)
	assert.Equal(t, []corev1.Toleration{
		{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "system", Effect: corev1.TaintEffectNoSchedule},
		{Key: "gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
	}, target.SystemComponentTolerations)

	b.v.Workers[0].SystemComponentsAllowed = ptr.To(false)
	assert.Empty(t, b.resourceManagerTarget().SystemComponentTolerations, "only pools that allow system components")
	assert.False(t, authorizeWithSelectors("1.31.4", nil))
	assert.False(t, authorizeWithSelectors("1.33.0", map[string]bool{"AuthorizeWithSelectors": false}))
}

// TestSystemComponentsReachTheAPIServer: kube-proxy's kubeconfig and CoreDNS name the API server's
// internal domain (DeployKubeProxy and DefaultCoreDNS in pkg/gardenlet/operation/botanist at
// v1.120.0), and kube-system carries the label the resource manager's pod webhooks select.
func TestSystemComponentsReachTheAPIServer(t *testing.T) {
	ps := renderedParts(t, values(withDNS), withToken)
	contents := func(mr string) map[string]string {
		for _, o := range ps["system_components"].Objects {
			if o.Object.GetKind() != "ManagedResource" || o.Object.GetName() != mr {
				continue
			}
			refs, _, _ := unstructured.NestedSlice(o.Object.Object, "spec", "secretRefs")
			name := refs[0].(map[string]any)["name"].(string)
			data, _, _ := unstructured.NestedStringMap(find(t, ps["system_components"], "Secret", name).Object, "stringData")
			return data
		}
		t.Fatalf("no ManagedResource %s", mr)
		return nil
	}
	proxy := contents("shoot-core-kube-proxy")
	var kubeconfigSecret string
	for key, doc := range proxy {
		if strings.HasPrefix(key, "secret__kube-system__kube-proxy-") {
			kubeconfigSecret = doc
		}
	}
	assert.Contains(t, kubeconfigSecret, "server: https://api.dev.local.internal.example.com")
	assert.Contains(t, contents("shoot-core-coredns")["deployment__kube-system__coredns.yaml"], "value: api.dev.local.internal.example.com.")
	assert.Contains(t, contents("shoot-core-namespaces")["namespace____kube-system.yaml"], "gardener.cloud/purpose: kube-system")
}
