package cluster

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gatedServer answers every request once release is closed, counting those it holds at once.
type gatedServer struct {
	release        chan struct{}
	inFlight, most atomic.Int32
	arrived        chan string
}

func (s *gatedServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		m := s.most.Load()
		if n <= m || s.most.CompareAndSwap(m, n) {
			break
		}
	}
	s.arrived <- r.URL.RawQuery
	<-s.release
	_, _ = io.WriteString(w, "{}")
}

func TestLimitInFlightBoundsRequestsButNotWatches(t *testing.T) {
	srv := &gatedServer{release: make(chan struct{}), arrived: make(chan string, 100)}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	client := &http.Client{Transport: limitInFlight(2)(http.DefaultTransport)}
	get := func(query string) error {
		resp, err := client.Get(ts.URL + "/api/v1/configmaps?" + query)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.Body.Close()
	}

	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() { assert.NoError(t, get("watch=true")) })
	}
	for range 5 {
		wg.Go(func() { assert.NoError(t, get("limit=500")) })
	}
	// Two watches and two other requests reach the server; the other three wait for a slot.
	for range 4 {
		select {
		case <-srv.arrived:
		case <-time.After(10 * time.Second):
			t.Fatal("requests did not arrive")
		}
	}
	select {
	case q := <-srv.arrived:
		t.Fatalf("a request beyond the bound arrived: %q", q)
	case <-time.After(200 * time.Millisecond):
	}
	assert.Equal(t, int32(4), srv.inFlight.Load())
	close(srv.release) // slots free as bodies close, and the rest go through
	wg.Wait()
	assert.Equal(t, int32(4), srv.most.Load(), "at most two requests besides the two watches")
}

func TestLimitInFlightGivesUpWaitingWhenTheContextEnds(t *testing.T) {
	srv := &gatedServer{release: make(chan struct{}), arrived: make(chan string, 10)}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	defer close(srv.release)
	client := &http.Client{Transport: limitInFlight(1)(http.DefaultTransport)}
	go func() {
		if resp, err := client.Get(ts.URL); err == nil {
			_ = resp.Body.Close()
		}
	}()
	<-srv.arrived
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL, nil)
	require.NoError(t, err)
	_, err = client.Do(req)
	require.ErrorIs(t, err, context.DeadlineExceeded)
}
