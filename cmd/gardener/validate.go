package main

import (
	"encoding/json"
	"io"
	"os"

	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"

	"github.com/declarative-gardener/gardener/engine/config"
	"github.com/declarative-gardener/gardener/engine/diag"
	"github.com/declarative-gardener/gardener/engine/schema"
)

// inputFlags are the flags that give input variables values, shared by validate and plan.
type inputFlags struct {
	vars     []string
	varFiles []string
}

func (f *inputFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&f.vars, "var", nil, "set an input variable: --var NAME=VALUE (repeatable)")
	cmd.Flags().StringArrayVar(&f.varFiles, "var-file", nil, "read input variables from an HCL file of NAME = VALUE lines (repeatable)")
}

func (f *inputFlags) sources() config.InputSources {
	return config.InputSources{Environ: os.Environ(), VarFiles: f.varFiles, Vars: f.vars}
}

func newValidateCommand(reg *schema.Registry) *cobra.Command {
	var asJSON bool
	var inputs inputFlags
	cmd := &cobra.Command{
		Use:   "validate DIR",
		Short: "Check a landscape without touching any cluster",
		Long: `Parse and decode every file of the landscape in DIR, check types, references, cycles,
variable validation rules and component rules, and evaluate everything that is known before
apply. Every problem is reported, each at the place it is in. Exit code 0 when the landscape is
valid, 1 otherwise.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, diags := config.Load(args[0], reg, inputs.sources())
			if asJSON {
				if err := writeValidateJSON(cmd.OutOrStdout(), diags, res.Files); err != nil {
					return err
				}
			} else {
				if err := diag.WriteText(cmd.ErrOrStderr(), diags, res.Files, diag.TextOptions{Color: useColor(cmd.ErrOrStderr())}); err != nil {
					return err
				}
				if !diags.HasErrors() {
					printLine(cmd.OutOrStdout(), "Success! The landscape is valid.")
				}
			}
			if diags.HasErrors() {
				return exitCode(1)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON (see docs/cli.md)")
	inputs.register(cmd)
	return cmd
}

// validateJSONFormat is the version of validate's JSON output; it changes only incompatibly.
const validateJSONFormat = "1.0"

type validateJSON struct {
	FormatVersion string            `json:"format_version"`
	Valid         bool              `json:"valid"`
	ErrorCount    int               `json:"error_count"`
	WarningCount  int               `json:"warning_count"`
	Diagnostics   []diag.Diagnostic `json:"diagnostics"`
}

func writeValidateJSON(w io.Writer, diags hcl.Diagnostics, files map[string]*hcl.File) error {
	out := validateJSON{FormatVersion: validateJSONFormat, Valid: !diags.HasErrors(), Diagnostics: diag.ToJSON(diags, files)}
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			out.ErrorCount++
		} else {
			out.WarningCount++
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
