package experiments

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/wb-sim/wb/internal/atomicfile"
)

// MarkerFile marks a results directory as wb's: it names the config whose
// results the directory holds. wb deletes or replaces files only in a
// directory that holds it (or, from wb versions before it, the config copy
// and source file wb wrote), and only the files it writes there (owned).
const MarkerFile = ".wb-results.json"

// marker is MarkerFile's content.
type marker struct {
	ConfigHash string `json:"config_hash"`
	Config     string `json:"config"` // the config file's path when it was claimed
	Name       string `json:"name"`
	// FiguresRecorded says that figures/ names wb's figure files in its
	// FiguresRecord (none where there is none yet): a directory marked
	// before the record took every figure file there for wb's.
	FiguresRecorded bool `json:"figures_recorded,omitempty"`
}

// claimDir makes dir the results directory of c: a new or empty directory
// is claimed (MarkerFile written, the config copied); one that holds c's
// own results is kept (Resume, Only) or cleared of the files wb wrote there
// (a fresh run). It refuses a directory that holds the results of another
// config, unless opts.Force on a fresh run, and one that holds files wb
// did not write: wb never deletes what it cannot show it wrote.
func (c *Config) claimDir(dir string, opts RunOptions) error {
	m, legacy, err := c.checkDir(dir, opts)
	if err != nil {
		return err
	}
	if err := atomicfile.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// a Slurm dry run replaces nothing: it keeps a config's own results
	keep := opts.Resume || opts.Only != nil || opts.checkOnly
	if m != nil && m.ConfigHash == c.Hash() && keep {
		if legacy {
			return c.writeMarker(dir)
		}
		return c.refreshCopy(dir, opts)
	}
	if m != nil { // a fresh run: clear what wb wrote before
		// the same config's merged results (summary.csv, the figures...)
		// stay until the merge replaces them, so that a run interrupted
		// or failing before its end loses none; another config's go now
		if err := clearOwned(dir, m.ConfigHash == c.Hash()); err != nil {
			return err
		}
		if err := keepEditedCopy(dir, m, opts.notes()); err != nil {
			return err
		}
	}
	if err := c.writeMarker(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, runsDir), 0o755); err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(dir, sourceFile), func(w io.Writer) error { _, err := io.WriteString(w, c.path+"\n"); return err }); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, ConfigCopy), func(w io.Writer) error { _, err := w.Write(c.raw); return err })
}

// checkDir is claimDir's refusals alone, with nothing written or made:
// dir's marker (nil where it has none, or does not exist) and whether it
// was read from a copy of the config made before markers, or why dir
// cannot be claimed. A run checks it before the work that precedes the
// claim (reading its traces), so that a directory it would refuse is
// refused at once.
func (c *Config) checkDir(dir string, opts RunOptions) (*marker, bool, error) {
	if err := NotAFile(dir); err != nil {
		return nil, false, err
	}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	m, legacy, err := readMarker(dir)
	if err != nil {
		return nil, false, err
	}
	keep := opts.Resume || opts.Only != nil || opts.checkOnly
	switch {
	case m == nil:
		if stray, err := foreign(dir); err != nil {
			return nil, false, err
		} else if len(stray) > 0 {
			return nil, false, fmt.Errorf("%s holds files wb did not write (%s): wb writes its results only into a new or empty directory, "+
				"or one holding its own results; choose another out (--out) or move those files", dir, strings.Join(stray, ", "))
		}
	case m.ConfigHash == c.Hash():
	case opts.checkOnly && m.Config == c.path && m.Name == c.Name:
		// (said as a submission or a run would say it)
		return nil, false, fmt.Errorf("%s holds the results of %s as it was before it changed (%s); a dry run replaces nothing: submit with --force "+
			"(without --resume) to replace them, or choose another out (--out)", dir, c.path, m.describe())
	case opts.checkOnly:
		return nil, false, fmt.Errorf("%s holds the results of another config (%s); a dry run replaces nothing: choose another out (--out), "+
			"or submit with --force to replace them", dir, m.describe())
	case keep && m.Config == c.path && m.Name == c.Name:
		// every run records the config's SHA-256: none would be kept
		return nil, false, fmt.Errorf("%s holds the results of %s as it was before it changed (%s); --resume and --run-index continue only "+
			"the config that wrote them, and every run records its SHA-256, so none would be kept: %s; to run the changed config, run it "+
			"afresh with --force (without --resume) to replace them, or give another out (--out)",
			dir, c.path, m.describe(), finishAsRun(dir))
	case keep:
		return nil, false, fmt.Errorf("%s holds the results of another config (%s); --resume and --run-index continue only the config "+
			"that wrote them: give that config, or another out (--out)", dir, m.describe())
	case !opts.Force && m.Config == c.path && m.Name == c.Name:
		return nil, false, fmt.Errorf("%s holds the results of %s as it was before it changed (%s); every run records the config's SHA-256, "+
			"so none would be kept: pass --force to run it afresh and replace them, or give another out (--out) to keep both", dir, c.path, m.describe())
	case !opts.Force:
		return nil, false, fmt.Errorf("%s holds the results of another config (%s); choose another out (--out, or the config's out or name), "+
			"or pass --force to replace them", dir, m.describe())
	}
	return m, legacy, nil
}

// refreshCopy makes dir's copy of the config the config resumed (whose
// runs the marker says these are), where they differ: the results are
// drawn from the config resumed, and the copy is "the config as run" (a
// copy edited for wb plot, then resumed from the original, kept its edits
// while the figures they drew were replaced: a reviewer's find). A run of
// its own (--run-index, a Slurm array task) and a dry run leave it.
func (c *Config) refreshCopy(dir string, opts RunOptions) error {
	path := filepath.Join(dir, ConfigCopy)
	if opts.Only != nil || opts.checkOnly || c.raw == nil {
		return nil // (a dry run replaces nothing)
	}
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, c.raw) {
		return nil
	}
	if w := opts.notes(); w != nil {
		fmt.Fprintf(w, "resume: %s differed from %s: replaced by it, whose figures are drawn\n", path, c.path)
	}
	if m, _, err := readMarker(dir); err == nil && m != nil {
		if err := keepEditedCopy(dir, m, opts.notes()); err != nil {
			return err
		}
	}
	if err := atomicfile.Write(filepath.Join(dir, sourceFile), func(w io.Writer) error { _, err := io.WriteString(w, c.path+"\n"); return err }); err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error { _, err := w.Write(c.raw); return err })
}

// notes is where a run says what it did to the user's files: Notes, or
// else Progress.
func (o RunOptions) notes() io.Writer {
	if o.Notes != nil {
		return o.Notes
	}
	return o.Progress
}

// keepEditedCopy moves dir's copy of the config aside, to
// config.yaml.edited (config.yaml.edited.2, .3 ... where that is taken),
// where it was edited since the run that wrote it (its SHA-256 is not the
// marker's), as the docs invite for wb plot, and says so on progress: a
// run that writes the copy anew had replaced the edits without a word (a
// reviewer's find). The file moved aside is the user's: wb neither reads
// nor removes it.
func keepEditedCopy(dir string, m *marker, progress io.Writer) error {
	path := filepath.Join(dir, ConfigCopy)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil // none: nothing to keep
	}
	if sha256Hex(b) == m.ConfigHash {
		return nil // the config as run, unedited
	}
	aside := path + ".edited"
	for n := 2; ; n++ {
		if _, err := os.Lstat(aside); errors.Is(err, fs.ErrNotExist) {
			break
		}
		aside = fmt.Sprintf("%s.edited.%d", path, n)
	}
	if err := os.Rename(path, aside); err != nil {
		return err
	}
	if progress != nil {
		fmt.Fprintf(progress, "note: %s had been edited since its run; kept as %s\n", path, aside)
	}
	return nil
}

func (m *marker) describe() string {
	s := m.Name
	if m.Config != "" {
		s += " from " + m.Config
	}
	if len(m.ConfigHash) >= 12 {
		s += ", sha256 " + m.ConfigHash[:12]
	}
	return strings.TrimPrefix(s, " from ")
}

func (c *Config) writeMarker(dir string) error {
	if err := recordLegacyFigures(dir); err != nil {
		return err
	}
	b, err := json.MarshalIndent(marker{ConfigHash: c.Hash(), Config: c.path, Name: c.Name, FiguresRecorded: true}, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, MarkerFile), func(w io.Writer) error { _, err := w.Write(append(b, '\n')); return err })
}

// finishAsRun says how to finish dir's runs as they were: resume from the
// results' copy of the config, where it is still the config as run.
func finishAsRun(dir string) string {
	if cfg := configAsRun(dir, ""); cfg != "" {
		return fmt.Sprintf("to finish those runs as they were, resume from the copy of the config they ran (wb experiment %s --out %s --resume)", shq(cfg), shq(dir))
	}
	return "to finish those runs as they were, resume from the config they ran (the copy, " + ConfigCopy + ", was edited since: " + asRunHint(dir) + ")"
}

// asRunHint says where the text of the config dir's runs were made with
// may be found, where neither its file nor the copy holds it now: the
// manifest, where a merge wrote one of that config, else the edits to
// undo until the copy's SHA-256 is the marker's again.
func asRunHint(dir string) string {
	m, _, err := readMarker(dir)
	if err == nil && m != nil {
		if b, err := os.ReadFile(filepath.Join(dir, ManifestFile)); err == nil {
			var man Manifest
			if json.Unmarshal(b, &man) == nil && man.ConfigHash == m.ConfigHash && man.Config != "" {
				return ManifestFile + "'s config holds its text"
			}
		}
	}
	hash := ""
	if m != nil && len(m.ConfigHash) >= 12 {
		hash = " (sha256 " + m.ConfigHash[:12] + ", " + MarkerFile + ")"
	}
	return "no file here holds its text: undo the edits to " + ConfigCopy + " (or restore " + ConfigCopy + ".edited where wb kept an earlier one) until its SHA-256 is the runs'" + hash
}

// configAsRun is the file that holds the config dir's runs were made with
// (its SHA-256 the marker's): path, the config's own file, else dir's copy
// of it; "" where neither is it now (both edited since).
func configAsRun(dir, path string) string {
	m, _, err := readMarker(dir)
	if err != nil || m == nil {
		return ""
	}
	for _, p := range []string{path, filepath.Join(dir, ConfigCopy)} {
		if b, err := os.ReadFile(p); p != "" && err == nil && sha256Hex(b) == m.ConfigHash {
			return p
		}
	}
	return ""
}

// recordLegacyFigures gives a directory marked before FiguresRecord (its
// marker without FiguresRecorded) the record its figure files would have
// had: every one of them wb's, as that wb took them (recordFigures, whose
// figuresOwned reads such a directory so), so that the marker written
// next, which says the record is kept, disowns none of them.
func recordLegacyFigures(dir string) error {
	if m, _, err := readMarker(dir); err != nil || m == nil || m.FiguresRecorded {
		return nil // a new directory, or one recorded already (or unreadable: the claim said why)
	}
	return recordFigures(filepath.Join(dir, FiguresDir), nil)
}

// readMarker reads dir's marker: nil where there is none. A directory
// written by wb before the marker existed (its config copy beside the
// source file, which only wb writes) reads as marked by that config, and
// legacy is set.
func readMarker(dir string) (m *marker, legacy bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, MarkerFile))
	switch {
	case err == nil:
		var m marker
		if err := json.Unmarshal(b, &m); err != nil || m.ConfigHash == "" {
			return nil, false, fmt.Errorf("%s: not a wb results marker (%v); remove it if this directory holds no wb results",
				filepath.Join(dir, MarkerFile), err)
		}
		return &m, false, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, false, err
	}
	raw, err1 := os.ReadFile(filepath.Join(dir, ConfigCopy))
	src, err2 := os.ReadFile(filepath.Join(dir, sourceFile))
	if err1 != nil || err2 != nil {
		return nil, false, nil
	}
	return &marker{ConfigHash: sha256Hex(raw), Config: string(bytes.TrimSpace(src)), Name: filepath.Base(dir)}, true, nil
}

// Files and folders wb writes in a results directory.
var (
	ownedTop = []string{MarkerFile, ConfigCopy, sourceFile, ManifestFile, SummaryFile, JobsFile, SeriesFile,
		InflationSummaryFile, InflationCurveFile, InflationFailedFile, ScheduleFile}
	ownedIn = map[string]*regexp.Regexp{
		runsDir:    regexp.MustCompile(`^[0-9]{6}\.run$`),
		FiguresDir: regexp.MustCompile(`^([^/]+\.(png|pdf|svg)|\.wb-figures)$`),
		slurmDir:   regexp.MustCompile(`^(array\.sbatch|collect\.sbatch|collect\.out|run-[0-9]+(_[0-9]+)?\.out|jobs\.txt|wb)$`),
	}
)

// foreign lists what dir holds that wb would not have written there (at
// most a few names): empty for a new or empty directory, or one holding
// only wb's empty folders.
func foreign(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if of, ok := atomicfile.TempOf(e.Name()); ok && of == MarkerFile && e.Type().IsRegular() {
			continue // a wb killed while it first marked the directory
		}
		if _, ok := ownedIn[e.Name()]; ok && e.IsDir() { // wb's empty folders are no one's
			sub, err := os.ReadDir(filepath.Join(dir, e.Name()))
			if err != nil {
				return nil, err
			}
			for _, s := range sub {
				out = append(out, e.Name()+"/"+s.Name())
			}
			continue
		}
		out = append(out, e.Name())
	}
	if len(out) > 3 {
		out = append(out[:3], fmt.Sprintf("and %d more", len(out)-3))
	}
	return out, nil
}

// clearMerged deletes the merged results wb writes in dir (its top-level
// result files but the marker and the config's copy and source, and the
// figures), as a merge begins: a fresh run keeps them until then
// (clearOwned), and a merge that fails part of the way through, or a
// figure that fails to draw, must not leave the last run's beside the new.
func clearMerged(dir string) error {
	for _, name := range ownedTop {
		if name == MarkerFile || name == ConfigCopy || name == sourceFile {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	fdir := filepath.Join(dir, FiguresDir)
	ents, err := os.ReadDir(fdir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	// the figures wb drew, not a picture of the user's (the record stays:
	// the next draw reads it, and rewrites it)
	owned, err := figuresOwned(fdir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.Type().IsRegular() && owned(e.Name()) {
			if err := os.Remove(filepath.Join(fdir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// clearOwned deletes the files wb writes from dir, a directory wb marked:
// its top-level result files and the runs, figures and Slurm files in
// their folders, and the temporary files a wb killed while writing one of
// them left, nothing else (a file of the user's among them stays). With
// keepMerged it leaves the merged results (the top-level files and the
// figures, which the merge clears as it begins, clearMerged) and deletes
// the runs and Slurm files alone.
func clearOwned(dir string, keepMerged bool) error {
	// (the marker, the config's copy and its source are rewritten by the
	// claim, not removed: the directory stays marked)
	if !keepMerged {
		if err := clearMerged(dir); err != nil {
			return err
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if of, ok := atomicfile.TempOf(e.Name()); ok && e.Type().IsRegular() && slices.Contains(ownedTop, of) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	for sub, re := range ownedIn {
		ents, err := os.ReadDir(filepath.Join(dir, sub))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		for _, e := range ents {
			name := e.Name()
			of, temp := atomicfile.TempOf(name)
			if temp {
				name = of
			} else if sub == FiguresDir {
				continue // clearMerged's, or the merge's to replace
			}
			if e.Type().IsRegular() && re.MatchString(name) {
				if sub == slurmDir && name == slurmWB && running(filepath.Join(dir, sub, name)) {
					continue // the copy of wb this is (it would lose its build: runs of "unknown")
				}
				if err := os.Remove(filepath.Join(dir, sub, e.Name())); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// running says whether path is the program running.
func running(path string) bool {
	exe, err := os.Executable()
	return err == nil && sameFile(exe, path)
}

// sameFile says whether the paths a and b name one file (both there).
func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// simulateMarker is the config hash MarkerFile holds in a directory of
// `wb simulate`'s results, which no config's hash equals.
const simulateMarker = "wb simulate"

// simulateFiles are the files `wb simulate --out` writes.
var simulateFiles = []string{JobsFile, SummaryFile, SeriesFile, ScheduleFile}

// checkSimulateDir reports whether `wb simulate` may write its results in
// dir: a new or empty directory, one a simulation marked as its own, or one
// holding exactly the four files a simulation writes and nothing else (the
// results of a wb from before the marker). It refuses a directory holding
// an experiment's results and one holding anything else.
func checkSimulateDir(dir string) error {
	if err := NotAFile(dir); err != nil {
		return err
	}
	// a simulation's own temporary files, left by a wb killed as it wrote
	// them (the caller holds the directory's lock: no wb writes them now),
	// are removed, not called another's (a reviewer's find)
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			if of, ok := atomicfile.TempOf(e.Name()); ok && e.Type().IsRegular() && (slices.Contains(simulateFiles, of) || of == MarkerFile) {
				if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
					return err
				}
			}
		}
	}
	m, _, err := readMarker(dir)
	if err != nil {
		return err
	}
	if m != nil {
		if m.ConfigHash != simulateMarker {
			return fmt.Errorf("%s holds the results of an experiment (%s); wb simulate writes into a new or empty directory, "+
				"or one holding a simulation's results: choose another --out", dir, m.describe())
		}
		return nil
	}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(ents) == len(simulateFiles) {
		ours := true
		for _, e := range ents {
			ours = ours && e.Type().IsRegular() && slices.Contains(simulateFiles, e.Name())
		}
		if ours { // an unmarked simulation's, from an earlier wb
			return nil
		}
	}
	stray, err := foreign(dir)
	if err != nil {
		return err
	}
	if len(stray) > 0 {
		return fmt.Errorf("%s holds files wb did not write (%s): wb simulate writes into a new or empty directory, "+
			"or one holding a simulation's results; choose another --out or move those files", dir, strings.Join(stray, ", "))
	}
	return nil
}

// markSimulateDir marks dir as holding the results of a simulation of
// trace.
func markSimulateDir(dir, trace string) error {
	b, err := json.MarshalIndent(marker{ConfigHash: simulateMarker, Config: trace, Name: "wb simulate"}, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, MarkerFile), func(w io.Writer) error { _, err := w.Write(append(b, '\n')); return err })
}

// NotAFile refuses a results directory that is a file (--out notes.txt),
// or lies under one (--out notes.txt/run), which would otherwise fail as
// "not a directory" somewhere inside it.
func NotAFile(dir string) error {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return fmt.Errorf("%s is a file: results go into a directory (a new or empty one, or one holding these results); name one with --out", dir)
	}
	// the nearest folder above that exists must be one
	for p := filepath.Dir(filepath.Clean(dir)); ; p = filepath.Dir(p) {
		if fi, err := os.Stat(p); err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("%s: %s is a file, not a folder, so nothing can be made under it: name another directory with --out", dir, p)
			}
			return nil
		}
		if filepath.Dir(p) == p {
			return nil
		}
	}
}
