package localcluster

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
)

// StopAPIServer ends the plane's kube-apiserver (SIGTERM, SIGKILL after a grace period) and waits
// until it has exited, leaving etcd and the controllers running. Tests use it to show that clients
// ride out an API server outage; StartAPIServer brings it back with all data intact. Stopping an
// API server that is already stopped is a no-op.
func (p *Plane) StopAPIServer() error {
	p.apiServerMu.Lock()
	defer p.apiServerMu.Unlock()
	proc, _, err := p.apiServerProcess()
	if err != nil {
		return err
	}
	if err := proc.stop(stopGrace); err != nil {
		return fmt.Errorf("plane %s: stop kube-apiserver: %w", p.opts.Name, err)
	}
	return nil
}

// StartAPIServer starts the plane's kube-apiserver again after StopAPIServer, with the same flags,
// port, certificates and etcd, so every client configuration and kubeconfig stays valid, and
// returns once /readyz answers ok. kube-controller-manager, kube-scheduler and kwok reconnect on
// their own. On a running API server it only waits for readiness.
func (p *Plane) StartAPIServer(ctx context.Context) error {
	p.apiServerMu.Lock()
	defer p.apiServerMu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	proc, i, err := p.apiServerProcess()
	if err != nil {
		return err
	}
	if proc.exited() {
		next, err := startProcess(proc.name, filepath.Join(p.binDir, binKubeAPIServer), p.apiServerArgs(), proc.logPath)
		if err != nil {
			return fmt.Errorf("plane %s: %w", p.opts.Name, err)
		}
		p.mu.Lock()
		if p.stopped {
			p.mu.Unlock()
			return errors.Join(p.errStopped(binKubeAPIServer), next.stop(stopGrace))
		}
		// Same slot: stop ends the API server before etcd by the order of procs.
		p.procs[i] = next
		p.mu.Unlock()
		proc = next
	}
	if err := waitHTTP(ctx, proc, p.Server()+"/readyz", p.creds.caCertPEM, p.creds.adminToken); err != nil {
		return fmt.Errorf("plane %s kube-apiserver: %w", p.opts.Name, err)
	}
	return nil
}

// apiServerProcess returns the plane's kube-apiserver process and its index in procs.
func (p *Plane) apiServerProcess() (*process, int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return nil, 0, fmt.Errorf("plane %s: the plane has been stopped", p.opts.Name)
	}
	name := p.opts.Name + "/" + binKubeAPIServer
	for i, proc := range p.procs {
		if proc.name == name {
			return proc, i, nil
		}
	}
	return nil, 0, fmt.Errorf("plane %s: kube-apiserver was never started", p.opts.Name)
}
