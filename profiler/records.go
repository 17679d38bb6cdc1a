package profiler

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gocarina/gocsv"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/internal/readcap"
)

// Num is a number a row may lack: an empty CSV field when !OK.
type Num struct {
	V  float64
	OK bool
}

// Some is a present number.
func Some(v float64) Num { return Num{V: v, OK: true} }

// MarshalCSV writes the number in the shortest form that reads back the
// same, or nothing.
func (n Num) MarshalCSV() (string, error) {
	if !n.OK {
		return "", nil
	}
	if math.IsNaN(n.V) || math.IsInf(n.V, 0) {
		return "", fmt.Errorf("profiler: %v is not a finite number", n.V)
	}
	return strconv.FormatFloat(n.V, 'g', -1, 64), nil
}

// UnmarshalCSV reads a number or an empty field.
func (n *Num) UnmarshalCSV(s string) error {
	if s == "" {
		*n = Num{}
		return nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("%q is not a number", s)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%q is not a finite number", s)
	}
	*n = Some(v)
	return nil
}

// Status is what became of a row.
type Status string

// The statuses.
const (
	// OK: measured (or reused from a measurement of the same key).
	OK Status = "ok"
	// Unsupported: the backend cannot run the layer pass (ErrUnsupported).
	Unsupported Status = "unsupported"
	// OOM: its buffers did not fit the device (ErrOutOfMemory).
	OOM Status = "oom"
	// Skipped: the pass does no work (no FLOPs, no bytes), so there is no
	// kernel to run.
	Skipped Status = "skipped"
)

// Telemetry is what the device reported while a row was measured: means
// of the samples, or maxima where a peak matters. Empty when there is no
// telemetry (no NVML, or a CPU backend).
type Telemetry struct {
	GPU         string `csv:"gpu"`
	GPUUUID     string `csv:"gpu_uuid"`
	Samples     int    `csv:"tel_samples"`
	SMClockMHz  Num    `csv:"sm_clock_mhz"`  // mean
	MemClockMHz Num    `csv:"mem_clock_mhz"` // mean
	PowerW      Num    `csv:"power_w"`       // mean
	PowerMaxW   Num    `csv:"power_max_w"`   // max
	TempMaxC    Num    `csv:"temp_max_c"`    // max
	MemUsedMaxB Num    `csv:"mem_used_max_bytes"`
	UtilGPU     Num    `csv:"util_gpu_pct"` // mean
	UtilMem     Num    `csv:"util_mem_pct"` // mean
}

// Record is one row of a profile: one layer, pass, batch, precision,
// backend and device.
type Record struct {
	Model     string `csv:"model"`
	Layer     string `csv:"layer"`
	Op        string `csv:"op"`
	Key       string `csv:"key"`
	Pass      string `csv:"pass"`
	Batch     int    `csv:"batch"`
	Precision string `csv:"precision"`
	Backend   string `csv:"backend"`
	Device    string `csv:"device"`
	Status    Status `csv:"status"`
	Reason    string `csv:"reason"`
	// SharedWith is the earlier layer of the same key whose measurement
	// this row reuses; empty for the row measured. Cached is true when
	// the measurement came from the cache.
	SharedWith string `csv:"shared_with"`
	Cached     bool   `csv:"cached"`

	// Times in seconds.
	Median Num    `csv:"median_s"`
	P10    Num    `csv:"p10_s"`
	P90    Num    `csv:"p90_s"`
	Reps   int    `csv:"reps"`
	CV     Num    `csv:"cv"`
	CIRel  Num    `csv:"ci_rel"` // half-width of the median's 95% CI / median
	Stop   string `csv:"stop"`   // converged or budget

	FLOPs  float64 `csv:"flops"`
	Bytes  float64 `csv:"bytes"`
	FLOPS  Num     `csv:"achieved_flops"` // FLOP/s at the median
	GBps   Num     `csv:"achieved_gbps"`  // GB/s (10⁹ bytes) at the median
	Matrix bool    `csv:"matrix"`

	// Predicted is the analytical (Paleo) time of the same row on the
	// backend's predictor device, one GPU; Ratio is Median / Predicted.
	Predicted Num `csv:"predicted_s"`
	Ratio     Num `csv:"ratio"`

	Telemetry

	// Algo is what the kernel ran where the backend chose (Chooser):
	// "cudnnConvolutionForward IMPLICIT_PRECOMP_GEMM, math 1"; empty for
	// a backend that does not say (the CPU's). WorkspaceBytes is the
	// workspace it ran with. These two columns come last, added after
	// the first profiles were written: older CSVs, without them, read
	// with both empty.
	Algo           string `csv:"algo"`
	WorkspaceBytes Num    `csv:"workspace_bytes"`

	// Min is the fastest measured run, in seconds (Stats.Min). Added
	// after algo and workspace_bytes, last for the same reason; empty in
	// older CSVs.
	Min Num `csv:"min_s"`
}

// MaxTime is the longest time, in seconds, a measured row may hold: a
// day. No layer pass runs that long; a time past it is a unit or a digit
// gone wrong.
const MaxTime = 86400

// Validate checks a row's consistency as read: each error names the
// column. A measured row's times must be above 0 and at most a day.
func (r *Record) Validate() error { return r.validate(true) }

// validate is Validate; as written (read false) a measured time of 0 is
// kept, so that a profile is never lost for one row: reading refuses it,
// at its line.
func (r *Record) validate(read bool) error {
	var errs []error
	if r.Layer == "" {
		errs = append(errs, errors.New("layer: empty"))
	}
	if _, err := dnn.ParsePass(r.Pass); err != nil {
		errs = append(errs, fmt.Errorf("pass: %w", err))
	}
	if _, err := dnn.ParsePrecision(r.Precision); err != nil {
		errs = append(errs, fmt.Errorf("precision: %w", err))
	}
	if r.Batch <= 0 {
		errs = append(errs, fmt.Errorf("batch %d: want a positive batch size", r.Batch))
	}
	switch r.Status {
	case OK:
		// every time a measured row holds is a positive, finite number of
		// seconds below a day: 0 is no measurement, 1e300 a typo
		for _, t := range []struct {
			col string
			n   Num
		}{{"median_s", r.Median}, {"min_s", r.Min}, {"p10_s", r.P10}, {"p90_s", r.P90}} {
			switch {
			case !t.n.OK && t.col == "median_s":
				errs = append(errs, errors.New("median_s: empty in a row of status ok: want its median time in seconds"))
			case t.n.OK && !(t.n.V > 0 && t.n.V <= MaxTime) && (read || !(t.n.V == 0)):
				errs = append(errs, fmt.Errorf("%s %g: want a time in seconds above 0 and at most a day (%d) in a row of status ok", t.col, t.n.V, MaxTime))
			}
		}
		if r.Reps < 1 {
			errs = append(errs, fmt.Errorf("reps %d: want 1 or more repetitions in a row of status ok", r.Reps))
		}
		if r.Min.OK && r.Median.OK && r.Min.V > r.Median.V {
			errs = append(errs, fmt.Errorf("min_s %g: want between 0 and the median, %g s (median_s)", r.Min.V, r.Median.V))
		}
		if r.Stop != string(Converged) && r.Stop != string(Budget) && r.Stop != string(Interrupted) {
			errs = append(errs, fmt.Errorf("stop %q: want converged, budget or interrupted", r.Stop))
		}
	case Unsupported, OOM, Skipped:
		if r.Median.OK {
			errs = append(errs, fmt.Errorf("median_s %g: status %s with a measured time", r.Median.V, r.Status))
		}
	default:
		errs = append(errs, fmt.Errorf("status %q: want ok, unsupported, oom or skipped", r.Status))
	}
	if !(r.FLOPs >= 0) || !(r.Bytes >= 0) || math.IsInf(r.FLOPs, 0) || math.IsInf(r.Bytes, 0) {
		errs = append(errs, fmt.Errorf("flops %v, bytes %v: want finite counts of 0 or more", r.FLOPs, r.Bytes))
	}
	if r.Predicted.OK && !(r.Predicted.V >= 0) {
		errs = append(errs, fmt.Errorf("predicted_s %g: want a time of 0 or more", r.Predicted.V))
	}
	return errors.Join(errs...)
}

// knownOps are the ops a profile's rows may name: the dnn package's.
var knownOps = func() map[string]bool {
	m := map[string]bool{}
	for _, o := range dnn.Ops() {
		m[string(o)] = true
	}
	return m
}()

// checkOp refuses a row read whose op no layer of this wb has: a typo, or
// a profile of another version of wb, whose rows the predictor would
// learn as an op it cannot predict.
func checkOp(op string) error {
	if knownOps[op] {
		return nil
	}
	names := make([]string, 0, len(knownOps))
	for _, o := range dnn.Ops() {
		names = append(names, string(o))
	}
	return fmt.Errorf("op %q: not an op wb knows (known: %s)", op, strings.Join(names, ", "))
}

// WriteCSV writes rows with a header, after checking each.
func WriteCSV(w io.Writer, rows []Record) error {
	for i := range rows {
		if err := rows[i].validate(false); err != nil {
			return fmt.Errorf("row %d (%s %s): %w", i+1, rows[i].Layer, rows[i].Pass, err)
		}
	}
	if len(rows) == 0 {
		// gocsv writes nothing for no rows; a profile file always has
		// its header, so write a zero row's and keep the header line.
		var b bytes.Buffer
		if err := gocsv.Marshal([]Record{{}}, &b); err != nil {
			return err
		}
		header, _, _ := bytes.Cut(b.Bytes(), []byte("\n"))
		_, err := fmt.Fprintf(w, "%s\n", header)
		return err
	}
	return gocsv.Marshal(rows, w)
}

// requiredColumns are the columns a profile CSV must have: every one
// wb train and wb evaluate read (a column absent reads as 0 or empty in
// every row: no flops, no prediction). algo, workspace_bytes and min_s,
// added later, are optional: older profiles lack them.
var requiredColumns = []string{"model", "layer", "op", "key", "pass", "batch", "precision", "backend", "device", "status",
	"shared_with", "median_s", "reps", "stop", "flops", "bytes", "matrix", "predicted_s"}

// ErrNoRows is ReadCSV's error for a file without a row: empty, or only
// the header (a profile interrupted before its first row).
var ErrNoRows = errors.New("no rows: not a finished profile? (wb profile writes a row per layer, pass and batch)")

// CheckHeader reads the first line of r and says whether it is a
// profile's header: every required column, none twice.
func CheckHeader(r io.Reader) error {
	_, _, err := readHeader(bufio.NewReader(r))
	return err
}

// readHeader reads and checks a profile CSV's header line, less a UTF-8
// byte-order mark, and its columns.
func readHeader(br *bufio.Reader) (string, []string, error) {
	head, err := br.ReadString('\n')
	if err != nil && err != io.EOF {
		return "", nil, err
	}
	head = strings.TrimPrefix(head, "\ufeff") // a spreadsheet's byte-order mark
	if strings.TrimSpace(head) == "" {
		return "", nil, ErrNoRows
	}
	if strings.HasPrefix(head, "\x1f\x8b") {
		// a trace (.swf.gz, openb's .csv.gz) given where a profile goes
		return "", nil, errors.New("gzip-compressed: not a wb profile (the CSV wb profile writes); a trace goes to wb simulate --trace")
	}
	cols, err := csv.NewReader(strings.NewReader(head)).Read()
	if err != nil {
		return "", nil, fmt.Errorf("line 1: header: %w: not a wb profile (the CSV wb profile writes)", err)
	}
	var missing []string
	for _, c := range requiredColumns {
		if !slices.Contains(cols, c) {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return "", nil, fmt.Errorf("line 1: missing column(s) %s: not a wb profile (wb profile writes them), or a column deleted: profile it again", strings.Join(missing, ", "))
	}
	for i, c := range cols {
		if j := slices.Index(cols, c); j < i {
			return "", nil, fmt.Errorf("line 1: column %d, %s, is column %d again: a profile has each column once; delete one", i+1, c, j+1)
		}
	}
	return head, cols, nil
}

// ReadCSV reads a profile CSV and checks its header (every required column,
// none twice) and every row; an error names the line and the column. A
// UTF-8 byte-order mark before the header is skipped; a file of no rows is
// ErrNoRows.
func ReadCSV(r io.Reader) ([]Record, error) {
	br := bufio.NewReader(readcap.Lines(r, 1<<20))
	head, cols, err := readHeader(br)
	if err != nil {
		return nil, err
	}
	var rows []Record
	if err := gocsv.Unmarshal(io.MultiReader(strings.NewReader(head), br), &rows); err != nil {
		if errors.Is(err, gocsv.ErrEmptyCSVFile) {
			return nil, ErrNoRows
		}
		// gocsv reports a field it cannot parse as a csv.ParseError with
		// no record line: name the line, the column and what it holds
		var pe *csv.ParseError
		if errors.As(err, &pe) && pe.Line > 0 {
			col := ""
			if pe.Column >= 1 && pe.Column <= len(cols) {
				col = " (" + cols[pe.Column-1] + ")"
			}
			return nil, fmt.Errorf("line %d, column %d%s: %w", pe.Line, pe.Column, col, pe.Err)
		}
		return nil, err
	}
	if len(rows) == 0 {
		return nil, ErrNoRows
	}
	for i := range rows {
		err := rows[i].Validate()
		if e := checkOp(rows[i].Op); e != nil {
			err = errors.Join(e, err)
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+2, err)
		}
	}
	return rows, nil
}
