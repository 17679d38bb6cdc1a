package app

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/wb-sim/wb/experiments"
)

func plotCommand() *cli.Command {
	return &cli.Command{
		Name:      "plot",
		Usage:     "redraw an experiment's figures from its CSVs, without simulating",
		ArgsUsage: "RESULTS_DIR",
		Description: "Example:\n   wb plot results/backfill\n\n" +
			"Reads RESULTS_DIR/config.yaml (the experiment's config, copied there by wb experiment)\n" +
			"and RESULTS_DIR/*.csv, and writes RESULTS_DIR/figures/*.png, *.pdf and *.svg. To change\n" +
			"the figures, edit the figures section of RESULTS_DIR/config.yaml and run wb plot again.",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return errors.New("plot: want one results directory")
			}
			files, findings, err := experiments.Plot(c.Args().First())
			for _, f := range files {
				fmt.Fprintln(c.App.Writer, f)
			}
			printFindings(c.App.ErrWriter, findings)
			return err
		},
	}
}
