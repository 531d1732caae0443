// Command localcluster runs the local control plane as a background process for people and
// scripts: `make local-up` and `make local-down` call it.
//
//	localcluster up   [--dir .local] [--seeds N] [--gardener-controllers=false]   start in the background, print the KUBECONFIG export
//	localcluster down [--dir .local]                                              stop it and wait until every process is gone
//	localcluster run  [--dir .local] [--seeds N] [--gardener-controllers=false]   run in the foreground until SIGINT/SIGTERM
//
// gardener-controller-manager and gardener-scheduler run on the virtual garden
// (localcluster.PlaneOptions.GardenerControllers) as landscapes/local's garden configures them,
// with Gardener's defaults otherwise: the engine leaves their work to them (project namespaces,
// ControllerInstallations, hibernation, maintenance). --gardener-controllers=false leaves them out,
// for a look at the Gardener API alone.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/declarative-gardener/gardener/tests/localcluster"
)

const usage = `usage: localcluster up|down|run [--dir DIR] [--seeds N] [--gardener-controllers=false]`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	dir, topology := parseFlags(os.Args[1], os.Args[2:], flag.ExitOnError)
	absDir, err := filepath.Abs(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "localcluster:", err)
		os.Exit(1)
	}
	files := stateFiles{dir: absDir}
	switch os.Args[1] {
	case "up":
		err = up(files, topology)
	case "down":
		err = down(files)
	case "run":
		err = run(files, topology)
	default:
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "localcluster:", err)
		os.Exit(1)
	}
}

// parseFlags reads the flags of a command: the directory and the topology to start.
func parseFlags(command string, args []string, handling flag.ErrorHandling) (string, topology) {
	fs := flag.NewFlagSet(command, handling)
	dir := fs.String("dir", ".local", "directory for the kubeconfig, data, logs and the pid file")
	seeds := fs.Int("seeds", 0, "number of seed control planes besides runtime and virtual-garden")
	controllers := fs.Bool("gardener-controllers", true, "run gardener-controller-manager and gardener-scheduler on the virtual garden (=false leaves them out)")
	_ = fs.Parse(args)
	return *dir, topology{seeds: *seeds, gardenerControllers: *controllers}
}

// stateFiles are the files through which up, run and down coordinate.
type stateFiles struct{ dir string }

func (f stateFiles) pid() string        { return filepath.Join(f.dir, "localcluster.pid") }
func (f stateFiles) ready() string      { return filepath.Join(f.dir, "localcluster.ready") }
func (f stateFiles) log() string        { return filepath.Join(f.dir, "localcluster.log") }
func (f stateFiles) kubeconfig() string { return filepath.Join(f.dir, "kubeconfig") }

// runningPID returns the pid of a live localcluster recorded in the pid file, or 0.
func (f stateFiles) runningPID() int {
	data, err := os.ReadFile(f.pid())
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return 0
	}
	if !localcluster.ProcessAlive(pid) {
		return 0
	}
	// The pid may have been reused by an unrelated process after a crash.
	cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil || !strings.Contains(string(cmdline), "localcluster") {
		return 0
	}
	return pid
}

// topology is what up passes on to run: the planes to start.
type topology struct {
	seeds               int
	gardenerControllers bool
}

// args are run's flags for the topology.
func (t topology) args() []string {
	return []string{"--seeds", strconv.Itoa(t.seeds), "--gardener-controllers=" + strconv.FormatBool(t.gardenerControllers)}
}

// planes are the planes of the topology: localcluster.Topology, whose Gardener controllers on the
// virtual garden run as landscapes/local configures them (or not at all) instead of with the tests'
// settings for the loops that act at the wall-clock time
// (localcluster.TopologyControllerManagerOverlay): someone trying the engine out sees what a real
// garden does, such as a seed turning Unknown when nothing renews its heartbeat.
func (t topology) planes() []localcluster.PlaneOptions {
	planes := localcluster.Topology(t.seeds)
	for i := range planes {
		if planes[i].GardenerControllers == nil {
			continue
		}
		planes[i].GardenerControllers = nil
		if t.gardenerControllers {
			planes[i].GardenerControllers = &localcluster.GardenerControllers{ControllerManagerOverlay: localcluster.LocalLandscapeControllerManagerOverlay}
		}
	}
	return planes
}

// up starts `localcluster run` detached in its own session and waits until it reports ready.
func up(f stateFiles, t topology) error {
	if pid := f.runningPID(); pid != 0 {
		fmt.Printf("local control plane already running (pid %d)\nexport KUBECONFIG=%s\n", pid, f.kubeconfig())
		return nil
	}
	if err := os.MkdirAll(f.dir, 0o700); err != nil {
		return err
	}
	_ = os.Remove(f.ready())
	self, err := os.Executable()
	if err != nil {
		return err
	}
	logFile, err := os.OpenFile(f.log(), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	defer logFile.Close()
	cmd := exec.Command(self, append([]string{"run", "--dir", f.dir}, t.args()...)...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	fmt.Printf("starting the local control plane (pid %d, log %s) ...\n", cmd.Process.Pid, f.log())
	deadline := time.After(5 * time.Minute)
	for {
		select {
		case err := <-exited:
			return fmt.Errorf("local control plane exited during start-up (%v); see %s", err, f.log())
		case <-deadline:
			_ = cmd.Process.Signal(syscall.SIGTERM)
			return fmt.Errorf("local control plane not ready after 5 minutes; see %s", f.log())
		case <-time.After(200 * time.Millisecond):
		}
		if _, err := os.Stat(f.ready()); err == nil {
			fmt.Printf("local control plane ready: contexts %s\nexport KUBECONFIG=%s\n", readyContexts(f), f.kubeconfig())
			return nil
		}
	}
}

func readyContexts(f stateFiles) string {
	data, err := os.ReadFile(f.ready())
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(data))
}

// run starts the cluster in the foreground and keeps it up until SIGINT or SIGTERM.
func run(f stateFiles, t topology) error {
	if pid := f.runningPID(); pid != 0 && pid != os.Getpid() {
		return fmt.Errorf("already running as pid %d", pid)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := os.MkdirAll(f.dir, 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(f.pid(), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		return err
	}
	defer os.Remove(f.pid())
	defer os.Remove(f.ready())
	cluster, err := localcluster.Launch(ctx, localcluster.Options{
		Planes:     t.planes(),
		Dir:        f.dir,
		Log:        os.Stdout,
		OwnSignals: true,
	})
	if err != nil {
		return err
	}
	var names []string
	for _, p := range cluster.Planes() {
		names = append(names, p.Name())
	}
	if err := os.WriteFile(f.ready(), []byte(strings.Join(names, ",")+"\n"), 0o600); err != nil {
		return errors.Join(err, cluster.Stop())
	}
	<-ctx.Done()
	fmt.Println("stopping the local control plane")
	return cluster.Stop()
}

// down stops a running cluster and waits until its process (and with it every child) is gone.
func down(f stateFiles) error {
	pid := f.runningPID()
	if pid == 0 {
		fmt.Println("local control plane is not running")
		return nil
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return fmt.Errorf("stop pid %d: %w", pid, err)
	}
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if !localcluster.ProcessAlive(pid) {
			fmt.Println("local control plane stopped")
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	// Its children carry a parent-death signal, so killing it takes them down too.
	_ = syscall.Kill(pid, syscall.SIGKILL)
	return fmt.Errorf("local control plane (pid %d) did not stop within 90s and was killed", pid)
}
