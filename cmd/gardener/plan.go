package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/diag"
	"github.com/declarative-gardener/gardener/engine/plan"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/schema"
	"github.com/declarative-gardener/gardener/engine/views"
	"github.com/declarative-gardener/gardener/state"
)

// planFlags are the flags of plan (and, later, apply) that shape a plan.
type planFlags struct {
	inputs           inputFlags
	out              string
	asJSON           bool
	detailedExitCode bool
	targets          []string
	destroy          bool
	parallelism      int
	observed         string
	offline          bool
	serverDryRun     bool
	rotate           []string
	at               string
	ownership        ownershipFlags
	detail           detailFlag
}

// ownershipFlags are the flags of plan, apply and destroy that say what the landscape owns when
// its state cannot (docs/cli.md, "Ownership"), and whether people's changes of what it owns are
// drift it takes back (docs/cli.md, "Drift and conflicts").
type ownershipFlags struct {
	pruneWithoutState bool
	adoptLineage      string
	strictConflicts   bool
}

func (f *ownershipFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.BoolVar(&f.pruneWithoutState, "prune-without-state", false, "delete what the landscape no longer renders although its state records nothing (a first apply, a lost state): objects with its label and of its lineage, or of none")
	fl.StringVar(&f.adoptLineage, "adopt-lineage", "", "continue this lineage in an empty state, when the landscape's state was lost: its objects and generated Secrets are the landscape's again (the plan names it)")
	fl.BoolVar(&f.strictConflicts, "strict-conflicts", false, "keep fields people changed with kubectl (edit, set, patch, ...) conflicts that need --force-conflicts, as controllers' fields are, instead of drift that apply takes back (the landscape's strict_conflicts does the same)")
}

func (f *ownershipFlags) apply(opts *planner.Options) {
	opts.PruneWithoutState, opts.AdoptLineage, opts.StrictConflicts = f.pruneWithoutState, f.adoptLineage, f.strictConflicts
}

func newPlanCommand(reg *schema.Registry) *cobra.Command {
	var f planFlags
	cmd := &cobra.Command{
		Use:   "plan [DIR]",
		Short: "Show what applying the landscape would change",
		Long: `Render every component of the landscape in DIR, read the live state of its clusters (one LIST
per kind), diff each object with server-side apply semantics and print the plan: every field that
will change and nothing that will not. Nothing is written to any cluster. With --offline the
plan is made against empty clusters without any kubeconfig or API access (as helm template
renders a chart), the same bytes on every run.

Exit codes: 0 success, 1 error; with --detailed-exitcode 0 means no changes, 2 changes, 1 error.`,
		Example: `  gardener plan landscapes/local
  gardener plan landscapes/local --detailed-exitcode --out plan.bin
  gardener plan landscapes/local --json | jq '.summary'
  gardener plan landscapes/local --offline                  # against empty clusters, no kubeconfig needed
  gardener plan landscapes/local --observed snapshot.json   # offline, from a snapshot`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runPlan(ctx, cmd, reg, dirArg(args), f)
		},
	}
	fl := cmd.Flags()
	f.inputs.register(cmd)
	fl.StringVar(&f.out, "out", "", "save the plan to FILE for show and apply")
	fl.BoolVar(&f.asJSON, "json", false, "print the plan as JSON (docs/plan-format.md)")
	fl.BoolVar(&f.detailedExitCode, "detailed-exitcode", false, "exit 0 without changes, 2 with changes, 1 on errors")
	fl.StringArrayVar(&f.targets, "target", nil, "plan only this component (address like component.manifests.base or shoot.local) and its dependencies (repeatable)")
	fl.BoolVar(&f.destroy, "destroy", false, "plan the deletion of everything the landscape owns")
	fl.IntVar(&f.parallelism, "parallelism", 10, "concurrent API requests per cluster")
	fl.StringVar(&f.observed, "observed", "", "plan against a snapshot file (gardener snapshot) instead of the live clusters")
	fl.BoolVar(&f.offline, "offline", false, "plan against empty clusters, without any kubeconfig or API access (as helm template does)")
	fl.StringArrayVar(&f.rotate, "rotate", nil, "plan regenerating the generated secrets of this class (ca, server-cert, client-cert, rsa-key, token, password, encryption-config, vpn-tlsauth, bootstrap-token; repeatable)")
	fl.BoolVar(&f.serverDryRun, "server-dry-run", false, "check every changed object with a server-side apply dry-run (webhooks and defaults included)")
	fl.StringVar(&f.at, "at", "", "plan as at this time (RFC 3339, such as 2026-11-22T22:30:00Z): which changes maintenance windows hold back, which generated secrets are due")
	f.ownership.register(cmd)
	f.detail.register(cmd)
	return cmd
}

func runPlan(ctx context.Context, cmd *cobra.Command, reg *schema.Registry, dir string, f planFlags) error {
	stderr := cmd.ErrOrStderr()
	opts := planner.Options{
		Dir: dir, Schemas: reg, Renderers: catalogRenderers(), Inputs: f.inputs.sources(),
		Targets: f.targets, Destroy: f.destroy, Parallelism: f.parallelism,
		Differs: planner.LocalDiffers(""), Rotate: rotateSet(f.rotate),
	}
	f.ownership.apply(&opts)
	var at time.Time
	if f.at != "" {
		if f.out != "" {
			printLine(stderr, "Error: --at plans for another time, and a saved plan is applied now: use --at without --out.")
			return exitCode(1)
		}
		var err error
		if at, err = time.Parse(time.RFC3339, f.at); err != nil {
			printf(stderr, "Error: --at %q is not a time like 2026-11-22T22:30:00Z: %v\n", f.at, err)
			return exitCode(1)
		}
		// The clusters are read now: what Gardener's controllers do until then is predicted.
		opts.Now, opts.ObservedAt = at, time.Now()
	}
	if f.offline || f.observed != "" {
		connect, recordedAt, err := recordedConnector(stderr, f.offline, f.observed, f.serverDryRun)
		if err != nil {
			return err
		}
		opts.Connect, opts.DeferSecrets, opts.Recorded = connect, true, true
		opts.Now, opts.ObservedAt = planner.RecordedTimes(at, recordedAt)
	} else {
		opts.Connect = planner.LiveConnector(clusterOptions(f.parallelism))
		opts.ServerDryRun = f.serverDryRun
		opts.Prefetch = true
		opts.ReadHints = planner.DefaultReadHints() // the read-ahead's hints (docs/performance.md)
		// The state (read without its lock: a plan changes nothing) names the kinds and objects
		// applied before, so that objects of kinds no longer rendered are pruned.
		opts.ReadState = stateReader(ctx)
	}
	out, diags, err := planner.Plan(ctx, opts)
	if err := reportPlan(stderr, out, diags, err); err != nil {
		return err
	}
	pl := out.Result.Plan
	if f.out != "" {
		vars, err := planner.SavedVariables(out.Load.Evaluated, out.Load.Landscape)
		if err != nil {
			printf(stderr, "Error: %v\n", err)
			return exitCode(1)
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			abs = dir
		}
		if err := plan.WriteFile(f.out, plan.NewFile(abs, out.Result, vars)); err != nil {
			printf(stderr, "Error: %v\n", err)
			return exitCode(1)
		}
	}
	if f.asJSON {
		if err := views.PlanJSON(cmd.OutOrStdout(), pl); err != nil {
			return err
		}
	} else {
		if err := views.Plan(cmd.OutOrStdout(), pl, views.PlanOptions{Color: useColor(cmd.OutOrStdout()), Detail: f.detail.Detail}); err != nil {
			return err
		}
		if f.out != "" {
			printf(cmd.OutOrStdout(), "\nSaved the plan to %s. Apply exactly this plan with: gardener apply %s\n", f.out, f.out)
		}
	}
	if f.detailedExitCode && pl.HasChanges() {
		return exitCode(2)
	}
	return nil
}

func newShowCommand() *cobra.Command {
	var asJSON bool
	var detail detailFlag
	cmd := &cobra.Command{
		Use:   "show PLANFILE",
		Short: "Print a saved plan",
		Long:  `Print the plan saved by "gardener plan --out PLANFILE", as text or, with --json, in the JSON form of docs/plan-format.md.`,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file, err := plan.ReadFile(args[0])
			if err != nil {
				printf(cmd.ErrOrStderr(), "Error: %v\n", err)
				return exitCode(1)
			}
			if asJSON {
				return views.PlanJSON(cmd.OutOrStdout(), file.Plan)
			}
			return views.Plan(cmd.OutOrStdout(), file.Plan, views.PlanOptions{Color: useColor(cmd.OutOrStdout()), Detail: detail.Detail})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the plan as JSON (docs/plan-format.md)")
	detail.register(cmd)
	return cmd
}

func newSnapshotCommand(reg *schema.Registry) *cobra.Command {
	var inputs inputFlags
	var output string
	cmd := &cobra.Command{
		Use:   "snapshot [DIR] --output SNAPSHOT",
		Short: "Record what a plan of the landscape reads from its clusters",
		Long: `Plan the landscape in DIR against its live clusters and record every answer the plan read
(discovery, the LIST and GET results, OpenAPI schemas) in SNAPSHOT. "gardener plan DIR --observed
SNAPSHOT" then plans against the recording without any cluster, byte-identical on every run: for
golden-file tests of landscapes and for bug reports. The snapshot holds the objects as the
clusters store them, Secrets included; treat it like a backup of those objects.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output == "" {
				printLine(cmd.ErrOrStderr(), "Error: --output SNAPSHOT is required.")
				return exitCode(1)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			rec := planner.NewRecording(planner.LiveConnector(clusterOptions(0)))
			// Plans from the snapshot are made at the time it was recorded.
			rec.At = time.Now().UTC().Truncate(time.Second)
			out, diags, err := planner.Plan(ctx, planner.Options{
				Dir: dirArg(args), Schemas: reg, Renderers: catalogRenderers(), Inputs: inputs.sources(),
				Connect: rec.Connect, Differs: planner.LocalDiffers(""), Now: rec.At,
			})
			if werr := diag.WriteText(cmd.ErrOrStderr(), diags, out.Load.Files, diagOptions(cmd.ErrOrStderr())); werr != nil {
				return werr
			}
			if diags.HasErrors() {
				return exitCode(1)
			}
			if err != nil {
				printf(cmd.ErrOrStderr(), "Error: %s\n", out.Redact(err.Error()))
				return exitCode(1)
			}
			if err := rec.WriteFile(output); err != nil {
				printf(cmd.ErrOrStderr(), "Error: %v\n", err)
				return exitCode(1)
			}
			printf(cmd.OutOrStdout(), "Recorded %d cluster(s) to %s.\n", len(out.Clusters), output)
			return nil
		},
	}
	inputs.register(cmd)
	cmd.Flags().StringVar(&output, "output", "", "the snapshot file to write")
	return cmd
}

// recordedConnector is the connector of a plan or render that reads no live cluster (the empty
// clusters of --offline or the snapshot of --observed) and when the snapshot was recorded (zero
// offline and for older snapshots). The error is the command's exit code, its message printed.
func recordedConnector(stderr io.Writer, offline bool, observed string, serverDryRun bool) (planner.Connector, time.Time, error) {
	switch {
	case offline && observed != "":
		printLine(stderr, "Error: --offline plans against empty clusters and --observed against a snapshot: use one of them.")
		return nil, time.Time{}, exitCode(1)
	case serverDryRun && offline:
		printLine(stderr, "Error: --server-dry-run needs live clusters and cannot be combined with --offline.")
		return nil, time.Time{}, exitCode(1)
	case serverDryRun:
		printLine(stderr, "Error: --server-dry-run needs live clusters and cannot be combined with --observed.")
		return nil, time.Time{}, exitCode(1)
	}
	var recordedAt time.Time
	connect, err := planner.OfflineConnector()
	if observed != "" {
		connect, recordedAt, err = planner.OpenSnapshot(observed)
	}
	if err != nil {
		printf(stderr, "Error: %v\n", err)
		return nil, time.Time{}, exitCode(1)
	}
	return connect, recordedAt, nil
}

// reportPlan prints a plan run's diagnostics and, when the landscape is invalid or the run
// failed, says so (secrets redacted) and returns the error the command ends with.
func reportPlan(stderr io.Writer, out *planner.Outcome, diags hcl.Diagnostics, err error) error {
	if werr := diag.WriteText(stderr, diags, out.Load.Files, diagOptions(stderr)); werr != nil {
		return werr
	}
	if diags.HasErrors() {
		return exitCode(1)
	}
	if err != nil {
		printf(stderr, "Error: %s\n", out.Redact(err.Error()))
		return exitCode(1)
	}
	return nil
}

// stateReader reads a landscape's state without its lock, for commands that change nothing.
func stateReader(ctx context.Context) func(res *config.Result) (*state.State, error) {
	return func(res *config.Result) (*state.State, error) {
		backend, err := planner.OpenState(res, clusterOptions(0))
		if err != nil {
			return nil, err
		}
		return backend.Read(ctx)
	}
}
