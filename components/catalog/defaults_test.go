package catalog

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/cloudprofile"
	"github.com/declarative-gardener/gardener/components/clusterautoscaler"
	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/controllerdeployment"
	"github.com/declarative-gardener/gardener/components/controllerregistration"
	"github.com/declarative-gardener/gardener/components/credentialsbinding"
	"github.com/declarative-gardener/gardener/components/dependencywatchdog"
	"github.com/declarative-gardener/gardener/components/etcd"
	"github.com/declarative-gardener/gardener/components/etcddruid"
	"github.com/declarative-gardener/gardener/components/exposureclass"
	"github.com/declarative-gardener/gardener/components/extension"
	"github.com/declarative-gardener/gardener/components/garden"
	"github.com/declarative-gardener/gardener/components/gardeneradmissioncontroller"
	"github.com/declarative-gardener/gardener/components/gardenerapiserver"
	"github.com/declarative-gardener/gardener/components/gardenercontrollermanager"
	"github.com/declarative-gardener/gardener/components/gardenerscheduler"
	"github.com/declarative-gardener/gardener/components/gardenlet"
	"github.com/declarative-gardener/gardener/components/helmrelease"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/istio"
	"github.com/declarative-gardener/gardener/components/kubeapiserver"
	"github.com/declarative-gardener/gardener/components/kubecontrollermanager"
	"github.com/declarative-gardener/gardener/components/kubescheduler"
	"github.com/declarative-gardener/gardener/components/landscapedaemon"
	"github.com/declarative-gardener/gardener/components/machinecontrollermanager"
	"github.com/declarative-gardener/gardener/components/managedresource"
	"github.com/declarative-gardener/gardener/components/manifests"
	"github.com/declarative-gardener/gardener/components/namespace"
	"github.com/declarative-gardener/gardener/components/networkpolicies"
	"github.com/declarative-gardener/gardener/components/nginxingress"
	"github.com/declarative-gardener/gardener/components/observability"
	"github.com/declarative-gardener/gardener/components/priorityclasses"
	"github.com/declarative-gardener/gardener/components/project"
	"github.com/declarative-gardener/gardener/components/quota"
	"github.com/declarative-gardener/gardener/components/reserveexcesscapacity"
	"github.com/declarative-gardener/gardener/components/resourcemanager"
	"github.com/declarative-gardener/gardener/components/secretbinding"
	"github.com/declarative-gardener/gardener/components/seed"
	"github.com/declarative-gardener/gardener/components/shoot"
	"github.com/declarative-gardener/gardener/components/vpa"
	"github.com/declarative-gardener/gardener/components/vpnseedserver"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// defaultsCase is one type rendered twice with the same inputs: from a block that sets only its
// required attributes, decoded with the schema as the loader decodes it (defaults filled in), and
// from the type's Values as a composite builds them (Type.Defaults, the block defaults of nested
// blocks, and the same required settings in Go).
type defaultsCase struct {
	typ string
	// hcl is the block's body: its required attributes and blocks.
	hcl string
	// beyond names the attributes the body sets that the schema does not require, and why: what
	// a landscape needs for the block to render at all (a reference the renderer needs, one of
	// the attributes a rule asks for).
	beyond map[string]string
	// dir is the landscape directory files are read from.
	dir string
	// values renders the type's Values.
	values func(t *testing.T, in render.Input) (*render.Output, error)
}

var (
	runtime = decode.Cluster{Name: "runtime"}
	virtual = decode.Cluster{Name: "virtual"}
	seedCl  = decode.Cluster{Name: "seed"}
)

// referenceContext is what the references of the bodies evaluate to, as the loader evaluates
// them: a cluster to its name, a garden and a seed to their outputs.
func referenceContext() *hcl.EvalContext {
	cluster := func(name string) cty.Value { return cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal(name)}) }
	return &hcl.EvalContext{Variables: map[string]cty.Value{
		"cluster": cty.ObjectVal(map[string]cty.Value{"runtime": cluster("runtime"), "virtual": cluster("virtual"), "seed": cluster("seed")}),
		"garden": cty.ObjectVal(map[string]cty.Value{"local": cty.ObjectVal(map[string]cty.Value{
			"name": cty.StringVal("local"), "virtual_endpoint": cty.StringVal("https://api.virtual.example.com"),
			"ca_bundle":       cty.StringVal("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"),
			"virtual_cluster": cluster("virtual"), "runtime_cluster": cluster("runtime"), "observability_enabled": cty.True,
		})}),
		"seed": cty.ObjectVal(map[string]cty.Value{"local": cty.ObjectVal(map[string]cty.Value{
			"name": cty.StringVal("local"), "cluster": cluster("seed"), "virtual_cluster": cluster("virtual"),
			"provider_type": cty.StringVal("local"), "region": cty.StringVal("local"), "zones": cty.ListVal([]cty.Value{cty.StringVal("0")}),
			"ingress_domain": cty.StringVal("ingress.seed.example.com"),
			"networks": cty.ObjectVal(map[string]cty.Value{
				"pods": cty.StringVal("10.1.0.0/16"), "services": cty.StringVal("10.2.0.0/16"), "nodes": cty.StringVal("10.0.0.0/16"),
				"shoot_pods": cty.StringVal("10.3.0.0/16"), "shoot_services": cty.StringVal("10.4.0.0/16"),
			}),
			"observability": cty.ObjectVal(map[string]cty.Value{"enabled": cty.True, "logging_enabled": cty.False}),
		})}),
	}}
}

// seedRef and gardenRef are the references of referenceContext as the Values of the seed and
// shoot blocks hold them.
var (
	gardenRef = seed.GardenRef{Name: "local", VirtualEndpoint: "https://api.virtual.example.com",
		CABundle: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", VirtualCluster: "virtual", RuntimeCluster: "runtime", ObservabilityEnabled: true}
	seedRef = shoot.SeedRef{Name: "local", Cluster: "seed", VirtualCluster: "virtual", ProviderType: "local", Region: "local", Zones: []string{"0"},
		IngressDomain: "ingress.seed.example.com", Pods: "10.1.0.0/16", Services: "10.2.0.0/16", Nodes: "10.0.0.0/16",
		ShootPods: "10.3.0.0/16", ShootServices: "10.4.0.0/16", Observability: shoot.SeedObservability{Enabled: true}}
)

// blockDefaults sets *dst to the defaults of the nested block at path of typ's schema, as a
// composite fills in a block (component.BlockDefaults) whose Go type has no name here.
func blockDefaults(t *testing.T, typ component.Type, dst any, path ...string) {
	t.Helper()
	body := &typ.Schema().Body
	for _, name := range path {
		blk := body.Block(name)
		require.NotNil(t, blk, "block %v", path)
		body = &blk.Body
	}
	data, err := ctyjson.SimpleJSONValue{Value: component.DefaultsValue(body)}.MarshalJSON()
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, dst))
}

func defaultsCases() []defaultsCase {
	composites := []defaultsCase{
		{typ: "garden", hcl: `
cluster = cluster.runtime
virtual_garden = cluster.virtual
runtime_cluster {
  networking {
    pods     = "10.1.0.0/16"
    services = "10.2.0.0/16"
  }
  ingress { domains = ["ingress.runtime.example.com"] }
}
virtual_cluster {
  dns_domains = ["virtual.example.com"]
  networking { services = "100.64.0.0/13" }
  kubernetes { version = "1.31.1" }
}`, beyond: map[string]string{"virtual_garden": "the Gardener control plane's RBAC, APIServices and webhooks go to the virtual garden"},
			values: func(t *testing.T, in render.Input) (*render.Output, error) {
				v := garden.Type.Defaults()
				v.Cluster, v.VirtualGarden = runtime, &virtual
				blockDefaults(t, garden.Type, &v.RuntimeCluster, "runtime_cluster")
				blockDefaults(t, garden.Type, &v.RuntimeCluster.Networking, "runtime_cluster", "networking")
				v.RuntimeCluster.Networking.Pods, v.RuntimeCluster.Networking.Services = "10.1.0.0/16", "10.2.0.0/16"
				blockDefaults(t, garden.Type, &v.RuntimeCluster.Ingress, "runtime_cluster", "ingress")
				v.RuntimeCluster.Ingress.Domains = []string{"ingress.runtime.example.com"}
				blockDefaults(t, garden.Type, &v.VirtualCluster, "virtual_cluster")
				v.VirtualCluster.DNSDomains = []string{"virtual.example.com"}
				blockDefaults(t, garden.Type, &v.VirtualCluster.Networking, "virtual_cluster", "networking")
				v.VirtualCluster.Networking.Services = "100.64.0.0/13"
				blockDefaults(t, garden.Type, &v.VirtualCluster.Kubernetes, "virtual_cluster", "kubernetes")
				v.VirtualCluster.Kubernetes.Version = "1.31.1"
				return garden.Type.Render(in, v)
			}},
		{typ: "seed", hcl: `
garden  = garden.local
cluster = cluster.seed
provider {
  type   = "local"
  region = "local"
}
networks {
  pods     = "10.1.0.0/16"
  services = "10.2.0.0/16"
}
ingress { domain = "ingress.seed.example.com" }
dns {
  provider {
    type       = "local"
    secret_ref = "seed-dns"
  }
}`, values: func(t *testing.T, in render.Input) (*render.Output, error) {
			v := seed.Type.Defaults()
			v.Garden, v.Cluster = gardenRef, seedCl
			blockDefaults(t, seed.Type, &v.Provider, "provider")
			v.Provider.Type, v.Provider.Region = "local", "local"
			blockDefaults(t, seed.Type, &v.Networks, "networks")
			v.Networks.Pods, v.Networks.Services = "10.1.0.0/16", "10.2.0.0/16"
			blockDefaults(t, seed.Type, &v.Ingress, "ingress")
			v.Ingress.Domain = "ingress.seed.example.com"
			blockDefaults(t, seed.Type, &v.DNS, "dns")
			blockDefaults(t, seed.Type, &v.DNS.Provider, "dns", "provider")
			v.DNS.Provider.Type, v.DNS.Provider.SecretRef = "local", "seed-dns"
			return seed.Type.Render(in, v)
		}},
		{typ: "shoot", hcl: `
seed          = seed.local
project       = "dev"
cloud_profile = "local"
region        = "local"
kubernetes { version = "1.31.1" }
provider { type = "local" }`, beyond: map[string]string{"seed": "the engine deploys the shoot's control plane into its seed"},
			values: func(t *testing.T, in render.Input) (*render.Output, error) {
				v := shoot.Type.Defaults()
				v.Seed, v.Project, v.CloudProfile, v.Region = &seedRef, "dev", "local", "local"
				blockDefaults(t, shoot.Type, &v.Kubernetes, "kubernetes")
				v.Kubernetes.Version = "1.31.1"
				blockDefaults(t, shoot.Type, &v.Provider, "provider")
				v.Provider.Type = "local"
				return shoot.Type.Render(in, v)
			}},
	}
	return append(composites, componentCases()...)
}

func componentCases() []defaultsCase {
	return []defaultsCase{
		{typ: "helm_release", dir: "../helmrelease/testdata", hcl: `
cluster   = cluster.runtime
chart     = "app"
namespace = "apps"`, values: func(_ *testing.T, in render.Input) (*render.Output, error) {
			v := helmrelease.Type.Defaults()
			v.Cluster, v.Chart, v.Namespace = runtime, "app", "apps"
			return helmrelease.Type.Render(in, v)
		}},
		{typ: "manifests", hcl: `
cluster = cluster.runtime
objects = [{ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "settings" } }]`,
			beyond: map[string]string{"objects": "a manifests block needs objects or files"},
			values: func(_ *testing.T, in render.Input) (*render.Output, error) {
				v := manifests.Type.Defaults()
				v.Cluster, v.Objects = runtime, json.RawMessage(`[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings"}}]`)
				return manifests.Type.Render(in, v)
			}},
		simple("priority_classes", priorityclasses.Type, "cluster = cluster.runtime", func(v *priorityclasses.Values) { v.Cluster = runtime }),
		simple("namespace", namespace.Type, "cluster = cluster.runtime", func(v *namespace.Values) { v.Cluster = runtime }),
		{typ: "network_policies", hcl: `
cluster = cluster.seed
networks {
  pods     = "10.1.0.0/16"
  services = "10.2.0.0/16"
}
namespace "garden" {}`,
			values: func(t *testing.T, in render.Input) (*render.Output, error) {
				v := networkpolicies.Type.Defaults()
				v.Cluster = seedCl
				blockDefaults(t, networkpolicies.Type, &v.Networks, "networks")
				v.Networks.Pods, v.Networks.Services = "10.1.0.0/16", "10.2.0.0/16"
				var ns networkpolicies.Namespace
				blockDefaults(t, networkpolicies.Type, &ns, "namespace")
				ns.Name = "garden"
				v.Namespaces = []networkpolicies.Namespace{ns}
				return networkpolicies.Type.Render(in, v)
			}},
		simple("gardener_resource_manager", resourcemanager.Type, "cluster = cluster.runtime", func(v *resourcemanager.Values) { v.Cluster = runtime }),
		simple("vpa", vpa.Type, "cluster = cluster.runtime", func(v *vpa.Values) { v.Cluster = runtime }),
		simple("etcd_druid", etcddruid.Type, "cluster = cluster.runtime", func(v *etcddruid.Values) { v.Cluster = runtime }),
		simple("istio", istio.Type, "cluster = cluster.runtime", func(v *istio.Values) { v.Cluster = runtime }),
		simple("nginx_ingress", nginxingress.Type, "cluster = cluster.runtime", func(v *nginxingress.Values) { v.Cluster = runtime }),
		simple("observability", observability.Type, "cluster = cluster.runtime", func(v *observability.Values) { v.Cluster = runtime }),
		simple("dependency_watchdog", dependencywatchdog.Type, "cluster = cluster.seed", func(v *dependencywatchdog.Values) { v.Cluster = seedCl }),
		simple("reserve_excess_capacity", reserveexcesscapacity.Type, "cluster = cluster.seed", func(v *reserveexcesscapacity.Values) { v.Cluster = seedCl }),
		simple("quota", quota.Type, "cluster = cluster.virtual", func(v *quota.Values) { v.Cluster = virtual }),
		{typ: "etcd", hcl: `
cluster = cluster.runtime
role    = "main"`, values: func(_ *testing.T, in render.Input) (*render.Output, error) {
			v := etcd.Type.Defaults()
			v.Cluster, v.Role = runtime, etcd.RoleMain
			return etcd.Type.Render(in, v)
		}},
		{typ: "kube_apiserver", hcl: `
cluster            = cluster.runtime
kubernetes_version = "1.31.1"
dns_domains        = ["virtual.example.com"]
service_network    = "100.64.0.0/13"`, values: func(_ *testing.T, in render.Input) (*render.Output, error) {
			v := kubeapiserver.Type.Defaults()
			v.Cluster, v.KubernetesVersion, v.DNSDomains, v.ServiceNetwork = runtime, "1.31.1", []string{"virtual.example.com"}, "100.64.0.0/13"
			return kubeapiserver.Type.Render(in, v)
		}},
		{typ: "kube_controller_manager", hcl: `
cluster            = cluster.runtime
kubernetes_version = "1.31.1"`, values: func(_ *testing.T, in render.Input) (*render.Output, error) {
			v := kubecontrollermanager.Type.Defaults()
			v.Cluster, v.KubernetesVersion = runtime, "1.31.1"
			return kubecontrollermanager.Type.Render(in, v)
		}},
		{typ: "gardener_apiserver", hcl: `
cluster          = cluster.runtime
virtual_cluster  = cluster.virtual
cluster_identity = "landscape"`, values: func(_ *testing.T, in render.Input) (*render.Output, error) {
			v := gardenerapiserver.Type.Defaults()
			v.Cluster, v.VirtualCluster, v.ClusterIdentity = runtime, virtual, "landscape"
			return gardenerapiserver.Type.Render(in, v)
		}},
		simple("gardener_admission_controller", gardeneradmissioncontroller.Type, "cluster = cluster.runtime\nvirtual_cluster = cluster.virtual", func(v *gardeneradmissioncontroller.Values) {
			v.Cluster, v.VirtualCluster = runtime, virtual
		}),
		simple("gardener_controller_manager", gardenercontrollermanager.Type, "cluster = cluster.runtime\nvirtual_cluster = cluster.virtual", func(v *gardenercontrollermanager.Values) {
			v.Cluster, v.VirtualCluster = runtime, virtual
		}),
		simple("gardener_scheduler", gardenerscheduler.Type, "cluster = cluster.runtime\nvirtual_cluster = cluster.virtual", func(v *gardenerscheduler.Values) { v.Cluster, v.VirtualCluster = runtime, virtual }),
		{typ: "project", hcl: `
cluster = cluster.virtual
owner { name = "john.doe@example.com" }`, values: func(t *testing.T, in render.Input) (*render.Output, error) {
			v := project.Type.Defaults()
			v.Cluster = virtual
			v.Owner = &project.Subject{}
			blockDefaults(t, project.Type, v.Owner, "owner")
			v.Owner.Name = "john.doe@example.com"
			return project.Type.Render(in, v)
		}},
		{typ: "cloud_profile", hcl: `
cluster = cluster.virtual
type    = "local"
kubernetes_version "1.31.1" {}
machine_image "local" {
  version "1.0.0" {}
}
machine_type "local" {
  cpu    = "1"
  memory = "1Gi"
}
region "local" {}`, values: func(t *testing.T, in render.Input) (*render.Output, error) {
			v := cloudprofile.Type.Defaults()
			v.Cluster, v.Type = virtual, "local"
			var k cloudprofile.KubernetesVersion
			blockDefaults(t, cloudprofile.Type, &k, "kubernetes_version")
			k.Version = "1.31.1"
			var img cloudprofile.MachineImage
			blockDefaults(t, cloudprofile.Type, &img, "machine_image")
			var iv cloudprofile.ImageVersion
			blockDefaults(t, cloudprofile.Type, &iv, "machine_image", "version")
			img.Name, iv.Version = "local", "1.0.0"
			img.Versions = []cloudprofile.ImageVersion{iv}
			var mt cloudprofile.MachineType
			blockDefaults(t, cloudprofile.Type, &mt, "machine_type")
			mt.Name, mt.CPU, mt.Memory = "local", "1", "1Gi"
			var r cloudprofile.Region
			blockDefaults(t, cloudprofile.Type, &r, "region")
			r.Name = "local"
			v.KubernetesVersions, v.MachineImages, v.MachineTypes, v.Regions = []cloudprofile.KubernetesVersion{k}, []cloudprofile.MachineImage{img}, []cloudprofile.MachineType{mt}, []cloudprofile.Region{r}
			return cloudprofile.Type.Render(in, v)
		}},
		{typ: "secret_binding", hcl: `
cluster       = cluster.virtual
secret_ref    = "local-credentials"
provider_type = "local"`, values: func(_ *testing.T, in render.Input) (*render.Output, error) {
			v := secretbinding.Type.Defaults()
			v.Cluster, v.SecretRef, v.ProviderType = virtual, "local-credentials", "local"
			return secretbinding.Type.Render(in, v)
		}},
		{typ: "credentials_binding", hcl: `
cluster       = cluster.virtual
provider_type = "local"
credentials_ref { name = "local-credentials" }`, values: func(t *testing.T, in render.Input) (*render.Output, error) {
			v := credentialsbinding.Type.Defaults()
			v.Cluster, v.ProviderType = virtual, "local"
			blockDefaults(t, credentialsbinding.Type, &v.Credentials, "credentials_ref")
			v.Credentials.Name = "local-credentials"
			return credentialsbinding.Type.Render(in, v)
		}},
		{typ: "controller_registration", hcl: `
cluster = cluster.virtual
resource "Infrastructure" "local" {}`, values: func(_ *testing.T, in render.Input) (*render.Output, error) {
			v := controllerregistration.Type.Defaults()
			r := controllerregistration.ResourceDefaults()
			r.Kind, r.Type = "Infrastructure", "local"
			v.Cluster, v.Resources = virtual, []controllerregistration.Resource{r}
			return controllerregistration.Type.Render(in, v)
		}},
		{typ: "controller_deployment", dir: "../controllerdeployment/testdata", hcl: `
cluster       = cluster.virtual
chart_archive = "chart.tgz"`, beyond: map[string]string{"chart_archive": "a controller deployment needs exactly one chart"},
			values: func(_ *testing.T, in render.Input) (*render.Output, error) {
				v := controllerdeployment.Type.Defaults()
				v.Cluster, v.ChartArchive = virtual, "chart.tgz"
				return controllerdeployment.Type.Render(in, v)
			}},
		{typ: "exposure_class", hcl: `
cluster = cluster.virtual
handler = "internet"`, values: func(_ *testing.T, in render.Input) (*render.Output, error) {
			v := exposureclass.Type.Defaults()
			v.Cluster, v.Handler = virtual, "internet"
			return exposureclass.Type.Render(in, v)
		}},
		{typ: "extension", dir: "../extension/testdata", hcl: `
virtual_cluster         = cluster.virtual
chart                   = "chart"
garden_cluster_identity = "landscape"
resource "Infrastructure" "local" {}`, values: func(_ *testing.T, in render.Input) (*render.Output, error) {
			v := extension.Type.Defaults()
			r := controllerregistration.ResourceDefaults()
			r.Kind, r.Type = "Infrastructure", "local"
			v.VirtualCluster, v.Chart, v.GardenClusterIdentity, v.Resources = virtual, "chart", "landscape", []controllerregistration.Resource{r}
			return extension.Type.Render(in, v)
		}},
		{typ: "managed_resource", hcl: `
cluster   = cluster.seed
namespace = "garden"
objects   = [{ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "settings", namespace = "kube-system" } }]`,
			beyond: map[string]string{"objects": "a managed resource needs objects or files"},
			values: func(_ *testing.T, in render.Input) (*render.Output, error) {
				v := managedresource.Type.Defaults()
				v.Cluster, v.Namespace = seedCl, "garden"
				v.Objects = managedresource.Inline{{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "settings", "namespace": "kube-system"}}}
				return managedresource.Type.Render(in, v)
			}},
		{typ: "gardenlet", hcl: `
cluster   = cluster.seed
seed_name = "local"
seed_spec = { provider = { type = "local" } }`, values: func(_ *testing.T, in render.Input) (*render.Output, error) {
			v := gardenlet.Type.Defaults()
			v.Cluster, v.SeedName, v.SeedSpec = seedCl, "local", map[string]any{"provider": map[string]any{"type": "local"}}
			return gardenlet.Type.Render(in, v)
		}},
		{typ: "kube_scheduler", hcl: `
cluster            = cluster.seed
namespace          = "shoot--dev--local"
kubernetes_version = "1.31.1"`, values: func(_ *testing.T, in render.Input) (*render.Output, error) {
			v := kubescheduler.Type.Defaults()
			v.Cluster, v.Namespace, v.KubernetesVersion = seedCl, "shoot--dev--local", "1.31.1"
			return kubescheduler.Type.Render(in, v)
		}},
		{typ: "vpn_seed_server", hcl: `
cluster   = cluster.seed
namespace = "shoot--dev--local"
shoot_networks {
  pods     = "10.3.0.0/16"
  services = "10.4.0.0/16"
}`, values: func(t *testing.T, in render.Input) (*render.Output, error) {
			v := vpnseedserver.Type.Defaults()
			v.Cluster, v.Namespace = seedCl, "shoot--dev--local"
			blockDefaults(t, vpnseedserver.Type, &v.ShootNetworks, "shoot_networks")
			v.ShootNetworks.Pods, v.ShootNetworks.Services = "10.3.0.0/16", "10.4.0.0/16"
			return vpnseedserver.Type.Render(in, v)
		}},
		{typ: "machine_controller_manager", hcl: `
cluster   = cluster.seed
namespace = "shoot--dev--local"`, values: func(_ *testing.T, in render.Input) (*render.Output, error) {
			v := machinecontrollermanager.Type.Defaults()
			v.Cluster, v.Namespace = seedCl, "shoot--dev--local"
			return machinecontrollermanager.Type.Render(in, v)
		}},
		{typ: "cluster_autoscaler", hcl: `
cluster   = cluster.seed
namespace = "shoot--dev--local"`, values: func(_ *testing.T, in render.Input) (*render.Output, error) {
			v := clusterautoscaler.Type.Defaults()
			v.Cluster, v.Namespace = seedCl, "shoot--dev--local"
			return clusterautoscaler.Type.Render(in, v)
		}},
		{typ: "landscape_daemon", hcl: `
cluster = cluster.runtime
image   = "registry.example.com/gardener:v1"
files   = { "main.hcl" = "landscape \"l\" {}" }`, values: func(_ *testing.T, in render.Input) (*render.Output, error) {
			v := landscapedaemon.Type.Defaults()
			v.Cluster, v.Image, v.Files = runtime, "registry.example.com/gardener:v1", map[string]string{"main.hcl": `landscape "l" {}`}
			return landscapedaemon.Type.Render(in, v)
		}},
	}
}

// simple is the case of a type whose only required attributes are cluster references, which
// body sets in the block and set on the Values.
func simple[V any](typ string, def *component.Definition[V], body string, set func(*V)) defaultsCase {
	return defaultsCase{typ: typ, hcl: body, values: func(_ *testing.T, in render.Input) (*render.Output, error) {
		v := def.Defaults()
		set(&v)
		return def.Render(in, v)
	}}
}

// setAttributes lists the attributes a body sets, with the dotted path of their blocks.
func setAttributes(t *testing.T, body *hclsyntax.Body, path string) []string {
	t.Helper()
	var out []string
	for name := range body.Attributes {
		out = append(out, path+name)
	}
	for _, blk := range body.Blocks {
		out = append(out, setAttributes(t, blk.Body, path+blk.Type+".")...)
	}
	return out
}

// required says whether the attribute at the dotted path is required by its schema body.
func required(b *schema.Body, path []string) bool {
	if len(path) == 1 {
		a := b.Attribute(path[0])
		return a != nil && a.Required
	}
	blk := b.Block(path[0])
	return blk != nil && required(&blk.Body, path[1:])
}

// TestEveryTypeRendersItsDefaultsAlike checks, for every type of the catalog, that a landscape
// block setting only the required attributes, decoded with the schema and its defaults as the
// loader does, renders exactly what the type's Values render when built as a composite builds
// them: from Type.Defaults and the block defaults of nested blocks. The defaults have one source,
// the schema; a default kept in Go as well, or a field of the Values that the schema's defaults
// do not reach, makes the two renderings differ.
func TestEveryTypeRendersItsDefaultsAlike(t *testing.T) {
	cases := defaultsCases()
	var covered []string
	for _, c := range cases {
		covered = append(covered, c.typ)
	}
	for _, typ := range Types() {
		if typ.Renderer() != nil {
			assert.Contains(t, covered, typ.Schema().Type, "every type that renders has a case")
		}
	}
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	for _, c := range cases {
		t.Run(c.typ, func(t *testing.T) {
			typ := typeNamed(t, c.typ)
			s := typ.Schema()
			f, diags := hclsyntax.ParseConfig([]byte(c.hcl), c.typ+".hcl", hcl.InitialPos)
			require.False(t, diags.HasErrors(), diags.Error())
			for _, attr := range setAttributes(t, f.Body.(*hclsyntax.Body), "") {
				if _, ok := c.beyond[attr]; !ok {
					assert.True(t, required(&s.Body, splitPath(attr)), "%s sets %s, which is not required", c.typ, attr)
				}
			}
			config, diags := hcldec.Decode(f.Body, s.Body.Spec(), referenceContext())
			require.False(t, diags.HasErrors(), diags.Error())

			// The Shoot of a shoot block exists, so that the parts its uid decides render now
			// rather than as parts awaiting it, whose render functions do not compare.
			in := render.Input{Landscape: "landscape", Address: "component." + c.typ + ".test", Name: "test", Dir: c.dir, Now: now, Config: config, Observe: existingShoot}
			fromSchema, err := typ.Renderer()(in)
			require.NoError(t, err, "rendered from the schema")
			in.Config = cty.NilVal
			fromValues, err := c.values(t, in)
			require.NoError(t, err, "rendered from the values")
			assert.Equal(t, fromSchema, fromValues)
		})
	}
}

// existingShoot answers a render's reads with a Shoot named test, as gardener-apiserver holds it,
// and with nothing else.
func existingShoot(ref render.LiveRef) (*unstructured.Unstructured, error) {
	if ref.Resource != "shoots" || ref.Name != "test" {
		return nil, nil
	}
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot"}}
	u.SetNamespace(ref.Namespace)
	u.SetName(ref.Name)
	u.SetUID("0c5c6a2e-1d2b-4e5f-8a9b-0123456789ab")
	return u, nil
}

func typeNamed(t *testing.T, name string) component.Type {
	t.Helper()
	i := slices.IndexFunc(Types(), func(typ component.Type) bool { return typ.Schema().Type == name })
	require.GreaterOrEqual(t, i, 0, "no type %s", name)
	return Types()[i]
}

func splitPath(p string) []string {
	var out []string
	start := 0
	for i := range len(p) {
		if p[i] == '.' {
			out = append(out, p[start:i])
			start = i + 1
		}
	}
	return append(out, p[start:])
}
