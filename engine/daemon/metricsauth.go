package daemon

import (
	"bytes"
	"context"
	"net/http"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// AuthenticatedMetrics is the daemon's metrics filter (metricsserver.Options.FilterProvider):
// controller-runtime's filters.WithAuthenticationAndAuthorization, which authenticates a client's
// bearer token with a TokenReview and authorizes GET /metrics with a SubjectAccessReview, with one
// correction: a token the API server does not accept is answered 401 Unauthorized, as the API
// server answers it, instead of 500 (the filter takes the rejected token for an error of its
// own). Everything else, errors of the reviews included, is the filter's answer.
func AuthenticatedMetrics(c *rest.Config, hc *http.Client) (metricsserver.Filter, error) {
	inner, err := filters.WithAuthenticationAndAuthorization(c, hc)
	if err != nil {
		return nil, err
	}
	return func(log logr.Logger, h http.Handler) (http.Handler, error) {
		guarded, err := inner(log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if passed, ok := r.Context().Value(passedKey{}).(*bool); ok {
				*passed = true
			}
			h.ServeHTTP(w, r)
		}))
		if err != nil {
			return nil, err
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rw := &refusal{ResponseWriter: w}
			guarded.ServeHTTP(rw, r.WithContext(context.WithValue(r.Context(), passedKey{}, &rw.passed)))
			rw.flush()
		}), nil
	}, nil
}

// passedKey holds, in a request's context, whether the filter let the request through.
type passedKey struct{}

// authenticationFailed is the body controller-runtime's filter answers a failed authentication
// with (http.Error adds the newline).
const authenticationFailed = "Authentication failed\n"

// refusal holds back a 500 the filter answers before letting the request through, until its body
// tells a failed authentication (answered 401) from other errors (passed on as they are).
type refusal struct {
	http.ResponseWriter
	passed bool
	held   bool
	body   bytes.Buffer
}

func (w *refusal) WriteHeader(code int) {
	if code == http.StatusInternalServerError && !w.passed {
		w.held = true
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *refusal) Write(p []byte) (int, error) {
	if w.held {
		return w.body.Write(p)
	}
	return w.ResponseWriter.Write(p)
}

// flush answers a held 500: 401 for a failed authentication, else the 500 as it was.
func (w *refusal) flush() {
	if !w.held {
		return
	}
	if w.body.String() == authenticationFailed {
		http.Error(w.ResponseWriter, "Unauthorized", http.StatusUnauthorized)
		return
	}
	w.ResponseWriter.WriteHeader(http.StatusInternalServerError)
	_, _ = w.ResponseWriter.Write(w.body.Bytes())
}
