// Command wb is a workbench for GPU runtime prediction and cluster
// scheduling research.
//
//	wb simulate --trace datasets/data/swf/KTH-SP2-1996-2.1-cln.swf.gz --backfill easy --estimate user --out results/kth
//
// Run `wb --help` and `wb help COMMAND` for the commands and their flags.
// The command is package app (cmd/wb/app), which a program of one's own
// runs with scheduling parts of its own registered.
package main

import "github.com/wb-sim/wb/cmd/wb/app"

func main() { app.Main() }
