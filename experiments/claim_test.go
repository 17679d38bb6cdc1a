package experiments

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// claimConfigs loads testdata/small.yaml and a copy that differs by one
// comment: two configs of the same name, different hashes.
func claimConfigs(t *testing.T) (a, b *Config) {
	t.Helper()
	a, err := LoadConfig(filepath.Join("testdata", "small.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join("testdata", "small.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// Parsed as if beside it, so its relative trace paths resolve.
	if b, err = ParseConfig(append(raw, "# another config\n"...), filepath.Join("testdata", "small-other.yaml")); err != nil {
		t.Fatal(err)
	}
	if a.Name != b.Name || a.Hash() == b.Hash() {
		t.Fatalf("want two configs of one name, two hashes: %s %s, %s %s", a.Name, a.Hash(), b.Name, b.Hash())
	}
	return a, b
}

func put(t *testing.T, dir, rel, s string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func exists(dir, rel string) bool {
	_, err := os.Stat(filepath.Join(dir, rel))
	return err == nil
}

// TestClaimDir: a results directory belongs to one config; wb refuses
// another config's (unless forced) and a directory of files it did not
// write, and clears only the files it wrote.
func TestClaimDir(t *testing.T) {
	a, b := claimConfigs(t)

	// A new directory is claimed: marked, the config copied, runs/ made.
	dir := filepath.Join(t.TempDir(), "res")
	if err := a.claimDir(dir, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{MarkerFile, ConfigCopy, sourceFile, runsDir} {
		if !exists(dir, f) {
			t.Errorf("claimed directory lacks %s", f)
		}
	}

	// Results of a: runs, merged files, figures, and a file of the user's.
	// (and the temporary files a wb killed while writing some left)
	owned := []string{"runs/000000.run", "runs/000007.run", SummaryFile, JobsFile, ManifestFile, "figures/line.png", "figures/line.pdf", "slurm/run-3.out",
		"runs/.000004.run.tmp123456", "." + SummaryFile + ".tmp98765", "figures/.line.svg.tmp42"}
	mine := []string{"notes.txt", "runs/keep.txt", "figures/draft.txt", "runs/.keep.txt.tmp1", ".notes.txt.tmp2", ".tmp3", "figures/my-picture.png"}
	for _, f := range append(append([]string{}, owned...), mine...) {
		put(t, dir, f, "x")
	}
	// the figures as a draw records them (my-picture.png, not drawn, is
	// the user's)
	put(t, dir, "figures/"+FiguresRecord, "line.pdf\nline.png\n")

	// Another config of the same name: refused, nothing touched; with
	// --resume refused too, with a message that does not offer --force.
	err := b.claimDir(dir, RunOptions{})
	if err == nil || !strings.Contains(err.Error(), "another config") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("another config: %v", err)
	}
	err = b.claimDir(dir, RunOptions{Resume: true, Force: true})
	if err == nil || !strings.Contains(err.Error(), "another config") || strings.Contains(err.Error(), "--force") {
		t.Fatalf("another config, --resume: %v", err)
	}
	// The same file edited since, resumed: said so, and how to go on.
	raw, _ := os.ReadFile(filepath.Join("testdata", "small.yaml"))
	edited, err := ParseConfig(append(raw, "description: edited\n"...), filepath.Join("testdata", "small.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	err = edited.claimDir(dir, RunOptions{Resume: true})
	if err == nil || !strings.Contains(err.Error(), "as it was before it changed") || !strings.Contains(err.Error(), "--force (without --resume)") ||
		!strings.Contains(err.Error(), "resume from the copy of the config they ran (wb experiment "+filepath.Join(dir, ConfigCopy)) {
		t.Fatalf("the config edited, --resume: %v", err)
	}
	// and run afresh: said so too, not "another config"
	err = edited.claimDir(dir, RunOptions{})
	if err == nil || !strings.Contains(err.Error(), "as it was before it changed") || !strings.Contains(err.Error(), "pass --force") {
		t.Fatalf("the config edited, run afresh: %v", err)
	}
	for _, f := range append(append([]string{}, owned...), mine...) {
		if !exists(dir, f) {
			t.Fatalf("%s deleted by a refused claim", f)
		}
	}

	// The same config resumed: kept whole.
	if err := a.claimDir(dir, RunOptions{Resume: true}); err != nil {
		t.Fatal(err)
	}
	if !exists(dir, "runs/000007.run") {
		t.Fatal("resume deleted a run")
	}

	// The same config afresh: its runs, Slurm files and temporary files go;
	// its merged results stay until its merge replaces them (a run cut
	// short loses none of them).
	if err := a.claimDir(dir, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, f := range owned {
		merged := !strings.Contains(f, "tmp") && (!strings.Contains(f, "/") || strings.HasPrefix(f, FiguresDir+"/"))
		if exists(dir, f) != merged {
			t.Errorf("%s: there %v after a fresh claim by the same config, want %v", f, exists(dir, f), merged)
		}
	}
	for _, f := range owned {
		put(t, dir, f, "x")
	}

	// Forced: wb's files go, the user's stay, the directory is b's.
	if err := b.claimDir(dir, RunOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	for _, f := range owned {
		if exists(dir, f) {
			t.Errorf("%s left behind by a forced claim", f)
		}
	}
	for _, f := range mine {
		if !exists(dir, f) {
			t.Errorf("%s (not wb's) deleted", f)
		}
	}
	if m, _, err := readMarker(dir); err != nil || m.ConfigHash != b.Hash() {
		t.Errorf("marker after a forced claim: %+v, %v", m, err)
	}

	// A directory of someone else's files: refused even with --force,
	// everything left as it was (the case of --out . in a project folder).
	other := t.TempDir()
	put(t, other, "runs/important.dat", "data")
	put(t, other, SummaryFile, "mine")
	for _, o := range []RunOptions{{}, {Force: true}, {Resume: true}} {
		err := a.claimDir(other, o)
		if err == nil || !strings.Contains(err.Error(), "did not write") || !strings.Contains(err.Error(), "runs/important.dat") {
			t.Fatalf("foreign directory, %+v: %v", o, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(other, SummaryFile)); err != nil || string(b) != "mine" || !exists(other, "runs/important.dat") {
		t.Fatal("a refused claim changed a foreign directory")
	}

	// Results written before the marker existed (config copy + source
	// file): the same config resumes them and marks the directory.
	old := t.TempDir()
	put(t, old, ConfigCopy, string(a.raw))
	put(t, old, sourceFile, a.path+"\n")
	put(t, old, "runs/000001.run", "x")
	if err := a.claimDir(old, RunOptions{Resume: true}); err != nil {
		t.Fatal(err)
	}
	if m, legacy, err := readMarker(old); err != nil || legacy || m.ConfigHash != a.Hash() || !exists(old, "runs/000001.run") {
		t.Errorf("legacy directory: %+v %v %v", m, legacy, err)
	}
	if err := b.claimDir(old, RunOptions{}); err == nil {
		t.Error("legacy directory of another config claimed")
	}

	// A wb killed while it first marked a new directory left the marker's
	// temporary file: the directory is still claimed as new.
	killed := t.TempDir()
	put(t, killed, "."+MarkerFile+".tmp4242", "{")
	if err := a.claimDir(killed, RunOptions{}); err != nil {
		t.Errorf("a directory holding only a marker's temporary file: %v", err)
	}

	// A marker that is not one: an error naming it, nothing deleted.
	bad := t.TempDir()
	put(t, bad, MarkerFile, "{")
	if err := a.claimDir(bad, RunOptions{}); err == nil || !strings.Contains(err.Error(), MarkerFile) {
		t.Errorf("bad marker: %v", err)
	}
}

// TestReadRunIdentity: a run file under another run's name is refused.
func TestReadRunIdentity(t *testing.T) {
	a, _ := claimConfigs(t)
	a.Out = t.TempDir()
	if err := a.claimDir(a.Out, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	ws := &workloads{c: a, m: map[[2]int]*loaded{}}
	k := a.Runs()[1]
	if err := a.writeRun(a.Out, k, a.runOne(ws, k)); err != nil {
		t.Fatal(err)
	}
	if _, err := a.readRun(a.Out, k.Index); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(runPath(a.Out, k.Index))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(runPath(a.Out, 5), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := a.readRun(a.Out, 5); err == nil || !strings.Contains(err.Error(), "holds run 1, not run 5") {
		t.Errorf("run 1's file read as run 5: %v", err)
	}
}

// A merge clears the last merged results before writing its own: a figure
// or file the last run wrote and this one does not is gone, so that a
// fresh run, which keeps them until its merge, never leaves them beside
// the new ones.
func TestMergeClearsLastResults(t *testing.T) {
	out := t.TempDir()
	if _, err := Run(context.Background(), loadSmall(t, out), RunOptions{Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	put(t, out, "figures/stale-figure.png", "x")
	recordAlso(t, filepath.Join(out, FiguresDir), "stale-figure.png") // as an earlier draw would have
	put(t, out, InflationFailedFile, "x")
	put(t, out, "figures/notes.txt", "mine")
	put(t, out, "figures/annotated-for-paper.png", "mine") // a picture of the user's
	if _, err := Run(context.Background(), loadSmall(t, out), RunOptions{Jobs: 2, Resume: true}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"figures/stale-figure.png", InflationFailedFile} {
		if exists(out, f) {
			t.Errorf("%s left beside the merge's results", f)
		}
	}
	if !exists(out, "figures/notes.txt") || !exists(out, "figures/annotated-for-paper.png") || !exists(out, SummaryFile) {
		t.Error("the merge removed a file not wb's, or wrote no summary")
	}
}

// recordAlso adds names to fdir's FiguresRecord, as a draw that wrote them
// would have.
func recordAlso(t *testing.T, fdir string, names ...string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(fdir, FiguresRecord), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, n := range names {
		if _, err := f.WriteString(n + "\n"); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEditedCopyKept: a copy of the config edited for wb plot (as the docs
// invite) is kept aside, config.yaml.edited, when a fresh run or a resume
// writes the copy anew, and said so (its edits had been replaced without
// a word: a reviewer's find); an unedited copy is simply rewritten.
func TestEditedCopyKept(t *testing.T) {
	out := t.TempDir()
	if _, err := Run(context.Background(), loadSmall(t, out), RunOptions{Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(out, ConfigCopy)
	orig, err := os.ReadFile(copyPath)
	if err != nil {
		t.Fatal(err)
	}
	edited := string(orig) + "# my figure\n"
	put(t, out, ConfigCopy, edited)
	var said bytes.Buffer
	if _, err := Run(context.Background(), loadSmall(t, out), RunOptions{Jobs: 2, Progress: &said}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(copyPath); !bytes.Equal(b, orig) {
		t.Error("the copy is not the config run")
	}
	if b, err := os.ReadFile(copyPath + ".edited"); err != nil || string(b) != edited {
		t.Errorf("the edited copy: %q, %v", b, err)
	}
	if !strings.Contains(said.String(), "note: "+copyPath+" had been edited since its run; kept as "+copyPath+".edited") {
		t.Errorf("not said: %s", said.String())
	}
	// again, on a resume without progress (wb experiment -q): the next
	// name, still said (-q had hidden it with the progress)
	put(t, out, ConfigCopy, edited+"# more\n")
	said.Reset()
	if _, err := Run(context.Background(), loadSmall(t, out), RunOptions{Jobs: 2, Resume: true, Notes: &said}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(copyPath + ".edited.2"); err != nil || string(b) != edited+"# more\n" {
		t.Errorf("the second edited copy: %q, %v", b, err)
	}
	if !strings.Contains(said.String(), "kept as "+copyPath+".edited.2") {
		t.Errorf("not said without progress: %q", said.String())
	}
	// unedited: nothing kept aside
	if _, err := Run(context.Background(), loadSmall(t, out), RunOptions{Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	if exists(out, ConfigCopy+".edited.3") {
		t.Error("an unedited copy kept aside")
	}
}

// TestCollectNamesTheCopy: collect with runs missing says how to run them,
// from the config's file while it is still the config they ran, else from
// the results' copy of it (the advice named the file edited since, whose
// --resume is refused: a reviewer's find).
func TestCollectNamesTheCopy(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "small.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	cfgPath := filepath.Join(tmp, "small.yaml")
	// the traces are named relative to testdata
	abs, _ := filepath.Abs("testdata")
	text := strings.ReplaceAll(string(raw), "../../datasets/", filepath.Join(abs, "../../datasets")+"/")
	if err := os.WriteFile(cfgPath, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out")
	c.Out = out
	if _, err := Run(context.Background(), c, RunOptions{Only: []int{1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := Collect(context.Background(), out, "test"); err == nil || !strings.Contains(err.Error(), "wb experiment "+cfgPath+" --out "+out+" --resume") {
		t.Errorf("collect, the config as run: %v", err)
	}
	if err := os.WriteFile(cfgPath, []byte(text+"description: edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Collect(context.Background(), out, "test"); err == nil || !strings.Contains(err.Error(), "wb experiment "+filepath.Join(out, ConfigCopy)+" --out "+out+" --resume") {
		t.Errorf("collect, the config edited since: %v", err)
	}
	// the copy edited too (a figure, for wb plot): neither is named
	cp := filepath.Join(out, ConfigCopy)
	b, _ := os.ReadFile(cp)
	if err := os.WriteFile(cp, append(b, "# mine\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	// (no merge yet: no manifest holds it)
	if _, err := Collect(context.Background(), out, "test"); err == nil || !strings.Contains(err.Error(), "CONFIG the config as run: neither its file nor the copy is it now (no file here holds its text: undo the edits to config.yaml") {
		t.Errorf("collect, both edited: %v", err)
	}
}

// TestUsersPicturesKept: in a directory this wb marked, a picture of the
// user's in figures/ survives a rerun even before any figure was drawn
// there (no record yet: it had been taken for a figure of an older wb's
// and deleted), and one at the name of a figure the config draws is not
// drawn over: the figure is refused, the file kept (it was replaced, then
// recorded as wb's, then deleted: reviewer's finds).
func TestUsersPicturesKept(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "small.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text, _, _ := strings.Cut(string(raw), "figures:")
	noFigs, err := ParseConfig([]byte(text), filepath.Join("testdata", "small.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	noFigs.Out = out
	if _, err := Run(context.Background(), noFigs, RunOptions{Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	put(t, out, "figures/my-analysis.png", "mine")
	if _, err := Run(context.Background(), noFigs, RunOptions{Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(out, "figures", "my-analysis.png")); err != nil || string(b) != "mine" {
		t.Errorf("the user's picture after a rerun: %q, %v", b, err)
	}

	out2 := t.TempDir()
	c := loadSmall(t, out2)
	if _, err := Run(context.Background(), c, RunOptions{Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	name := c.FigureName(0)
	matches, _ := filepath.Glob(filepath.Join(out2, FiguresDir, name+"*.png"))
	if len(matches) == 0 {
		t.Fatalf("no figure %s drawn", name)
	}
	// the user's file at a figure's name (as if the record never named it)
	rec := filepath.Join(out2, FiguresDir, FiguresRecord)
	b, _ := os.ReadFile(rec)
	base := filepath.Base(matches[0])
	if err := os.WriteFile(rec, []byte(strings.ReplaceAll(string(b), base+"\n", "")), 0o644); err != nil {
		t.Fatal(err)
	}
	put(t, out2, filepath.Join(FiguresDir, base), "mine")
	if _, _, err := Plot(out2); err == nil || !strings.Contains(err.Error(), base+" is not a figure wb drew (a file of yours?): drawing would replace it") {
		t.Errorf("plot over the user's file: %v", err)
	}
	if b, err := os.ReadFile(matches[0]); err != nil || string(b) != "mine" {
		t.Errorf("the user's file at a figure's name: %q, %v", b, err)
	}
}
