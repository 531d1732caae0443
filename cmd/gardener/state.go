package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"

	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/spf13/cobra"
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/cluster"
	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/diag"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/schema"
	"github.com/declarative-gardener/gardener/engine/shard"
	"github.com/declarative-gardener/gardener/internal/formatversion"
	"github.com/declarative-gardener/gardener/internal/termsafe"
	"github.com/declarative-gardener/gardener/state"
)

func newStateCommand(reg *schema.Registry) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "state",
		Short: "Inspect and edit the state of a landscape",
		Long: `The state records, per component instance, the objects gardener applied, its non-sensitive
outputs and the hash of the configuration last applied. It lives where the landscape's state block
says (a local file by default). These commands read it, remove components from it or move them
to another address, without touching any cluster.`,
	}
	cmd.AddCommand(newStateListCommand(reg), newStateShowCommand(reg), newStateRmCommand(reg), newStateMvCommand(reg))
	return cmd
}

func newStateListCommand(reg *schema.Registry) *cobra.Command {
	var inputs inputFlags
	cmd := &cobra.Command{
		Use:   "list [DIR]",
		Short: "List the component instances in the state",
		Long:  `Print every component instance the state of the landscape in DIR (default: the current directory) records, sorted, with the number of objects it owns (and of objects an interrupted apply left pending).`,
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withState(cmd, reg, dirArg(args), inputs, func(ctx context.Context, b state.Backend) error {
				s, err := b.Read(ctx)
				if err != nil {
					return err
				}
				if len(s.Components)+len(s.Retired) == 0 {
					printLine(cmd.ErrOrStderr(), "The state is empty.")
					return nil
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				for _, addr := range s.Addresses() {
					printf(tw, "%s\t%s\n", termsafe.Escape(addr), countObjects(s.Components[addr]))
				}
				for _, addr := range slices.Sorted(maps.Keys(s.Retired)) {
					printf(tw, "%s\tlifetime ended at %s\n", termsafe.Escape(addr), termsafe.Escape(s.Retired[addr].Ended))
				}
				return tw.Flush()
			})
		},
	}
	inputs.register(cmd)
	return cmd
}

// countObjects says how many objects a component owns: "3 objects", "1 object, 2 pending".
func countObjects(c *state.Component) string {
	out := plural(len(c.Objects), "object")
	if len(c.Pending) > 0 {
		out += fmt.Sprintf(", %d pending", len(c.Pending))
	}
	return out
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func newStateShowCommand(reg *schema.Registry) *cobra.Command {
	var inputs inputFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show [DIR] ADDRESS",
		Short: "Print one component instance of the state",
		Long: `Print what the state of the landscape in DIR (default: the current directory) records for the component instance ADDRESS: its type, configuration hash, outputs, and the objects it owns and has pending.
Names and namespaces that depend on sensitive values are shown as "(sensitive value)", in the JSON
form too (where "sensitive" says which parts are hidden); the state itself holds them.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, addr := dirArg(args[:len(args)-1]), args[len(args)-1]
			return withState(cmd, reg, dir, inputs, func(ctx context.Context, b state.Backend) error {
				s, err := b.Read(ctx)
				if err != nil {
					return err
				}
				c, ok := s.Components[addr]
				if !ok {
					return fmt.Errorf("%s is not in the state; \"gardener state list %s\" lists what is", addr, dir)
				}
				c = shownComponent(c)
				if asJSON {
					// The component as the state stores it, and the state's format version.
					enc := json.NewEncoder(cmd.OutOrStdout())
					enc.SetIndent("", "  ")
					return enc.Encode(struct {
						FormatVersion formatversion.Version `json:"format_version"`
						*state.Component
					}{state.FormatVersion, c})
				}
				return writeComponent(cmd.OutOrStdout(), c)
			})
		},
	}
	inputs.register(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the component as the state stores it (JSON)")
	return cmd
}

// shownComponent is c with the names and namespaces that depend on sensitive values hidden
// (state.Object.Shown): the state must hold them, what prints it must not.
func shownComponent(c *state.Component) *state.Component {
	shown := *c
	shown.Objects = make([]state.Object, len(c.Objects))
	shown.Pending = nil
	for i, o := range c.Objects {
		shown.Objects[i] = o.Shown()
	}
	for _, o := range c.Pending {
		shown.Pending = append(shown.Pending, o.Shown())
	}
	return &shown
}

// writeComponent prints a component of the state for people, each field on its line (escaped
// with termsafe.Escape: whoever can edit the state chooses them).
func writeComponent(w io.Writer, c *state.Component) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	printf(tw, "address:\t%s\n", termsafe.Escape(c.Address))
	printf(tw, "type:\t%s\n", termsafe.Escape(c.Type))
	if c.ConfigHash != "" {
		printf(tw, "config hash:\t%s\n", termsafe.Escape(c.ConfigHash))
	}
	if len(c.Outputs) > 0 {
		printf(tw, "\noutputs:\n")
		names := make([]string, 0, len(c.Outputs))
		for name := range c.Outputs {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			v, err := json.Marshal(c.Outputs[name])
			if err != nil {
				return fmt.Errorf("output %s: %w", name, err)
			}
			printf(tw, "  %s\t= %s\n", termsafe.Escape(name), v)
		}
	}
	for _, list := range []struct {
		title   string
		objects []state.Object
	}{{"objects", c.Objects}, {"pending", c.Pending}} {
		if len(list.objects) == 0 && list.title == "pending" {
			continue
		}
		printf(tw, "\n%s (%d):\n", list.title, len(list.objects))
		for _, o := range list.objects {
			gv := o.Version
			if o.Group != "" {
				gv = o.Group + "/" + o.Version
			}
			line := "  " + termsafe.Escape(o.Cluster) + "\t" + termsafe.Escape(o.Ref().String()) + "\t" + termsafe.Escape(gv)
			if o.UID != "" {
				line += "\tuid " + termsafe.Escape(o.UID)
			}
			printLine(tw, line)
		}
	}
	return tw.Flush()
}

func newStateRmCommand(reg *schema.Registry) *cobra.Command {
	var inputs inputFlags
	var lockTimeout time.Duration
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "rm [DIR] ADDRESS...",
		Short: "Forget component instances without deleting their objects",
		Long: `Remove the component instances ADDRESS... from the state of the landscape in DIR, holding the
state lock. DIR is the first of several arguments when it is a directory; otherwise every argument
is an address of the landscape in the current directory. Their objects stay in the clusters: gardener no longer tracks them through the state.
They keep the landscape's label, though; remove it from them (kubectl label ... ` + "`" + `declarative-gardener.io/landscape-` + "`" + `)
before the next plan if another tool or landscape is to own them. For an instance whose lifetime
ended (an expired shoot), rm also forgets that record, so that the next plan creates it anew. Every
ADDRESS must be in the state; otherwise nothing is removed.`,
		Example: `  gardener state rm landscapes/local component.manifests.local_addons
  gardener state rm landscapes/local shoot.qa.kube_apiserver --dry-run`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, addrs := dirAndRest(args)
			return withState(cmd, reg, dir, inputs, func(ctx context.Context, b state.Backend) error {
				return stateRm(ctx, cmd.OutOrStdout(), b, addrs, lockTimeout, dryRun)
			})
		},
	}
	inputs.register(cmd)
	cmd.Flags().DurationVar(&lockTimeout, "lock-timeout", 0, "wait this long for the state lock (default: fail at once when it is held)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print what would be removed without changing the state")
	return cmd
}

// lockUnlessDryRun takes the state lock for an edit of the state (operation op), or nothing for a
// dry run, which writes nothing; unlock releases what was taken.
func lockUnlessDryRun(ctx context.Context, b state.Backend, op string, wait time.Duration, dryRun bool) (unlock func() error, err error) {
	if dryRun {
		return func() error { return nil }, nil
	}
	lock, err := b.Lock(ctx, state.LockInfo{Operation: op, Wait: wait})
	if err != nil {
		return nil, err
	}
	return func() error { return lock.Unlock(ctx) }, nil
}

func stateRm(ctx context.Context, out io.Writer, b state.Backend, addrs []string, lockTimeout time.Duration, dryRun bool) (err error) {
	unlock, err := lockUnlessDryRun(ctx, b, "state rm", lockTimeout, dryRun)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, unlock()) }()
	s, err := b.Read(ctx)
	if err != nil {
		return err
	}
	var missing []string
	seen := map[string]bool{}
	var remove []string
	for _, a := range addrs {
		_, known := s.Components[a]
		_, retired := s.Retired[a]
		if !known && !retired {
			missing = append(missing, a)
		} else if !seen[a] {
			seen[a] = true
			remove = append(remove, a)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("not in the state, so nothing was removed: %s", strings.Join(missing, ", "))
	}
	verb := "Removed"
	if dryRun {
		verb = "Would remove"
	}
	for _, a := range remove {
		if c, ok := s.Components[a]; ok {
			printf(out, "%s %s (%s)\n", verb, termsafe.Escape(a), countObjects(c))
			delete(s.Components, a)
		}
		if r, ok := s.Retired[a]; ok {
			// Forgetting an ended lifetime lets the next plan create the instance anew.
			printf(out, "%s the record that the lifetime of %s ended at %s\n", verb, termsafe.Escape(a), termsafe.Escape(r.Ended))
			delete(s.Retired, a)
		}
	}
	if dryRun {
		return nil
	}
	if err := b.Write(ctx, s); err != nil {
		return err
	}
	printf(out, "Removed %s from the state (serial %d); their objects stay in the clusters.\n", plural(len(remove), "component"), s.Serial)
	return nil
}

func newStateMvCommand(reg *schema.Registry) *cobra.Command {
	var inputs inputFlags
	var lockTimeout time.Duration
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "mv [DIR] FROM TO",
		Short: "Move component instances to another address in the state",
		Long: `Move what the state of the landscape in DIR (default: the current directory) records at FROM to TO, holding the state lock, after
renaming a block: the next plan then finds the objects FROM applied (generated Secrets included,
whose key material is reused) at TO instead of deleting them and creating them again. FROM and TO
are block, instance or part addresses of the same kind (and component type): a block address
moves every instance of the block and their parts, an instance address the instance and its parts
(from a block without for_each to one with it: gardener state mv DIR shoot.dev 'shoot.dev["a"]').
Nothing in any cluster changes; the next apply rewrites the annotation naming the component on
each object. A moved block in the landscape does the same as part of the plan, where others can
review it. The state must record something at FROM and nothing at TO.`,
		Example: `  gardener state mv landscapes/local shoot.ops shoot.operations --dry-run
  gardener state mv landscapes/local component.manifests.local_addons component.manifests.addons`,
		Args: cobra.RangeArgs(2, 3),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, from, to := dirArg(args[:len(args)-2]), args[len(args)-2], args[len(args)-1]
			return withState(cmd, reg, dir, inputs, func(ctx context.Context, b state.Backend) error {
				return stateMv(ctx, cmd.OutOrStdout(), b, from, to, lockTimeout, dryRun)
			})
		},
	}
	inputs.register(cmd)
	cmd.Flags().DurationVar(&lockTimeout, "lock-timeout", 0, "wait this long for the state lock (default: fail at once when it is held)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print what would move without changing the state")
	return cmd
}

func stateMv(ctx context.Context, out io.Writer, b state.Backend, from, to string, lockTimeout time.Duration, dryRun bool) (err error) {
	unlock, err := lockUnlessDryRun(ctx, b, "state mv", lockTimeout, dryRun)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, unlock()) }()
	s, err := b.Read(ctx)
	if err != nil {
		return err
	}
	s, moved, err := planner.MoveInState(s, from, to)
	if err != nil {
		return fmt.Errorf("nothing was moved: %w", err)
	}
	verb := "Moved"
	if dryRun {
		verb = "Would move"
	}
	for _, m := range moved {
		line := fmt.Sprintf("%s %s to %s", verb, termsafe.Escape(m.From), termsafe.Escape(m.To))
		if c := s.Components[m.To]; c != nil {
			line += " (" + countObjects(c) + ")"
		}
		printLine(out, line)
	}
	if dryRun {
		return nil
	}
	if err := b.Write(ctx, s); err != nil {
		return err
	}
	printf(out, "Moved %s in the state (serial %d); nothing in the clusters changed.\n", plural(len(moved), "record"), s.Serial)
	return nil
}

func newForceUnlockCommand(reg *schema.Registry) *cobra.Command {
	var inputs inputFlags
	var force bool
	cmd := &cobra.Command{
		Use:   "force-unlock [DIR] LOCK_ID",
		Short: "Release the state lock of a process that is gone",
		Long: `Release the state lock with LOCK_ID of the landscape in DIR. A locked state names the lock's ID,
holder and operation. Only release a lock whose holder is no longer running: two processes
changing the state and the clusters at once can lose the record of applied objects. A kubernetes
backend's lock also frees itself one lease duration (60 s) after its holder stopped renewing it.
Asks for confirmation unless --force.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, id := dirArg(args[:len(args)-1]), args[len(args)-1]
			if !force && !confirm(cmd.InOrStdin(), cmd.ErrOrStderr(), fmt.Sprintf("Release the state lock %s of the landscape in %s?\nOnly do this when its holder is no longer running.\nType 'yes' to confirm: ", id, dir)) {
				printLine(cmd.ErrOrStderr(), "Force-unlock cancelled.")
				return exitCode(1)
			}
			return withState(cmd, reg, dir, inputs, func(ctx context.Context, b state.Backend) error {
				if err := b.ForceUnlock(ctx, id); err != nil {
					return err
				}
				printf(cmd.OutOrStdout(), "Released the state lock %s.\n", id)
				return nil
			})
		},
	}
	inputs.register(cmd)
	cmd.Flags().BoolVar(&force, "force", false, "do not ask for confirmation")
	return cmd
}

// confirm asks a question on w and reports whether the answer read from r is "yes".
func confirm(r io.Reader, w io.Writer, question string) bool {
	printf(w, "%s", question)
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && line == "" {
		printLine(w)
		return false
	}
	return strings.TrimSpace(line) == "yes"
}

// withState loads the landscape in dir far enough to know its state backend, opens the backend,
// and runs fn with it; errors are printed as the other commands print them.
func withState(cmd *cobra.Command, reg *schema.Registry, dir string, inputs inputFlags, fn func(context.Context, state.Backend) error) error {
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stderr := cmd.ErrOrStderr()
	b, err := openState(cmd, reg, dir, inputs)
	if err != nil {
		if !errors.Is(err, errReported) {
			printf(stderr, "Error: %v\n", err)
		}
		return exitCode(1)
	}
	if err := fn(ctx, b); err != nil {
		printf(stderr, "Error: %v\n", err)
		return exitCode(1)
	}
	return nil
}

// errReported means the problem was already printed (as diagnostics).
var errReported = errors.New("reported")

// openState returns the state backend of the landscape in dir. The state commands must work on
// a landscape that does not validate (removing a component whose type is gone is one reason to
// run them), so problems outside the landscape block only stop them when the state's cluster
// cannot be evaluated.
func openState(cmd *cobra.Command, reg *schema.Registry, dir string, inputs inputFlags) (state.Backend, error) {
	stderr := cmd.ErrOrStderr()
	res, diags := config.Load(dir, reg, inputs.sources())
	report := func() error {
		if err := diag.WriteText(stderr, diags, res.Files, diagOptions(stderr)); err != nil {
			return err
		}
		return errReported
	}
	l := res.Landscape
	if l == nil || l.Name == "" || landscapeBlockBroken(l, diags) {
		if !diags.HasErrors() {
			return nil, fmt.Errorf("%s declares no landscape block", dir)
		}
		return nil, report()
	}
	connect := func(name string) (*cluster.Client, error) {
		var v cty.Value
		if res.Evaluated != nil {
			v = res.Evaluated.Clusters[name]
		}
		access, err := planner.AccessOf(l.Paths, v)
		if err != nil {
			if diags.HasErrors() {
				return nil, report()
			}
			return nil, err
		}
		return cluster.Connect(access, clusterOptions(0))
	}
	store, err := planner.StateShards(l.State, dir, l.Name, connect)
	if errors.Is(err, errReported) {
		return nil, errReported
	}
	var b state.Backend
	if err == nil {
		b = planner.ShardedState(store, shard.BySeed(res.Evaluated), state.GardenShard, false)
	}
	if err == nil && diags.HasErrors() {
		printLine(stderr, `Warning: the landscape has errors ("gardener validate" shows them); this command only needs its landscape and state blocks.`)
	}
	return b, err
}

// landscapeBlockBroken reports whether an error lies in the landscape block, whose state block
// the state commands rely on. When the block cannot be located (JSON syntax), any error counts.
func landscapeBlockBroken(l *config.Landscape, diags hcl.Diagnostics) bool {
	if !diags.HasErrors() {
		return false
	}
	var block hcl.Range
	if f := l.Files[l.DeclRange.Filename]; f != nil {
		if body, ok := f.Body.(*hclsyntax.Body); ok {
			for _, b := range body.Blocks {
				if b.Type == "landscape" {
					block = b.Range()
				}
			}
		}
	}
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		if block.Filename == "" || d.Subject == nil || block.Overlaps(*d.Subject) {
			return true
		}
	}
	return false
}
