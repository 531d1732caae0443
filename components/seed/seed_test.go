package seed

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	ctyjson "github.com/zclconf/go-cty/cty/json"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/component"
	"github.com/declarative-gardener/gardener/components/gardenercontrollermanager"
	"github.com/declarative-gardener/gardener/components/gardenlet"
	"github.com/declarative-gardener/gardener/components/internal/decode"
	"github.com/declarative-gardener/gardener/components/internal/rendertest"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/golden"
)

// values are a seed's values as the loader decodes them from a block that sets only what a seed
// must, changed by mutate.
func values(mutate func(*Values)) Values {
	v := rendertest.Overlay(Type.Defaults(), Values{
		Garden:  GardenRef{Name: "local", VirtualEndpoint: "https://api.virtual-garden.example.com", CABundle: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", VirtualCluster: "virtual_garden", RuntimeCluster: "runtime", ObservabilityEnabled: true},
		Cluster: decode.Cluster{Name: "seed1"},
	})
	v.Provider.Type, v.Provider.Region, v.Provider.Zones = "aws", "eu-west-1", []string{"a", "b", "c"}
	v.Networks.Pods, v.Networks.Services, v.Networks.Nodes = "10.1.0.0/16", "10.2.0.0/16", "10.0.0.0/16"
	v.Ingress = component.BlockDefaults[Ingress](typeSchema, "ingress")()
	v.Ingress.Domain = "ingress.seed1.example.com"
	v.DNS.Provider.Type, v.DNS.Provider.SecretRef = "aws-route53", "seed1-dns"
	if mutate != nil {
		mutate(&v)
	}
	return v
}

func partsByName(t *testing.T, v Values) map[string]render.Component {
	parts, err := Parts("seed1", v)
	require.NoError(t, err)
	out := map[string]render.Component{}
	for _, p := range parts {
		out[p.Name] = p
	}
	return out
}

func TestSeedGolden(t *testing.T) {
	for name, v := range map[string]Values{
		"multi-zone": values(nil),
		// The garden's runtime cluster as the seed: what the garden runs there is left out.
		"runtime-as-seed": values(func(v *Values) { v.Cluster.Name = "runtime"; v.Provider.Zones = []string{"0"} }),
		// Handed to gardenlet: gardenlet alone, which registers the Seed and deploys the rest.
		"gardenlet": values(func(v *Values) { v.ManagedBy = ManagedByGardenlet }),
	} {
		t.Run(name, func(t *testing.T) {
			parts, err := Parts("seed1", v)
			require.NoError(t, err)
			golden.AssertBytes(t, name+".txt", rendertest.Parts(t, parts))
		})
	}
}

func TestSeedParts(t *testing.T) {
	own := partsByName(t, values(nil))
	for _, p := range []string{"gardener_resource_manager", "etcd_druid", "vpa", "nginx_ingress", "istio", "dependency_watchdog", "reserve_excess_capacity", "seed", "garden_namespace", "extension_crds"} {
		assert.Contains(t, own, p)
	}
	for _, p := range []string{"gardenlet", "gardenlet_bootstrap_token"} {
		assert.NotContains(t, own, p, "the engine is the gardenlet of a seed it manages; no gardenlet runs beside it")
	}
	for _, p := range []string{"seed_namespace", "seed_secrets"} {
		assert.NotContains(t, own, p, "gardener-controller-manager makes the seed's namespace in the garden and the Secret copies in it")
	}
	assert.Contains(t, own["etcd_druid"].DependsOn, "gardener_resource_manager", "the resource manager comes first (Gardener's docs/concepts/gardenlet.md)")
	assert.Subset(t, own["seed"].DependsOn, []string{"istio", "etcd_druid", "vpa", "nginx_ingress", "extension_crds"}, "the Seed is registered once its system components run")

	ras := partsByName(t, values(func(v *Values) { v.Cluster.Name = "runtime" }))
	for _, p := range []string{"gardener_resource_manager", "etcd_druid", "vpa", "nginx_ingress", "garden_namespace", "ca_seed"} {
		assert.NotContains(t, ras, p, "a seed in the runtime cluster leaves %s to the garden (Gardener's docs/concepts/operator.md)", p)
	}
	for _, o := range ras["istio"].Objects {
		assert.NotEqual(t, "istiod", o.Object.GetName(), "only the seed's gateways, istiod runs for the garden")
	}

	// Istio: the default gateway in istio-ingress, and one per zone in istio-ingress--<zone>
	// (Gardener's "Istio" docs/operations/istio.md; GetIstioNamespaceForZone in
	// pkg/component/shared/istio.go at Gardener v1.120.0).
	namespaces := map[string]bool{}
	for _, o := range own["istio"].Objects {
		if o.Object.GetKind() == "Service" && o.Object.GetName() == "istio-ingressgateway" {
			namespaces[o.Object.GetNamespace()] = true
		}
	}
	assert.Equal(t, map[string]bool{"istio-ingress": true, "istio-ingress--a": true, "istio-ingress--b": true, "istio-ingress--c": true}, namespaces)

	seed := own["seed"].Objects[0]
	assert.Equal(t, "virtual_garden", seed.Cluster)
	assert.Equal(t, "Seed", seed.Object.GetKind())
	secretNS := seed.Object.Object["spec"].(map[string]any)["dns"].(map[string]any)["provider"].(map[string]any)["secretRef"].(map[string]any)["namespace"]
	assert.Equal(t, "garden", secretNS)
}

func TestSeedErrors(t *testing.T) {
	_, err := Parts("seed1", values(func(v *Values) { v.Garden.VirtualCluster = "" }))
	assert.ErrorContains(t, err, "no virtual garden cluster")
	_, err = Parts("seed1", values(func(v *Values) { v.Cluster.Name = "" }))
	assert.ErrorContains(t, err, "cluster is required")
}

// Every ExposureClass handler gets an ingress gateway of its own behind its own load balancer,
// and per zone of a multi-zone seed one more (Gardener's "ExposureClasses"
// docs/usage/networking/exposureclasses.md, docs/operations/istio.md); gardenlet learns the
// handlers from its configuration (Gardener's docs/usage/networking/exposureclasses.md).
func TestExposureClassHandlers(t *testing.T) {
	v := values(func(v *Values) {
		v.ExposureClassHandlers = []ExposureClassHandler{
			{Name: "internal", LoadBalancerAnnotations: map[string]string{"loadbalancer/network": "internal"}},
			{Name: "internet", IngressNamespace: "ingress-internet", IngressLabels: map[string]string{"network": "internet"}},
		}
	})
	parts, err := Parts("seed1", v)
	require.NoError(t, err)
	golden.AssertBytes(t, "exposure-classes.txt", rendertest.Parts(t, parts))
	own := partsByName(t, v)
	services := map[string]map[string]string{}
	for _, o := range own["istio"].Objects {
		if o.Object.GetKind() == "Service" && o.Object.GetName() == "istio-ingressgateway" {
			services[o.Object.GetNamespace()] = o.Object.GetAnnotations()
		}
	}
	for _, ns := range []string{"istio-ingress-handler-internal", "istio-ingress-handler-internal--a", "ingress-internet", "ingress-internet--c"} {
		assert.Contains(t, services, ns)
	}
	assert.Equal(t, "internal", services["istio-ingress-handler-internal"]["loadbalancer/network"])
	v.ManagedBy = ManagedByGardenlet
	cm := gardenlet.ConfigMapOf(partsByName(t, v)["gardenlet"].Objects)
	require.NotNil(t, cm)
	config, _, _ := unstructured.NestedString(cm.Object, "data", gardenlet.ConfigKey)
	assert.Contains(t, config, "exposureClassHandlers:")
	assert.Contains(t, config, "namespace: istio-ingress-handler-internal")
	assert.Contains(t, config, "network: internet")
}

// A seed handed to gardenlet renders gardenlet alone, with its chart's PriorityClass and the
// garden namespace it runs in, as Gardener's "Deploy a gardenlet Manually"
// docs/deployment/deploy_gardenlet_manually.md installs it: no Seed (gardenlet registers it from
// its seed configuration), no system components (gardenlet deploys them), and no reports (gardenlet
// writes them).
func TestSeedHandedToGardenlet(t *testing.T) {
	v := values(func(v *Values) { v.ManagedBy = ManagedByGardenlet })
	own := partsByName(t, v)
	assert.ElementsMatch(t, []string{"priority_classes", "garden_namespace", "gardenlet_bootstrap_token", "gardenlet"}, slices.Collect(maps.Keys(own)))
	require.Len(t, own["priority_classes"].Objects, 1)
	assert.Equal(t, "gardener-system-critical", own["priority_classes"].Objects[0].Object.GetName())
	assert.ElementsMatch(t, []string{"priority_classes", "garden_namespace", "gardenlet_bootstrap_token"}, own["gardenlet"].DependsOn)
	cm := gardenlet.ConfigMapOf(own["gardenlet"].Objects)
	require.NotNil(t, cm)
	config, _, _ := unstructured.NestedString(cm.Object, "data", gardenlet.ConfigKey)
	assert.Contains(t, config, "seedConfig:", "gardenlet registers the Seed from its configuration")

	ras := partsByName(t, values(func(v *Values) { v.ManagedBy = ManagedByGardenlet; v.Cluster.Name = "runtime" }))
	assert.NotContains(t, ras, "garden_namespace", "the garden's part has the namespace in its runtime cluster")

	out, err := Type.Render(render.Input{Name: "seed1"}, v)
	require.NoError(t, err)
	assert.Empty(t, out.Reports, "gardenlet reports about its seed")
	assert.Empty(t, out.Predictions)
	assert.Equal(t, "gardenlet", out.Outputs["managed_by"].AsString())
	// What the engine deployed while it managed the seed is gardenlet's now: released, not
	// deleted, the Seed and the system components included.
	handedOver := rendertest.HandedOver(out)
	assert.Equal(t, "gardenlet", handedOver["virtual_garden Seed /^seed1$"])
	assert.Equal(t, "gardenlet", handedOver["seed1 Deployment garden/^gardener-resource-manager$"])
	assert.Equal(t, "gardenlet", handedOver["seed1 Deployment garden/^etcd-druid$"])
	assert.NotContains(t, handedOver, "seed1 Deployment garden/^gardenlet$", "the engine never deployed a gardenlet for a seed it managed")

	_, err = Parts("seed1", values(func(v *Values) { v.ManagedBy = "both" }))
	assert.ErrorContains(t, err, `managed_by "both" is not one of engine, gardenlet`)
}

// gardenlet bootstraps with a token the engine generates in the virtual garden (Gardener's "Deploy
// Gardenlet Manually" docs/deployment/deploy_gardenlet_manually.md): the bootstrap kubeconfig
// carries it and is create-only, since gardenlet deletes it once it has its own kubeconfig
// (Gardener's docs/concepts/gardenlet.md).
func TestGardenletBootstrap(t *testing.T) {
	own := partsByName(t, values(func(v *Values) { v.ManagedBy = ManagedByGardenlet }))
	token := own["gardenlet_bootstrap_token"]
	require.NotNil(t, token.Secret)
	id := BootstrapTokenID("seed1")
	assert.Regexp(t, `^[a-z0-9]{6}$`, id)
	assert.Equal(t, id, BootstrapTokenID("seed1"), "the same id on every plan")
	assert.NotEqual(t, id, BootstrapTokenID("seed2"))
	assert.Equal(t, render.SecretSpec{Cluster: "virtual_garden", Namespace: "kube-system", Name: "bootstrap-token-" + id, Class: "bootstrap-token",
		CommonName: "Token to be used by the gardenlet for Seed `seed1`."}, *token.Secret)
	assert.Contains(t, own["gardenlet"].DependsOn, "gardenlet_bootstrap_token")

	secret := rendertest.MustFind(t, own["gardenlet"].Objects, "Secret", gardenlet.BootstrapKubeconfigSecretName)
	assert.Equal(t, "true", secret.GetAnnotations()[render.CreateOnlyAnnotation])
	kubeconfig, _, _ := unstructured.NestedString(secret.Object, "stringData", "kubeconfig")
	assert.Contains(t, kubeconfig, "token: "+id+"."+render.GeneratedRef("kube-system", "bootstrap-token-"+id, "token-secret", false))
	assert.Contains(t, kubeconfig, "server: https://api.virtual-garden.example.com")
	assert.Contains(t, kubeconfig, "certificate-authority-data: LS0t", "the garden's CA, base64")
}

// A seed with backup gets its bucket as part of the seed flow (Gardener's "BackupBucket"
// docs/extensions/resources/backupbucket.md): the credentials copied from the virtual garden and
// the extensions BackupBucket referring to the copy.
func TestBackupBucket(t *testing.T) {
	v := values(func(v *Values) {
		v.Backup = &Backup{Provider: "aws", SecretRef: "backup-credentials"}
	})
	own := partsByName(t, v)
	cp := own["backup_secret"].Copy
	require.NotNil(t, cp)
	assert.Equal(t, render.CopySpec{Cluster: "seed1", Namespace: "garden", Name: "bucket-seed-seed1", FromCluster: "virtual_garden", FromNamespace: "garden", FromName: "backup-credentials"}, *cp)
	bucket := rendertest.MustFind(t, own["backup_bucket"].Objects, "BackupBucket", "seed-seed1")
	spec, _, _ := unstructured.NestedMap(bucket.Object, "spec")
	assert.Equal(t, map[string]any{"type": "aws", "region": "eu-west-1", "secretRef": map[string]any{"name": "bucket-seed-seed1", "namespace": "garden"}}, spec)
	assert.NotContains(t, own["seed"].DependsOn, "backup_bucket", "the bucket's extension is installed only once the Seed is up")
	assert.Contains(t, own["backup_bucket"].DependsOn, "seed")
	assert.True(t, own["backup_bucket"].Detached, "what depends on the seed (its extensions) does not wait for the bucket")
	assert.Equal(t, "eu-west-1", Outputs("seed1", v)["backup_region"].AsString(), "the seed's region when the backup names none")
	// The Seed as registered is an output: its shoots embed it in their extensions Cluster
	// (pkg/extensions/cluster.go at Gardener v1.120.0).
	data, err := ctyjson.SimpleJSONValue{Value: Outputs("seed1", v)["object"]}.MarshalJSON()
	require.NoError(t, err)
	var object decode.Object
	require.NoError(t, object.UnmarshalJSON(data))
	assert.Equal(t, decode.Object(Object("seed1", v)), object)
	assert.NotContains(t, partsByName(t, values(nil)), "backup_bucket")
}

func TestIngressDNSRecord(t *testing.T) {
	own := partsByName(t, values(nil))
	cp := own["ingress_dns_secret"].Copy
	require.NotNil(t, cp)
	assert.Equal(t, render.CopySpec{Cluster: "seed1", Namespace: "garden", Name: "dnsrecord-seed-ingress", FromCluster: "virtual_garden", FromNamespace: "garden", FromName: "seed1-dns"}, *cp)
	record := rendertest.MustFind(t, own["ingress_dns_record"].Objects, "DNSRecord", "seed-ingress")
	assert.Equal(t, "garden", record.GetNamespace(), "seed-scoped extension resources live in the seed's garden namespace (Gardener's docs/extensions/cluster.md)")
	spec, _, _ := unstructured.NestedMap(record.Object, "spec")
	assert.Equal(t, "*.ingress.seed1.example.com", spec["name"], "a wildcard record of the ingress domain (Gardener's docs/extensions/resources/dnsrecord.md)")
	assert.Equal(t, "aws-route53", spec["type"])
	assert.Equal(t, map[string]any{"name": "dnsrecord-seed-ingress", "namespace": "garden"}, spec["secretRef"])
	// The value is the load balancer address of the default Istio ingress gateway, which passes
	// the ingress domain through to nginx-ingress (gardenlet's
	// deployNginxIngressAndWaitForIstioServiceAndGetDNSComponent), read by the engine.
	recordValues := spec["values"].([]any)
	require.Len(t, recordValues, 1)
	refs, err := render.LiveRefs(recordValues[0].(string))
	require.NoError(t, err)
	assert.Equal(t, []render.LiveRef{render.LoadBalancerAddress("seed1", "istio-ingress", "istio-ingressgateway")}, refs)
	refs, err = render.LiveRefs(spec["recordType"].(string))
	require.NoError(t, err)
	assert.Equal(t, render.AsRecordType, refs[0].As)

	assert.Subset(t, own["ingress_dns_record"].DependsOn, []string{"nginx_ingress", "istio", "seed", "ingress_dns_secret"})
	gw := rendertest.MustFind(t, own["nginx_ingress"].Objects, "Gateway", "nginx-ingress-controller")
	selector, _, _ := unstructured.NestedStringMap(gw.Object, "spec", "selector")
	assert.Equal(t, IngressGatewayLabels(""), selector, "the Gateway selects the seed's default Istio ingress gateway")
	servers, _, _ := unstructured.NestedSlice(gw.Object, "spec", "servers")
	assert.Equal(t, []any{"*.ingress.seed1.example.com"}, servers[0].(map[string]any)["hosts"])
	assert.Contains(t, own["nginx_ingress"].DependsOn, "istio", "the Istio objects need Istio's CRDs")

	// In the garden's runtime cluster the garden's nginx-ingress keeps its own load balancer.
	runtime := partsByName(t, values(func(v *Values) { v.Cluster.Name = "runtime" }))
	spec, _, _ = unstructured.NestedMap(rendertest.MustFind(t, runtime["ingress_dns_record"].Objects, "DNSRecord", "seed-ingress").Object, "spec")
	refs, err = render.LiveRefs(spec["values"].([]any)[0].(string))
	require.NoError(t, err)
	assert.Equal(t, []render.LiveRef{render.LoadBalancerAddress("runtime", "garden", "nginx-ingress-controller")}, refs)
	assert.True(t, own["ingress_dns_record"].Detached, "the DNS extension is installed only once the Seed is up")
	assert.NotContains(t, own["seed"].DependsOn, "ingress_dns_record")
}

// The seed's observability stack runs in its garden namespace (Gardener's "Logging And Monitoring"
// docs/extensions/logging-and-monitoring.md); in the garden's runtime cluster it shares the
// garden's prometheus-operator and Plutono (Gardener's docs/concepts/operator.md), which therefore
// must be on.
// dependency-watchdog comes after gardener-resource-manager, whose webhook mounts its ServiceAccount
// tokens, and the VPA's CRDs, which its VerticalPodAutoscalers need and which come with no
// dependency, as gardenlet deploys its CRDs first; in the runtime cluster the garden's serve it.
func TestDependencyWatchdogOrder(t *testing.T) {
	own := partsByName(t, values(nil))
	assert.Subset(t, own["dependency_watchdog"].DependsOn, []string{"priority_classes", "gardener_resource_manager", "vpa_crds"})
	assert.Empty(t, own["vpa_crds"].DependsOn)
	rendertest.MustFind(t, own["vpa_crds"].Objects, "CustomResourceDefinition", "verticalpodautoscalers.autoscaling.k8s.io")
	assert.Nil(t, rendertest.Find(own["vpa"].Objects, "CustomResourceDefinition", "verticalpodautoscalers.autoscaling.k8s.io"))
	assert.Contains(t, own["vpa"].DependsOn, "vpa_crds")
	runtime := partsByName(t, values(func(v *Values) { v.Cluster.Name = "runtime" }))
	assert.Equal(t, []string{"priority_classes"}, runtime["dependency_watchdog"].DependsOn)
}

func TestObservability(t *testing.T) {
	own := partsByName(t, values(nil))
	require.Contains(t, own, "observability")
	assert.Subset(t, own["observability"].DependsOn, []string{"gardener_resource_manager", "nginx_ingress", "plutono_admin"})
	assert.Equal(t, "password", own["plutono_admin"].Secret.Class)
	rendertest.MustFind(t, own["observability"].Objects, "Prometheus", "aggregate")
	assert.Contains(t, own["seed"].DependsOn, "observability", "gardenlet reports the seed's system components healthy")

	runtime := partsByName(t, values(func(v *Values) { v.Cluster.Name = "runtime" }))
	require.Contains(t, runtime, "observability")
	require.NotEmpty(t, runtime["observability"].Objects)
	assert.NotContains(t, runtime, "plutono_admin", "the garden's Plutono serves the seed")
	for _, o := range runtime["observability"].Objects {
		assert.NotEqual(t, "CustomResourceDefinition", o.Object.GetKind(), "the garden's stack installs the CRDs")
	}

	_, err := Parts("seed1", values(func(v *Values) { v.Cluster.Name = "runtime"; v.Garden.ObservabilityEnabled = false }))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "switch the seed's off too")

	off := values(func(v *Values) { v.Observability = &Observability{Enabled: false} })
	assert.NotContains(t, partsByName(t, off), "observability")
	assert.False(t, Outputs("seed1", off)["observability"].GetAttr("enabled").True())
	assert.True(t, Outputs("seed1", values(nil))["observability"].GetAttr("enabled").True())
}

// A seed in its own cluster runs only on the seed's PriorityClasses, which it renders there
// (Gardener's "Priority Classes" docs/development/priority-classes.md): the garden's classes exist
// only in the runtime cluster, and a pod naming a class that does not exist is never created.
func TestSeedPodsUseTheSeedsPriorityClasses(t *testing.T) {
	parts, err := Parts("seed1", values(nil))
	require.NoError(t, err)
	classes := map[string]bool{"system-node-critical": true, "system-cluster-critical": true}
	for _, p := range parts {
		for _, o := range p.Objects {
			if o.Cluster == "seed1" && o.Object.GetKind() == "PriorityClass" {
				classes[o.Object.GetName()] = true
			}
		}
	}
	require.Contains(t, classes, "gardener-system-critical")
	checked := 0
	for _, p := range parts {
		for _, o := range p.Objects {
			if o.Cluster != "seed1" {
				continue
			}
			// Pod templates, and the specs of operators' resources (Prometheus, Alertmanager).
			spec, found, _ := unstructured.NestedMap(o.Object.Object, "spec", "template", "spec")
			if !found {
				if spec, found, _ = unstructured.NestedMap(o.Object.Object, "spec"); !found || spec["priorityClassName"] == nil {
					continue
				}
			}
			checked++
			name, _ := spec["priorityClassName"].(string)
			if name != "" {
				assert.True(t, classes[name], "%s %s/%s (part %s) uses priority class %s, which the seed's cluster does not have",
					o.Object.GetKind(), o.Object.GetNamespace(), o.Object.GetName(), p.Name, name)
			}
		}
	}
	assert.Greater(t, checked, 5, "pod templates were checked")
}

// admission_webhooks = false leaves out the webhook configurations of the seed's own resource
// manager and VPA, as the garden's switch does for its components.
func TestSeedAdmissionWebhooks(t *testing.T) {
	webhooks := func(v Values) []string {
		var names []string
		for _, p := range partsByName(t, v) {
			for _, o := range p.Objects {
				if k := o.Object.GetKind(); k == "MutatingWebhookConfiguration" || k == "ValidatingWebhookConfiguration" {
					names = append(names, k+"/"+o.Object.GetName())
				}
			}
		}
		return names
	}
	assert.NotEmpty(t, webhooks(values(nil)), "registered by default")
	assert.Empty(t, webhooks(values(func(v *Values) { v.AdmissionWebhooks = false })))
}

// A seed hands its garden's gardener-controller-manager shoot loop settings on to its shoots, and
// the component's defaults when it has none (a seed built in Go).
func TestShootLoopsPassThrough(t *testing.T) {
	custom := gardenercontrollermanager.DefaultShootLoops()
	custom.RetryPeriod = "3m"
	v := values(func(v *Values) { v.Garden.ShootLoops = custom })
	assert.Equal(t, "3m", Outputs("seed1", v)["gardener_controller_manager"].GetAttr("retry_period").AsString())
	assert.Equal(t, "10m", Outputs("seed1", values(nil))["gardener_controller_manager"].GetAttr("retry_period").AsString())

	var ref GardenRef
	require.NoError(t, json.Unmarshal([]byte(`{"name":"local","gardener_controller_manager":{"retry_period":"4m"}}`), &ref))
	assert.Equal(t, "4m", ref.ShootLoops.RetryPeriod)
	require.NoError(t, json.Unmarshal([]byte(`{"name":"local"}`), &ref))
	assert.Equal(t, gardenercontrollermanager.DefaultShootLoops(), ref.ShootLoops)
}

// A zonal gateway's namespace is <namespace>--<zone>, or <namespace>--<five hex digits of the
// zone's SHA-256> when that would not be a DNS label; its labels carry the zone in the istio label,
// or for an ExposureClass handler's gateway in its role (GetIstioNamespaceForZone and
// GetIstioZoneLabels in pkg/component/shared/istio.go at Gardener v1.120.0).
func TestZoneGatewayNames(t *testing.T) {
	assert.Equal(t, "istio-ingress--europe-1a", ZoneGatewayNamespace("istio-ingress", "europe-1a"))
	long := strings.Repeat("z", 60)
	ns := ZoneGatewayNamespace("istio-ingress", long)
	assert.Equal(t, "istio-ingress--", ns[:len("istio-ingress--")])
	assert.Len(t, ns, len("istio-ingress--")+5)

	assert.Equal(t, "ingressgateway--zone--a", ZoneGatewayLabels(IngressGatewayLabels(""), "a")["istio"])
	handler := ExposureClassHandler{Name: "internal"}.Labels()
	zonal := ZoneGatewayLabels(handler, "a")
	assert.Equal(t, "exposureclass-handler--zone--a", zonal["gardener.cloud/role"])
	assert.NotContains(t, zonal, "istio")
	assert.Equal(t, "ingressgateway--zone--a", ZoneGatewayLabels(map[string]string{"app": "x"}, "a")["istio"])
}

// Item 6 of issue 27: a landscape applied when zonal namespaces were <namespace>--zone--<zone>
// moves to Gardener's names by the new namespace superseding the old one, so that the plan
// deletes the old namespace and what the seed applied in it with the reason superseded.
func TestZonalNamespacesSupersedeTheirOldNames(t *testing.T) {
	v := values(func(v *Values) {
		v.Provider.Zones = []string{"a", "b", "c"}
		v.ExposureClassHandlers = []ExposureClassHandler{{Name: "internal"}}
	})
	supersedes := map[string]string{}
	for _, o := range partsByName(t, v)["istio"].Objects {
		if o.Object.GetKind() == "Namespace" && o.Supersedes != nil {
			supersedes[o.Object.GetName()] = o.Supersedes.String()
		}
	}
	assert.Equal(t, map[string]string{
		"istio-ingress--a": `^istio-ingress--zone--a$`, "istio-ingress--b": `^istio-ingress--zone--b$`, "istio-ingress--c": `^istio-ingress--zone--c$`,
		"istio-ingress-handler-internal--a": `^istio-ingress-handler-internal--zone--a$`,
		"istio-ingress-handler-internal--b": `^istio-ingress-handler-internal--zone--b$`,
		"istio-ingress-handler-internal--c": `^istio-ingress-handler-internal--zone--c$`,
	}, supersedes)
}
