package render

import (
	"errors"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// LiveRef names a field of a live object whose value exists only once that object is applied
// and some controller has filled it in: the address a cloud provider gives a LoadBalancer
// Service. The shoot's DNSRecords point at the address of the seed's Istio ingress gateway
// (Gardener's "Control Plane Endpoints And Ports"
// docs/usage/advanced/control-plane-endpoints-and-ports.md, "DNS Record"
// docs/extensions/resources/dnsrecord.md), the seed's wildcard record at its nginx-ingress
// controller's (Gardener's docs/extensions/resources/dnsrecord.md), and neither address can be
// computed by a pure render function.
//
// A render function puts LiveValue(ref) where the value belongs, in an object or an output. The
// engine replaces the marker when it plans, if the object already has the value; otherwise the
// field is planned as "(known after apply)", and apply reads the value once the components the
// object's component depends on are ready, waiting for the controller to fill it in.
type LiveRef struct {
	// Cluster is the cluster block the object lives in.
	Cluster string
	// Group, Version and Resource are the object's resource ("", "v1", "services").
	Group    string
	Version  string
	Resource string
	// Namespace is empty for cluster-scoped objects.
	Namespace string
	Name      string
	// Paths are dot-separated field paths, numbers indexing lists; the first one that holds a
	// value wins ("status.loadBalancer.ingress.0.ip" before "...0.hostname").
	Paths []string
	// As transforms the value: "" keeps it, AsRecordType turns an address into the DNS record
	// type that points at it, AsShootAPIServerAddress maps a cluster IP into the range shoots
	// see their API server in.
	As string
}

// AsRecordType turns an address into the record type pointing at it: A for an IPv4 address,
// AAAA for IPv6, CNAME for a host name (Gardener's docs/extensions/resources/dnsrecord.md).
const AsRecordType = "record-type"

// AsShootAPIServerAddress turns the cluster IP of a shoot API server's Service in the seed into
// the address the API server advertises in the shoot (ShootAPIServerAddress).
const AsShootAPIServerAddress = "shoot-apiserver-address"

// ReservedShootAPIServerRange is where a shoot sees its API server's address (Gardener's
// ReservedKubeApiServerMappingRange in pkg/apis/core/v1beta1/constants at v1.120.0): the seed's
// cluster IP must not leak into the shoot, where it could collide with the shoot's own networks.
const ReservedShootAPIServerRange = "240.0.0.0/8"

// ShootAPIServerAddress maps an IPv4 cluster IP into ReservedShootAPIServerRange, keeping its
// last three octets (10.2.170.21 becomes 240.2.170.21), as gardenlet does for the address the
// shoot's API server advertises and the apiserver-proxy listens on
// (mapToReservedKubeApiServerRange in pkg/gardenlet/operation/botanist/kubeapiserverexposure.go
// at v1.120.0). Anything else is returned as it is: an IPv6 cluster IP is advertised unchanged.
func ShootAPIServerAddress(clusterIP string) string {
	ip := net.ParseIP(clusterIP).To4()
	if ip == nil {
		return clusterIP
	}
	prefix, _, _ := net.ParseCIDR(ReservedShootAPIServerRange)
	return net.IPv4(prefix.To4()[0], ip[1], ip[2], ip[3]).String()
}

// LoadBalancerAddress refers to the address a LoadBalancer Service gets from its cloud
// provider: its first ingress IP, or host name where the provider gives one instead.
func LoadBalancerAddress(cluster, namespace, name string) LiveRef {
	return LiveRef{
		Cluster: cluster, Version: "v1", Resource: "services", Namespace: namespace, Name: name,
		Paths: []string{"status.loadBalancer.ingress.0.ip", "status.loadBalancer.ingress.0.hostname"},
	}
}

// WithAs returns the reference with a transformation.
func (r LiveRef) WithAs(as string) LiveRef { r.As = as; return r }

// GVR is the object's resource.
func (r LiveRef) GVR() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Resource}
}

// ObjectKey identifies the object a reference reads, whatever field: cluster, resource,
// namespace and name.
func (r LiveRef) ObjectKey() string {
	return strings.Join([]string{r.Cluster, r.Group, r.Version, r.Resource, r.Namespace, r.Name}, "/")
}

// String says which object and field, for messages.
func (r LiveRef) String() string {
	id := r.Name
	if r.Namespace != "" {
		id = r.Namespace + "/" + r.Name
	}
	return fmt.Sprintf("%s of %s %s in cluster %s", strings.Join(r.Paths, " or "), r.Resource, id, r.Cluster)
}

// livePrefix starts every LiveValue marker.
const livePrefix = "${live:"

// liveMarker matches LiveValue markers:
// ${live:<cluster>/<group>/<version>/<resource>/<namespace>/<name>:<path>|<path>...[:<as>]}.
// None of the parts can hold a closing brace or a colon, so the marker survives HCL interpolation
// and reads well in golden files.
var liveMarker = regexp.MustCompile(`\$\{live:([^}:]*):([^}:]*)(?::([^}:]*))?\}`)

// LiveValue is the marker that stands for ref's value until the engine knows it.
func LiveValue(ref LiveRef) string {
	m := livePrefix + strings.Join([]string{ref.Cluster, ref.Group, ref.Version, ref.Resource, ref.Namespace, ref.Name}, "/") +
		":" + strings.Join(ref.Paths, "|")
	if ref.As != "" {
		m += ":" + ref.As
	}
	return m + "}"
}

// HasLive reports whether v (a string, or the maps and lists of an object) holds a LiveValue
// marker.
func HasLive(v any) bool { return containsString(v, livePrefix) }

// ErrMangledLive is what a marker that a function changed gives.
var ErrMangledLive = errors.New("a value known only after apply was changed by a function; such values can only be passed on or interpolated into strings")

// LiveRefs returns the references of the markers in s, in order.
func LiveRefs(s string) ([]LiveRef, error) {
	matches := liveMarker.FindAllStringSubmatch(s, -1)
	if strings.Count(s, livePrefix) != len(matches) {
		return nil, ErrMangledLive
	}
	out := make([]LiveRef, 0, len(matches))
	for _, m := range matches {
		ref, err := parseLive(m)
		if err != nil {
			return nil, err
		}
		out = append(out, ref)
	}
	return out, nil
}

// parseLive reads a liveMarker match.
func parseLive(m []string) (LiveRef, error) {
	id := strings.Split(m[1], "/")
	if len(id) != 6 || id[2] == "" || id[3] == "" || id[5] == "" || m[2] == "" {
		return LiveRef{}, ErrMangledLive
	}
	return LiveRef{Cluster: id[0], Group: id[1], Version: id[2], Resource: id[3], Namespace: id[4], Name: id[5],
		Paths: strings.Split(m[2], "|"), As: m[3]}, nil
}

// LiveLookup returns the live object a reference points at; nil when it does not exist.
type LiveLookup func(ref LiveRef) (*unstructured.Unstructured, error)

// ResolveLive replaces the LiveValue markers in s with the values lookup finds. Markers whose
// object or field does not exist yet stay, and resolved is false.
func ResolveLive(s string, lookup LiveLookup) (out string, resolved bool, err error) {
	if !strings.Contains(s, livePrefix) {
		return s, true, nil
	}
	if _, err := LiveRefs(s); err != nil {
		return s, false, err
	}
	resolved = true
	out = liveMarker.ReplaceAllStringFunc(s, func(m string) string {
		if err != nil {
			return m
		}
		ref, perr := parseLive(liveMarker.FindStringSubmatch(m))
		if perr != nil {
			err = perr
			return m
		}
		obj, lerr := lookup(ref)
		if lerr != nil {
			err = fmt.Errorf("read %s: %w", ref, lerr)
			return m
		}
		v, ok := FieldValue(obj, ref.Paths)
		if !ok {
			resolved = false
			return m
		}
		return transform(v, ref.As)
	})
	if err != nil {
		return s, false, err
	}
	return out, resolved, nil
}

// FieldValue is the first of paths that holds a non-empty string, a number or a boolean in obj.
func FieldValue(obj *unstructured.Unstructured, paths []string) (string, bool) {
	if obj == nil {
		return "", false
	}
	for _, p := range paths {
		var cur any = obj.Object
		for _, step := range strings.Split(p, ".") {
			switch c := cur.(type) {
			case map[string]any:
				cur = c[step]
			case []any:
				i, err := strconv.Atoi(step)
				if err != nil || i < 0 || i >= len(c) {
					cur = nil
				} else {
					cur = c[i]
				}
			default:
				cur = nil
			}
		}
		switch v := cur.(type) {
		case string:
			if v != "" {
				return v, true
			}
		case int64:
			return strconv.FormatInt(v, 10), true
		case float64:
			return strconv.FormatFloat(v, 'f', -1, 64), true
		case bool:
			return strconv.FormatBool(v), true
		}
	}
	return "", false
}

func transform(v, as string) string {
	switch as {
	case AsRecordType:
		return RecordType(v)
	case AsShootAPIServerAddress:
		return ShootAPIServerAddress(v)
	}
	return v
}

// RecordType is the DNS record type that points at an address: A for an IPv4 address, AAAA for
// IPv6, CNAME for a host name (Gardener's docs/extensions/resources/dnsrecord.md).
func RecordType(address string) string {
	ip := net.ParseIP(address)
	switch {
	case ip == nil:
		return "CNAME"
	case ip.To4() != nil:
		return "A"
	default:
		return "AAAA"
	}
}

// containsString reports whether a string in v contains sub.
func containsString(v any, sub string) bool {
	switch v := v.(type) {
	case string:
		return strings.Contains(v, sub)
	case map[string]any:
		for _, e := range v {
			if containsString(e, sub) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if containsString(e, sub) {
				return true
			}
		}
	}
	return false
}

// ResolveLiveObject is ResolveLive for every string of an object (map keys excluded). It returns
// a copy when something was replaced and obj itself otherwise; resolved is false while a marker
// stays.
func ResolveLiveObject(obj map[string]any, lookup LiveLookup) (out map[string]any, resolved bool, err error) {
	resolved = true
	v, _ := MapStrings(obj, func(s string) string {
		if err != nil || !strings.Contains(s, livePrefix) {
			return s
		}
		r, ok, rerr := ResolveLive(s, lookup)
		if rerr != nil {
			err = rerr
			return s
		}
		resolved = resolved && ok
		return r
	})
	if err != nil {
		return obj, false, err
	}
	return v.(map[string]any), resolved, nil
}

// MapStrings returns v (a string, or the maps and lists of an object) with fn applied to every
// string but map keys, copying only the containers on the way to a changed string, and whether
// anything changed.
func MapStrings(v any, fn func(string) string) (any, bool) {
	switch v := v.(type) {
	case string:
		n := fn(v)
		return n, n != v
	case map[string]any:
		var out map[string]any
		for k, e := range v {
			if n, changed := MapStrings(e, fn); changed {
				if out == nil {
					out = make(map[string]any, len(v))
					for k2, e2 := range v {
						out[k2] = e2
					}
				}
				out[k] = n
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	case []any:
		var out []any
		for i, e := range v {
			if n, changed := MapStrings(e, fn); changed {
				if out == nil {
					out = append([]any(nil), v...)
				}
				out[i] = n
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	}
	return v, false
}
