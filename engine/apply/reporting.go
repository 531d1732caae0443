package apply

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/declarative-gardener/gardener/engine/address"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/object"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/readiness"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/report"
)

// reporting keeps, through an apply, what the engine reports as gardenlet about the instances
// whose components the plan changes (engine/report): their operation starts with the first
// part, progresses as parts finish, and ends with the last one, Succeeded, or with the failure
// of one. Instances the plan does not change are brought up to date by SyncReports instead.
type reporting struct {
	ctx context.Context
	w   *report.Writer
	mu  sync.Mutex
	// reports are the reports whose operation this apply carries, by instance and index.
	reports map[string]*reportedOperation
	// partOf are the reports each component's events count for.
	partOf map[string][]string
	warn   func(error)
}

// reportedOperation is one report and how far its apply got.
type reportedOperation struct {
	report  render.Report
	parts   []string
	typ     string
	started bool
	running map[string]bool
	done    map[string]bool
	failure *report.Failure
}

// newReporting prepares the reports of the instances the plan changes; nil when there are none.
// A report's operation is about the parts it names (render.Report.Parts), or all the instance's
// parts; a report of an object in deletion (render.Report.Finalize) follows the deletion of
// the parts it waits for.
func newReporting(ctx context.Context, out *planner.Outcome, w *report.Writer, warn func(error)) *reporting {
	r := &reporting{ctx: ctx, w: w, reports: map[string]*reportedOperation{}, partOf: map[string][]string{}, warn: warn}
	// The parts each report names, as sets: a seed may report hundreds of Shoots by their parts.
	named := map[string]map[string]bool{}
	for _, c := range out.Result.Plan.Components {
		inst := instanceOf(c.Address)
		rd := out.Rendered[config.InstanceAddress(inst)]
		if rd == nil {
			continue
		}
		for i, rep := range rd.Reports {
			key := fmt.Sprintf("%s#%d", inst, i)
			if _, ok := named[key]; !ok && len(rep.Parts) > 0 {
				named[key] = make(map[string]bool, len(rep.Parts))
				for _, p := range rep.Parts {
					named[key][p] = true
				}
			}
			if !reportFollows(rep, named[key], partName(c.Address), c.Removed()) {
				continue
			}
			ro := r.reports[key]
			if ro == nil {
				ro = &reportedOperation{report: rep, running: map[string]bool{}, done: map[string]bool{}}
				r.reports[key] = ro
			}
			ro.parts = append(ro.parts, c.Address)
			r.partOf[c.Address] = append(r.partOf[c.Address], key)
		}
	}
	changed := changedComponents(out.Result.Plan)
	for key, ro := range r.reports {
		if !slices.ContainsFunc(ro.parts, func(p string) bool { return changed[p] }) {
			delete(r.reports, key)
			for _, p := range ro.parts {
				r.partOf[p] = slices.DeleteFunc(r.partOf[p], func(k string) bool { return k == key })
			}
		}
	}
	if len(r.reports) == 0 {
		return nil
	}
	return r
}

// reportFollows reports whether rep's operation counts part, a part of its instance that the
// plan removes or not; named are rep.Parts as a set.
func reportFollows(rep render.Report, named map[string]bool, part string, removed bool) bool {
	switch {
	case rep.Error != "":
		return false
	case rep.Finalize:
		return removed && rep.FinalizeAfter != "" && strings.HasPrefix(part, rep.FinalizeAfter)
	case removed:
		return false
	case len(rep.Parts) > 0:
		return named[part]
	}
	return true
}

// changedComponents are the addresses of the components of which the plan changes an object.
func changedComponents(pl *plan.Plan) map[string]bool {
	out := map[string]bool{}
	for _, c := range pl.Components {
		for _, o := range c.Objects {
			if o.Action != plan.NoOp {
				out[c.Address] = true
				break
			}
		}
	}
	return out
}

// instanceOf is the instance a component belongs to: a composite part's composite instance, or
// the component itself.
func instanceOf(addr string) string {
	if a, err := address.Parse(addr); err == nil {
		if parent, isPart := a.Parent(); isPart {
			return parent.String()
		}
	}
	return addr
}

// event follows one executor event.
func (r *reporting) event(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, key := range r.partOf[e.Address] {
		r.follow(r.reports[key], e)
	}
}

// follow moves one report's operation on by an event of one of its parts.
func (r *reporting) follow(ro *reportedOperation, e Event) {
	rep := ro.report
	switch e.Status {
	case "started":
		if !ro.started {
			ro.started = true
			typ, err := r.w.Start(r.ctx, rep)
			r.note(rep, err)
			ro.typ = typ
		}
		ro.running[e.Address] = true
		return
	case "waiting":
		return
	case string(Applied):
	default: // failed, blocked, skipped
		if ro.failure == nil {
			err := e.Err
			if err == nil {
				err = fmt.Errorf("%s", e.Status)
			}
			ro.failure = &report.Failure{Part: partName(e.Address), Err: fmt.Errorf("%s %s: %w", partName(e.Address), e.Status, err), Codes: errorCodes(err)}
		}
	}
	delete(ro.running, e.Address)
	ro.done[e.Address] = true
	if !ro.started {
		return
	}
	if len(ro.done) < len(ro.parts) {
		if ro.failure == nil && ro.typ != "" {
			running := make([]string, 0, len(ro.running))
			for p := range ro.running {
				running = append(running, partName(p))
			}
			r.note(rep, r.w.Progress(r.ctx, rep, ro.typ, len(ro.done), len(ro.parts), running))
		}
		return
	}
	if ro.typ == "" {
		// The object did not exist when the first part started: the shoot block applies
		// its Shoot as one of its parts. Its operation starts now.
		var err error
		if ro.typ, err = r.w.Start(r.ctx, rep); err != nil {
			r.note(rep, err)
			return
		}
	}
	if rep.Finalize && ro.failure == nil {
		return // the deletion ends with the finalizer's removal (SyncReports)
	}
	conds := judgeAll(rep, func(string) (bool, string) { return true, "" })
	if ro.failure != nil {
		conds = nil // what failed is not known to be unhealthy; the next sync judges it
	}
	err := r.w.Finish(r.ctx, rep, ro.typ, conds, ro.failure)
	if err == nil && ro.failure == nil {
		err = r.w.Consume(r.ctx, rep)
	}
	r.note(rep, err)
}

// note passes a failed report write on as a warning: the apply itself did what it should.
func (r *reporting) note(rep render.Report, err error) {
	if err == nil || errors.Is(err, report.ErrNotFound) || r.warn == nil {
		return
	}
	r.warn(fmt.Errorf("report the status of %s %s/%s: %w", rep.Kind, rep.Namespace, rep.Name, err))
}

// partName is the name a part goes by in a report's progress: the part of a composite's address.
func partName(addr string) string {
	if a, err := address.Parse(addr); err == nil && a.Part != "" {
		return a.Part
	}
	return addr
}

// judgeAll decides the report's conditions with ready for the parts, which report conditions
// name by part name.
func judgeAll(rep render.Report, ready func(part string) (bool, string)) []report.Condition {
	out := make([]report.Condition, 0, len(rep.Conditions))
	for _, c := range rep.Conditions {
		out = append(out, report.Judge(c, ready))
	}
	return out
}

// errorCodes are the Gardener error codes of the causes an error carries: those an extension
// resource reported in its status.lastError (readiness quotes them), and ERR_CONFIGURATION_PROBLEM
// for objects the API server refused as invalid, as gardenlet maps a ManagedResource's invalid
// object (checkConfigurationError in pkg/utils/managedresources at Gardener v1.120.0).
func errorCodes(err error) []string {
	var nr *readiness.NotReadyError
	if errors.As(err, &nr) {
		var codes []string
		for _, s := range nr.NotReady {
			codes = append(codes, s.Status.Codes...)
		}
		return codes
	}
	if isInvalid(err) {
		return []string{"ERR_CONFIGURATION_PROBLEM"}
	}
	return nil
}

// SyncReports brings the reports of the instances the plan covers (planned) up to date where no
// operation of this apply did: conditions from what the plan observed (and, for parts this apply
// wrote, their readiness after it), the component's fields, a Reconcile that Succeeded where the
// object's generation moved on without anything to change, and each heartbeat renewed once; and
// the statuses the engine reports for objects other controllers own (writeStatusReports). Failed
// writes are warnings.
func SyncReports(ctx context.Context, out *planner.Outcome, w *report.Writer, applied *Result, warn func(error)) {
	if out == nil || out.Result == nil {
		return
	}
	ready := observedReadiness(out, applied)
	pending := pendingPartsOf(out, applied)
	for _, addr := range sortedInstances(out) {
		rd := out.Rendered[addr]
		for _, rep := range rd.Reports {
			var observed *unstructured.Unstructured
			if applied == nil { // as the plan saw it; after an apply only a fresh read will do
				observed = observedObject(out, rep)
			}
			var err error
			if rep.Finalize {
				if rep.FinalizeAfter == "" || !pending.under(string(addr), rep.FinalizeAfter) {
					err = w.Finalize(ctx, rep.Cluster, rep.APIVersion, rep.Kind, rep.Namespace, rep.Name)
				}
			} else {
				err = w.Sync(ctx, rep, judgeAll(rep, func(part string) (bool, string) { return ready(string(addr) + "." + part) }), observed)
				if err == nil && rep.Error == "" && !pending.under(string(addr), "") {
					// Nothing of the instance is left to do: the operation asked for is done.
					err = w.Consume(ctx, rep)
				}
			}
			if err == nil && rep.Heartbeat != nil {
				err = w.Renew(ctx, rep)
			}
			if err != nil && !errors.Is(err, report.ErrNotFound) && warn != nil {
				warn(fmt.Errorf("report the status of %s %s/%s: %w", rep.Kind, rep.Namespace, rep.Name, err))
			}
		}
	}
	writeStatusReports(ctx, out, w, applied, warn)
}

// pendingParts are, by instance, the names of the parts (or the instance's own name, for a
// component) that still have changes to make: the plan changes objects of them (deletes them,
// for a Shoot in deletion), and the apply, if any, did not finish that.
type pendingParts map[string][]string

func pendingPartsOf(out *planner.Outcome, applied *Result) pendingParts {
	done := map[string]bool{}
	if applied != nil {
		for _, c := range applied.Components {
			done[c.Address] = c.Status == Applied
		}
	}
	p := pendingParts{}
	for _, c := range out.Result.Plan.Components {
		if len(c.Objects) > 0 && c.Action != plan.NoOp && !done[c.Address] {
			inst := instanceOf(c.Address)
			p[inst] = append(p[inst], partName(c.Address))
		}
	}
	return p
}

// under reports whether parts of instance whose names start with prefix (any part for "") still
// have changes to make.
func (p pendingParts) under(instance, prefix string) bool {
	return slices.ContainsFunc(p[instance], func(part string) bool { return strings.HasPrefix(part, prefix) })
}

// writeStatusReports writes the statuses the engine reports for objects other controllers own
// (render.StatusReport, gardenlet's conditions of a ControllerInstallation whose extension the
// engine deploys): those of the parts the plan rendered and, after an apply, of the parts it
// rendered during apply, which the plan could not know. Their conditions are derived from live
// reads (liveInput, as a part rendered during apply reads), whatever the apply did, as
// gardenlet's care and required controllers derive them from the objects as they are: after an
// apply what the plan observed is stale (the ManagedResource it just applied). A reported object
// that is gone (gardener-controller-manager deleted the installation) is no failure. A destroy
// reports nothing: it takes the deployments away, and the engine is no seed's gardenlet after it.
func writeStatusReports(ctx context.Context, out *planner.Outcome, w *report.Writer, applied *Result, warn func(error)) {
	if out.Result.Plan != nil && out.Result.Plan.Destroy {
		return
	}
	reports := map[string][]render.StatusReport{}
	for addr, rd := range out.Rendered {
		if len(rd.StatusReports) > 0 && planned(out, addr) {
			reports[string(addr)] = rd.StatusReports
		}
	}
	if applied != nil {
		maps.Copy(reports, applied.StatusReports)
	}
	if len(reports) == 0 {
		return
	}
	landscape := ""
	if out.Result.Plan != nil {
		landscape = out.Result.Plan.Landscape
	}
	for _, addr := range slices.Sorted(maps.Keys(reports)) {
		in := liveInput(ctx, w.Clients, render.Input{Landscape: landscape, Address: addr, Now: time.Now()})
		for _, rep := range reports[addr] {
			if rep.Conditions == nil {
				continue
			}
			conds, err := rep.Conditions(in)
			if err == nil {
				err = w.WriteConditions(ctx, rep, report.FromRender(conds))
			}
			if err != nil && !errors.Is(err, report.ErrNotFound) && warn != nil {
				warn(fmt.Errorf("report the status of %s %s: %w", rep.Kind, path.Join(rep.Namespace, rep.Name), err))
			}
		}
	}
}

// reportedObjects are the objects the outcome's instances report on.
func reportedObjects(out *planner.Outcome) map[desiredKey]bool {
	m := map[desiredKey]bool{}
	for _, rd := range out.Rendered {
		for _, rep := range rd.Reports {
			gv, err := schema.ParseGroupVersion(rep.APIVersion)
			if err != nil {
				continue
			}
			m[desiredKey{rep.Cluster, object.Ref{Group: gv.Group, Kind: rep.Kind, Namespace: rep.Namespace, Name: rep.Name}}] = true
		}
	}
	return m
}

// observedObject is the reported object as the plan observed it, nil when the plan did not.
func observedObject(out *planner.Outcome, rep render.Report) *unstructured.Unstructured {
	obs := out.Result.Observed[rep.Cluster]
	if obs == nil {
		return nil
	}
	gv, err := schema.ParseGroupVersion(rep.APIVersion)
	if err != nil {
		return nil
	}
	return obs.Objects[object.Ref{Group: gv.Group, Kind: rep.Kind, Namespace: rep.Namespace, Name: rep.Name}]
}

// observedReadiness judges a part by its desired objects as the plan observed them, except for
// parts the apply wrote: those it waited for are ready, those that failed are not.
func observedReadiness(out *planner.Outcome, applied *Result) func(part string) (bool, string) {
	status := map[string]ComponentResult{}
	if applied != nil {
		for _, c := range applied.Components {
			status[c.Address] = c
		}
	}
	objects := map[string][]*plan.Desired{}
	for _, d := range out.Result.Desired {
		objects[string(d.Component)] = append(objects[string(d.Component)], d)
	}
	return func(part string) (bool, string) {
		if c, ok := status[part]; ok {
			if c.Status == Applied {
				return true, ""
			}
			return false, c.Message()
		}
		for _, d := range objects[part] {
			obs := out.Result.Observed[d.Cluster]
			if obs == nil {
				continue
			}
			live := obs.Objects[object.RefOf(d.Object)]
			if live == nil {
				return false, fmt.Sprintf("%s %s is missing", d.Object.GetKind(), d.Object.GetName())
			}
			if s := readiness.Check(live); !s.Ready {
				return false, fmt.Sprintf("%s %s: %s", live.GetKind(), live.GetName(), s.Reason)
			}
		}
		return true, ""
	}
}

// isInvalid reports whether the API server refused an object as invalid.
func isInvalid(err error) bool {
	var status apierrors.APIStatus
	return errors.As(err, &status) && apierrors.IsInvalid(err)
}

// sortedInstances are the outcome's rendered instances that its plan covers, in address order.
func sortedInstances(out *planner.Outcome) []config.InstanceAddress {
	var addrs []config.InstanceAddress
	for addr := range out.Rendered {
		if planned(out, addr) {
			addrs = append(addrs, addr)
		}
	}
	slices.Sort(addrs)
	return addrs
}

// planned reports whether the outcome's plan covers a rendered instance. A targeted plan (a
// shoot's, a daemon shard's) renders every block that is not a shoot but plans and observes only
// its targets and what they depend on: the reports of the others would be judged from objects
// it never read, so they are left to the plans that cover them.
func planned(out *planner.Outcome, addr config.InstanceAddress) bool {
	return out.Graph == nil || out.Graph.Has(addr)
}

// NewReportWriter is the writer of the reports of an outcome's instances, through its connected
// clusters, reporting as this process.
func NewReportWriter(out *planner.Outcome) *report.Writer {
	clients := map[string]dynamic.Interface{}
	for name, c := range out.Clusters {
		if dc, ok := c.(dynamicClient); ok {
			clients[name] = dc.Dynamic()
		}
	}
	return &report.Writer{
		Clients:  clients,
		Identity: processIdentity(),
		Resource: func(cluster string, gk schema.GroupKind) (schema.GroupVersionResource, bool) {
			if obs := out.Result.Observed[cluster]; obs != nil {
				if r, ok := obs.Resources[gk]; ok {
					return r.GVR(), true
				}
			}
			return schema.GroupVersionResource{}, false
		},
	}
}

// processIdentity is who reports: the host's name (the daemon's pod name) and, as Gardener's
// identity carries a 64-digit container ID there, a hash of it.
func processIdentity() report.Identity {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "gardener"
	}
	sum := sha256.Sum256([]byte(host))
	return report.Identity{ID: hex.EncodeToString(sum[:]), Name: host}
}
