package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/grimoire-search/grimoire/eval"
	"github.com/grimoire-search/grimoire/fault"
)

func (a *cli) evalCompareCmd() *cobra.Command {
	var modeA, modeB string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "compare A B",
		Short: "Test two eval runs' per-query files against each other",
		Long: `compare pairs the queries of two runs (per-query files of ` + "`grimoire eval`" + `, or
folders of them) and prints, per collection, kind of question and mode, for
every metric: the number of pairs, each run's mean, the difference B − A,
and the two-sided p-value of a paired randomisation test. The test flips
the sign of each query's difference at random (every assignment when 16
queries or fewer differ, else 20,000 with a fixed seed) and counts how often
the mean difference is at least as far from zero as the one seen: a small p says
the difference is unlikely to be noise between these queries.

Queries pair by collection, id and mode. --a-mode and --b-mode pair A's
runs of one mode with B's of another instead (A and B may be the same file:
--a-mode bm25 --b-mode fts); one alone compares that mode only.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case modeA == "" && modeB != "":
				modeA = modeB
			case modeB == "" && modeA != "":
				modeB = modeA
			}
			var runs [2][]eval.Record
			for i, p := range args {
				recs, err := eval.ReadRecords(p)
				if err != nil {
					return &fault.Error{Code: fault.Invalid, Msg: "read per-query results", Err: err}
				}
				runs[i] = recs
			}
			cmp, un, err := eval.Compare(runs[0], runs[1], modeA, modeB)
			if err != nil {
				return &fault.Error{Code: fault.Invalid, Msg: "compare " + args[0] + " and " + args[1], Err: err}
			}
			if un.OnlyA > 0 || un.OnlyB > 0 {
				fmt.Fprintf(a.stderr, "grimoire: warning: %s only in A and %d only in B are left out\n", plural(un.OnlyA, "query"), un.OnlyB)
			}
			if len(cmp) == 0 {
				return fault.Errorf(fault.Invalid, "no query of %s pairs with one of %s", args[0], args[1])
			}
			if asJSON {
				return a.printJSON(cmp)
			}
			tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "COLLECTION\tKIND\tMODE\tMETRIC\tPAIRS\tA\tB\tB−A\tP")
			for _, c := range cmp {
				mode := c.ModeA
				if c.ModeB != c.ModeA {
					mode = c.ModeA + " → " + c.ModeB
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%.4f\t%.4f\t%+.4f\t%s\n", field(c.Collection), field(c.Kind), field(mode),
					field(c.Metric), c.Pairs, c.MeanA, c.MeanB, c.Diff, pValue(c.P))
			}
			return tw.Flush()
		},
	}
	f := cmd.Flags()
	f.StringVar(&modeA, "a-mode", "", "compare A's runs of this mode")
	f.StringVar(&modeB, "b-mode", "", "with B's runs of this mode")
	f.BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}

// pValue prints a p-value with the digits it has.
func pValue(p float64) string {
	s := fmt.Sprintf("%.4f", p)
	if p < 0.001 {
		s = fmt.Sprintf("%.1e", p)
	}
	return strings.TrimSpace(s)
}
