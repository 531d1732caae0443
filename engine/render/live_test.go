package render

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func service(ingress ...map[string]any) *unstructured.Unstructured {
	var list []any
	for _, i := range ingress {
		list = append(list, i)
	}
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "gw", "namespace": "istio-ingress"}}}
	if list != nil {
		u.Object["status"] = map[string]any{"loadBalancer": map[string]any{"ingress": list}}
	}
	return u
}

func TestResolveLive(t *testing.T) {
	ref := LoadBalancerAddress("seed", "istio-ingress", "gw")
	tests := []struct {
		name     string
		in       string
		live     *unstructured.Unstructured
		want     string
		resolved bool
	}{
		{"no marker", "plain", nil, "plain", true},
		{"object missing", LiveValue(ref), nil, LiveValue(ref), false},
		{"no address yet", LiveValue(ref), service(), LiveValue(ref), false},
		{"ip", LiveValue(ref), service(map[string]any{"ip": "10.2.0.7"}), "10.2.0.7", true},
		{"hostname when no ip", LiveValue(ref), service(map[string]any{"hostname": "lb.example.com"}), "lb.example.com", true},
		{"interpolated", "https://" + LiveValue(ref) + ":443", service(map[string]any{"ip": "10.2.0.7"}), "https://10.2.0.7:443", true},
		{"record type A", LiveValue(ref.WithAs(AsRecordType)), service(map[string]any{"ip": "10.2.0.7"}), "A", true},
		{"record type AAAA", LiveValue(ref.WithAs(AsRecordType)), service(map[string]any{"ip": "fd00::7"}), "AAAA", true},
		{"record type CNAME", LiveValue(ref.WithAs(AsRecordType)), service(map[string]any{"hostname": "lb.example.com"}), "CNAME", true},
		// gardenlet's mapping of the API server's cluster IP: 10.2.170.21 is 240.2.170.21 in the shoot.
		{"shoot API server address", LiveValue(ref.WithAs(AsShootAPIServerAddress)), service(map[string]any{"ip": "10.2.170.21"}), "240.2.170.21", true},
		{"shoot API server address IPv6", LiveValue(ref.WithAs(AsShootAPIServerAddress)), service(map[string]any{"ip": "fd00::7"}), "fd00::7", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []LiveRef
			got, resolved, err := ResolveLive(tt.in, func(r LiveRef) (*unstructured.Unstructured, error) {
				asked = append(asked, r)
				return tt.live, nil
			})
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.resolved, resolved)
			assert.True(t, HasLive(got) != tt.resolved, "a marker stays exactly when unresolved")
			if strings.Contains(tt.in, "${live:") {
				require.Len(t, asked, 1)
				assert.Equal(t, "gw", asked[0].Name)
				assert.Equal(t, "services", asked[0].Resource)
			}
		})
	}
}

func TestResolveLiveErrors(t *testing.T) {
	ref := LoadBalancerAddress("seed", "istio-ingress", "gw")
	_, _, err := ResolveLive(LiveValue(ref), func(LiveRef) (*unstructured.Unstructured, error) { return nil, errors.New("connection refused") })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "services istio-ingress/gw in cluster seed: connection refused")

	// substr() or trimsuffix() in HCL mangle the marker: that is a clear error, not a silent guess.
	_, _, err = ResolveLive(strings.TrimSuffix(LiveValue(ref), "}"), func(LiveRef) (*unstructured.Unstructured, error) { return nil, nil })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "changed by a function")
}

func TestResolveLiveObjectCopiesOnlyWhatChanges(t *testing.T) {
	ref := LoadBalancerAddress("seed", "istio-ingress", "gw")
	obj := map[string]any{
		"metadata": map[string]any{"name": "r"},
		"spec":     map[string]any{"values": []any{LiveValue(ref)}, "recordType": LiveValue(ref.WithAs(AsRecordType))},
	}
	out, resolved, err := ResolveLiveObject(obj, func(LiveRef) (*unstructured.Unstructured, error) {
		return service(map[string]any{"ip": "10.2.0.7"}), nil
	})
	require.NoError(t, err)
	assert.True(t, resolved)
	assert.Equal(t, map[string]any{"values": []any{"10.2.0.7"}, "recordType": "A"}, out["spec"])
	assert.True(t, HasLive(obj), "the input is left as it was")
	assert.Equal(t, Unknown(obj), true)
	assert.False(t, Unprovided(obj), "apply can learn a live value")
}

func TestRecordType(t *testing.T) {
	for addr, want := range map[string]string{"1.2.3.4": "A", "2001:db8::1": "AAAA", "lb.example.com": "CNAME"} {
		assert.Equal(t, want, RecordType(addr))
	}
}
