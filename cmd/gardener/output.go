package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/zclconf/go-cty/cty"

	"github.com/declarative-gardener/gardener/engine/diag"
	"github.com/declarative-gardener/gardener/engine/planner"
	"github.com/declarative-gardener/gardener/engine/render"
	"github.com/declarative-gardener/gardener/engine/schema"
	"github.com/declarative-gardener/gardener/internal/termsafe"
	"github.com/declarative-gardener/gardener/state"
)

// OutputsFormatVersion is the version of `gardener output --json`'s document.
const OutputsFormatVersion = "1.0"

type outputFlags struct {
	inputs        inputFlags
	asJSON, raw   bool
	showSensitive bool
}

func newOutputCommand(reg *schema.Registry) *cobra.Command {
	var f outputFlags
	cmd := &cobra.Command{
		Use:   "output DIR [NAME]",
		Short: "Print the landscape's outputs as the last apply recorded them",
		Long: `Print the outputs (output blocks) of the landscape in DIR as its state records them: every apply
records them, so that this reads no cluster and renders nothing. With NAME, only that output's
value. DIR and NAME may come in either order; a single argument that is not a directory is NAME,
of the landscape in the current directory.

Sensitive outputs are shown as (sensitive value): the state never holds their values. Their values
are printed only when asked for: NAME naming a sensitive output with --raw or --json (as Terraform
does), or --show-sensitive for every output. gardener then renders the landscape against its
clusters (reading its generated Secrets, as a plan does, but observing and changing nothing) and
prints the values it renders now.

An output the landscape does not have, or that the state does not record yet (the landscape was
never applied with it), is an error (exit 1); so is --raw or --json of an output whose value was
not known at the last apply.`,
		Example: `  gardener output landscapes/local
  gardener output landscapes/local shoot_namespaces --json
  gardener output ops_namespace landscapes/local --raw`,
		Args: cobra.RangeArgs(0, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, name := outputArgs(args)
			if f.raw && name == "" {
				printLine(cmd.ErrOrStderr(), "Error: --raw prints one output: name it (gardener output DIR NAME --raw).")
				return exitCode(1)
			}
			if f.raw && f.asJSON {
				printLine(cmd.ErrOrStderr(), "Error: --raw and --json exclude each other.")
				return exitCode(1)
			}
			return withState(cmd, reg, dir, f.inputs, func(ctx context.Context, b state.Backend) error {
				s, err := b.Read(ctx)
				if err != nil {
					return err
				}
				return printOutputs(ctx, cmd, reg, dir, name, f, s)
			})
		},
	}
	f.inputs.register(cmd)
	fl := cmd.Flags()
	fl.BoolVar(&f.asJSON, "json", false, "print the outputs as a JSON document, or NAME's value as JSON")
	fl.BoolVar(&f.raw, "raw", false, "print NAME's value (a string, number or bool) as it is, without quotes or a line break, for scripts")
	fl.BoolVar(&f.showSensitive, "show-sensitive", false, "print the values of sensitive outputs too (renders the landscape against its clusters)")
	return cmd
}

// outputArgs tells DIR from NAME: the argument that is a directory is DIR, and without one the
// landscape is the current directory's.
func outputArgs(args []string) (dir, name string) {
	isDir := func(p string) bool {
		info, err := os.Stat(p)
		return err == nil && info.IsDir()
	}
	switch len(args) {
	case 0:
		return ".", ""
	case 1:
		if isDir(args[0]) {
			return args[0], ""
		}
		return ".", args[0]
	}
	if !isDir(args[0]) && isDir(args[1]) {
		return args[1], args[0]
	}
	return args[0], args[1]
}

// errNoOutputs is returned when the state records no outputs.
var errNoOutputs = errors.New("the state records no outputs: the landscape has no output blocks, or was not applied since they were added (gardener apply records them)")

func printOutputs(ctx context.Context, cmd *cobra.Command, reg *schema.Registry, dir, name string, f outputFlags, s *state.State) error {
	out := cmd.OutOrStdout()
	if name != "" {
		o, ok := s.Outputs[name]
		if !ok {
			if len(s.Outputs) == 0 {
				return fmt.Errorf("no output %q: %w", name, errNoOutputs)
			}
			return fmt.Errorf("the state records no output %q; it records %s", name, strings.Join(slices.Sorted(maps.Keys(s.Outputs)), ", "))
		}
		explicit := f.raw || f.asJSON
		if o.Sensitive && (explicit || f.showSensitive) {
			values, err := sensitiveOutputs(ctx, cmd, reg, dir, f.inputs, []string{name})
			if err != nil {
				return err
			}
			o = values[name]
		}
		switch {
		case explicit && o.Unknown:
			return fmt.Errorf("the value of output %q was not known when the landscape was last applied", name)
		case f.raw:
			return writeRaw(out, name, o.Value)
		case f.asJSON:
			return writeJSON(out, o.Value)
		}
		printLine(out, shownValue(o))
		return nil
	}
	outputs := s.Outputs
	if len(outputs) == 0 {
		if f.asJSON {
			return writeJSON(out, outputsDocument{FormatVersion: OutputsFormatVersion, Outputs: map[string]*state.Output{}})
		}
		printLine(cmd.ErrOrStderr(), "No outputs: "+strings.TrimPrefix(errNoOutputs.Error(), "the state records no outputs: ")+".")
		return nil
	}
	if f.showSensitive {
		var names []string
		for n, o := range outputs {
			if o.Sensitive {
				names = append(names, n)
			}
		}
		if len(names) > 0 {
			values, err := sensitiveOutputs(ctx, cmd, reg, dir, f.inputs, names)
			if err != nil {
				return err
			}
			outputs = maps.Clone(outputs)
			maps.Copy(outputs, values)
		}
	}
	if f.asJSON {
		return writeJSON(out, outputsDocument{FormatVersion: OutputsFormatVersion, Outputs: outputs})
	}
	for _, n := range slices.Sorted(maps.Keys(outputs)) {
		printf(out, "%s = %s\n", n, shownValue(outputs[n]))
	}
	return nil
}

// outputsDocument is `gardener output --json` without NAME (docs/cli.md).
type outputsDocument struct {
	FormatVersion string                   `json:"format_version"`
	Outputs       map[string]*state.Output `json:"outputs"`
}

// shownValue is an output's value for people: indented JSON, or what stands in for it.
func shownValue(o *state.Output) string {
	switch {
	case o.Sensitive && o.Value == nil:
		return "(sensitive value)"
	case o.Unknown:
		return "(known after apply)"
	}
	js, err := json.MarshalIndent(o.Value, "", "  ")
	if err != nil {
		return "(a value that cannot be shown: " + err.Error() + ")"
	}
	return string(js)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeRaw writes a string, number or bool as it is, as Terraform's -raw does; on a terminal it is
// escaped like every text for people (termsafe), elsewhere (a pipe, a file) it is the value's bytes.
func writeRaw(w io.Writer, name string, v any) error {
	var text string
	switch x := v.(type) {
	case string:
		text = x
	case bool:
		text = strconv.FormatBool(x)
	case float64:
		text = strconv.FormatFloat(x, 'f', -1, 64)
	case int64:
		text = strconv.FormatInt(x, 10)
	case json.Number:
		text = x.String()
	case nil:
		return fmt.Errorf("output %q is null; --raw prints strings, numbers and bools", name)
	default:
		return fmt.Errorf("output %q is not a string, number or bool; print it with --json", name)
	}
	if useColor(w) {
		text = termsafe.Text(text)
	}
	_, err := io.WriteString(w, text)
	return err
}

// sensitiveOutputs renders the landscape against its clusters (planner.Evaluate, with the state
// read without its lock) and returns the named outputs with their values.
func sensitiveOutputs(ctx context.Context, cmd *cobra.Command, reg *schema.Registry, dir string, inputs inputFlags, names []string) (map[string]*state.Output, error) {
	out, diags := planner.Evaluate(planner.Options{
		Dir: dir, Schemas: reg, Renderers: catalogRenderers(), Inputs: inputs.sources(),
		Connect:   planner.LiveConnector(clusterOptions(0)),
		ReadState: stateReader(ctx),
	})
	if out.Load != nil {
		if err := diag.WriteText(cmd.ErrOrStderr(), diags, out.Load.Files, diag.TextOptions{Color: useColor(cmd.ErrOrStderr())}); err != nil {
			return nil, err
		}
	}
	if diags.HasErrors() || out.Load == nil || out.Load.Evaluated == nil {
		return nil, errors.New("the landscape could not be rendered, so its sensitive outputs cannot be shown")
	}
	values := map[string]*state.Output{}
	for _, n := range names {
		v, ok := out.Load.Evaluated.Outputs[n]
		if !ok {
			return nil, fmt.Errorf("the landscape has no output %q any more", n)
		}
		values[n] = sensitiveValue(v)
	}
	return values, nil
}

// sensitiveValue is an evaluated output with its value, sensitive or not.
func sensitiveValue(v cty.Value) *state.Output {
	unmarked, _ := v.UnmarkDeep()
	o := &state.Output{Sensitive: true}
	if !unmarked.IsWhollyKnown() {
		o.Unknown = true
		return o
	}
	js, err := render.JSONValue(unmarked)
	if err != nil {
		o.Unknown = true
		return o
	}
	o.Value = js
	return o
}
