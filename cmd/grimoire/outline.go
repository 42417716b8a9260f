package main

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/grimoire-search/grimoire/retrieve"
)

func (a *cli) outlineCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "outline SLUG",
		Short: "Show a book's chapters and sections",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, closeLib, err := a.svc.OpenLibrary(cmd.Context())
			if err != nil {
				return err
			}
			defer closeLib()
			o, err := lib.Outline(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(o)
			}
			fmt.Fprintf(a.stdout, "%s", field(o.Title))
			if o.Author != "" {
				fmt.Fprintf(a.stdout, " — %s", field(o.Author))
			}
			fmt.Fprintln(a.stdout)
			for _, c := range o.Chapters {
				fmt.Fprintf(a.stdout, "%3d  %s%s\n", c.Index, field(c.Title), retrieve.PageNote("  ", c.PageStart, c.PageEnd))
				if c.OneSection() {
					continue
				}
				for _, s := range c.Sections {
					fmt.Fprintf(a.stdout, "     %3d  %s%s\n", s.Index, field(s.Title), retrieve.PageNote("  ", s.PageStart, s.PageEnd))
				}
			}
			fmt.Fprintf(a.stdout, "\nread one: grimoire section %s CHAPTER SECTION (SECTION 0 where none is listed)\n", field(o.Book))
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}

func (a *cli) sectionCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "section SLUG CHAPTER SECTION",
		Short: "Print one section of a book in full",
		Args:  cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			ch, err1 := strconv.Atoi(args[1])
			sec, err2 := strconv.Atoi(args[2])
			if err1 != nil || err2 != nil {
				return usageError{fmt.Errorf("CHAPTER and SECTION are numbers, as `grimoire outline %s` shows them", args[0])}
			}
			lib, closeLib, err := a.svc.OpenLibrary(cmd.Context())
			if err != nil {
				return err
			}
			defer closeLib()
			s, err := lib.Section(cmd.Context(), args[0], ch, sec, 0, 0)
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(s)
			}
			fmt.Fprintf(a.stdout, "%s\n\n%s\n", field(s.Citation), s.Text)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}
