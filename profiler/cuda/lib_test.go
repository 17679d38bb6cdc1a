package cuda

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tree makes empty files (and their folders) under a temporary root.
func tree(t *testing.T, files ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// found gives each library's folder ("" when missing).
func found(d Discovery) map[string]string {
	out := map[string]string{}
	for _, f := range d.Libs {
		out[f.Library.Key] = f.Dir
		if f.Path != "" && filepath.Base(f.Path) == "" {
			panic("empty base")
		}
	}
	return out
}

func TestDiscoverPrecedence(t *testing.T) {
	all := []string{"libcuda.so.1", "libcublasLt.so.12", "libcudnn.so.9", "libnvrtc.so.12"}
	in := func(dir string, names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, dir+"/"+n)
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		files []string
		env   map[string]string
		flag  string
		want  map[string]string
	}{
		{
			name:  "flag before everything",
			files: slices.Concat(in("opt/a", all...), in("opt/b", all...), in("usr/lib/x86_64-linux-gnu", all...)),
			flag:  "/opt/a",
			env:   map[string]string{"WB_CUDA_LIB_PATH": "/opt/b"},
			want:  map[string]string{"cuda": "/opt/a", "cublasLt": "/opt/a", "cudnn": "/opt/a", "nvrtc": "/opt/a"},
		},
		{
			name:  "WB_CUDA_LIB_PATH before LD_LIBRARY_PATH, colon-separated",
			files: slices.Concat(in("opt/b", "libcudnn.so.9"), in("opt/c", all...)),
			env:   map[string]string{"WB_CUDA_LIB_PATH": "/nonexistent:/opt/b", "LD_LIBRARY_PATH": "/opt/c"},
			want:  map[string]string{"cuda": "/opt/c", "cublasLt": "/opt/c", "cudnn": "/opt/b", "nvrtc": "/opt/c"},
		},
		{
			name: "LD_LIBRARY_PATH before /usr/local/cuda before system",
			files: slices.Concat(in("opt/c", "libcudnn.so.9"), in("usr/local/cuda/lib64", "libcublasLt.so.12", "libcudnn.so.9"),
				in("usr/lib/x86_64-linux-gnu", all...)),
			env:  map[string]string{"LD_LIBRARY_PATH": "/opt/c"},
			want: map[string]string{"cuda": "/usr/lib/x86_64-linux-gnu", "cublasLt": "/usr/local/cuda/lib64", "cudnn": "/opt/c", "nvrtc": "/usr/lib/x86_64-linux-gnu"},
		},
		{
			name: "versioned CUDA folders newest first",
			files: slices.Concat(in("usr/local/cuda-12.4/lib64", "libnvrtc.so.12"), in("usr/local/cuda-12.10/lib64", "libnvrtc.so.12"),
				in("usr/local/cuda-11.8/lib64", "libnvrtc.so.12")),
			want: map[string]string{"cuda": "", "cublasLt": "", "cudnn": "", "nvrtc": "/usr/local/cuda-12.10/lib64"},
		},
		{
			name:  "arm64 (Grace Hopper) system folder",
			files: in("usr/lib/aarch64-linux-gnu", all...),
			want:  map[string]string{"cuda": "/usr/lib/aarch64-linux-gnu", "cublasLt": "/usr/lib/aarch64-linux-gnu", "cudnn": "/usr/lib/aarch64-linux-gnu", "nvrtc": "/usr/lib/aarch64-linux-gnu"},
		},
		{
			name:  "WSL driver",
			files: in("usr/lib/wsl/lib", "libcuda.so.1"),
			want:  map[string]string{"cuda": "/usr/lib/wsl/lib", "cublasLt": "", "cudnn": "", "nvrtc": ""},
		},
		{
			name: "pip wheels in a virtual environment before the user's and the system's",
			files: slices.Concat(in("usr/lib64", "libcuda.so.1"),
				in("venv/lib/python3.12/site-packages/nvidia/cudnn/lib", "libcudnn.so.9"),
				in("home/u/.local/lib/python3.11/site-packages/nvidia/cudnn/lib", "libcudnn.so.9"),
				in("home/u/.local/lib/python3.11/site-packages/nvidia/cublas/lib", "libcublasLt.so.12"),
				in("usr/local/lib/python3.10/dist-packages/nvidia/cuda_nvrtc/lib", "libnvrtc.so.12")),
			env: map[string]string{"VIRTUAL_ENV": "/venv", "HOME": "/home/u"},
			want: map[string]string{"cuda": "/usr/lib64", "cudnn": "/venv/lib/python3.12/site-packages/nvidia/cudnn/lib",
				"cublasLt": "/home/u/.local/lib/python3.11/site-packages/nvidia/cublas/lib",
				"nvrtc":    "/usr/local/lib/python3.10/dist-packages/nvidia/cuda_nvrtc/lib"},
		},
		{
			name: "newest python first; conda's lib",
			files: slices.Concat(in("usr/lib/python3.9/dist-packages/nvidia/cudnn/lib", "libcudnn.so.9"),
				in("usr/lib/python3.12/dist-packages/nvidia/cudnn/lib", "libcudnn.so.9"),
				in("conda/lib", "libcublasLt.so.12")),
			env: map[string]string{"CONDA_PREFIX": "/conda"},
			want: map[string]string{"cuda": "", "cudnn": "/usr/lib/python3.12/dist-packages/nvidia/cudnn/lib",
				"cublasLt": "/conda/lib", "nvrtc": ""},
		},
		{
			name:  "a folder named earlier wins over a newer version later",
			files: slices.Concat(in("opt/a", "libcublasLt.so.12"), in("opt/b", "libcublasLt.so.13")),
			env:   map[string]string{"LD_LIBRARY_PATH": "/opt/a:/opt/b"},
			want:  map[string]string{"cuda": "", "cublasLt": "/opt/a", "cudnn": "", "nvrtc": ""},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := tree(t, tc.files...)
			d := Discover(os.DirFS(root), root, Env{LibPath: tc.flag, Getenv: envOf(tc.env)})
			if got := found(d); !mapsEqual(got, tc.want) {
				t.Errorf("found %v, want %v (searched %v)", got, tc.want, d.Dirs)
			}
			for _, f := range d.Libs {
				if f.Path != "" && !strings.HasPrefix(f.Path, root) {
					t.Errorf("%s: path %s is not under the root %s", f.Library.Key, f.Path, root)
				}
			}
		})
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestDiscoverPrefersNewerVersionInAFolder(t *testing.T) {
	root := tree(t, "d/libcublasLt.so.12", "d/libcublasLt.so.13", "d/libnvrtc.so.12", "d/libnvrtc.so.13")
	d := Discover(os.DirFS(root), root, Env{LibPath: "/d"})
	for key, want := range map[string]string{"cublasLt": "libcublasLt.so.13", "nvrtc": "libnvrtc.so.13"} {
		if got := filepath.Base(d.Lib(key).Path); got != want {
			t.Errorf("%s: found %s, want %s", key, got, want)
		}
	}
}

func TestSearchDirsSkipsMissingRelativeAndDuplicate(t *testing.T) {
	root := tree(t, "opt/a/x", "usr/lib64/x")
	got := SearchDirs(os.DirFS(root), Env{LibPath: "/opt/a:relative:/opt/missing:/opt/a/", Getenv: envOf(map[string]string{"LD_LIBRARY_PATH": "/usr/lib64"})})
	want := []string{"/opt/a", "/usr/lib64"}
	if !slices.Equal(got, want) {
		t.Errorf("SearchDirs = %v, want %v", got, want)
	}
}

func TestNotFoundErrorText(t *testing.T) {
	root := tree(t, "usr/lib64/libcudnn.so.9", "opt/x/readme")
	d := Discover(os.DirFS(root), root, Env{Getenv: envOf(map[string]string{"WB_CUDA_LIB_PATH": "/opt/x"})})
	f := d.Lib("cuda")
	if f.Path != "" {
		t.Fatalf("found libcuda at %s in a tree without it", f.Path)
	}
	msg := f.missing().Error()
	for _, want := range []string{"libcuda.so.1 not found", "searched /opt/x, /usr/lib64", "--cuda-lib-path", "WB_CUDA_LIB_PATH"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
	var nf *NotFoundError
	if !errors.As(f.missing(), &nf) || nf.Library.Key != "cuda" {
		t.Errorf("error is not a *NotFoundError for cuda: %#v", f.missing())
	}
}

func TestGlobOrder(t *testing.T) {
	root := tree(t, "usr/local/cuda-9.2/lib64/x", "usr/local/cuda-12.4/lib64/x", "usr/local/cuda-12.10/lib64/x", "usr/local/cuda-13.0/lib64/x")
	got := glob(os.DirFS(root), "/usr/local/cuda-*/lib64")
	want := []string{"/usr/local/cuda-13.0/lib64", "/usr/local/cuda-12.10/lib64", "/usr/local/cuda-12.4/lib64", "/usr/local/cuda-9.2/lib64"}
	if !slices.Equal(got, want) {
		t.Errorf("glob = %v, want %v", got, want)
	}
}

// TestNVRTCForDriver: where libnvrtc.so.13 and .so.12 are both found, a
// CUDA 12 driver gets .so.12 (it cannot load what NVRTC 13 builds), a
// CUDA 13 driver .so.13; with only .so.13 there is nothing older to take.
func TestNVRTCForDriver(t *testing.T) {
	root := tree(t, "/opt/a/libnvrtc.so.13", "/opt/b/libnvrtc.so.12", "/opt/c/libnvrtc.so.13")
	env := Env{LibPath: "/opt/a:/opt/b"}
	fsys := os.DirFS(root)
	d := Discover(fsys, root, env)
	if got := filepath.Base(d.Lib("nvrtc").Path); got != "libnvrtc.so.13" {
		t.Fatalf("discovered %s", got)
	}
	for _, tc := range []struct {
		major int
		want  string
	}{{13, "/opt/a/libnvrtc.so.13"}, {12, "/opt/b/libnvrtc.so.12"}, {14, "/opt/a/libnvrtc.so.13"}} {
		f := d.ForDriver(fsys, root, "nvrtc", tc.major)
		if f.Path != filepath.Join(root, tc.want) {
			t.Errorf("CUDA %d driver: %s, want %s", tc.major, f.Path, tc.want)
		}
	}
	only13 := Discover(fsys, root, Env{LibPath: "/opt/c"})
	if f := only13.ForDriver(fsys, root, "nvrtc", 12); f.Path != filepath.Join(root, "/opt/c/libnvrtc.so.13") {
		t.Errorf("only NVRTC 13: %s", f.Path)
	}
	if f := d.ForDriver(fsys, root, "cudnn", 12); f.Path != "" {
		t.Errorf("a missing library found: %s", f.Path)
	}
	lib := Library{Key: "nvrtc", Names: []string{"libnvrtc.so.13", "libnvrtc.so.12"}}
	if got := lib.ForDriver(12).Names; !slices.Equal(got, []string{"libnvrtc.so.12"}) {
		t.Errorf("names for CUDA 12: %v", got)
	}
	if got := lib.ForDriver(11).Names; !slices.Equal(got, lib.Names) {
		t.Errorf("names for CUDA 11: %v", got)
	}
	// cuBLASLt likewise (its 13 is tried before its 12)
	ltRoot := tree(t, "/opt/d/libcublasLt.so.13", "/opt/e/libcublasLt.so.12")
	lt := Discover(os.DirFS(ltRoot), ltRoot, Env{LibPath: "/opt/d:/opt/e"})
	if got := filepath.Base(lt.Lib("cublasLt").Path); got != "libcublasLt.so.13" {
		t.Fatalf("discovered %s", got)
	}
	if f := lt.ForDriver(os.DirFS(ltRoot), ltRoot, "cublasLt", 12); f.Path != filepath.Join(ltRoot, "/opt/e/libcublasLt.so.12") {
		t.Errorf("cuBLASLt for a CUDA 12 driver: %s", f.Path)
	}
	if soMajor("libcuda.so.1") != 1 || soMajor("libfoo.so") != 0 || soMajor("libcudnn.so.9.1.0") != 9 {
		t.Error("soMajor")
	}
}

// A cuDNN built for a newer CUDA than the driver's is refused by name and
// version (cuDNN 9's CUDA 12 and 13 builds are both libcudnn.so.9); one
// built for the driver's CUDA or an older one, or of no known version,
// passes. On a GPU that CUDA 13 dropped (compute capability below 7.5),
// the libraries are CUDA 12's whatever the driver, and a cuDNN for CUDA 13
// is refused saying why.
func TestCuDNNForDriver(t *testing.T) {
	if err := cudnnForDriver("/x/libcudnn.so.9", 13000, libMajor(12, 9, 0)); err == nil ||
		!strings.Contains(err.Error(), "/x/libcudnn.so.9 was built for CUDA 13.0, newer than the driver's CUDA 12: install the cuDNN 9 build for CUDA 12 (pip: nvidia-cudnn-cu12)") {
		t.Errorf("CUDA 13 cuDNN on a CUDA 12 driver: %v", err)
	}
	for _, c := range [][2]int{{12080, 12}, {12080, 13}, {11080, 12}, {0, 12}, {13000, 0}, {13000, 13}} {
		if err := cudnnForDriver("/x/libcudnn.so.9", c[0], libMajor(c[1], 9, 0)); err != nil {
			t.Errorf("cudart %d, driver CUDA %d: %v", c[0], c[1], err)
		}
	}
	v100 := libMajor(13, 7, 0)
	if v100.major != 12 || libMajor(13, 7, 5).major != 13 || libMajor(13, 6, 0).major != 12 || libMajor(12, 7, 0).major != 12 ||
		libMajor(11, 6, 1).major != 11 || libMajor(13, 0, 0).major != 13 {
		t.Errorf("library majors: V100 on CUDA 13 %d, T4 %d, P100 %d", v100.major, libMajor(13, 7, 5).major, libMajor(13, 6, 0).major)
	}
	if err := cudnnForDriver("/x/libcudnn.so.9", 13000, v100); err == nil ||
		!strings.Contains(err.Error(), "newer than CUDA 12, the last to support a GPU of compute capability 7.0 (the driver's is CUDA 13): install the cuDNN 9 build for CUDA 12") {
		t.Errorf("CUDA 13 cuDNN on a V100: %v", err)
	}
}
