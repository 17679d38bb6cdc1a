package app

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/wb-sim/wb/experiments"
	"github.com/wb-sim/wb/experiments/figures"
	"github.com/wb-sim/wb/internal/atomicfile"
)

// outMarker, in a folder wb evaluate or wb predict --validate neusight
// wrote into (--out), names the command and lists the files it wrote there
// with their SHA-256: the files it may replace or remove there. A file of
// another name, one of its names it did not write, or one changed since it
// wrote it is not its own, and the folder is refused.
const outMarker = ".wb-out.json"

// outKind is what a command writes into its --out folder.
type outKind struct {
	command string   // "wb predict --validate neusight"
	files   []string // the names of its files
	folders []string // the names of its folders of files ("figures")
	// figure matches the names of the files it writes into its folders
	figure *regexp.Regexp
	// header says whether b, the start of a file of files (decompressed),
	// is the command's: a file a wb that wrote no outMarker wrote is
	// recognised by it, where the folder has no outMarker
	header func(name string, b []byte) bool
}

// validateOut is what wb predict --validate neusight writes.
var validateOut = outKind{
	command: "wb predict --validate neusight",
	files:   []string{"predictions.csv", "ops.csv.gz"},
	folders: []string{"figures"},
	figure:  regexp.MustCompile(`^(predicted-vs-measured(-[0-9]+)?|error-per-model|op-timing-.+)\.(png|pdf|svg)$`),
	header: func(name string, b []byte) bool {
		switch name {
		case "predictions.csv":
			return bytes.HasPrefix(b, []byte("gpu,model,mode,seq,batch,measured_ms,predicted_ms,"))
		case "ops.csv.gz":
			return bytes.HasPrefix(b, []byte("gpu,op,held,"))
		}
		return false
	},
}

// evaluateOut is what wb evaluate writes.
var evaluateOut = outKind{
	command: "wb evaluate",
	files:   []string{"predictions.csv"},
	folders: []string{"figures"},
	figure:  regexp.MustCompile(`^(predicted-vs-measured-.+|error-cdf)\.(png|pdf|svg)$`),
	header: func(name string, b []byte) bool {
		return name == "predictions.csv" && bytes.HasPrefix(b, []byte("split,model,layer,op,pass,batch,"))
	},
}

// outFiles is outMarker's content, and the folder it is of: the files a
// command wrote into its --out folder. Its methods do nothing on nil (no
// --out).
type outFiles struct {
	Command string `json:"command"`
	// Files holds each file's SHA-256 by its path in the folder, with
	// slashes ("figures/error-per-model.png")
	Files map[string]string `json:"files"`
	// Writing says the command claimed the folder and had not finished
	// writing its files (set at the claim, cleared by done): a run killed
	// or interrupted there may have replaced a file without recording it,
	// so the next run takes every file of the command's names as its own
	// (the claim found no other there).
	Writing bool `json:"writing,omitempty"`

	dir  string
	kind outKind
}

// outFolder claims dir for the command k, which writes files into it (wb
// evaluate --out, wb predict --validate neusight --out): a new or empty
// folder, or one holding only what k wrote there (its earlier results),
// never an experiment's or a simulation's results nor a folder of other
// files, which the command would otherwise overwrite or mix in silently.
// inputs are names in dir the command reads (the predictor wb evaluate
// evaluates), neither written nor removed. The claim lists the files
// found k's (outMarker); the command records each file it writes
// ([outFiles.wrote]) and removes only those ([outFiles.remove]).
func outFolder(dir string, k outKind, inputs ...string) (*outFiles, error) {
	own, err := scanOutFolder(dir, k, inputs)
	if err != nil {
		return nil, err
	}
	if err := atomicfile.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	o := &outFiles{Command: k.command, Files: own, Writing: true, dir: dir, kind: k}
	return o, o.save()
}

// done records that the command finished writing its files (Writing).
func (o *outFiles) done() error {
	if o == nil || !o.Writing {
		return nil
	}
	o.Writing = false
	return o.save()
}

// checkOutFolder is outFolder's check alone: it makes no folder, so that
// a command may refuse a bad --out before reading its inputs and make the
// folder only once they have read.
func checkOutFolder(dir string, k outKind, inputs ...string) error {
	_, err := scanOutFolder(dir, k, inputs)
	return err
}

// scanOutFolder checks dir for k (see outFolder) and returns the files in
// it that are k's, with their SHA-256.
func scanOutFolder(dir string, k outKind, inputs []string) (map[string]string, error) {
	if err := experiments.NotAFile(dir); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, experiments.MarkerFile)); err == nil {
		return nil, fmt.Errorf("--out %s holds the results of wb experiment or wb simulate, which %s would mix its files into: choose another folder", dir, k.command)
	}
	ents, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return map[string]string{}, nil
	case err != nil:
		return nil, fmt.Errorf("--out %s: %w", dir, err)
	}
	m, err := readOutMarker(dir)
	if err != nil {
		return nil, err
	}
	if m != nil && m.Command != k.command {
		return nil, fmt.Errorf("--out %s holds the results of %s (%s), which %s would mix its files into: choose another folder", dir, m.Command, outMarker, k.command)
	}
	own := map[string]string{}
	var foreign []string
	// mine adds the file rel (a regular file, not a link) to own where it
	// is k's, to foreign where not
	mine := func(rel string, e fs.DirEntry) error {
		if !e.Type().IsRegular() {
			foreign = append(foreign, rel)
			return nil
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		h, err := experiments.FileHash(p)
		if err != nil {
			return fmt.Errorf("--out %s: %w", dir, err)
		}
		ok := false
		if m != nil {
			// (a run stopped while writing may have left any of its files
			// unrecorded; mine is called only for the command's names)
			ok = m.Files[rel] == h || m.Writing
		} else {
			ok = k.legacy(rel, p)
		}
		if ok {
			own[rel] = h
		} else {
			foreign = append(foreign, rel)
		}
		return nil
	}
	for _, e := range ents {
		name := e.Name()
		of, temp := atomicfile.TempOf(name)
		switch {
		case name == outMarker, slices.Contains(inputs, name):
		case temp && (of == outMarker || slices.Contains(k.files, of)):
			// the command killed while writing it left it
		case slices.Contains(k.files, name):
			if err := mine(name, e); err != nil {
				return nil, err
			}
		case slices.Contains(k.folders, name) && e.IsDir():
			sub, err := os.ReadDir(filepath.Join(dir, name))
			if err != nil {
				return nil, fmt.Errorf("--out %s: %w", dir, err)
			}
			for _, s := range sub {
				if of, temp := atomicfile.TempOf(s.Name()); temp && k.figure.MatchString(of) {
					continue
				}
				if err := mine(name+"/"+s.Name(), s); err != nil {
					return nil, err
				}
			}
		default:
			foreign = append(foreign, name)
		}
	}
	if len(foreign) > 0 {
		if len(foreign) > 3 {
			foreign = append(foreign[:3], "...")
		}
		return nil, fmt.Errorf("--out %s holds files %s did not write (%s): it replaces and removes only its own; choose a new or empty folder, or one of its earlier results", dir, k.command, strings.Join(foreign, ", "))
	}
	return own, nil
}

// readOutMarker reads dir's outMarker; nil where there is none.
func readOutMarker(dir string) (*outFiles, error) {
	p := filepath.Join(dir, outMarker)
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m outFiles
	if json.Unmarshal(b, &m) != nil || m.Command == "" {
		return nil, fmt.Errorf("--out %s: %s is not the list of files wb writes there: choose another folder", dir, p)
	}
	return &m, nil
}

// legacy says whether the file at p, rel in the folder, is one a wb that
// wrote no outMarker wrote for k: one of k's files whose start is k's, or
// a figure of k's name whose content is of its format.
func (k outKind) legacy(rel, p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(rel, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			return false
		}
		defer z.Close()
		r = z
	}
	head := make([]byte, 4096)
	n, _ := io.ReadFull(r, head)
	head = head[:n]
	folder, name := path.Split(rel)
	if folder == "" {
		return k.header(name, head)
	}
	if !slices.Contains(k.folders, strings.TrimSuffix(folder, "/")) || !k.figure.MatchString(name) {
		return false
	}
	switch path.Ext(name) {
	case ".png":
		return bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n"))
	case ".pdf":
		return bytes.HasPrefix(head, []byte("%PDF-"))
	case ".svg":
		return bytes.Contains(head, []byte("<svg"))
	}
	return false
}

// figureFiles are the paths in the folder of the figure folder/base, in
// each format figures.Render writes.
func figureFiles(folder, base string) []string {
	var out []string
	for _, ext := range figures.Formats() {
		out = append(out, folder+"/"+base+"."+ext)
	}
	return out
}

// save writes the list to the folder's outMarker.
func (o *outFiles) save() error {
	b, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(o.dir, outMarker), func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

// claim checks, before the command writes them, that the files rels (paths
// in the folder) that exist are still its own: a file put or changed
// there since the folder was claimed is left as it is.
func (o *outFiles) claim(rels ...string) error {
	if o == nil {
		return nil
	}
	for _, rel := range rels {
		p := filepath.Join(o.dir, filepath.FromSlash(rel))
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		h := ""
		if fi.Mode().IsRegular() {
			if h, err = experiments.FileHash(p); err != nil {
				return err
			}
		}
		if want, ok := o.Files[rel]; !ok || h != want {
			return fmt.Errorf("%s: not what %s wrote there (put there or changed since): left as it is; move it away and run again", p, o.Command)
		}
	}
	return nil
}

// wrote records the files rels (paths in the folder) the command has
// written.
func (o *outFiles) wrote(rels ...string) error {
	if o == nil {
		return nil
	}
	for _, rel := range rels {
		h, err := experiments.FileHash(filepath.Join(o.dir, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		o.Files[rel] = h
	}
	return o.save()
}

// wroteAll records the files paths names, as a command lists what it
// wrote (dir/predictions.csv, dir/figures/NAME.{png,pdf,svg}).
func (o *outFiles) wroteAll(paths []string) error {
	if o == nil {
		return nil
	}
	var rels []string
	for _, p := range paths {
		rel, err := filepath.Rel(o.dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if stem, ok := strings.CutSuffix(rel, ".{png,pdf,svg}"); ok {
			folder, name := path.Split(stem)
			rels = append(rels, figureFiles(strings.TrimSuffix(folder, "/"), name)...)
			continue
		}
		rels = append(rels, rel)
	}
	return o.wrote(rels...)
}

// remove removes the file rel (a path in the folder), which the command
// wrote there, where it is: a file it did not write, or one changed since,
// is left as it is, an error.
func (o *outFiles) remove(rel string) error {
	if o == nil {
		return nil
	}
	if err := o.claim(rel); err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(o.dir, filepath.FromSlash(rel))); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if _, ok := o.Files[rel]; !ok {
		return nil
	}
	delete(o.Files, rel)
	return o.save()
}
