package app

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/wb-sim/wb/datasets/neusight"
	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/predictor"
	"github.com/wb-sim/wb/predictor/gavelcheck"
	"github.com/wb-sim/wb/predictor/gpu"
	"github.com/wb-sim/wb/profiler/cpu"
	"github.com/wb-sim/wb/profiler/onednn"
)

func predictCommand() *cli.Command {
	return &cli.Command{
		Name:      "predict",
		Usage:     "predict a model's iteration time: the analytical (Paleo) model on a device of the table, or the GPU op model from a spec sheet",
		ArgsUsage: "MODEL",
		Description: "Examples:\n" +
			"   wb predict resnet50 --device v100 --batch 128 --precision fp32\n" +
			"   wb predict bert-base --device h100-sxm --batch 32 --precision bf16 --gpus 8 --interconnect nvlink\n" +
			"   wb predict --list                 # models and devices\n" +
			"   wb predict --validate gavel       # against Gavel's measured iteration times\n" +
			"   wb predict resnet50 --device v100 --batch 64 --gpu-model   # layers timed by the GPU op model\n" +
			"   wb predict gpt3-2.7b --device-spec NVIDIA_H100_80GB_HBM3 --seq 2048 --batch 1 --mode train\n" +
			"   wb predict --model-config datasets/data/neusight/models/llama2_7b.json --device-spec Tesla_T4 --seq 1024 --batch 1\n" +
			"   wb predict bert-large --device-spec h100-sxm,h200-sxm,a100-80,l4 --seq 512 --batch 8 --mode train   # side by side\n" +
			"   wb predict gpt2-large --device-spec NVIDIA_A100-SXM4-40GB --mode train --seq 1024 --batch 16 --parallel tp4\n" +
			"   wb predict --validate neusight [DIR] --out OUT   # NeuSight's GPU labels, leaving each GPU out\n\n" +
			"With --device-spec (a spec sheet in NeuSight's format, a bundled one's name, or a GPU of\n" +
			"the table) the GPU op model predicts a Hugging Face model (--model-config, or bert-large,\n" +
			"gpt2-large, gpt3-xl (NeuSight's config: 2.9 B, not GPT-3 XL's 1.3 B), gpt3-2.7b, opt-1.3b,\n" +
			"switch-xl4, llama2-7b) kernel by kernel, in fp32, from the spec sheet alone; --parallel\n" +
			"splits a GPT-2 config's training iteration over a node's GPUs as Megatron-LM does (data,\n" +
			"tensor, pipeline parallel). Otherwise:\n\n" +
			"A layer's time is max(FLOPs / (peak × efficiency), bytes / (bandwidth × efficiency),\n" +
			"host floor) per pass (--combine sum adds the first two, as Paleo does); the host floor is\n" +
			"the pass's operators × 53 µs plus 5 µs per further library kernel. An iteration is\n" +
			"forward + backward + update, plus the gradient all-reduce over --gpus (ring, tree or a\n" +
			"parameter server).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "device", Aliases: []string{"d"}, Value: "v100", Usage: "device (wb predict --list)"},
			&cli.IntFlag{Name: "batch", Aliases: []string{"b"}, Value: 32, Usage: "batch size per GPU (or in all, with --strong; with --parallel the global batch)", Action: between("batch", 1, 1<<24, "at most 2^24; with --device-spec at most 2^20")},
			&cli.StringFlag{Name: "precision", Aliases: []string{"p"}, Value: "fp32", Usage: "fp32, tf32, fp16 or bf16"},
			&cli.IntFlag{Name: "gpus", Aliases: []string{"g"}, Value: 1, Usage: "data-parallel GPUs", Action: between("gpus", 1, 1<<20, "at most 2^20")},
			&cli.StringFlag{Name: "interconnect", Usage: "nvlink or pcie (default: the best the device has)"},
			&cli.Float64Flag{Name: "allreduce-gbps", Usage: "--gpus > 1: the all-reduce's bus bandwidth in GB/s, as nccl-tests reports busbw on your cluster, in place of the link's; with --parallel, on one node that of the gradients' data-parallel all-reduce, and past one node's 8 GPUs (which need it) that of the traffic between nodes (a data-parallel group spanning nodes, a pipeline's sends and tied embedding where they cross)", DefaultText: "the link's bandwidth × 0.8"},
			&cli.StringFlag{Name: "comm", Value: "ring", Usage: "gradient exchange: ring, tree or ps"},
			&cli.BoolFlag{Name: "strong", Usage: "strong scaling: split --batch over the GPUs"},
			&cli.StringFlag{Name: "combine", Value: "max", Usage: "a layer's compute and memory time: max (roofline) or sum (Paleo; not with --predictor, whose corrections are to the max)"},
			&cli.IntFlag{Name: "top", Value: 15, Usage: "layers shown, longest first", Action: atLeast("top", 0)},
			&cli.BoolFlag{Name: "json", Usage: "print the whole prediction as JSON"},
			&cli.BoolFlag{Name: "list", Usage: "list the models and devices"},
			&cli.StringFlag{Name: "validate", Usage: "compare with measurements: gavel, or neusight [DIR] (default DIR: the bundled data)"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "--validate neusight: write OUT/predictions.csv and OUT/figures"},
			&cli.BoolFlag{Name: "ops", Usage: "--validate neusight: also score every op measurement, leaving its GPU out, per op family and per GPU (about 60 s); with --out, every op's prediction in OUT/ops.csv.gz"},
			&cli.BoolFlag{Name: "nodes", Usage: "--validate neusight: also score the kernels of the labels' own graphs (labels/<GPU>/<label>.csv.gz: one layer's torch.fx nodes, each timed), leaving their GPU out, per GPU and op family"},
			&cli.BoolFlag{Name: "nested", Usage: "--validate neusight: choose each left-out GPU's tree depth (3 or 6; the shipped model's is 6, fixed beforehand) by leave-one-GPU-out cross-validation over the other GPUs' ops, and report the labels with those models (58 s on a 2-core Xeon VM, 1.4 GB at most; the inner models uncalibrated, so that no label reaches the choice; the outer ones calibrated, each label's network left out of the calibration)"},
			&cli.BoolFlag{Name: "in-sample", Usage: "--validate neusight: also predict the labels with the shipped model as it is (it learned from the training GPUs' ops and was calibrated by their labels): not a result, but the gap to the held-out figures is what a spec sheet leaves out (each GPU's level of efficiency), and what is left in sample is what the lowering and the model's structure miss"},
			&cli.BoolFlag{Name: "probe-level", Usage: "--validate neusight: also predict each GPU's labels at the level two probes would measure on it (what its own large adds and batched products ran at against the model that predicts it: the spec sheet plus two numbers measured on the GPU), beside the sheet alone (the same models, trained once)"},
			&cli.StringFlag{Name: "device-spec", Usage: "GPU spec sheet (JSON: Device name, Dev_Mem GB (counted as GiB, as CUDA reports it), Mem_Bw GB/s, Num_Sm, Core_Per_SM fp32 lanes, Freq boost MHz, SingleFLOPs fp32 GFLOP/s, L2Cache MB), a bundled one's name or a table GPU: predict with the GPU op model; several, separated by commas, side by side (time, samples/s, time over the fastest's, memory)"},
			&cli.StringFlag{Name: "model-config", Usage: "a Hugging Face config.json, or the model's folder that holds it (bert, gpt2, opt, roberta read as bert; with --device-spec also llama, mistral and qwen2 read as llama, switch_transformers)"},
			&cli.IntFlag{Name: "seq", Value: 512, Usage: "tokens per sequence of a transformer given as a Hugging Face config (--model-config, or bert-large, gpt2-large, gpt3-xl, gpt3-2.7b, opt-1.3b with --device or --device-spec; switch-xl4 and llama2-7b with --device-spec alone), not of the zoo's own networks (bert-base, gpt2, transformer: their sequence is built in)", Action: between("seq", 1, 1<<20, "at most 2^20")},
			&cli.StringFlag{Name: "mode", Value: "inf", Usage: "with --device-spec: inf (forward) or train (forward + backward)"},
			&cli.StringFlag{Name: "parallel", Usage: "with --device-spec and --mode train: split a GPT-2-config model's iteration over GPUs as Megatron-LM does (one node, or more with --allreduce-gbps), --batch then the global batch: dpN, tpN, ppN_M (N stages, M micro-batches), joined by - (dp2-tp4); the GPUs talk over --interconnect, or --allreduce-gbps"},
			&cli.BoolFlag{Name: "gpu-model", Usage: "time the layer passes it covers (convolutions, products, LSTMs, norms, elementwise) with the GPU op model learned from NeuSight's measured ops, fp32, and the host cost and device scale fitted with it to Gavel's iterations (53 µs, the K80 ×1.83, the V100 ×0.92), as the scheduler's model estimate does; with --validate gavel, trained without the GPUs of the scored GPU's chip"},
			&cli.StringFlag{Name: "predictor", Usage: "multiply each layer pass's time by the learned correction in this JSON (wb train)"},
		},
		Action: func(c *cli.Context) error {
			w := c.App.Writer
			if c.Bool("list") {
				if err := onlyFlags(c, "--list", "list"); err != nil {
					return err
				}
				if c.NArg() > 0 {
					return cli.Exit(fmt.Sprintf("predict: --list lists every model and device; it takes no model (%s): drop one or the other", c.Args().First()), 2)
				}
				return listModels(w)
			}
			if v := c.String("validate"); v != "" {
				if v == "neusight" {
					if err := onlyFlags(c, "--validate neusight", "validate", "out", "ops", "nested", "nodes", "probe-level", "in-sample"); err != nil {
						return err
					}
					if c.NArg() > 1 {
						return cli.Exit(fmt.Sprintf("predict: --validate neusight takes one folder (NeuSight's layout), and was given %d: %s", c.NArg(), strings.Join(c.Args().Slice(), " ")), 2)
					}
					return validateNeuSight(c)
				}
				if v != "gavel" {
					return fmt.Errorf("predict: unknown validation %q (known: gavel, neusight)", v)
				}
				if err := onlyFlags(c, "--validate gavel", "validate", "gpu-model", "combine"); err != nil {
					return err
				}
				if c.NArg() > 0 {
					return cli.Exit(fmt.Sprintf("predict: --validate gavel takes no argument (it scores the bundled Gavel measurements), and was given %s", strings.Join(c.Args().Slice(), " ")), 2)
				}
				var models map[string]predictor.LayerModel
				if c.Bool("gpu-model") {
					var err error
					if models, err = gavelcheck.LayerModels(c.App.ErrWriter); err != nil {
						return err
					}
				}
				val, err := gavelcheck.ValidateGavel(predictor.Combine(c.String("combine")), models)
				if err != nil {
					return err
				}
				return val.Print(w)
			}
			if c.String("device-spec") != "" {
				read := []string{"device-spec", "model-config", "seq", "batch", "mode", "json", "parallel"}
				if c.IsSet("parallel") {
					read = append(read, "interconnect", "allreduce-gbps")
				} else if c.IsSet("interconnect") || c.IsSet("allreduce-gbps") {
					return cli.Exit("predict: --interconnect and --allreduce-gbps set how GPUs talk: with --device-spec they need --parallel (dpN, tpN, ppN_M)", 2)
				}
				if c.IsSet("precision") && c.String("precision") != "fp32" {
					return cli.Exit(fmt.Sprintf("predict: --precision %s: the GPU op model learned from fp32 kernels only (NeuSight's measurements), and times fp32; for other precisions use --device (the analytical path)", c.String("precision")), 2)
				}
				read = append(read, "precision") // fp32, what it times
				if err := onlyFlags(c, "--device-spec (the GPU op model, fp32; one GPU unless --parallel)", read...); err != nil {
					return err
				}
				if c.NArg() > 1 || (c.NArg() == 0) == (c.String("model-config") == "") {
					return errors.New("predict: with --device-spec, name one model or give --model-config PATH/config.json")
				}
				return predictGPU(c)
			}
			if err := onlyFlags(c, "the analytical path (a training iteration on --device)", "device", "batch", "precision", "gpus", "interconnect",
				"allreduce-gbps", "comm", "strong", "combine", "top", "json", "gpu-model", "predictor", "model-config", "seq"); err != nil {
				return err
			}
			if c.IsSet("comm") && c.String("comm") == "" {
				return cli.Exit("predict: --comm is empty: want ring, tree or ps", 2)
			}
			if c.IsSet("top") && c.Bool("json") {
				// (the JSON holds every layer: --top shortens the table alone)
				return cli.Exit("predict: --top shortens the printed table; --json gives every layer: drop one", 2)
			}
			if c.IsSet("interconnect") && c.IsSet("allreduce-gbps") {
				// (the bandwidth given is the all-reduce's, whatever the link)
				return cli.Exit("predict: --interconnect and --allreduce-gbps both set how fast gradients are exchanged, and --allreduce-gbps would win unsaid: give one", 2)
			}
			if c.Int("gpus") == 1 {
				// how GPUs exchange gradients: nothing to exchange on one
				for _, f := range []string{"interconnect", "allreduce-gbps", "comm", "strong"} {
					if c.IsSet(f) {
						return cli.Exit(fmt.Sprintf("predict: --%s sets how data-parallel GPUs work together: it needs --gpus 2 or more", f), 2)
					}
				}
			}
			var net *dnn.Network
			seq := 0     // a Hugging Face config's tokens per sequence; wb's own networks have theirs built in
			sample := "" // a zoo network's sample, as its entry says (its sequence, for a sequence model)
			if path := c.String("model-config"); path != "" {
				if c.NArg() != 0 {
					return errors.New("predict: name a model or give --model-config, not both")
				}
				cfg, err := dnn.ReadHFConfig(path)
				if err != nil {
					return fmt.Errorf("predict: %w", err)
				}
				configNotes(c.App.ErrWriter, cfg, c.Int("seq"))
				if net, err = cfg.Network(c.Int("seq")); err != nil {
					return fmt.Errorf("predict: %w", err)
				}
				seq = c.Int("seq")
			} else {
				if c.NArg() != 1 {
					return errors.New("predict: want one model (wb predict --list shows them)")
				}
				var err error
				if net, err = dnn.Model(c.Args().First()); err != nil {
					// the Hugging Face models bundled with NeuSight's data
					cfg, ok, herr := bundledHFConfig(c.Args().First())
					switch {
					case herr != nil:
						return fmt.Errorf("predict: %w", herr)
					case !ok:
						return err
					}
					if net, err = cfg.Network(c.Int("seq")); err != nil {
						return fmt.Errorf("predict: %w", err)
					}
					seq = c.Int("seq")
				} else if sample = zooSample(c.Args().First()); c.IsSet("seq") {
					if sample == "" {
						sample = "its own input"
					}
					return fmt.Errorf("predict: --seq: %s is wb's own network, built for %s; --seq sets the tokens of a "+
						"Hugging Face config's sequence (--model-config, or %s)", c.Args().First(), sample, strings.Join(analyticalHF(), ", "))
				}
			}
			if seq == 1 && c.Bool("gpu-model") {
				// the op model's products of one row (the roofline's
				// are a stream of the weights; the spec-sheet path says it
				// with its figures: decodingNote)
				fmt.Fprintln(c.App.ErrWriter, "note: "+decodingShape)
			}
			dev, err := predictor.LookupDevice(c.String("device"))
			if errors.Is(err, predictor.ErrUnknownDevice) {
				return fmt.Errorf("%w; a GPU the table lacks is predicted from its spec sheet: --device-spec FILE.json (NeuSight's format, wb predict --help)", err)
			}
			if err != nil {
				return err
			}
			prec, err := dnn.ParsePrecision(c.String("precision"))
			if err != nil {
				return err
			}
			if g := c.Float64("allreduce-gbps"); !(g >= 0) || math.IsInf(g, 0) || (c.IsSet("allreduce-gbps") && g < 0.01) || g > 1e5 {
				return cli.Exit(fmt.Sprintf("predict: --allreduce-gbps %g: want the all-reduce's bus bandwidth in GB/s, from 0.01 to 100000", g), 2)
			}
			// a precision the device has no arithmetic of runs at its fp32 rate
			// (with the precision's bytes): said, not silent
			if p := predictor.Precision(prec); p != predictor.Precision(dnn.FP32) && dev.PeakMatrix[p] <= 0 && dev.PeakVector[p] <= 0 {
				fmt.Fprintf(c.App.ErrWriter, "note: %s has no %s arithmetic: computed at its fp32 rate, with %s's bytes\n", dev.Name, prec, prec)
			}
			if g := c.Int("gpus"); c.Bool("strong") && g > 1 && c.Int("batch")%g != 0 {
				// as --parallel dpN refuses it: a GPU runs whole samples
				return cli.Exit(fmt.Sprintf("predict: --strong: --batch %d does not split over --gpus %d: give a batch that %d divides", c.Int("batch"), g, g), 2)
			}
			opts := predictor.Options{
				Batch: c.Int("batch"), Precision: prec, GPUs: c.Int("gpus"), Interconnect: c.String("interconnect"), AllReduce: c.Float64("allreduce-gbps") * 1e9,
				Comm: predictor.Comm(c.String("comm")), StrongScaling: c.Bool("strong"), Combine: predictor.Combine(c.String("combine")),
			}
			var learned *predictor.Learned
			if path := c.String("predictor"); path != "" {
				if opts.Combine == predictor.Sum {
					// a correction is a ratio to the roofline's max it learned
					// on: on a sum it would scale another quantity
					return cli.Exit("predict: --combine sum with --predictor: the learned corrections are ratios to the roofline's max of compute and memory time, "+
						"which they were trained on; drop --combine (or --predictor, for Paleo's sum uncorrected)", 2)
				}
				l, err := predictor.LoadLearned(path)
				if err != nil {
					return fmt.Errorf("predict: %w", err)
				}
				if err := l.AppliesTo(dev); err != nil {
					return fmt.Errorf("predict: %s: %w", path, err)
				}
				if err := l.AppliesAt(prec); err != nil {
					return fmt.Errorf("predict: %s: %w", path, err)
				}
				opts.Corrector, learned = l, l
				dev = l.Device(dev) // its corrections are ratios to the machine it learned from
				if note := otherMachineNote(l, dev); note != "" {
					fmt.Fprintln(c.App.ErrWriter, "predict: "+path+": "+note)
				}
				if l.NeedsImpl() {
					// its features include the kernels oneDNN picks for
					// each convolution: ask oneDNN, as the profiles recorded
					b, err := onednn.New()
					if err != nil {
						return fmt.Errorf("predict: %s learned from the kernels oneDNN picks for each convolution, and wb asks oneDNN for them: %w", path, err)
					}
					opts.Impl = b.Impl
				}
			}
			if c.Bool("gpu-model") {
				if c.String("predictor") != "" || prec != dnn.FP32 {
					return errors.New("predict: --gpu-model predicts fp32 alone, without --predictor")
				}
				if _, err := gpu.SpecOfDevice(dev); err != nil {
					return fmt.Errorf("predict: --gpu-model: %w", err)
				}
				m, err := gpu.Shipped()
				if err != nil {
					return err
				}
				// as the scheduler's model estimate predicts: with the host
				// cost and device scale fitted with this model to Gavel's
				// iterations
				opts.Layers, opts.KernelOverhead, opts.DeviceScale = m, gpu.HostOverhead, gpu.DeviceScalesFor(m)[dev.Name]
			}
			p, err := predictor.Predict(net, dev, opts)
			if err != nil {
				return err
			}
			if learned != nil {
				if un := learned.Train.Unlearned(p); len(un) > 0 {
					fmt.Fprintf(c.App.ErrWriter, "predict: %s learned no row of %s: the correction of those passes is its answer for work it never saw, which can be far off; "+
						"train it on profiles that hold them (a model's, or a sweep: wb profile sweep:OP:N)\n", c.String("predictor"), strings.Join(un, ", "))
				}
			}
			// a training step with SGD and momentum keeps three copies of
			// the weights (the weights, their gradients, the momentum) and
			// the activations its backward pass needs
			per := p.Options.PerGPU()
			weights := float64(net.Params()) * float64(prec.Size())
			gpuBytes := dev.MemBytes
			if dev.Kind != predictor.KindGPU {
				gpuBytes = 0 // a CPU's memory is the host's, not checked
			}
			mem := newMemoryFloor(memoryFloor{Precision: prec, Weights: weights, Gradients: weights, Momentum: weights,
				Activations: net.Kept(per, prec), PerGPU: per}, gpuBytes)
			warnMemory(c.App.ErrWriter, net.Name, dev.Display, mem)
			var notes []string // (said on stderr, and in --json's notes)
			if n := c.Int("gpus"); n > gpu.NodeGPUs && !c.IsSet("allreduce-gbps") && dev.Kind == predictor.KindGPU {
				// no node holds them: the network between nodes is not known
				notes = append(notes, fmt.Sprintf("%d GPUs are more than a node's %d: their all-reduce is timed on the node's link throughout; give --allreduce-gbps, the bus bandwidth your cluster's all-reduce reaches across nodes", n, gpu.NodeGPUs))
			}
			for _, n := range notes {
				fmt.Fprintf(c.App.ErrWriter, "note: %s\n", n)
			}
			// what timed it, said in the header: two saved outputs of one
			// model and device could not be told apart (a reviewer's find)
			timedBy := "the analytical model (roofline)"
			switch {
			case c.Bool("gpu-model"):
				rest := "the analytical model for the rest"
				if c.String("combine") == "sum" {
					rest += " (compute and memory times summed)"
				}
				timedBy = fmt.Sprintf("the GPU op model (learned from NeuSight's measured GPU ops, fp32) for the passes it covers, %s; a host cost of %.0f µs a kernel fitted with it to Gavel's iterations", rest, 1e6*gpu.HostOverhead)
			case learned != nil:
				timedBy = "the analytical model with the correction learned in " + c.String("predictor")
			case c.String("combine") == "sum":
				timedBy = "the analytical model (compute and memory times summed, as Paleo does)"
			}
			if c.Bool("json") {
				return writeJSON(w, predictionJSON(p, dev, mem, seq, notes, timedBy))
			}
			if dev.Kind == predictor.KindGPU && !c.Bool("gpu-model") && learned == nil {
				// the roofline alone and the op model can order two GPUs
				// differently (the A10 and A100, the L4 and V100: a
				// reviewer's find), and nothing said the op model exists
				timedBy += "; --gpu-model times the passes it covers with the GPU op model learned from measured GPU ops, closer to Gavel's measured jobs (wb predict --validate gavel), and the two can rank GPUs differently"
			}
			return printPrediction(w, p, dev, c.Int("top"), seq, sample, timedBy)
		},
	}
}

func listModels(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tPARAMS\tGMACS/SAMPLE\tDESCRIPTION")
	for _, z := range dnn.Zoo() {
		n, err := z.Build()
		if err != nil {
			return err
		}
		desc := z.Description
		if z.Input != "" {
			desc += "; a sample: " + z.Input
		}
		fmt.Fprintf(tw, "%s\t%.2f M\t%.3f\t%s\n", z.Name, float64(n.Params())/1e6, n.MACs()/1e9, desc)
	}
	fmt.Fprintln(tw)
	if _, err := neusight.Bundled(); err != nil {
		fmt.Fprintf(tw, "Hugging Face configs and GPU spec sheets (--device-spec): not listed: %v\n", err)
	} else {
		fmt.Fprintf(tw, "Hugging Face configs bundled with NeuSight's data: with --device-spec %s; on the analytical path (--seq) %s\n",
			strings.Join(slices.Sorted(maps.Keys(gpuModels)), ", "), strings.Join(analyticalHF(), ", "))
		// every folder's sheets --device-spec takes: NeuSight's and the H200's
		_, sheets, _ := neusight.BundledSheet("")
		slices.Sort(sheets)
		fmt.Fprintf(tw, "GPU spec sheets bundled (--device-spec NAME; or a JSON file, or a GPU below): %s\n", strings.Join(sheets, ", "))
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "DEVICE\tFP32 TFLOP/S\tBF16/FP16 MATRIX TFLOP/S\tMEMORY GB/S\tNAME")
	for _, d := range predictor.Devices() {
		half := max(d.Peak(predictor.Precision(dnn.BF16), true), d.Peak(predictor.Precision(dnn.FP16), true))
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%.0f\t%s\n", d.Name, d.Peak(predictor.Precision(dnn.FP32), false)/1e12, half/1e12, d.MemBandwidth/1e9, d.Display)
	}
	cpu := predictor.LocalCPU()
	fmt.Fprintf(tw, "%s\t%.1f\t-\t%.0f\t%s (this machine, from /proc/cpuinfo; wb profile measures it)\n",
		cpu.Name, cpu.Peak(predictor.Precision(dnn.FP32), false)/1e12, cpu.MemBandwidth/1e9, cpu.Display)
	return tw.Flush()
}

// zooSample is the sample of the zoo's network name ("128 WordPiece
// tokens"), or "" where it has none listed.
func zooSample(name string) string {
	for _, z := range dnn.Zoo() {
		if strings.EqualFold(z.Name, name) {
			return z.Input
		}
	}
	return ""
}

// printPrediction writes the prediction p on d: its header (a Hugging Face
// config's sequence seq, or a zoo network's sample), the top layers, the
// totals.
func printPrediction(w io.Writer, p *predictor.Prediction, d *predictor.Device, top, seq int, sample, timedBy string) error {
	o := p.Options
	per := " per GPU"
	switch {
	case o.StrongScaling:
		per = " in all"
	case d.Kind == predictor.KindCPU:
		per = ""
	}
	sequence := ""
	switch {
	case seq > 0:
		sequence = fmt.Sprintf("sequence %d, ", seq)
	case sample != "":
		sequence = "sample: " + sample + ", "
	}
	fmt.Fprintf(w, "%s on %d × %s, %sbatch %d%s, %s\n", p.Model, o.GPUs, d.Display, sequence, o.Batch, per, o.Precision)
	fmt.Fprintf(w, "timed by %s\n\n", timedBy)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if top > 0 { // --top 0: the totals alone
		fmt.Fprintln(tw, "layer\top\tfwd ms\tbwd ms\tupdate ms\ttotal ms\tshare\tbound\t")
	}
	for _, l := range p.TopLayers(top) {
		bound := l.Bound()
		fmt.Fprintf(tw, "%s\t%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.1f%%\t%s\t\n", l.Name, l.Op,
			1e3*l.Time[dnn.Forward], 1e3*(l.Time[dnn.BackwardData]+l.Time[dnn.BackwardWeights]), 1e3*l.Time[dnn.Update],
			1e3*l.Total, 100*l.Total/p.Iteration, bound)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	ms := func(s float64) string { return fmt.Sprintf("%.2f ms", 1e3*s) }
	fmt.Fprintf(w, "\n%d layers; iteration %s = forward %s + backward %s + update %s + communication %s",
		len(p.Layers), ms(p.Iteration), ms(p.Forward), ms(p.Backward), ms(p.Update), ms(p.Communication))
	if p.Input > 0 {
		fmt.Fprintf(w, " + input %s (the host's input pipeline between steps)", ms(p.Input))
	}
	if p.Cold > 0 {
		fmt.Fprintf(w, " + cold operands %s (the learned correction's extra time of a whole iteration over its layers timed alone)", ms(p.Cold))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "compute-bound %.0f%%, memory-bound %.0f%%, host-bound %.0f%%, communication %.0f%%",
		100*p.Compute/p.Iteration, 100*p.Memory/p.Iteration, 100*p.Host/p.Iteration, 100*p.Communication/p.Iteration)
	if p.Input > 0 {
		fmt.Fprintf(w, ", input %.0f%%", 100*p.Input/p.Iteration)
	}
	if p.Cold > 0 {
		fmt.Fprintf(w, ", cold operands %.0f%%", 100*p.Cold/p.Iteration)
	}
	fmt.Fprintln(w, " of the iteration")
	fmt.Fprintf(w, "throughput %.1f samples/s", p.SamplesPerSecond)
	if o.GPUs > 1 {
		fmt.Fprintf(w, " over %d GPUs (%s all-reduce of %.1f MB per iteration)", o.GPUs, o.Comm, float64(p.GradientBytes)/1e6)
	}
	fmt.Fprintln(w)
	if p.Untimed != "" {
		fmt.Fprintf(w, "not timed: %s; the iteration is a lower bound\n", p.Untimed)
	}
	if o.DeviceScale > 0 && o.DeviceScale != 1 {
		fmt.Fprintf(w, "device time × %.2f: the GPU's kernels scaled by the factor fitted to Gavel's measured iterations (wb predict --validate gavel --gpu-model)\n", o.DeviceScale)
	}
	return nil
}

// onlyFlags refuses, by name, a flag the user set that what runs does not
// read: a flag silently ignored would give an answer to another question.
func onlyFlags(c *cli.Context, what string, read ...string) error {
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		if c.IsSet(name) && !slices.Contains(read, name) {
			return cli.Exit(fmt.Sprintf("%s: --%s does not apply to %s, which reads only --%s", c.Command.Name, name, what,
				strings.Join(read, ", --")), 2)
		}
	}
	return nil
}

// predictionJSON is the analytical path's prediction as --json prints it:
// snake_case names, seconds in the _s fields, each pass named, and the
// settings the prediction really used (the host's cost per operator, the
// all-reduce's bandwidth), in the style of the --device-spec path's JSON.
func predictionJSON(p *predictor.Prediction, d *predictor.Device, mem memoryFloor, seq int, notes []string, timedBy string) any {
	type layer struct {
		Name        string  `json:"name"`
		Op          string  `json:"op"`
		ForwardS    float64 `json:"forward_s"`
		BwdDataS    float64 `json:"backward_data_s"`
		BwdWeightsS float64 `json:"backward_weights_s"`
		UpdateS     float64 `json:"update_s"`
		TotalS      float64 `json:"total_s"`
		Bound       string  `json:"bound"` // compute, memory or host
		FLOPs       float64 `json:"flops"`
		Bytes       float64 `json:"bytes"`
	}
	o := p.Options
	layers := make([]layer, len(p.Layers))
	for i, l := range p.Layers {
		layers[i] = layer{l.Name, l.Op, l.Time[dnn.Forward], l.Time[dnn.BackwardData], l.Time[dnn.BackwardWeights], l.Time[dnn.Update],
			l.Total, l.Bound(), float64(l.FLOPs), float64(l.Bytes)}
	}
	return struct {
		Model              string               `json:"model"`
		Device             string               `json:"device"`
		DeviceName         string               `json:"device_name"`
		Seq                int                  `json:"seq,omitempty"` // a Hugging Face config's tokens per sequence
		Batch              int                  `json:"batch"`
		BatchInAll         bool                 `json:"batch_in_all"` // --strong: the batch is split over the GPUs
		Precision          dnn.Precision        `json:"precision"`
		GPUs               int                  `json:"gpus"`
		Comm               predictor.Comm       `json:"comm,omitempty"`
		AllReduceBandwidth float64              `json:"allreduce_bytes_per_s,omitempty"`
		Combine            predictor.Combine    `json:"combine"`
		TimedBy            string               `json:"timed_by"`
		Efficiency         predictor.Efficiency `json:"efficiency"`
		KernelOverheadS    float64              `json:"host_per_operator_s"`
		DeviceScale        float64              `json:"device_scale,omitempty"`
		Layers             []layer              `json:"layers"`
		ForwardS           float64              `json:"forward_s"`
		BackwardS          float64              `json:"backward_s"`
		UpdateS            float64              `json:"update_s"`
		CommunicationS     float64              `json:"communication_s"`
		InputS             float64              `json:"input_s"`
		ColdS              float64              `json:"cold_s,omitempty"`
		IterationS         float64              `json:"iteration_s"`
		ComputeBoundS      float64              `json:"compute_bound_s"`
		MemoryBoundS       float64              `json:"memory_bound_s"`
		HostBoundS         float64              `json:"host_bound_s"`
		SamplesPerSecond   float64              `json:"samples_per_s"`
		GradientBytes      float64              `json:"allreduce_gradient_bytes"` // exchanged per iteration
		MemoryFloor        memoryFloor          `json:"memory"`
		Untimed            string               `json:"untimed,omitempty"` // work no figure times: the iteration is a lower bound
		Notes              []string             `json:"notes,omitempty"`   // what the prediction assumed that the flags did not say
	}{p.Model, p.Device, d.Display, seq, o.Batch, o.StrongScaling, o.Precision, o.GPUs, o.Comm, p.AllReduceBandwidth, o.Combine, timedBy, p.Efficiency,
		p.KernelOverhead, o.DeviceScale, layers, p.Forward, p.Backward, p.Update, p.Communication, p.Input, p.Cold, p.Iteration,
		p.Compute, p.Memory, p.Host, p.SamplesPerSecond, float64(p.GradientBytes), mem, p.Untimed, notes}
}

// analyticalHF are the bundled Hugging Face configs the analytical path
// builds as dnn networks (bert, gpt2, opt; not llama or Switch
// Transformers, which only the GPU op model times).
func analyticalHF() []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(gpuModels)) {
		if cfg, ok, err := bundledHFConfig(name); ok && err == nil {
			if _, err := cfg.Network(128); err == nil {
				out = append(out, name)
			}
		}
	}
	return out
}

// otherMachineNote warns where a CPU correction learned from profiles of
// other machines than this one: it learned those machines' kernels and
// caches, and predicts them, not this one. "" where it learned this
// machine, predicts a GPU, or does not say what it learned from.
func otherMachineNote(l *predictor.Learned, dev *predictor.Device) string {
	if len(l.Train.Devices) == 0 {
		return ""
	}
	if dev.Kind == predictor.KindGPU {
		// a GPU profile names its board as the table does (v100), or as
		// CUDA does ("cuda: Tesla V100-PCIE-32GB")
		for _, t := range l.Train.Devices {
			if strings.EqualFold(t, dev.Name) || dev.ReportsAs(strings.TrimPrefix(t, "cuda: ")) {
				return ""
			}
		}
		return fmt.Sprintf("warning: learned from profiles of %s, not of %s: its corrections describe the GPUs profiled (their kernels, clocks and memory), not this one; "+
			"profile %s (wb profile --backend cuda) and train on its profiles, or predict it from its spec sheet (--device-spec), the GPU op model",
			strings.Join(l.Train.Devices, "; "), dev.Name, dev.Name)
	}
	if dev.Kind != predictor.KindCPU {
		return ""
	}
	here := cpu.DeviceName()
	if slices.Contains(l.Train.Devices, here) {
		return ""
	}
	// no machine recorded (its profiles measured none, or were of several
	// machines): this machine's figures stand in for the one profiled
	what := "its corrections describe that machine, but it records none of that machine's figures: this machine's fp32 peak and memory bandwidth stand in"
	if c := l.CPU; c != nil {
		var from, here []string
		for _, f := range []struct {
			name string
			v    float64
		}{{"fp32 peak", c.PeakFLOPs}, {"memory bandwidth", c.MemBandwidth}} {
			if f.v > 0 {
				from = append(from, f.name)
			} else {
				here = append(here, f.name)
			}
		}
		switch {
		case len(here) == 0:
			what = "it predicts that machine, from the peak and bandwidth its profiles measured"
		case len(from) == 0:
			what = "its corrections describe that machine, but it records none of that machine's figures: this machine's " + strings.Join(here, " and ") + " stand in"
		default:
			what = "it predicts that machine, from the " + strings.Join(from, " and ") + " its profiles measured; it records no " + strings.Join(here, " or ") + ", and this machine's stands in"
		}
	}
	return fmt.Sprintf("warning: learned from profiles of %s, not of this machine (%s): %s; profile this one (wb profile) and train on its profiles (wb train) to predict it",
		strings.Join(l.Train.Devices, "; "), here, what)
}
