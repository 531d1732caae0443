package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/pmezard/go-difflib/difflib"
	"github.com/spf13/cobra"

	"github.com/declarative-gardener/gardener/engine/diag"
	"github.com/declarative-gardener/gardener/engine/format"
	"github.com/declarative-gardener/gardener/engine/landscapefs"
)

func newFmtCommand() *cobra.Command {
	var check, diff, recursive bool
	cmd := &cobra.Command{
		Use:   "fmt [PATH...]",
		Short: "Rewrite landscape files in canonical format",
		Long: `Rewrite *.hcl landscape files in the canonical HCL format and print the names of the
files it changed. PATH may be a file or a directory (default: the current directory); "-" reads
standard input and writes the formatted result to standard output.

With --check nothing is written: the files that would change are listed and the exit code is 1
if there are any. Files with syntax errors are reported and left untouched (exit code 1).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				args = []string{"."}
			}
			return runFmt(cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr(), args, fmtOptions{check: check, diff: diff, recursive: recursive})
		},
	}
	cmd.Flags().BoolVar(&check, "check", false, "write nothing; list files that are not formatted and exit 1 if there are any")
	cmd.Flags().BoolVar(&diff, "diff", false, "print the changes as a unified diff")
	cmd.Flags().BoolVar(&recursive, "recursive", false, "also format files in subdirectories")
	return cmd
}

type fmtOptions struct{ check, diff, recursive bool }

func runFmt(stdin io.Reader, stdout, stderr io.Writer, args []string, opts fmtOptions) error {
	if len(args) == 1 && args[0] == "-" {
		return fmtStdin(stdin, stdout, stderr, opts)
	}
	for _, a := range args {
		if a == "-" {
			return fmt.Errorf("fmt: \"-\" (standard input) cannot be combined with other paths")
		}
	}
	paths, err := format.Files(args, opts.recursive)
	if err != nil {
		return err
	}
	var diags hcl.Diagnostics
	files := diag.Files{}
	failed, unformatted := false, false
	for _, path := range paths {
		src, err := landscapefs.ReadRegular(path) // never a FIFO, a device or a huge file
		if err != nil {
			printf(stderr, "Error: %v\n", err)
			failed = true
			continue
		}
		formatted, file, d := format.Source(src, path)
		files[path] = file
		if d.HasErrors() {
			diags = append(diags, d...)
			continue
		}
		if !format.Changed(src, formatted) {
			continue
		}
		unformatted = true
		if opts.diff {
			if err := writeUnifiedDiff(stdout, path, src, formatted); err != nil {
				return err
			}
		} else {
			printLine(stdout, path)
		}
		if !opts.check {
			if err := format.WriteFile(path, formatted); err != nil {
				printf(stderr, "Error: %v\n", err)
				failed = true
			}
		}
	}
	if len(diags) > 0 {
		if err := diag.WriteText(stderr, diags, files, diagOptions(stderr)); err != nil {
			return err
		}
		failed = true
	}
	if failed || (opts.check && unformatted) {
		return exitCode(1)
	}
	return nil
}

func fmtStdin(stdin io.Reader, stdout, stderr io.Writer, opts fmtOptions) error {
	src, err := io.ReadAll(stdin)
	if err != nil {
		return fmt.Errorf("fmt: read standard input: %w", err)
	}
	const name = "<stdin>"
	formatted, file, diags := format.Source(src, name)
	if diags.HasErrors() {
		if err := diag.WriteText(stderr, diags, diag.Files{name: file}, diagOptions(stderr)); err != nil {
			return err
		}
		return exitCode(1)
	}
	switch {
	case opts.diff:
		if err := writeUnifiedDiff(stdout, name, src, formatted); err != nil {
			return err
		}
	case !opts.check:
		if _, err := stdout.Write(formatted); err != nil {
			return err
		}
	}
	if opts.check && format.Changed(src, formatted) {
		return exitCode(1)
	}
	return nil
}

func writeUnifiedDiff(w io.Writer, path string, before, after []byte) error {
	text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A:        splitLines(before),
		B:        splitLines(after),
		FromFile: "a/" + path,
		ToFile:   "b/" + path,
		Context:  3,
	})
	if err != nil {
		return fmt.Errorf("fmt: diff %s: %w", path, err)
	}
	// The diff is for people: what it quotes of the files is escaped like everything printed.
	printf(w, "%s", text)
	return nil
}

// splitLines splits text into lines that keep their newline, as a unified diff wants them; unlike
// difflib.SplitLines it adds no empty line after a final newline.
func splitLines(text []byte) []string {
	lines := strings.SplitAfter(string(text), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
