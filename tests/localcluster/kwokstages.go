package localcluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apiextensionsinformers "k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
)

// startCRStageWatcher runs, for the plane's lifetime, a loop that keeps a second kwok process
// running with exactly the Gardener custom resource stages whose CRDs are established. kwok starts a
// stage controller only for kinds its discovery knows at start-up, and landscapes install the CRDs
// (etcd-druid's Etcd, gardener-resource-manager's ManagedResource, ...) long after the plane is up.
func (p *Plane) startCRStageWatcher(ctx context.Context) error {
	stages, err := gardenerStages()
	if err != nil {
		return err
	}
	client, err := apiextensionsclient.NewForConfig(p.RESTConfig())
	if err != nil {
		return fmt.Errorf("apiextensions client: %w", err)
	}
	// The watcher outlives start-up, so it gets its own context, cancelled by stop.
	watchCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	factory := apiextensionsinformers.NewSharedInformerFactory(client, 0)
	informer := factory.Apiextensions().V1().CustomResourceDefinitions()
	changed := make(chan struct{}, 1)
	notify := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	if _, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { notify() },
		UpdateFunc: func(any, any) { notify() },
		DeleteFunc: func(any) { notify() },
	}); err != nil {
		cancel()
		return fmt.Errorf("crd informer: %w", err)
	}
	factory.Start(watchCtx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), informer.Informer().HasSynced) {
		cancel()
		factory.Shutdown()
		return fmt.Errorf("crd informer did not sync: %w", ctx.Err())
	}
	done := make(chan struct{})
	p.mu.Lock()
	p.stopWatcher, p.watcherDone = cancel, done
	p.mu.Unlock()
	var running []schema.GroupVersionKind
	generation := 0
	// sync runs the stage kwok for the kinds whose stages can run now, restarting it when that
	// set changed or it exited.
	sync := func() {
		crds, err := informer.Lister().List(labels.Everything())
		if err != nil {
			return
		}
		wanted := servedStageKinds(stages, crds, p.aggregatedGroupVersions())
		if slices.Equal(wanted, running) && !p.crKwokExited() {
			return
		}
		generation++
		proc, err := p.restartCRKwok(watchCtx, client, stages, wanted, generation)
		if err != nil {
			// Recorded in the plane directory; readiness waits on the affected kinds time out
			// and the test output points at the logs.
			_ = os.WriteFile(filepath.Join(p.dir, "kwok-stages.error"), []byte(err.Error()), 0o600)
			return
		}
		running = wanted
		if proc != nil {
			// kwok exits when it cannot start a stage controller; try again after a pause.
			go func() {
				select {
				case <-proc.done:
				case <-watchCtx.Done():
					return
				}
				select {
				case <-time.After(time.Second):
					notify()
				case <-watchCtx.Done():
				}
			}()
		}
	}
	// The stages of the kinds that exist at start-up (the built-in Service's at least) run
	// before the plane counts as up, so that its set of processes is complete by then.
	sync()
	go func() {
		defer close(done)
		defer factory.Shutdown()
		for {
			select {
			case <-watchCtx.Done():
				return
			case <-changed:
			}
			// Coalesce a burst of CRD events (a component installs several at once).
			select {
			case <-watchCtx.Done():
				return
			case <-time.After(200 * time.Millisecond):
			}
			sync()
		}
	}()
	return nil
}

// aggregatedGroupVersions are the group versions an aggregated server of the plane serves from
// start-up on: gardener-apiserver's on a GardenerAPI plane.
func (p *Plane) aggregatedGroupVersions() []schema.GroupVersion {
	if p.opts.GardenerAPI {
		return GardenerAPIGroupVersions
	}
	return nil
}

// servedStageKinds returns, sorted, the kinds with a stage that the plane serves: by a CRD that is
// Established, by an aggregated server of the plane (aggregated), or built in.
func servedStageKinds(stages []stage, crds []*apiextensionsv1.CustomResourceDefinition, aggregated []schema.GroupVersion) []schema.GroupVersionKind {
	served := map[schema.GroupVersionKind]bool{}
	for _, crd := range crds {
		if !crdEstablished(crd) {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if v.Served {
				served[schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}] = true
			}
		}
	}
	var kinds []schema.GroupVersionKind
	for _, s := range stages {
		// Built-in kinds (the core group's Service) are always served.
		builtIn := s.gvk.Group == ""
		if (served[s.gvk] || builtIn || slices.Contains(aggregated, s.gvk.GroupVersion())) && !slices.Contains(kinds, s.gvk) {
			kinds = append(kinds, s.gvk)
		}
	}
	slices.SortFunc(kinds, func(a, b schema.GroupVersionKind) int {
		switch {
		case a.String() < b.String():
			return -1
		case a.String() > b.String():
			return 1
		}
		return 0
	})
	return kinds
}

// crKwokExited reports whether the custom resource kwok was started and has exited since.
func (p *Plane) crKwokExited() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.crKwok != nil && p.crKwok.exited()
}

// restartCRKwok replaces the custom resource kwok with one running the stages of kinds, once the
// API server publishes their OpenAPI schemas (kwok needs them and gives up without).
func (p *Plane) restartCRKwok(ctx context.Context, client apiextensionsclient.Interface, stages []stage, kinds []schema.GroupVersionKind, generation int) (*process, error) {
	p.mu.Lock()
	old := p.crKwok
	p.crKwok = nil
	p.mu.Unlock()
	if old != nil {
		if err := old.stop(stopGrace); err != nil {
			return nil, err
		}
	}
	if len(kinds) == 0 {
		return nil, nil
	}
	waitOpenAPIPaths(ctx, client, kinds)
	var docs [][]byte
	for _, s := range stages {
		if slices.Contains(kinds, s.gvk) {
			docs = append(docs, s.yaml)
		}
	}
	file := filepath.Join(p.dir, "kwok-gardener-stages-"+strconv.Itoa(generation)+".yaml")
	if err := os.WriteFile(file, joinYAMLDocuments(docs), 0o600); err != nil {
		return nil, fmt.Errorf("kwok stages: %w", err)
	}
	// This kwok manages no nodes: the node and pod kwok does. A label selector nothing carries
	// keeps its node controller idle.
	proc, err := startProcess(p.opts.Name+"/kwok-gardener-stages", filepath.Join(p.binDir, binKwok),
		p.kwokArgs(file, "--manage-nodes-with-label-selector=localcluster.gardener.cloud/unmanaged-node=true"),
		filepath.Join(p.dir, "kwok-gardener-stages.log"))
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.crKwok = proc
	p.mu.Unlock()
	return proc, nil
}

// waitOpenAPIPaths waits up to 30 seconds until the API server's OpenAPI v3 index lists every
// group version of kinds; it lags behind the CRD's Established condition. On time-out the caller
// starts kwok anyway and restarts it if it fails.
func waitOpenAPIPaths(ctx context.Context, client apiextensionsclient.Interface, kinds []schema.GroupVersionKind) {
	_ = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		paths, err := client.Discovery().OpenAPIV3().Paths()
		if err != nil {
			return false, nil //nolint:nilerr // retried until the timeout
		}
		for _, k := range kinds {
			if k.Group == "" {
				continue // built in, served from the start
			}
			if _, ok := paths["apis/"+k.Group+"/"+k.Version]; !ok {
				return false, nil
			}
		}
		return true, nil
	})
}
