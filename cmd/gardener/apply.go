package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/declarative-gardener/gardener/engine/address"
	"github.com/declarative-gardener/gardener/engine/apply"
	"github.com/declarative-gardener/gardener/engine/diag"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/schema"
	"github.com/declarative-gardener/gardener/engine/views"
	"github.com/declarative-gardener/gardener/internal/termsafe"
	"github.com/declarative-gardener/gardener/state"
)

// applyFlags are the flags of apply and destroy.
type applyFlags struct {
	inputs         inputFlags
	autoApprove    bool
	parallelism    int
	components     int
	timeout        time.Duration
	forceConflicts bool
	allowDestroy   []string
	targets        []string
	lockTimeout    time.Duration
	rotate         []string
	ownership      ownershipFlags
	detail         detailFlag
}

func (f *applyFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	f.inputs.register(cmd)
	fl.BoolVar(&f.autoApprove, "auto-approve", false, "do not ask for confirmation")
	fl.IntVar(&f.parallelism, "parallelism", 10, "concurrent API requests per cluster (watches aside)")
	fl.IntVar(&f.components, "component-parallelism", apply.DefaultComponentParallelism, "components in progress at the same time (most wait for readiness, which takes no request)")
	fl.DurationVar(&f.timeout, "timeout", 5*time.Minute, "how long each component may take to become ready")
	fl.BoolVar(&f.forceConflicts, "force-conflicts", false, "take over fields other field managers own")
	fl.StringArrayVar(&f.allowDestroy, "allow-destroy", nil, "allow deleting or replacing protected objects of this component (address; repeatable)")
	fl.StringArrayVar(&f.targets, "target", nil, "apply only this component and its dependencies (repeatable)")
	fl.StringArrayVar(&f.rotate, "rotate", nil, "regenerate the generated secrets of this class: ca, server-cert, client-cert, rsa-key, token, password, encryption-config, vpn-tlsauth, bootstrap-token (repeatable)")
	fl.DurationVar(&f.lockTimeout, "lock-timeout", 0, "wait this long for the state lock held by another apply (default: fail at once, naming the holder)")
	f.ownership.register(cmd)
	f.detail.register(cmd)
}

func newApplyCommand(reg *schema.Registry) *cobra.Command {
	var f applyFlags
	cmd := &cobra.Command{
		Use:   "apply [DIR|PLANFILE]",
		Short: "Apply the landscape, or a saved plan, to its clusters",
		Long: `Plan the landscape in DIR, show the plan, ask for "yes" (unless --auto-approve) and execute it:
each component starts as soon as everything it depends on is applied and ready, at most
--component-parallelism at a time; objects are written with server-side apply in kind order, at
most --parallelism requests per cluster at once, then the component waits until its objects are
ready. A failure stops only the components that depend on
it. Given a PLANFILE (gardener plan --out), apply executes exactly that plan, without asking,
after checking that no object it touches has changed since it was planned.`,
		Example: `  gardener apply landscapes/local
  gardener apply --auto-approve landscapes/local
  gardener plan landscapes/local --out plan.bin && gardener apply plan.bin`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := interruptible(cmd.Context())
			defer stop()
			return runApply(ctx, cmd, reg, dirArg(args), f, false)
		},
	}
	f.register(cmd)
	return cmd
}

func newDestroyCommand(reg *schema.Registry) *cobra.Command {
	var f applyFlags
	cmd := &cobra.Command{
		Use:   "destroy [DIR]",
		Short: "Delete everything the landscape owns",
		Long: `Plan the deletion of every object the landscape in DIR owns, show it, ask for "yes" (unless
--auto-approve) and delete in reverse dependency order. Protected objects (Etcd, PVCs, CRDs,
backups, control-plane namespaces, and components with lifecycle { prevent_destroy = true }) are
deleted only with --allow-destroy ADDR.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := interruptible(cmd.Context())
			defer stop()
			return runApply(ctx, cmd, reg, dirArg(args), f, true)
		},
	}
	f.register(cmd)
	return cmd
}

func runApply(ctx context.Context, cmd *cobra.Command, reg *schema.Registry, arg string, f applyFlags, destroy bool) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	fail := func(format string, args ...any) error {
		printf(stderr, "Error: "+format+"\n", args...)
		return exitCode(1)
	}
	for _, a := range f.allowDestroy {
		if _, err := address.Parse(a); err != nil {
			return fail("--allow-destroy %q is not a block or instance address (%v); write it like a reference, e.g. shoot.local, shoot.local[\"dev\"] or component.manifests.base", a, err)
		}
	}
	dir := arg
	var saved *plan.File
	if info, err := os.Stat(arg); err == nil && !info.IsDir() {
		if destroy {
			return fail("destroy takes a landscape directory, not a plan file")
		}
		if saved, err = plan.ReadFile(arg); err != nil {
			return fail("%v", err)
		}
		dir = saved.Dir
	}
	opts := planner.Options{
		Dir: dir, Schemas: reg, Renderers: catalogRenderers(), Inputs: f.inputs.sources(),
		Targets: f.targets, Destroy: destroy, Parallelism: f.parallelism,
		Connect:  planner.LiveConnector(clusterOptions(f.parallelism)),
		Differs:  planner.LocalDiffers(""),
		Rotate:   rotateSet(f.rotate),
		Prefetch: true,
		// The read-ahead's hints in the user's cache directory (docs/performance.md).
		ReadHints: planner.DefaultReadHints(),
	}
	f.ownership.apply(&opts)
	if saved != nil {
		opts.Targets, opts.Destroy, opts.Rotate = saved.Plan.Targets, saved.Plan.Destroy, rotateSet(saved.Plan.Rotate)
		opts.PruneWithoutState, opts.AdoptLineage = saved.Plan.PruneWithoutState, saved.Plan.AdoptLineage
		opts.StrictConflicts = opts.StrictConflicts || saved.Plan.StrictConflicts
		values, err := planner.SavedInputs(saved)
		if err != nil {
			return fail("%v", err)
		}
		opts.Inputs.Values = values
	}
	operation := "apply"
	if destroy {
		operation = "destroy"
	}
	lo := apply.LandscapeOptions{
		Planner: opts, Saved: saved,
		Cluster: clusterOptions(f.parallelism),
		Lock:    state.LockInfo{Holder: state.DefaultHolder(), Operation: operation, Wait: f.lockTimeout},
		Apply: apply.Options{
			Parallelism: f.components, ForceConflicts: f.forceConflicts, AllowDestroy: f.allowDestroy, Timeout: f.timeout,
		},
	}
	var printed *planner.Outcome
	lo.Apply.Warn = func(err error) { printf(stderr, "Warning: %s\n", printed.Redact(err.Error())) }
	lo.Confirm = func(pl *plan.Plan) bool {
		if f.autoApprove {
			return true
		}
		printf(stdout, "%s", "\nDo you want to perform these actions? Only 'yes' will be accepted.\n  Enter a value: ")
		return confirmed(ctx, cmd.InOrStdin())
	}
	tty := useColor(stdout)
	progress := views.NewProgress(stdout, tty, tty)
	lo.Apply.Events = func(e apply.Event) { reportEvent(progress, e, printed) }
	lo.OnPlan = func(out *planner.Outcome) {
		printed = out
		if saved == nil { // a saved plan was reviewed when it was made
			_ = views.Plan(stdout, out.Result.Plan, views.PlanOptions{Color: useColor(stdout), Detail: f.detail.Detail})
		}
	}
	res, diags, err := apply.Landscape(ctx, lo)
	progress.Stop()
	out := res.Outcome
	if out != nil && out.Load != nil {
		if werr := diag.WriteText(stderr, diags, out.Load.Files, diagOptions(stderr)); werr != nil {
			return werr
		}
	}
	if diags.HasErrors() {
		return exitCode(1)
	}
	if errors.Is(err, apply.ErrCancelled) {
		printLine(stdout, "\nApply cancelled.")
		return exitCode(1)
	}
	if err != nil {
		if res.Result != nil { // applied, but the state could not record it
			printSummary(stdout, res.Result, out)
		}
		return fail("%s", out.Redact(err.Error()))
	}
	if res.Result == nil {
		return nil
	}
	printSummary(stdout, res.Result, out)
	if err := res.Result.Err(); err != nil {
		return fail("%s", out.Redact(err.Error()))
	}
	pl := out.Result.Plan
	s := pl.Summary
	verb := "Apply"
	if destroy {
		verb = "Destroy"
	}
	printf(stdout, "\n%s complete! Objects: %d added, %d changed, %d replaced, %d destroyed.\n", verb, s.Add, s.Change, s.Replace, s.Destroy)
	return nil
}

// confirmed reads one line and accepts exactly "yes", as Terraform does; Ctrl-C declines.
func confirmed(ctx context.Context, in io.Reader) bool {
	answer := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(in).ReadString('\n')
		answer <- line
	}()
	select {
	case line := <-answer:
		return strings.TrimSpace(line) == "yes"
	case <-ctx.Done():
		return false
	}
}

// interruptible is cancelled by the first SIGINT or SIGTERM, after which the default handling
// returns: a second Ctrl-C ends the process at once.
func interruptible(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	return ctx, stop
}

// reportEvent passes an apply event to the progress view, leaving out components with nothing
// to apply (types not rendered yet).
func reportEvent(p *views.Progress, e apply.Event, out *planner.Outcome) {
	if out != nil && out.Result != nil {
		for _, c := range out.Result.Plan.Components {
			if c.Address == e.Address && len(c.Objects) == 0 && e.Err == nil {
				return
			}
		}
	}
	pe := views.ProgressEvent{Address: e.Address, Status: e.Status, Duration: e.Duration}
	switch {
	case e.Err != nil:
		pe.Detail = out.Redact(e.Err.Error())
	case len(e.Waiting) > 0:
		pe.Detail = strings.Join(e.Waiting, ", ")
	}
	p.Event(pe)
}

// printSummary lists each component that had something to do with its outcome and duration.
func printSummary(w io.Writer, r *apply.Result, out *planner.Outcome) {
	objects := map[string]int{}
	for _, c := range out.Result.Plan.Components {
		objects[c.Address] = len(c.Objects)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	printLine(tw, "\nComponent\tResult\tTime")
	for _, c := range r.Components {
		if objects[c.Address] == 0 && c.Status == apply.Applied {
			continue
		}
		d := "-"
		if c.Duration > 0 {
			d = c.Duration.Round(100 * time.Millisecond).String()
		}
		printf(tw, "%s\t%s\t%s\n", termsafe.Escape(c.Address), c.Status, d)
	}
	_ = tw.Flush()
}

// rotateSet turns --rotate flags into the planner's set of classes.
func rotateSet(classes []string) map[string]bool {
	m := map[string]bool{}
	for _, c := range classes {
		m[c] = true
	}
	return m
}
