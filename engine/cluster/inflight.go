package cluster

import (
	"io"
	"net/http"
	"sync"
)

// limitInFlight bounds how many requests of one cluster's clients are in flight at once, from
// sending the request until its response body is closed, so that an apply can keep a hundred
// components going (most of them waiting for readiness) while the API server sees at most n
// requests from it. Watches are left out: they stay open for as long as a wait lasts and would
// hold a slot throughout.
func limitInFlight(n int) func(http.RoundTripper) http.RoundTripper {
	slots := make(chan struct{}, n)
	return func(next http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			if isWatch(req) {
				return next.RoundTrip(req)
			}
			select {
			case slots <- struct{}{}:
			case <-req.Context().Done():
				return nil, req.Context().Err()
			}
			release := sync.OnceFunc(func() { <-slots })
			resp, err := next.RoundTrip(req)
			if err != nil || resp.Body == nil {
				release()
				return resp, err
			}
			resp.Body = &releasingBody{ReadCloser: resp.Body, release: release}
			return resp, nil
		})
	}
}

// isWatch tells a watch request (client-go sets watch=true) from any other.
func isWatch(req *http.Request) bool {
	w := req.URL.Query().Get("watch")
	return w == "true" || w == "1"
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// releasingBody frees the request's slot when the body is closed.
type releasingBody struct {
	io.ReadCloser
	release func()
}

func (b *releasingBody) Close() error {
	defer b.release()
	return b.ReadCloser.Close()
}
