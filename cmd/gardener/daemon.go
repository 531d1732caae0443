package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/declarative-gardener/gardener/engine/apply"
	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/daemon"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// DefaultDaemonNamespace is where the daemon keeps its status, approvals and Lease unless told
// otherwise: a namespace of its own, as the landscape_daemon component's default, so that its
// rights (and those of approvers) are rights in that namespace only, not in garden.
const DefaultDaemonNamespace = "gardener-daemon"

// selfFlags say how the daemon, status and approve reach the cluster the daemon runs in (its
// leader election Lease and status ConfigMap live there), by the rules every Kubernetes client
// follows: --kubeconfig; else in a pod the pod's service account; else KUBECONFIG or
// ~/.kube/config; --context picks a context of the kubeconfig.
type selfFlags struct {
	kubeconfig, context string
	namespace, name     string
}

func (f *selfFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig of the cluster the daemon runs in (default: in a pod its service account, else KUBECONFIG or ~/.kube/config)")
	fl.StringVar(&f.context, "context", "", "context of the kubeconfig (default: its current context)")
	fl.StringVar(&f.namespace, "status-namespace", DefaultDaemonNamespace, "namespace of the daemon's status ConfigMap, its approval ConfigMap and its leader election Lease")
	fl.StringVar(&f.name, "status-name", "gardener-daemon-status", "name of the daemon's status ConfigMap; approvals are the ConfigMap <status-name>-approval")
}

// restConfig loads the client configuration. In a pod (rest.InClusterConfig succeeds) without
// KUBECONFIG, --kubeconfig or --context the service account is used, as controller-runtime's
// GetConfig does; otherwise client-go's loading rules, as kubectl's.
func (f *selfFlags) restConfig() (*rest.Config, error) {
	if f.kubeconfig == "" && f.context == "" && os.Getenv(clientcmd.RecommendedConfigPathEnvVar) == "" {
		if cfg, err := rest.InClusterConfig(); err == nil {
			return cfg, nil
		}
	}
	cfg, err := cluster.LoadRESTConfig(cluster.Access{Kubeconfig: f.kubeconfig, Context: f.context})
	var accessErr *cluster.AccessError
	if errors.As(err, &accessErr) && f.kubeconfig != "" {
		accessErr.Source = "--kubeconfig" // not a cluster block's
	}
	return cfg, err
}

func (f *selfFlags) statusStore() (daemon.StatusStore, *rest.Config, error) {
	cfg, err := f.restConfig()
	if err != nil {
		return daemon.StatusStore{}, nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return daemon.StatusStore{}, nil, err
	}
	return daemon.StatusStore{Client: cs, Namespace: f.namespace, Name: f.name}, cfg, nil
}

type daemonFlags struct {
	self          selfFlags
	inputs        inputFlags
	landscape     string
	policy        string
	resync, poll  time.Duration
	timeout       time.Duration
	parallelism   int
	components    int
	leaderElect   bool
	leaderID      string
	metricsAddr   string
	metricsCerts  string
	probeAddr     string
	shutdownGrace time.Duration
	watch         bool
	force         bool
	shardBySeed   bool
}

func newDaemonCommand(reg *schema.Registry) *cobra.Command {
	var f daemonFlags
	cmd := &cobra.Command{
		Use:   "daemon --landscape DIR",
		Short: "Plan and apply a landscape continuously, as a controller in the garden cluster",
		Long: `daemon plans the landscape whenever its directory changes and every --resync, applies what
--policy allows (auto, approve-destructive or plan-only), takes the same state lock as gardener
apply, and publishes each cycle on a status ConfigMap (see gardener status), as Events and as
Prometheus metrics. With several replicas only the leader acts.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// SIGTERM (a Pod being stopped) ends the daemon gracefully: the cycle in progress
			// finishes its writes and the leader releases its Lease.
			ctx, stop := interruptible(cmd.Context())
			defer stop()
			return runDaemon(ctx, cmd, reg, f)
		},
	}
	f.self.register(cmd)
	f.inputs.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.landscape, "landscape", "", "the landscape directory (a mounted ConfigMap or a git-sync checkout; atomic symlink swaps are fine)")
	fl.StringVar(&f.policy, "policy", string(daemon.PolicyApproveDestructive), "auto (apply every plan), approve-destructive (plans that delete or replace wait for gardener approve; deleting superseded earlier versions does not count) or plan-only")
	fl.DurationVar(&f.resync, "resync", 10*time.Minute, "plan the landscape at least this often")
	fl.DurationVar(&f.poll, "poll", 2*time.Second, "how often the landscape directory and approvals are checked")
	fl.DurationVar(&f.timeout, "timeout", 5*time.Minute, "how long each component may take to become ready")
	fl.IntVar(&f.parallelism, "parallelism", 10, "concurrent API requests per cluster (watches aside)")
	fl.IntVar(&f.components, "component-parallelism", apply.DefaultComponentParallelism, "components in progress at the same time (most wait for readiness, which takes no request)")
	fl.BoolVar(&f.leaderElect, "leader-elect", true, "elect a leader among replicas with a Lease in --status-namespace")
	fl.StringVar(&f.leaderID, "leader-election-id", "gardener-daemon", "name of the leader election Lease")
	fl.StringVar(&f.metricsAddr, "metrics-bind-address", ":8443", "address of the Prometheus metrics endpoint, served over HTTPS to clients the API server authenticates and authorizes for GET /metrics (0 turns it off)")
	fl.StringVar(&f.metricsCerts, "metrics-cert-dir", "", "directory with tls.crt and tls.key for the metrics endpoint (default: a self-signed certificate)")
	fl.StringVar(&f.probeAddr, "health-probe-bind-address", ":8081", "address of /healthz and /readyz")
	fl.DurationVar(&f.shutdownGrace, "shutdown-grace", 5*time.Minute, "how long a cycle in progress may take to finish its writes on shutdown")
	fl.BoolVar(&f.watch, "watch", true, "watch the objects the landscape owns and repair drift as soon as someone else changes or deletes one")
	fl.BoolVar(&f.force, "force-conflicts", false, "also take back fields the landscape sets that a controller changed (an autoscaler, another operator); without it people's changes (kubectl edit) are taken back and controllers' fields stay conflicts, reported in the status, for a person to resolve")
	fl.BoolVar(&f.shardBySeed, "shard-by-seed", false, "split the landscape into a shard per seed (the seed, its shoots and their parts) and the garden shard, each with its own leader among the replicas (a Lease per shard in --status-namespace), its own state and state lock, and its own status ConfigMap (docs/daemon.md, Sharding)")
	_ = cmd.MarkFlagRequired("landscape")
	return cmd
}

func runDaemon(ctx context.Context, cmd *cobra.Command, reg *schema.Registry, f daemonFlags) error {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(100) // Go's default, not the one-shot commands' (commandGCPercent)
	}
	stderr := cmd.ErrOrStderr()
	fail := func(format string, args ...any) error {
		printf(stderr, "Error: "+format+"\n", args...)
		return exitCode(1)
	}
	policy, err := daemon.ParsePolicy(f.policy)
	if err != nil {
		return fail("%v", err)
	}
	if info, err := os.Stat(f.landscape); err != nil || !info.IsDir() {
		return fail("--landscape %s is not a directory", f.landscape)
	}
	status, cfg, err := f.self.statusStore()
	if err != nil {
		return fail("%v", err)
	}
	log := logr.FromSlogHandler(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: logLevel})).WithName("gardener-daemon")
	ctrl.SetLogger(log)
	klog.SetLogger(log) // client-go's messages as JSON lines too, at --log-level (routeKlog set klog's verbosity)
	mgr, err := ctrl.NewManager(cfg, manager.Options{
		Logger: log,
		// A sharded daemon elects a leader per shard instead (daemon.Sharder).
		LeaderElection:          f.leaderElect && !f.shardBySeed,
		LeaderElectionID:        f.leaderID,
		LeaderElectionNamespace: f.self.namespace,
		// A leader that stops hands over at once instead of after the lease expires.
		LeaderElectionReleaseOnCancel: true,
		// /metrics answers only clients the API server authenticates (TokenReview) and
		// authorizes for GET /metrics (SubjectAccessReview): the metrics name components,
		// clusters and errors.
		Metrics: metricsserver.Options{
			BindAddress: f.metricsAddr, SecureServing: true, CertDir: f.metricsCerts,
			FilterProvider: daemon.AuthenticatedMetrics,
		},
		HealthProbeBindAddress:  f.probeAddr,
		GracefulShutdownTimeout: &f.shutdownGrace,
	})
	if err != nil {
		return fail("controller manager: %v", err)
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return fail("%v", err)
	}
	if err := mgr.AddReadyzCheck("ping", healthz.Ping); err != nil {
		return fail("%v", err)
	}
	host, _ := os.Hostname()
	m := daemon.NewMetrics(metrics.Registry)
	clusterOpts := clusterOptions(f.parallelism)
	clusterOpts.WrapTransport = m.CountRequests
	o := daemon.Options{
		Dir: f.landscape, Policy: policy, Resync: f.resync, Poll: f.poll,
		Holder: fmt.Sprintf("gardener-daemon %s pid %d", host, os.Getpid()),
		Planner: func(dir string) planner.Options {
			return planner.Options{
				Dir: dir, Schemas: reg, Renderers: catalogRenderers(), Inputs: f.inputs.sources(), Parallelism: f.parallelism,
				Connect: planner.LiveConnector(clusterOpts), Differs: planner.LocalDiffers(""),
			}
		},
		Cluster: clusterOpts,
		Apply:   apply.Options{Parallelism: f.components, Timeout: f.timeout, ForceConflicts: f.force},
		Status:  status,
		Events:  mgr.GetEventRecorder("gardener-daemon"),
		Metrics: m,
		Log:     log, WatchDrift: f.watch,
	}
	var runnable manager.Runnable = daemon.New(o)
	if f.shardBySeed {
		runnable = daemon.NewSharder(daemon.ShardOptions{
			Daemon: o, Client: status.Client, Namespace: f.self.namespace, LeaseName: f.leaderID,
			Identity: fmt.Sprintf("%s_%d_%s", host, os.Getpid(), rand.Text()[:8]),
		})
	}
	if err := mgr.Add(runnable); err != nil {
		return fail("%v", err)
	}
	if err := mgr.Start(ctx); err != nil {
		return fail("%v", err)
	}
	return nil
}

func newStatusCommand() *cobra.Command {
	var f selfFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show what the daemon did last",
		Long: `Print the daemon's status ConfigMap: the phase and message of its last cycle, the last plan's
summary and hash, the last apply's result per component, drift and errors; with --json as a
document for scripts (docs/cli.md), the last plan's JSON included.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			store, _, err := f.statusStore()
			if err != nil {
				printf(cmd.ErrOrStderr(), "Error: %v\n", err)
				return exitCode(1)
			}
			data, _, err := store.Read(cmd.Context())
			if err != nil {
				printf(cmd.ErrOrStderr(), "Error: %v\n", err)
				return exitCode(1)
			}
			// Who may read the status need not read approvals: the approval is left out then.
			approval, _ := store.Approval(cmd.Context())
			if asJSON {
				return writeStatusJSON(cmd.OutOrStdout(), data, approval.Hash)
			}
			printStatus(cmd, data, approval.Hash)
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the status as JSON")
	return cmd
}

// statusOrder lists the status fields in the order status prints them; the plan JSON is left
// out (read the ConfigMap for it).
var statusOrder = []string{"landscape", "policy", "phase", "message", "scope", "last-plan-time", "last-plan-summary", "last-plan-hash",
	"last-apply-time", "last-successful-apply", "last-apply-result", "next-scheduled-change", "conditions", "drifted-objects", "components", "errors", "warnings"}

// printStatus prints the status ConfigMap's data and the plan hash the approval ConfigMap names.
func printStatus(cmd *cobra.Command, data map[string]string, approved string) {
	out := cmd.OutOrStdout()
	for _, k := range statusOrder {
		v, ok := data[k]
		if !ok {
			continue
		}
		if !strings.Contains(v, "\n") {
			printf(out, "%s: %s\n", k, v)
			continue
		}
		printf(out, "%s:\n", k)
		for _, line := range strings.Split(strings.TrimRight(v, "\n"), "\n") {
			printf(out, "  %s\n", line)
		}
	}
	if approved != "" {
		printf(out, "approved: %s\n", approved)
	}
}

func newApproveCommand() *cobra.Command {
	var f selfFlags
	cmd := &cobra.Command{
		Use:   "approve PLAN_HASH",
		Short: "Approve the daemon's pending destructive plan",
		Long: `approve lets a daemon with --policy approve-destructive apply the plan it waits with: the
hash gardener status shows. A plan that changed since is not approved by it. The approval is the
ConfigMap <status-name>-approval in --status-namespace, written with your credentials: RBAC grants
writing it to approvers, and never to the daemon.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, _, err := f.statusStore()
			if err == nil {
				err = store.Approve(cmd.Context(), args[0])
			}
			if err != nil {
				printf(cmd.ErrOrStderr(), "Error: %v\n", err)
				return exitCode(1)
			}
			printf(cmd.OutOrStdout(), "Approved plan %s.\n", args[0])
			return nil
		},
	}
	f.register(cmd)
	return cmd
}
