package shoot

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/internal/golden"
)

// The functional paths of a shoot (docs/fidelity.md, "The paths of a working shoot"): what has to
// reach what for a shoot to work, and the facts of the rendering that make each path. Each path's
// golden (testdata/paths/<path>.txt) lists what every probe finds in the rendering of an HA shoot
// with workers and backups, so that a fact that goes (an object, a flag, a label, a mount, a
// binding) changes the golden and fails the test.

// A probe names one fact: an object and what to read of it.
type probe struct {
	// side is "seed" for the objects the control plane runs in the seed, "shoot" for those a
	// ManagedResource applies into the shoot.
	side      string
	kind      string
	namespace string // "" matches any namespace (cluster-scoped objects, the control-plane namespace)
	name      string // "<name>-*": the content-named object <name>-<checksum>
	// get reads the fact: "" (the object exists), "containers:" (a workload's containers),
	// "mounts:" (its mounts under /etc and /var/run/secrets), "podlabels:<prefix>" (its pod
	// labels with the prefix), "webhooks:" (a webhook configuration's webhooks), "arg:<flag>" (a container's command-line flag,
	// all containers), "label:<key>", "annotation:<key>", "path:<dot.path>" (a field, list
	// items by index), "env:<NAME>" (a container's environment variable), "mount:<path>" (which
	// volume a container mounts at path, and whether the volume's source exists), "data:<key>"
	// (a Secret's or ConfigMap's key, present or not; never its value), "envoy:<key>" (the
	// listener, upstream and Reversed-VPN header of the tunnel an envoy configuration under key
	// of a ConfigMap sets up).
	get string
}

var shootPaths = map[string][]probe{
	// Nodes and pods reach the API server: its Service and the SNI route through the seed's
	// ingress gateway, the advertised address, the internal domain's record, the apiserver-proxy
	// on the nodes and the KUBERNETES_SERVICE_HOST the resource manager injects into pods.
	"node-to-apiserver": {
		{"seed", "Service", "", "kube-apiserver", "path:spec.type"},
		{"seed", "Service", "", "kube-apiserver", "path:spec.ports.0.port"},
		{"seed", "Service", "", "kube-apiserver", "annotation:networking.resources.gardener.cloud/namespace-selectors"},
		{"seed", "Gateway", "", "kube-apiserver", "path:spec.servers.0.hosts"},
		{"seed", "VirtualService", "", "kube-apiserver", "path:spec.tls.0.match.0.sniHosts"},
		{"seed", "DestinationRule", "", "kube-apiserver", "path:spec.host"},
		{"seed", "Deployment", "", "kube-apiserver", "arg:--advertise-address"},
		{"seed", "DNSRecord", "", "dev-internal", "path:spec.name"},
		{"shoot", "MutatingWebhookConfiguration", "", "gardener-resource-manager-shoot", "webhooks:"},
		{"shoot", "DaemonSet", "kube-system", "apiserver-proxy", "path:spec.template.spec.hostNetwork"},
		{"shoot", "DaemonSet", "kube-system", "apiserver-proxy", "arg:--ip-address"},
		{"shoot", "DaemonSet", "kube-system", "apiserver-proxy", "podlabels:networking.gardener.cloud/to-"},
		{"shoot", "DaemonSet", "kube-system", "apiserver-proxy", "mount:/etc/apiserver-proxy"},
		{"shoot", "ConfigMap", "kube-system", "apiserver-proxy-config-*", "envoy:envoy.yaml"},
		{"shoot", "Secret", "kube-system", "kube-proxy-*", "data:kubeconfig"},
		{"shoot", "DaemonSet", "kube-system", "kube-proxy-local-v1.31.1", "mount:/var/lib/kube-proxy-kubeconfig"},
	},
	// The API server reaches kubelets, pods and services in the shoot through the VPN: the egress
	// selector (a single VPN server) or the VPN client sidecars (HA), the VPN server in the seed
	// with its labels, the VPN client in the shoot, and the kubelet client certificate.
	"apiserver-to-nodes": {
		{"seed", "Deployment", "", "kube-apiserver", "arg:--egress-selector-config-file"},
		{"seed", "Deployment", "", "kube-apiserver", "arg:--kubelet-client-certificate"},
		{"seed", "Deployment", "", "kube-apiserver", "arg:--kubelet-client-key"},
		{"seed", "Deployment", "", "kube-apiserver", "arg:--kubelet-certificate-authority"},
		{"seed", "Deployment", "", "kube-apiserver", "podlabels:networking.resources.gardener.cloud/to-vpn-seed-server"},
		{"seed", "Deployment", "", "kube-apiserver", "containers:"},
		{"seed", "Deployment", "", "vpn-seed-server", "containers:"},
		{"seed", "StatefulSet", "", "vpn-seed-server", "containers:"},
		{"seed", "Deployment", "", "vpn-seed-server", "podlabels:networking.gardener.cloud/to-private-networks"},
		{"seed", "StatefulSet", "", "vpn-seed-server", "podlabels:networking.gardener.cloud/to-private-networks"},
		{"seed", "Service", "", "vpn-seed-server", "path:spec.ports"},
		{"seed", "Service", "", "vpn-seed-server-0", "path:spec.ports"},
		{"shoot", "Deployment", "kube-system", "vpn-shoot", "containers:"},
		{"shoot", "StatefulSet", "kube-system", "vpn-shoot", "containers:"},
		{"shoot", "ClusterRoleBinding", "", "system:apiserver:kubelet", "path:subjects.0.name"},
	},
	// The shoot's gardener-resource-manager logs in to the shoot: the token it reads where it is
	// mounted, the bootstrap kubeconfig, and its binding in the shoot.
	"resource-manager-into-shoot": {
		{"seed", "Deployment", "", "gardener-resource-manager", "mounts:"},
		{"seed", "Secret", "", "shoot-access-gardener-resource-manager", "annotation:serviceaccount.resources.gardener.cloud/name"},
		{"seed", "Secret", "", "shoot-access-gardener-resource-manager", "label:resources.gardener.cloud/purpose"},
		{"seed", "Secret", "", "generic-token-kubeconfig", "data:kubeconfig"},
		{"shoot", "ClusterRoleBinding", "", "gardener.cloud:target:resource-manager", "path:roleRef.name"},
	},
	// kube-controller-manager's identity in the shoot and its signing of kubelet certificates.
	"kube-controller-manager-identity": {
		{"seed", "Deployment", "", "kube-controller-manager", "arg:--kubeconfig"},
		{"seed", "Deployment", "", "kube-controller-manager", "arg:--authentication-kubeconfig"},
		{"seed", "Deployment", "", "kube-controller-manager", "arg:--cluster-signing-kubelet-serving-cert-file"},
		{"seed", "Deployment", "", "kube-controller-manager", "arg:--controllers"},
		{"seed", "Deployment", "", "kube-controller-manager", "mounts:"},
		{"seed", "Secret", "", "shoot-access-kube-controller-manager", "annotation:serviceaccount.resources.gardener.cloud/name"},
		{"shoot", "ClusterRoleBinding", "", "gardener.cloud:target:kube-controller-manager", "path:roleRef.name"},
	},
	// The nodes' first components: kube-proxy with its kubeconfig, CoreDNS with its policy, and
	// the bootstrap of kubelets through the operating system config.
	"kube-proxy-and-coredns": {
		{"shoot", "ServiceAccount", "kube-system", "kube-proxy", ""},
		{"shoot", "ConfigMap", "kube-system", "kube-proxy-config-*", "data:config.yaml"},
		{"shoot", "DaemonSet", "kube-system", "kube-proxy-local-v1.31.1", "containers:"},
		{"shoot", "Deployment", "kube-system", "coredns", "label:k8s-app"},
		{"shoot", "Deployment", "kube-system", "coredns", "path:spec.template.spec.containers.0.readinessProbe.httpGet.path"},
		{"shoot", "Service", "kube-system", "kube-dns", "path:spec.clusterIP"},
		{"shoot", "NetworkPolicy", "kube-system", "gardener.cloud--allow-dns", ""},
		{"seed", "OperatingSystemConfig", "", "", "path:spec.purpose"},
	},
	// Extensions find and mutate what they act on: the namespace labels they select by, the
	// Cluster they read, the labels their control-plane webhooks select by.
	"extension-webhooks": {
		{"seed", "Namespace", "", "shoot--local--dev", "label:networking.shoot.gardener.cloud/provider"},
		{"seed", "Namespace", "", "shoot--local--dev", "label:shoot.gardener.cloud/provider"},
		{"seed", "Namespace", "", "shoot--local--dev", "label:seed.gardener.cloud/provider"},
		{"seed", "Namespace", "", "shoot--local--dev", "label:backup.gardener.cloud/provider"},
		{"seed", "Namespace", "", "shoot--local--dev", "label:pod-security.kubernetes.io/enforce"},
		{"seed", "Namespace", "", "shoot--local--dev", "annotation:shoot.gardener.cloud/uid"},
		{"seed", "Cluster", "", "shoot--local--dev", "path:spec.shoot.kind"},
		{"seed", "Cluster", "", "shoot--local--dev", "path:spec.seed.kind"},
		{"seed", "Cluster", "", "shoot--local--dev", "path:spec.cloudProfile.kind"},
		{"seed", "Deployment", "", "kube-apiserver", "label:provider.extensions.gardener.cloud/mutated-by-controlplane-webhook"},
		{"seed", "Deployment", "", "kube-controller-manager", "label:provider.extensions.gardener.cloud/mutated-by-controlplane-webhook"},
		{"seed", "Deployment", "", "vpn-seed-server", "label:provider.extensions.gardener.cloud/mutated-by-controlplane-webhook"},
	},
	// Backups: the shoot's own folder in the seed's bucket and the entry the backup extension
	// fills the etcd-backup Secret for.
	"backups": {
		{"seed", "BackupEntry", "", "shoot--local--dev--uid", "path:spec.bucketName"},
		{"seed", "Etcd", "", "etcd-main", "path:spec.backup.store.prefix"},
		{"seed", "Etcd", "", "etcd-main", "path:spec.backup.store.secretRef.name"},
		{"seed", "Etcd", "", "etcd-main", "path:spec.backup.store.provider"},
		{"seed", "Etcd", "", "etcd-events", "path:spec.backup.store"},
	},
}

// pathShoots are the shoots whose paths are probed, both with workers, a backup provider and
// domains, their Shoots existing (the etcds rendered): one with a single VPN server, one highly
// available across zones (the VPN's HA servers and the API server's VPN client sidecars).
var pathShoots = []struct {
	name   string
	mutate func(*Values)
}{
	{"single", func(v *Values) { withBackup(v); withDNS(v) }},
	{"ha", func(v *Values) {
		withBackup(v)
		withDNS(v)
		ha("zone")(v)
		v.Seed.Zones = []string{"0", "1", "2"}
	}},
}

func TestPathsOfAWorkingShoot(t *testing.T) {
	type rendered struct{ seed, shoot []*unstructured.Unstructured }
	shoots := make([]rendered, len(pathShoots))
	for i, s := range pathShoots {
		shoots[i].seed, shoots[i].shoot = pathObjects(t, parts(t, values(s.mutate)))
	}
	for name, probes := range shootPaths {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			for _, p := range probes {
				fmt.Fprintf(&out, "%s %s %s %s\n", p.side, p.kind, p.name, p.get)
				for i, s := range pathShoots {
					objects := shoots[i].seed
					if p.side == "shoot" {
						objects = shoots[i].shoot
					}
					fmt.Fprintf(&out, "  %-6s %s\n", s.name+":", p.read(objects))
				}
			}
			golden.AssertBytes(t, "paths/"+name+".txt", out.Bytes())
		})
	}
	// docs/fidelity.md writes every path down with its golden.
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "fidelity.md"))
	require.NoError(t, err)
	for name := range shootPaths {
		assert.Contains(t, string(doc), "testdata/paths/"+name+".txt", "docs/fidelity.md lists the path %s", name)
	}
}

// pathObjects are the objects of every part, and the objects the ManagedResources apply in the
// shoot (those without the seed class), decoded from their Secrets.
func pathObjects(t *testing.T, ps map[string]render.Component) (seed, shoot []*unstructured.Unstructured) {
	t.Helper()
	seedClass := map[string]bool{} // Secrets of ManagedResources of class seed
	for _, p := range ps {
		for _, o := range p.Objects {
			if o.Object.GetKind() != "ManagedResource" {
				continue
			}
			class, _, _ := unstructured.NestedString(o.Object.Object, "spec", "class")
			refs, _, _ := unstructured.NestedSlice(o.Object.Object, "spec", "secretRefs")
			for _, r := range refs {
				if m, ok := r.(map[string]any); ok && class == "seed" {
					seedClass[fmt.Sprint(m["name"])] = true
				}
			}
		}
	}
	for _, p := range ps {
		for _, o := range p.Objects {
			seed = append(seed, o.Object)
			if o.Object.GetKind() != "Secret" || o.Object.GetLabels()["resources.gardener.cloud/garbage-collectable-reference"] != "true" || seedClass[o.Object.GetName()] {
				continue
			}
			for _, doc := range secretStrings(o.Object) {
				dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(doc), 4096)
				for {
					u := &unstructured.Unstructured{}
					if err := dec.Decode(&u.Object); err != nil {
						break
					}
					if len(u.Object) > 0 && u.GetKind() != "" {
						shoot = append(shoot, u)
					}
				}
			}
		}
	}
	require.NotEmpty(t, shoot, "the shoot's ManagedResources hold objects")
	return seed, shoot
}

// secretStrings are the values of a rendered Secret, from stringData or decoded data.
func secretStrings(u *unstructured.Unstructured) []string {
	var out []string
	keys := func(m map[string]any) []string {
		ks := make([]string, 0, len(m))
		for k := range m {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		return ks
	}
	if sd, ok := u.Object["stringData"].(map[string]any); ok {
		for _, k := range keys(sd) {
			out = append(out, fmt.Sprint(sd[k]))
		}
	}
	if d, ok := u.Object["data"].(map[string]any); ok {
		for _, k := range keys(d) {
			if b, err := base64.StdEncoding.DecodeString(fmt.Sprint(d[k])); err == nil {
				out = append(out, string(b))
			}
		}
	}
	return out
}

// read finds the probe's object among objects and reads its fact; "(absent)" when the object or
// the fact is missing.
func (p probe) read(objects []*unstructured.Unstructured) string {
	for _, o := range objects {
		if o.GetKind() != p.kind || !p.names(o.GetName()) || (p.namespace != "" && o.GetNamespace() != p.namespace) {
			continue
		}
		what, arg, _ := strings.Cut(p.get, ":")
		switch what {
		case "":
			return "present"
		case "arg":
			return orAbsent(flagOf(o, arg))
		case "label":
			v, ok := o.GetLabels()[arg]
			return orAbsent(v, ok)
		case "annotation":
			v, ok := o.GetAnnotations()[arg]
			if ok && strings.Contains(arg, "uid") {
				v = "(set)"
			}
			return orAbsent(v, ok)
		case "path":
			v, ok := fieldOf(o.Object, strings.Split(arg, "."))
			return orAbsent(v, ok)
		case "env":
			return orAbsent(envOf(o, arg))
		case "containers":
			var names []string
			for _, c := range containersOf(o) {
				names = append(names, fmt.Sprint(c["name"]))
			}
			return strings.Join(names, ", ")
		case "mounts":
			return mountsOf(o)
		case "webhooks":
			list, _, _ := unstructured.NestedSlice(o.Object, "webhooks")
			var names []string
			for _, w := range list {
				if m, ok := w.(map[string]any); ok {
					names = append(names, fmt.Sprint(m["name"]))
				}
			}
			return strings.Join(names, ", ")
		case "podlabels":
			labels, _, _ := unstructured.NestedStringMap(o.Object, "spec", "template", "metadata", "labels")
			var found []string
			for k, v := range labels {
				if strings.HasPrefix(k, arg) {
					found = append(found, k+"="+v)
				}
			}
			sort.Strings(found)
			if len(found) == 0 {
				return "(absent)"
			}
			return strings.Join(found, ", ")
		case "mount":
			return orAbsent(mountOf(o, arg))
		case "envoy":
			return envoyTunnel(o, arg)
		case "data":
			for _, field := range []string{"data", "stringData"} {
				if m, ok := o.Object[field].(map[string]any); ok {
					if _, ok := m[arg]; ok {
						return "present"
					}
				}
			}
			return "(absent)"
		}
		return "(unknown probe " + p.get + ")"
	}
	return "(absent: no " + p.kind + " " + p.name + ")"
}

// names reports whether the probe names an object: its name, any name for none, and for a name
// ending in "-*" the content-named objects (<name>-<checksum>) Gardener names so.
func (p probe) names(name string) bool {
	if prefix, ok := strings.CutSuffix(p.name, "*"); ok {
		return strings.HasPrefix(name, prefix)
	}
	return p.name == "" || name == p.name
}

// envoyTunnel reads the first listener of the envoy configuration under key of a ConfigMap and
// the cluster it forwards to: "<address>:<port> -> <upstream>:<port> Reversed-VPN: <value>".
func envoyTunnel(o *unstructured.Unstructured, key string) string {
	doc, ok, _ := unstructured.NestedString(o.Object, "data", key)
	if !ok {
		return "(absent)"
	}
	var config map[string]any
	if err := sigsyaml.Unmarshal([]byte(doc), &config); err != nil {
		return "(not YAML: " + err.Error() + ")"
	}
	get := func(obj any, path ...string) string {
		v, _ := fieldOf(obj, path)
		return v
	}
	listener := get(config, "static_resources", "listeners", "0", "address", "socket_address", "address") + ":" +
		get(config, "static_resources", "listeners", "0", "address", "socket_address", "port_value")
	proxy := []string{"static_resources", "listeners", "0", "filter_chains", "0", "filters", "0", "typed_config"}
	cluster := get(config, append(proxy, "cluster")...)
	var upstream string
	clusters, _, _ := unstructured.NestedSlice(config, "static_resources", "clusters")
	for _, c := range clusters {
		if get(c, "name") == cluster {
			upstream = get(c, "load_assignment", "endpoints", "0", "lb_endpoints", "0", "endpoint", "address", "socket_address", "address") + ":" +
				get(c, "load_assignment", "endpoints", "0", "lb_endpoints", "0", "endpoint", "address", "socket_address", "port_value")
		}
	}
	header := get(config, append(proxy, "tunneling_config", "headers_to_add", "0", "header", "key")...) + ": " +
		get(config, append(proxy, "tunneling_config", "headers_to_add", "0", "header", "value")...)
	return listener + " -> " + upstream + " " + header
}

func orAbsent(v string, ok bool) string {
	if !ok {
		return "(absent)"
	}
	return v
}

// containersOf are the containers and init containers of a workload's pod template.
func containersOf(o *unstructured.Unstructured) []map[string]any {
	var out []map[string]any
	for _, field := range []string{"containers", "initContainers"} {
		list, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", field)
		for _, c := range list {
			if m, ok := c.(map[string]any); ok {
				out = append(out, m)
			}
		}
	}
	return out
}

// flagOf is a flag's value in any container's command or args ("(set)" for a flag without value).
func flagOf(o *unstructured.Unstructured, flag string) (string, bool) {
	for _, c := range containersOf(o) {
		for _, field := range []string{"command", "args"} {
			list, _ := c[field].([]any)
			for _, a := range list {
				s := fmt.Sprint(a)
				if s == flag {
					return "(set)", true
				}
				if v, ok := strings.CutPrefix(s, flag+"="); ok {
					return v, true
				}
			}
		}
	}
	return "", false
}

func envOf(o *unstructured.Unstructured, name string) (string, bool) {
	for _, c := range containersOf(o) {
		list, _ := c["env"].([]any)
		for _, e := range list {
			if m, ok := e.(map[string]any); ok && m["name"] == name {
				if v, ok := m["value"]; ok {
					return fmt.Sprint(v), true
				}
				return "(from a reference)", true
			}
		}
	}
	return "", false
}

// mountOf says which volume a container mounts at path and what the volume is made of.
func mountOf(o *unstructured.Unstructured, path string) (string, bool) {
	volumes, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "volumes")
	for _, c := range containersOf(o) {
		list, _ := c["volumeMounts"].([]any)
		for _, m := range list {
			mm, ok := m.(map[string]any)
			if !ok || mm["mountPath"] != path {
				continue
			}
			for _, v := range volumes {
				vm, ok := v.(map[string]any)
				if !ok || vm["name"] != mm["name"] {
					continue
				}
				var sources []string
				for k := range vm {
					if k != "name" {
						sources = append(sources, k)
					}
				}
				sort.Strings(sources)
				return fmt.Sprintf("volume %s (%s) in container %s", mm["name"], strings.Join(sources, ", "), c["name"]), true
			}
			return fmt.Sprintf("volume %s (not defined) in container %s", mm["name"], c["name"]), true
		}
	}
	return "", false
}

// mountsOf lists a workload's mount paths under /var/run/secrets and /etc with the kind of volume
// behind each: what an identity is read from.
func mountsOf(o *unstructured.Unstructured) string {
	var out []string
	for _, c := range containersOf(o) {
		list, _ := c["volumeMounts"].([]any)
		for _, m := range list {
			mm, ok := m.(map[string]any)
			path := fmt.Sprint(mm["mountPath"])
			if !ok || !(strings.HasPrefix(path, "/var/run/secrets") || strings.HasPrefix(path, "/etc/")) {
				continue
			}
			desc, _ := mountOf(o, path)
			out = append(out, path+" <- "+desc)
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		return "(absent)"
	}
	return strings.Join(out, "; ")
}

// fieldOf reads a dot path, numbers indexing lists, and prints the value compactly.
func fieldOf(obj any, path []string) (string, bool) {
	cur := obj
	for _, p := range path {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[p]
			if !ok {
				return "", false
			}
			cur = v
		case []any:
			var i int
			if _, err := fmt.Sscanf(p, "%d", &i); err != nil || i < 0 || i >= len(c) {
				return "", false
			}
			cur = c[i]
		default:
			return "", false
		}
	}
	switch v := cur.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return "{" + strings.Join(keys, ", ") + "}", true
	default:
		return fmt.Sprint(v), true
	}
}
