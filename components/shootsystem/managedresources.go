package shootsystem

import (
	"fmt"
	"regexp"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/declarative-gardener/gardener/components/managedresource"
	"github.com/declarative-gardener/gardener/engine/render"
)

// Part is one ManagedResource's worth of shoot objects.
type Part struct {
	// Name is the ManagedResource's name in the seed's shoot namespace.
	Name    string
	Objects []*unstructured.Unstructured
	// Labels are the ManagedResource's and its Secret's labels besides origin=gardener.
	Labels map[string]string
	// KeepObjects leaves the objects in the shoot when the ManagedResource goes.
	KeepObjects bool
}

// ManagedResource names. Gardener's documentation names none of them; these are the names Gardener
// uses, so that an operator finds them where they expect.
const (
	CoreDNSManagedResource       = "shoot-core-coredns"
	KubeProxyManagedResource     = "shoot-core-kube-proxy"
	VPNShootManagedResource      = "shoot-core-vpn-shoot"
	MetricsServerManagedResource = "shoot-core-metrics-server"
	NodeLocalDNSManagedResource  = "shoot-core-node-local-dns"
)

// KubeProxyPoolManagedResource is the ManagedResource of one pool's kube-proxy DaemonSet: one
// per pool and version, so that an old version's DaemonSet goes away by deleting its
// ManagedResource once no node of the pool runs that version any more.
func KubeProxyPoolManagedResource(pool, version string) string {
	return "shoot-core-" + KubeProxyDaemonSetName(pool, version)
}

// kubeProxyPoolVersions matches the names of a pool's kube-proxy ManagedResources (prefix
// "shoot-core-") or their Secrets (prefix managedresource.SecretName("shoot-core-")) at any
// version: a new version supersedes the ones before it.
func kubeProxyPoolVersions(prefix, pool string) *regexp.Regexp {
	return regexp.MustCompile("^" + regexp.QuoteMeta(prefix+KubeProxyDaemonSetName(pool, "")) + `[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`)
}

// Parts renders every shoot system component, each as the objects of one ManagedResource:
// coredns, kube-proxy's shared objects and one part per worker pool (none when disabled),
// vpn-shoot, metrics-server and node-local-dns (only when enabled).
func Parts(v Values) ([]Part, error) {
	p, err := prepare(v)
	if err != nil {
		return nil, err
	}
	var parts []Part
	add := func(part Part, render func() ([]*unstructured.Unstructured, error)) error {
		objs, err := render()
		if err != nil {
			return err
		}
		part.Objects = objs
		parts = append(parts, part)
		return nil
	}
	// The kube-system namespace's labels first: the resource manager's webhooks act on the pods of
	// labelled namespaces only.
	if err := add(Part{Name: NamespacesManagedResource, KeepObjects: true}, p.namespaces); err != nil {
		return nil, err
	}
	if err := add(Part{Name: CoreDNSManagedResource}, p.coreDNS); err != nil {
		return nil, err
	}
	if !p.KubeProxy.Disabled {
		// The labels gardenlet finds kube-proxy's ManagedResources by (getManagedResourceLabels in
		// pkg/component/kubernetes/proxy/proxy.go at gardener/gardener v1.120.0).
		if err := add(Part{Name: KubeProxyManagedResource, Labels: map[string]string{"component": "kube-proxy", "origin": "gardener"}}, p.kubeProxyShared); err != nil {
			return nil, err
		}
		for _, pool := range p.WorkerPools {
			render := func() ([]*unstructured.Unstructured, error) { return p.kubeProxyPool(pool) }
			labels := map[string]string{"component": "kube-proxy", "origin": "gardener", "role": "pool", "pool-name": pool.Name, "kubernetes-version": p.poolVersion(pool)}
			if err := add(Part{Name: KubeProxyPoolManagedResource(pool.Name, p.poolVersion(pool)), Labels: labels}, render); err != nil {
				return nil, err
			}
		}
	}
	if err := add(Part{Name: VPNShootManagedResource}, p.vpnShoot); err != nil {
		return nil, err
	}
	if err := add(Part{Name: MetricsServerManagedResource}, p.metricsServer); err != nil {
		return nil, err
	}
	if p.NodeLocalDNS.Enabled {
		if err := add(Part{Name: NodeLocalDNSManagedResource}, p.nodeLocalDNS); err != nil {
			return nil, err
		}
	}
	return parts, nil
}

// ManagedResources packs every part into a Secret and a ManagedResource in namespace (the
// shoot's namespace in the seed) of cluster (the seed). They are Gardener's shoot ManagedResources
// (managedresource.ForShoot): no class, so the shoot's own gardener-resource-manager applies them
// into the shoot (Gardener's "Conventions" docs/extensions/conventions.md), origin=gardener, the
// label by which Gardener tells its own ManagedResources from extensions', and the no-cleanup label
// on every object. VPN.ControlPlaneNamespace defaults to namespace.
func ManagedResources(v Values, cluster, namespace string) ([]render.Object, error) {
	if v.VPN.ControlPlaneNamespace == "" {
		v.VPN.ControlPlaneNamespace = namespace
	}
	parts, err := Parts(v)
	if err != nil {
		return nil, err
	}
	return pack(v, parts, cluster, namespace)
}

// APIServerProxyManagedResource packs the apiserver-proxy (APIServerProxy) into its
// ManagedResource shoot-core-apiserver-proxy in namespace of cluster, as ManagedResources packs
// the others; nothing without an advertised address. APIServerProxy.ControlPlaneNamespace
// defaults to namespace.
func APIServerProxyManagedResource(v Values, cluster, namespace string) ([]render.Object, error) {
	if v.APIServerProxy.ControlPlaneNamespace == "" {
		v.APIServerProxy.ControlPlaneNamespace = namespace
	}
	objs, err := APIServerProxy(v)
	if err != nil || len(objs) == 0 {
		return nil, err
	}
	return pack(v, []Part{{Name: APIServerProxyManagedResourceName, Objects: objs}}, cluster, namespace)
}

// pack packs every part into its Secret and ManagedResource (see ManagedResources).
func pack(v Values, parts []Part, cluster, namespace string) ([]render.Object, error) {
	// A pool's kube-proxy at a new Kubernetes version supersedes its ManagedResource and Secret
	// at the version before, which go away with the update.
	pools := map[string]string{}
	if !v.KubeProxy.Disabled {
		for _, pool := range v.WorkerPools {
			pools[KubeProxyPoolManagedResource(pool.Name, poolVersion(v, pool))] = pool.Name
		}
	}
	var out []render.Object
	for _, part := range parts {
		spec := managedresource.ForShoot(cluster, namespace, part.Name, part.KeepObjects, part.Objects)
		for k, val := range part.Labels {
			spec.Labels[k] = val
		}
		objs, err := managedresource.Pack(spec)
		if err != nil {
			return nil, fmt.Errorf("shoot system components: %w", err)
		}
		pool, versioned := pools[part.Name]
		for i, o := range objs {
			switch o.Object.GetKind() {
			case "ManagedResource":
				if versioned {
					objs[i].Supersedes = kubeProxyPoolVersions("shoot-core-", pool)
				}
			case "Secret":
				// kube-proxy's labels on the Secret too (proxy.go at v1.120.0).
				labels := o.Object.GetLabels()
				for k, val := range part.Labels {
					labels[k] = val
				}
				o.Object.SetLabels(labels)
				if versioned {
					objs[i].Supersedes = kubeProxyPoolVersions(managedresource.SecretName("shoot-core-"), pool)
				}
			}
		}
		out = append(out, objs...)
	}
	return out, nil
}
