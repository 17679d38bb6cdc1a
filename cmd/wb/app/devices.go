package app

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/predictor"
	"github.com/wb-sim/wb/profiler/nvml"
)

func devicesCommand() *cli.Command {
	return &cli.Command{
		Name:  "devices",
		Usage: "list this machine's GPUs (through NVML) and CPU, with the specs the predictor uses for each",
		Description: "A GPU is matched to the predictor's device table by its name and memory\n" +
			"(wb predict --list shows the table); the CPU's peak is estimated from\n" +
			"/proc/cpuinfo and cpufreq, its memory bandwidth is a default unless measured.",
		Action: func(c *cli.Context) error {
			return printDevices(c.App.Writer, nvml.Open)
		},
	}
}

// printDevices lists the GPUs open finds and the local CPU.
func printDevices(w io.Writer, open func() (nvml.Source, error)) error {
	fmt.Fprintln(w, "GPUs:")
	src, err := open()
	var gpus []nvml.Info
	if err == nil {
		gpus, err = src.Devices()
		src.Close()
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	switch {
	case err != nil:
		fmt.Fprintf(w, "  NVML not available: %v\n", err)
	case len(gpus) == 0:
		fmt.Fprintln(w, "  none (NVML lists no GPU)")
	default:
		fmt.Fprintln(tw, "  #\tNAME\tMEMORY GiB\tMAX SM/MEM MHZ\tDRIVER\tCUDA\tPREDICTOR DEVICE\tFP32 TFLOP/S\tMATRIX TF32/FP16/BF16 TFLOP/S\tGB/S")
		for _, g := range gpus {
			fmt.Fprintf(tw, "  %d\t%s\t%.1f\t%.0f/%.0f\t%s\t%s\t", g.Index, g.Name, float64(g.MemoryBytes)/(1<<30), g.SMClockMaxMHz, g.MemClockMaxMHz, g.Driver, g.CUDA)
			name := nvml.TableName(g.Name, g.MemoryBytes)
			d, err := predictor.LookupDevice(name)
			if name == "" || err != nil {
				fmt.Fprintln(tw, "none (not in the table)\t\t\t")
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\n", d.Name, peaks(d))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	cpu := predictor.LocalCPU()
	fmt.Fprintf(w, "\nCPU: %s, %d cores, %.0f MHz\n", cpu.Display, cpu.SMs, cpu.BoostClockMHz)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  PREDICTOR DEVICE\tFP32 TFLOP/S\tMATRIX TF32/FP16/BF16 TFLOP/S\tGB/S")
	fmt.Fprintf(tw, "  %s\t%s\n", cpu.Name, peaks(&cpu))
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range cpu.Sources {
		fmt.Fprintln(w, "  "+s)
	}
	return nil
}

// peaks is a device's fp32 vector peak, matrix peaks and memory bandwidth
// as tab-separated columns; "-" for a matrix precision it has no unit for.
func peaks(d *predictor.Device) string {
	m := ""
	for i, p := range []dnn.Precision{dnn.TF32, dnn.FP16, dnn.BF16} {
		if i > 0 {
			m += "/"
		}
		if v := d.PeakMatrix[p]; v > 0 {
			m += fmt.Sprintf("%.1f", v/1e12)
		} else {
			m += "-"
		}
	}
	return fmt.Sprintf("%.2f\t%s\t%.0f", d.Peak(dnn.FP32, false)/1e12, m, d.MemBandwidth/1e9)
}
