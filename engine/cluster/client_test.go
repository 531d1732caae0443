package cluster_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/declarative-gardener/gardener/engine/cluster"
)

// fakeServer answers the few API requests the read tests need and logs them.
type fakeServer struct {
	t     *testing.T
	items int // configmaps in namespace a

	mu       sync.Mutex
	requests []string
	failures map[string][]int // path+query → status codes to answer before succeeding
	expireAt string           // continue token answered once with 410 Gone
}

func (s *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	key := r.URL.Path + "?" + r.URL.RawQuery
	s.requests = append(s.requests, key)
	var fail int
	if codes := s.failures[r.URL.Path]; len(codes) > 0 {
		fail, s.failures[r.URL.Path] = codes[0], codes[1:]
	}
	expire := s.expireAt != "" && r.URL.Query().Get("continue") == s.expireAt
	if expire {
		s.expireAt = ""
	}
	s.mu.Unlock()

	w.Header().Set("Content-Type", "application/json")
	switch {
	case fail != 0:
		writeStatus(w, fail, "InternalError", "try again")
	case expire:
		writeStatus(w, http.StatusGone, "Expired", "the provided continue parameter is too old")
	case r.URL.Path == "/api/v1/namespaces/a/configmaps":
		s.list(w, r)
	case r.URL.Path == "/api/v1/namespaces/a/configmaps/present":
		fmt.Fprint(w, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"present","namespace":"a"}}`)
	case strings.HasPrefix(r.URL.Path, "/apis/unserved.example.com/"):
		// A resource the server does not serve: the API server's plain-text 404, which client-go
		// reports as an unexpected server response.
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, "404 page not found")
	default:
		writeStatus(w, http.StatusNotFound, "NotFound", "not found")
	}
}

func (s *fakeServer) list(w http.ResponseWriter, r *http.Request) {
	limit, err := strconv.Atoi(r.URL.Query().Get("limit"))
	require.NoError(s.t, err)
	assert.Equal(s.t, "l=x", r.URL.Query().Get("labelSelector"))
	start := 0
	if c := r.URL.Query().Get("continue"); c != "" {
		start, err = strconv.Atoi(c)
		require.NoError(s.t, err)
	}
	end := min(start+limit, s.items)
	list := map[string]interface{}{"apiVersion": "v1", "kind": "ConfigMapList", "metadata": map[string]interface{}{}}
	if end < s.items {
		list["metadata"] = map[string]interface{}{"continue": strconv.Itoa(end)}
	}
	var items []interface{}
	for i := start; i < end; i++ {
		items = append(items, map[string]interface{}{"metadata": map[string]interface{}{"name": fmt.Sprintf("cm-%02d", i), "namespace": "a"}})
	}
	list["items"] = items
	require.NoError(s.t, json.NewEncoder(w).Encode(list))
}

func writeStatus(w http.ResponseWriter, code int, reason, message string) {
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]interface{}{
		"apiVersion": "v1", "kind": "Status", "status": "Failure", "reason": reason, "message": message, "code": code,
	})
}

func (s *fakeServer) log() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.requests
	s.requests = nil
	return out
}

func fakeClient(t *testing.T, s *fakeServer, pageSize int64) *cluster.Client {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	c, err := cluster.ConnectConfig(&rest.Config{Host: srv.URL}, cluster.Options{PageSize: pageSize, NoDiskCache: true})
	require.NoError(t, err)
	return c
}

var configMapsGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

func TestListPagesUntilDone(t *testing.T) {
	s := &fakeServer{t: t, items: 7}
	c := fakeClient(t, s, 3)
	items, err := c.List(context.Background(), configMapsGVR, "a", "l=x")
	require.NoError(t, err)
	require.Len(t, items, 7)
	assert.Equal(t, "cm-06", items[6].GetName())
	assert.Equal(t, "ConfigMap", items[6].GetKind(), "items carry their kind")
	assert.Equal(t, []string{
		"/api/v1/namespaces/a/configmaps?labelSelector=l%3Dx&limit=3",
		"/api/v1/namespaces/a/configmaps?continue=3&labelSelector=l%3Dx&limit=3",
		"/api/v1/namespaces/a/configmaps?continue=6&labelSelector=l%3Dx&limit=3",
	}, s.log())
}

func TestListRestartsOnExpiredContinue(t *testing.T) {
	s := &fakeServer{t: t, items: 5, expireAt: "2"}
	c := fakeClient(t, s, 2)
	items, err := c.List(context.Background(), configMapsGVR, "a", "l=x")
	require.NoError(t, err)
	require.Len(t, items, 5, "no duplicates from the abandoned attempt")
	assert.Equal(t, []string{
		"/api/v1/namespaces/a/configmaps?labelSelector=l%3Dx&limit=2",
		"/api/v1/namespaces/a/configmaps?continue=2&labelSelector=l%3Dx&limit=2",
		"/api/v1/namespaces/a/configmaps?labelSelector=l%3Dx&limit=2",
		"/api/v1/namespaces/a/configmaps?continue=2&labelSelector=l%3Dx&limit=2",
		"/api/v1/namespaces/a/configmaps?continue=4&labelSelector=l%3Dx&limit=2",
	}, s.log())
}

func TestReadsRetryTransientErrors(t *testing.T) {
	s := &fakeServer{t: t, items: 1, failures: map[string][]int{
		"/api/v1/namespaces/a/configmaps":         {http.StatusServiceUnavailable, http.StatusTooManyRequests},
		"/api/v1/namespaces/a/configmaps/present": {http.StatusInternalServerError},
	}}
	c := fakeClient(t, s, 10)
	items, err := c.List(context.Background(), configMapsGVR, "a", "l=x")
	require.NoError(t, err)
	assert.Len(t, items, 1)
	assert.Len(t, s.log(), 3)

	obj, err := c.Get(context.Background(), configMapsGVR, "a", "present")
	require.NoError(t, err)
	assert.Equal(t, "present", obj.GetName())
	assert.Len(t, s.log(), 2)
}

func TestReadsGiveUp(t *testing.T) {
	s := &fakeServer{t: t, failures: map[string][]int{
		"/api/v1/namespaces/a/configmaps/present": {500, 500, 500, 500, 500, 500},
	}}
	c := fakeClient(t, s, 10)
	_, err := c.Get(context.Background(), configMapsGVR, "a", "present")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "get configmaps/v1 a/present: ")
	assert.Len(t, s.log(), 5, "bounded attempts")
}

func TestGetNotFound(t *testing.T) {
	s := &fakeServer{t: t}
	c := fakeClient(t, s, 10)
	obj, err := c.Get(context.Background(), configMapsGVR, "a", "missing")
	require.NoError(t, err)
	assert.Nil(t, obj)
	assert.Len(t, s.log(), 1, "not found is an answer, not retried")
}

// A LIST of a resource the server does not serve is answered with a plain-text 404 at once:
// not retried for seconds like a server error (render functions list Gardener resources a
// virtual garden may not serve).
func TestListOfAnUnservedResourceIsNotRetried(t *testing.T) {
	s := &fakeServer{t: t}
	c := fakeClient(t, s, 10)
	_, err := c.List(context.Background(), schema.GroupVersionResource{Group: "unserved.example.com", Version: "v1", Resource: "things"}, "", "")
	require.Error(t, err)
	assert.True(t, apierrors.IsNotFound(err), "%v", err)
	assert.Len(t, s.log(), 1, "not found is an answer, not retried")
}
