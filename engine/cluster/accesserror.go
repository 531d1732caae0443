package cluster

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"k8s.io/client-go/tools/clientcmd"
)

// AccessError says that a cluster cannot be reached because of this machine's configuration,
// found before any request: the kubeconfig does not exist, cannot be read or lacks the context,
// or there is no Pod service account for in_cluster. The planner reports it once, at the cluster
// block.
type AccessError struct {
	// Kubeconfig is the file or files the kubeconfig was looked for in; empty for in_cluster.
	Kubeconfig string
	// Source says where that came from: the cluster block, KUBECONFIG, or the default
	// ~/.kube/config.
	Source string
	// Context is the context looked for; empty means the kubeconfig's current context.
	Context string
	// Problem says what is wrong, such as "the file does not exist" or "it has no such context".
	Problem string
	// Err is client-go's error.
	Err error
}

func (e *AccessError) Error() string {
	if e.Kubeconfig == "" {
		return "in-cluster configuration: " + e.Problem
	}
	ctx := "the current context"
	if e.Context != "" {
		ctx = fmt.Sprintf("context %q", e.Context)
	}
	return fmt.Sprintf("%s of kubeconfig %s (%s): %s", ctx, e.Kubeconfig, e.Source, e.Problem)
}

func (e *AccessError) Unwrap() error { return e.Err }

// accessError explains why client-go could not build the configuration of access from the
// loading rules: which files it looked in and what it did not find there.
func accessError(access Access, rules *clientcmd.ClientConfigLoadingRules, err error) *AccessError {
	out := &AccessError{Context: access.Context, Err: err, Problem: err.Error()}
	files := rules.Precedence
	switch {
	case rules.ExplicitPath != "":
		files = []string{rules.ExplicitPath}
		out.Source = "the cluster block's kubeconfig"
	case os.Getenv(clientcmd.RecommendedConfigPathEnvVar) != "":
		out.Source = "KUBECONFIG"
	default:
		out.Source = "~/.kube/config: KUBECONFIG is not set"
	}
	out.Kubeconfig = strings.Join(files, string(os.PathListSeparator))
	exists := false
	for _, f := range files {
		if _, statErr := os.Stat(f); statErr == nil {
			exists = true
		}
	}
	if !exists {
		out.Problem = "the file does not exist"
		if len(files) > 1 {
			out.Problem = "none of the files exists"
		}
		return out
	}
	cfg, loadErr := rules.Load()
	switch {
	case loadErr != nil:
		out.Problem = "it cannot be read: " + loadErr.Error()
	case access.Context != "" && cfg.Contexts[access.Context] == nil:
		out.Problem = "it has no such context"
	case access.Context == "" && cfg.CurrentContext == "":
		out.Problem = "it names no current context"
	case errors.Is(err, clientcmd.ErrEmptyConfig):
		out.Problem = "it holds no cluster"
	}
	return out
}
