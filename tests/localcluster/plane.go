package localcluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// PlaneOptions describes one control plane of a local cluster.
type PlaneOptions struct {
	// Name is the plane's kubeconfig context, e.g. "runtime" or "virtual-garden".
	Name string
	// Workloads adds kube-controller-manager, kube-scheduler and kwok with simulated nodes, so
	// Deployments roll out and Gardener custom resources report ready. Without it the plane is an
	// API server only, like Gardener's virtual garden.
	Workloads bool
	// GardenerAPI serves the Gardener API: the real gardener-apiserver, registered with the
	// aggregation layer for the group versions it serves (GardenerAPIGroupVersions), and
	// gardener-operator's kinds (operator.gardener.cloud), which are CRDs in Gardener too.
	GardenerAPI bool
	// GardenerControllers runs the real gardener-controller-manager and gardener-scheduler on a
	// GardenerAPI plane, configured with the helper's configuration and the overlays it holds; nil
	// runs neither. Topology runs them (TopologyControllers): the engine leaves their work to them
	// (project namespaces, RBAC and quotas, ControllerInstallations, the seed-<name> namespaces,
	// hibernation, maintenance), and nothing else on the plane does it. Without them a Project
	// never becomes Ready and a Seed gets no ControllerInstallations.
	GardenerControllers *GardenerControllers
	// Nodes is the number of kwok nodes of a Workloads plane; 0 means 1.
	Nodes int
}

// Timeouts of the start-up phases. Generous because two cores may be busy with other test packages.
const (
	startTimeout = 3 * time.Minute
	stopGrace    = 15 * time.Second
)

// kwokNodeAnnotation marks the nodes kwok simulates; kwok manages only nodes carrying it.
const kwokNodeAnnotation = "kwok.x-k8s.io/node"

// Plane is one running control plane: etcd and kube-apiserver, plus kube-controller-manager,
// kube-scheduler and kwok when it runs workloads, or a virtual garden's kube-controller-manager
// and Gardener's control plane when it serves the Gardener API.
type Plane struct {
	opts   PlaneOptions
	binDir string
	dir    string
	creds  *credentials
	files  pkiFiles

	etcdClientPort int
	etcdPeerPort   int
	apiServerPort  int
	// gardenerAPIServerPort is gardener-apiserver's port on a GardenerAPI plane, and the
	// admission ports gardener-admission-controller's webhook, health and metrics servers'.
	gardenerAPIServerPort                                           int
	admissionWebhookPort, admissionHealthPort, admissionMetricsPort int
	// controllerPorts are gardener-controller-manager's and gardener-scheduler's servers' on a
	// plane with GardenerControllers.
	controllerPorts gardenerControllerPorts
	kubeconfigPath  string

	mu    sync.Mutex
	procs []*process
	// stopped is set, under mu, by stop when it takes its list of processes to end: a process
	// started afterwards (by a start or an API server restart racing a signal) would be missed,
	// so whoever starts one checks it and ends the newcomer itself.
	stopped bool
	// apiServerMu serialises StopAPIServer and StartAPIServer, so that concurrent callers never
	// run two API servers on one port; controllersMu does the same for StopGardenerControllers and
	// StartGardenerControllers.
	apiServerMu, controllersMu sync.Mutex
	// crKwok runs the Gardener custom resource stages; it is restarted whenever the set of
	// established CRDs those stages need changes, because kwok only watches kinds that exist when
	// it starts. It and the watcher's handles are guarded by mu: a signal may stop a plane that
	// is still starting.
	crKwok      *process
	stopWatcher context.CancelFunc
	watcherDone chan struct{}
}

// Name is the plane's kubeconfig context name.
func (p *Plane) Name() string { return p.opts.Name }

// Server is the URL of the plane's kube-apiserver.
func (p *Plane) Server() string { return "https://127.0.0.1:" + strconv.Itoa(p.apiServerPort) }

// RESTConfig returns an admin client configuration, with client-side rate limits sized for tests
// that create many objects.
func (p *Plane) RESTConfig() *rest.Config {
	return &rest.Config{
		Host:            p.Server(),
		BearerToken:     p.creds.adminToken,
		TLSClientConfig: rest.TLSClientConfig{CAData: p.creds.caCertPEM},
		QPS:             200,
		Burst:           400,
	}
}

// Clientset returns a typed admin client.
func (p *Plane) Clientset() (*kubernetes.Clientset, error) {
	return kubernetes.NewForConfig(p.RESTConfig())
}

// PIDs lists the process ids of every binary the plane currently runs.
func (p *Plane) PIDs() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	var pids []int
	for _, proc := range p.allProcesses() {
		if !proc.exited() {
			pids = append(pids, proc.pid())
		}
	}
	return pids
}

func (p *Plane) allProcesses() []*process {
	procs := append([]*process(nil), p.procs...)
	if p.crKwok != nil {
		procs = append(procs, p.crKwok)
	}
	return procs
}

func newPlane(opts PlaneOptions, binDir, dir string) *Plane {
	if opts.Nodes <= 0 {
		opts.Nodes = 1
	}
	return &Plane{opts: opts, binDir: binDir, dir: dir}
}

// start brings the plane up and returns once its API server is ready, its CRDs are established and
// its nodes are Ready. On error the caller stops the plane.
func (p *Plane) start(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()

	creds, err := newCredentials(time.Now())
	if err != nil {
		return fmt.Errorf("plane %s credentials: %w", p.opts.Name, err)
	}
	p.creds = creds
	if p.files, err = creds.write(filepath.Join(p.dir, "pki")); err != nil {
		return fmt.Errorf("plane %s: %w", p.opts.Name, err)
	}
	// A port chosen free can be taken by another process (planes of parallel test packages start
	// at the same time) before etcd or the API server binds it: then choose again.
	for attempt := 1; ; attempt++ {
		err := p.startCore(ctx)
		if err == nil {
			break
		}
		if attempt == portAttempts || !strings.Contains(err.Error(), "address already in use") {
			return err
		}
		if serr := p.stopCore(); serr != nil {
			return errors.Join(err, serr)
		}
	}

	if p.opts.GardenerAPI {
		if err := p.registerGardenerAPI(ctx); err != nil {
			return fmt.Errorf("plane %s gardener API: %w", p.opts.Name, err)
		}
		if err := p.startGardenerAdmissionController(ctx); err != nil {
			return err
		}
		if err := ApplyCRDs(ctx, p.RESTConfig(), GardenerAPICRDs()); err != nil {
			return fmt.Errorf("plane %s gardener API: %w", p.opts.Name, err)
		}
		if !p.opts.Workloads {
			if _, err := p.run(binKubeControllerManager, p.virtualGardenControllerManagerArgs()); err != nil {
				return err
			}
		}
		if p.opts.GardenerControllers != nil {
			if err := p.startGardenerControllers(ctx); err != nil {
				return err
			}
		}
		if !p.opts.Workloads {
			// No gardener-controller-manager runs here unless asked for: kwok Stages play it
			// for a Project's phase. gardenlet's reports (a Seed's, a Shoot's, a
			// ControllerInstallation's status) are the engine's (engine/report).
			if err := p.startCRStageWatcher(ctx); err != nil {
				return fmt.Errorf("plane %s kwok stages: %w", p.opts.Name, err)
			}
		}
	}
	if p.opts.Workloads {
		if err := p.startWorkloadComponents(ctx); err != nil {
			return err
		}
	}
	return nil
}

// choosePorts picks the ports of a plane; tests replace it to lose a port on purpose.
var choosePorts = freePorts

// portAttempts bounds how often a plane chooses ports again after losing one to another process.
const portAttempts = 3

// startCore chooses ports, then starts etcd and the API server (and gardener-apiserver on a
// GardenerAPI plane) and waits until they serve.
func (p *Plane) startCore(ctx context.Context) error {
	ports, err := choosePorts(7)
	if err != nil {
		return fmt.Errorf("plane %s: %w", p.opts.Name, err)
	}
	p.etcdClientPort, p.etcdPeerPort, p.apiServerPort, p.gardenerAPIServerPort = ports[0], ports[1], ports[2], ports[3]
	p.admissionWebhookPort, p.admissionHealthPort, p.admissionMetricsPort = ports[4], ports[5], ports[6]
	p.kubeconfigPath = filepath.Join(p.dir, "kubeconfig")
	if err := writeKubeconfig(p.kubeconfigPath, []*Plane{p}); err != nil {
		return fmt.Errorf("plane %s: %w", p.opts.Name, err)
	}
	etcd, err := p.run(binEtcd, p.etcdArgs())
	if err != nil {
		return err
	}
	if err := waitHTTP(ctx, etcd, "http://127.0.0.1:"+strconv.Itoa(p.etcdClientPort)+"/health", nil, ""); err != nil {
		return fmt.Errorf("plane %s etcd: %w", p.opts.Name, err)
	}
	apiServer, err := p.run(binKubeAPIServer, p.apiServerArgs())
	if err != nil {
		return err
	}
	if err := waitHTTP(ctx, apiServer, p.Server()+"/readyz", p.creds.caCertPEM, p.creds.adminToken); err != nil {
		return fmt.Errorf("plane %s kube-apiserver: %w", p.opts.Name, err)
	}
	if p.opts.GardenerAPI {
		return p.startGardenerAPIServer(ctx)
	}
	return nil
}

// stopCore stops what a failed startCore started and removes etcd's data, so that the next
// attempt starts from nothing.
func (p *Plane) stopCore() error {
	p.mu.Lock()
	procs := p.procs
	p.procs = nil
	p.mu.Unlock()
	var errs []error
	for i := len(procs) - 1; i >= 0; i-- {
		errs = append(errs, procs[i].stop(stopGrace))
	}
	errs = append(errs, os.RemoveAll(filepath.Join(p.dir, "etcd")))
	return errors.Join(errs...)
}

// run starts one binary of the plane and records it for stop.
func (p *Plane) run(binary string, args []string) (*process, error) {
	proc, err := startProcess(p.opts.Name+"/"+binary, filepath.Join(p.binDir, binary), args,
		filepath.Join(p.dir, binary+".log"))
	if err != nil {
		return nil, fmt.Errorf("plane %s: %w", p.opts.Name, err)
	}
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return nil, errors.Join(p.errStopped(binary), proc.stop(stopGrace))
	}
	p.procs = append(p.procs, proc)
	p.mu.Unlock()
	return proc, nil
}

// errStopped is the error of starting binary on a plane that has been stopped.
func (p *Plane) errStopped(binary string) error {
	return fmt.Errorf("plane %s: not starting %s: the plane has been stopped", p.opts.Name, binary)
}

func (p *Plane) etcdArgs() []string {
	client := "http://127.0.0.1:" + strconv.Itoa(p.etcdClientPort)
	peer := "http://127.0.0.1:" + strconv.Itoa(p.etcdPeerPort)
	return []string{
		"--name=" + p.opts.Name,
		"--data-dir=" + filepath.Join(p.dir, "etcd"),
		"--listen-client-urls=" + client,
		"--advertise-client-urls=" + client,
		"--listen-peer-urls=" + peer,
		"--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=" + p.opts.Name + "=" + peer,
		// The data is thrown away with the temporary directory; fsync would only cost time.
		"--unsafe-no-fsync=true",
		"--log-level=warn",
	}
}

func (p *Plane) apiServerArgs() []string {
	return []string{
		"--etcd-servers=http://127.0.0.1:" + strconv.Itoa(p.etcdClientPort),
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		// The endpoint reconciler refuses a loopback address; nothing in a local plane needs the
		// in-cluster `kubernetes` Service endpoints (pods on kwok nodes never run).
		"--endpoint-reconciler-type=none",
		"--secure-port=" + strconv.Itoa(p.apiServerPort),
		"--cert-dir=" + filepath.Join(p.dir, "pki"),
		"--tls-cert-file=" + p.files.servingCert,
		"--tls-private-key-file=" + p.files.servingKey,
		"--client-ca-file=" + p.files.caCert,
		"--token-auth-file=" + p.files.tokens,
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + p.files.saPublic,
		"--service-account-signing-key-file=" + p.files.saPrivate,
		"--service-cluster-ip-range=" + serviceClusterIPRange,
		// The aggregation layer (Kubernetes' "Configure the Aggregation Layer" task): the
		// request-header CA and names that aggregated servers such as gardener-apiserver trust,
		// and the client certificate kube-apiserver proxies their requests with.
		"--requestheader-client-ca-file=" + p.files.frontProxyCACert,
		"--requestheader-allowed-names=" + frontProxyClientName,
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--proxy-client-cert-file=" + p.files.frontProxyClientCert,
		"--proxy-client-key-file=" + p.files.frontProxyClientKey,
		"--allow-privileged=true",
		"--profiling=false",
		// Without it, a terminated API server stops listening at once but keeps the process (and
		// its clients' watches) alive for its 60 s request drain; StopAPIServer and Stop would
		// wait out their grace period and kill it.
		"--shutdown-watch-termination-grace-period=2s",
		"--v=0",
	}
}

// componentKubeconfigArgs are the flags kube-controller-manager and kube-scheduler share: the
// admin kubeconfig, no leader election (one replica) and no serving port to allocate.
func (p *Plane) componentKubeconfigArgs() []string {
	return []string{
		"--kubeconfig=" + p.kubeconfigPath,
		"--leader-elect=false",
		"--secure-port=0",
		"--v=0",
	}
}

// virtualGardenControllerManagerArgs are the flags of the kube-controller-manager of a Gardener
// API plane without workloads, as gardener-operator runs one for a virtual garden
// (pkg/operator/controller/garden/garden/components.go and
// pkg/component/kubernetes/controllermanager/controllermanager.go at Gardener v1.120.0): a
// workerless controller set (no node, volume or endpoint controllers, no legacy token Secrets)
// with its worker counts, so that namespaces are emptied and deleted, owner references are
// garbage collected and ResourceQuotas count what their namespaces hold, as gardener-apiserver
// and gardener-controller-manager expect of a virtual garden. Gardener also disables
// cloud-node-lifecycle, which the pinned kube-controller-manager no longer has and refuses to
// name.
func (p *Plane) virtualGardenControllerManagerArgs() []string {
	return append(p.componentKubeconfigArgs(),
		"--controllers=*,bootstrapsigner,tokencleaner,-attachdetach,-endpoint,-ephemeral-volume,"+
			"-nodeipam,-nodelifecycle,-persistentvolume-binder,-persistentvolume-expander,-pv-protection,-serviceaccount-token,-ttl",
		"--concurrent-gc-syncs=250",
		"--concurrent-namespace-syncs=100",
		"--concurrent-resource-quota-syncs=100",
		"--resource-quota-sync-period=1m0s",
		"--root-ca-file="+p.files.caCert,
		"--cluster-signing-cert-file="+p.files.caCert,
		"--cluster-signing-key-file="+p.files.caKey,
		"--use-service-account-credentials=false",
	)
}

func (p *Plane) startWorkloadComponents(ctx context.Context) error {
	// The serviceaccount-token controller creates legacy token Secrets; bound tokens replace them.
	if _, err := p.run(binKubeControllerManager, append(p.componentKubeconfigArgs(),
		"--controllers=*,-serviceaccount-token",
		"--service-account-private-key-file="+p.files.saPrivate,
		"--root-ca-file="+p.files.caCert,
		"--cluster-signing-cert-file="+p.files.caCert,
		"--cluster-signing-key-file="+p.files.caKey,
		"--use-service-account-credentials=false",
	)); err != nil {
		return err
	}
	if _, err := p.run(binKubeScheduler, p.componentKubeconfigArgs()); err != nil {
		return err
	}
	if _, err := p.run(binKwok, p.kwokArgs(filepath.Join(p.binDir, kwokStagesFile),
		"--manage-nodes-with-annotation-selector="+kwokNodeAnnotation+"=fake",
		// Node leases are the heartbeat kube-controller-manager watches. Without them kwok
		// only patches node status about once a minute, longer than the node monitor's grace
		// period: the node flaps NotReady and its pods lose their Ready condition for good.
		"--node-lease-duration-seconds=40")); err != nil {
		return err
	}
	if err := p.registerNodes(ctx); err != nil {
		return fmt.Errorf("plane %s nodes: %w", p.opts.Name, err)
	}
	if err := p.startCRStageWatcher(ctx); err != nil {
		return fmt.Errorf("plane %s kwok stages: %w", p.opts.Name, err)
	}
	// Pods of a namespace can only be created once its default ServiceAccount exists.
	return p.waitDefaultServiceAccount(ctx)
}

func (p *Plane) kwokArgs(stagesFile string, extra ...string) []string {
	return append([]string{
		"--kubeconfig=" + p.kubeconfigPath,
		"--config=" + stagesFile,
		"--cidr=" + podCIDR,
		"--node-ip=127.0.0.1",
	}, extra...)
}

// registerNodes creates the kwok nodes and waits until kwok reports them Ready.
func (p *Plane) registerNodes(ctx context.Context) error {
	cs, err := p.Clientset()
	if err != nil {
		return err
	}
	for i := range p.opts.Nodes {
		name := "kwok-" + p.opts.Name + "-" + strconv.Itoa(i)
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Annotations: map[string]string{kwokNodeAnnotation: "fake"},
			Labels: map[string]string{
				"kubernetes.io/hostname":      name,
				"kubernetes.io/os":            "linux",
				"kubernetes.io/arch":          "amd64",
				"type":                        "kwok",
				"topology.kubernetes.io/zone": "0",
			},
		}}
		if _, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("node %s: %w", name, err)
		}
	}
	return wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if err := p.checkAlive(); err != nil {
			return false, err
		}
		nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil //nolint:nilerr // transient while the plane settles; the context bounds the wait
		}
		ready := 0
		for _, n := range nodes.Items {
			for _, c := range n.Status.Conditions {
				if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
					ready++
				}
			}
		}
		return ready >= p.opts.Nodes, nil
	})
}

func (p *Plane) waitDefaultServiceAccount(ctx context.Context) error {
	cs, err := p.Clientset()
	if err != nil {
		return err
	}
	err = wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if err := p.checkAlive(); err != nil {
			return false, err
		}
		_, err := cs.CoreV1().ServiceAccounts(metav1.NamespaceDefault).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		return fmt.Errorf("plane %s default service account: %w", p.opts.Name, err)
	}
	return nil
}

// checkAlive fails when any binary of the plane has exited, naming it with its last log lines.
func (p *Plane) checkAlive() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, proc := range p.procs {
		if proc.exited() {
			return proc.failure()
		}
	}
	return nil
}

// stop ends every process of the plane: the stage watcher and kwok first, the API server before
// etcd. It returns the first error but always tries every process.
func (p *Plane) stop() error {
	p.mu.Lock()
	stopWatcher, watcherDone := p.stopWatcher, p.watcherDone
	p.mu.Unlock()
	if stopWatcher != nil {
		stopWatcher()
		<-watcherDone
	}
	p.mu.Lock()
	p.stopped = true
	procs := p.allProcesses()
	p.mu.Unlock()
	var errs []error
	// Controllers first (in parallel: they do not depend on each other), then API server, then etcd.
	var controllers, core []*process
	for _, proc := range procs {
		switch filepath.Base(proc.name) {
		case binEtcd, binKubeAPIServer:
			core = append(core, proc)
		default:
			controllers = append(controllers, proc)
		}
	}
	var wg sync.WaitGroup
	errCh := make(chan error, len(controllers))
	for _, proc := range controllers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errCh <- proc.stop(stopGrace)
		}()
	}
	wg.Wait()
	close(errCh)
	for err := range errCh {
		errs = append(errs, err)
	}
	for i := len(core) - 1; i >= 0; i-- {
		errs = append(errs, core[i].stop(stopGrace))
	}
	return errors.Join(errs...)
}

// waitHTTP polls url until it answers 200, failing early when proc exits.
func waitHTTP(ctx context.Context, proc *process, url string, caPEM []byte, token string) error {
	transport := &http.Transport{Proxy: nil}
	if caPEM != nil {
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(caPEM)
		transport.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	client := &http.Client{Transport: transport, Timeout: 5 * time.Second}
	defer transport.CloseIdleConnections()
	var last string
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if proc.exited() {
			return false, proc.failure()
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return false, err
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			last = err.Error()
			return false, nil
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		_ = resp.Body.Close()
		last = fmt.Sprintf("%d %s", resp.StatusCode, body)
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("%s not ready (last answer: %s): %w; last log lines:\n%s", url, last, err, tailFile(proc.logPath, 15))
	}
	return err
}

// writeKubeconfig writes one kubeconfig with a context, cluster and user per plane; the first
// plane is the current context.
func writeKubeconfig(path string, planes []*Plane) error {
	cfg := clientcmdapi.NewConfig()
	for i, p := range planes {
		name := p.opts.Name
		cfg.Clusters[name] = &clientcmdapi.Cluster{Server: p.Server(), CertificateAuthorityData: p.creds.caCertPEM}
		cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: p.creds.adminToken}
		cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
		if i == 0 {
			cfg.CurrentContext = name
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("kubeconfig directory: %w", err)
	}
	// Write then rename, so a reader (kubectl, a waiting script) never sees half a kubeconfig.
	tmp := path + ".tmp"
	if err := clientcmd.WriteToFile(*cfg, tmp); err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	return nil
}
