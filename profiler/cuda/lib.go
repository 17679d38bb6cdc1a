package cuda

import (
	"cmp"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Library is one of the shared libraries the backend loads, with the file
// names it answers to, most preferred first.
type Library struct {
	// Key names the library in Found and in error messages: "cuda",
	// "cublasLt", "cudnn", "nvrtc".
	Key string
	// Names are the file names tried in each folder, in order: a newer
	// major version before an older one.
	Names []string
	// Required libraries make New fail when they are missing; without an
	// optional one, the ops it runs are unsupported.
	Required bool
}

// Libraries are the libraries the backend looks for, in load order.
// libcublasLt is loaded before libcudnn so that cuDNN's own dlopen of
// cublasLt by its soname finds the copy already loaded.
var Libraries = []Library{
	{Key: "cuda", Names: []string{"libcuda.so.1"}, Required: true},
	{Key: "cublasLt", Names: []string{"libcublasLt.so.13", "libcublasLt.so.12"}},
	{Key: "nvrtc", Names: []string{"libnvrtc.so.13", "libnvrtc.so.12"}},
	{Key: "cudnn", Names: []string{"libcudnn.so.9"}},
}

// systemDirs are the distributions' library folders, on x86-64 and on
// arm64 (Grace Hopper), and WSL's, where libcuda.so.1 is a stub to the
// Windows driver.
var systemDirs = []string{"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64",
	"/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu", "/usr/lib/wsl/lib"}

// Env is what library discovery reads from its surroundings. The zero
// value reads nothing: no variables set, no --cuda-lib-path.
type Env struct {
	// LibPath is --cuda-lib-path (Options.LibPath): folders, colon-
	// separated, searched before anything else.
	LibPath string
	// Getenv reads an environment variable (os.Getenv in New); nil reads
	// every variable as unset. Read: WB_CUDA_LIB_PATH, LD_LIBRARY_PATH,
	// HOME, VIRTUAL_ENV, CONDA_PREFIX.
	Getenv func(string) string
}

func (e Env) get(key string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(key)
}

// Found is where discovery found one library.
type Found struct {
	Library Library
	// Path is the file to dlopen (under the root discovery ran on), or ""
	// when the library was not found.
	Path string
	// Dir is the folder it was found in, as an absolute path on the
	// searched system.
	Dir string
	// Searched lists the folders searched, in order, when it was not
	// found (every folder searched, as absolute paths).
	Searched []string
}

// Discovery is the result of one search: a Found per library of
// Libraries, in their order, and the folders searched.
type Discovery struct {
	Libs []Found
	Dirs []string
}

// Lib returns the result for the library called key ("cuda", "cudnn").
func (d Discovery) Lib(key string) Found {
	for _, f := range d.Libs {
		if f.Library.Key == key {
			return f
		}
	}
	return Found{}
}

// SearchDirs lists the folders searched for the libraries, in order,
// without duplicates; only folders that exist in fsys are listed:
//
//  1. env.LibPath (--cuda-lib-path), colon-separated;
//  2. $WB_CUDA_LIB_PATH, colon-separated;
//  3. $LD_LIBRARY_PATH;
//  4. /usr/local/cuda/lib64 (the installed default), then
//     /usr/local/cuda-*/lib64, newest version first;
//  5. the system folders (systemDirs): /usr/lib/x86_64-linux-gnu,
//     /usr/lib/aarch64-linux-gnu, /usr/lib64, /lib/x86_64-linux-gnu,
//     /lib/aarch64-linux-gnu, /usr/lib/wsl/lib;
//  6. Python environments, the active ones first: $VIRTUAL_ENV, then
//     $CONDA_PREFIX (its lib, where conda's cudnn and libcublas packages
//     go, then its site-packages), then ~/.local, /usr/local/lib and
//     /usr/lib; in each, the nvidia/*/lib folders of site-packages or
//     dist-packages, where pip's nvidia-cudnn-cu12, nvidia-cublas-cu12
//     and nvidia-cuda-nvrtc-cu12 (and their cu13 versions) put their
//     libraries. python3.* folders are searched newest first.
//
// fsys is the file system rooted at "/" (os.DirFS("/") in New, a test
// tree in tests); relative folders in the variables are ignored.
func SearchDirs(fsys fs.FS, env Env) []string {
	var dirs []string
	seen := map[string]bool{}
	add := func(d string) {
		if d == "" || !filepath.IsAbs(d) {
			return
		}
		d = path.Clean(d)
		if seen[d] || !isDir(fsys, d) {
			return
		}
		seen[d] = true
		dirs = append(dirs, d)
	}
	for _, list := range []string{env.LibPath, env.get("WB_CUDA_LIB_PATH"), env.get("LD_LIBRARY_PATH")} {
		for _, d := range strings.Split(list, ":") {
			add(d)
		}
	}
	add("/usr/local/cuda/lib64")
	for _, d := range glob(fsys, "/usr/local/cuda-*/lib64") {
		add(d)
	}
	for _, d := range systemDirs {
		add(d)
	}
	pyPackages := func(prefix string) {
		if prefix == "" || !filepath.IsAbs(prefix) {
			return
		}
		for _, pkgs := range []string{"site-packages", "dist-packages"} {
			for _, d := range glob(fsys, path.Join(prefix, "lib/python3*", pkgs, "nvidia/*/lib")) {
				add(d)
			}
		}
	}
	pyPackages(env.get("VIRTUAL_ENV"))
	if conda := env.get("CONDA_PREFIX"); conda != "" {
		add(path.Join(conda, "lib"))
		pyPackages(conda)
	}
	if home := env.get("HOME"); home != "" {
		pyPackages(path.Join(home, ".local"))
	}
	pyPackages("/usr/local")
	pyPackages("/usr")
	return dirs
}

// Discover searches SearchDirs(fsys, env) for every library of
// Libraries: in each folder in order, each of the library's names in
// order, so a folder named earlier wins over a newer version found
// later. root is the real path of fsys's root, prefixed to the paths
// found ("/" or "" for the real file system).
func Discover(fsys fs.FS, root string, env Env) Discovery {
	dirs := SearchDirs(fsys, env)
	d := Discovery{Dirs: dirs}
	for _, lib := range Libraries {
		d.Libs = append(d.Libs, find(fsys, root, dirs, lib))
	}
	return d
}

// find searches dirs for lib: in each folder in order, each of its names
// in order.
func find(fsys fs.FS, root string, dirs []string, lib Library) Found {
	f := Found{Library: lib}
	for _, dir := range dirs {
		for _, name := range lib.Names {
			p := path.Join(dir, name)
			if isFile(fsys, p) {
				f.Path, f.Dir = filepath.Join(root, filepath.FromSlash(p)), dir
				return f
			}
		}
	}
	f.Searched = slices.Clone(dirs)
	return f
}

// ForDriver narrows the library's names to the major versions a driver
// whose CUDA version's major is major runs ("libnvrtc.so.12" for a CUDA
// 12 driver): CUDA's minor-version compatibility lets a driver run the
// libraries, and load the cubins, of a newer toolkit of its own major
// version only. A library with no such name keeps its names (whatever
// loads then fails, saying why).
func (l Library) ForDriver(major int) Library {
	var names []string
	for _, n := range l.Names {
		if v := soMajor(n); v > 0 && v <= major {
			names = append(names, n)
		}
	}
	if len(names) > 0 {
		l.Names = names
	}
	return l
}

// soMajor is the major version of a library's file name,
// "libnvrtc.so.13" → 13, or 0 where it has none.
func soMajor(name string) int {
	_, v, ok := strings.Cut(name, ".so.")
	if !ok {
		return 0
	}
	major, _, _ := strings.Cut(v, ".")
	n, err := strconv.Atoi(major)
	if err != nil {
		return 0
	}
	return n
}

// ForDriver is the result for the library called key as a driver of
// CUDA major version major runs it: the library found, or, where that is
// of a newer major version (libnvrtc.so.13 for a CUDA 12 driver), the
// first of its older names in the same folders (libnvrtc.so.12).
func (d Discovery) ForDriver(fsys fs.FS, root string, key string, major int) Found {
	f := d.Lib(key)
	if f.Path == "" || soMajor(filepath.Base(f.Path)) <= major {
		return f
	}
	lib := f.Library.ForDriver(major)
	if slices.Equal(lib.Names, f.Library.Names) {
		return f
	}
	if older := find(fsys, root, d.Dirs, lib); older.Path != "" {
		return older
	}
	return f
}

// NotFoundError says a required library is missing, where it was looked
// for and how to point wb at it.
type NotFoundError struct {
	Library Library
	// Searched are the folders searched, in order.
	Searched []string
}

func (e *NotFoundError) Error() string {
	searched := "no folder (none of the usual places exists)"
	if len(e.Searched) > 0 {
		searched = strings.Join(e.Searched, ", ")
	}
	return fmt.Sprintf("%s not found (searched %s); point wb at the folder that holds it with --cuda-lib-path DIR or WB_CUDA_LIB_PATH=DIR[:DIR...] (on a machine without an NVIDIA driver, use --backend onednn, or cpu without oneDNN)",
		strings.Join(e.Library.Names, " or "), searched)
}

// missing is the error for a library discovery did not find.
func (f Found) missing() error {
	return &NotFoundError{Library: f.Library, Searched: f.Searched}
}

// rel turns an absolute path into an fs.FS path.
func rel(p string) string {
	r := strings.TrimPrefix(path.Clean(p), "/")
	if r == "" {
		return "."
	}
	return r
}

func isDir(fsys fs.FS, p string) bool {
	st, err := fs.Stat(fsys, rel(p))
	return err == nil && st.IsDir()
}

// isFile reports whether p exists and is not a folder (a library is
// often a symbolic link, which fs.Stat follows).
func isFile(fsys fs.FS, p string) bool {
	st, err := fs.Stat(fsys, rel(p))
	return err == nil && !st.IsDir()
}

// glob expands an absolute pattern in fsys, newest version first: the
// matches are ordered by the numbers in them, descending ("cuda-12.10"
// before "cuda-12.4", "python3.12" before "python3.9"), then by name.
func glob(fsys fs.FS, pattern string) []string {
	matches, err := fs.Glob(fsys, rel(pattern))
	if err != nil {
		return nil
	}
	for i, m := range matches {
		matches[i] = "/" + m
	}
	slices.SortFunc(matches, func(a, b string) int {
		if c := compareVersions(versionNumbers(b), versionNumbers(a)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return matches
}

// versionNumbers are the runs of digits in s, in order.
func versionNumbers(s string) []int {
	var out []int
	for f := range strings.FieldsFuncSeq(s, func(r rune) bool { return r < '0' || r > '9' }) {
		n, err := strconv.Atoi(f)
		if err != nil {
			n = 0
		}
		out = append(out, n)
	}
	return out
}

func compareVersions(a, b []int) int {
	for i := range min(len(a), len(b)) {
		if c := cmp.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}
