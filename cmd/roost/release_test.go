//go:build release

// This file checks the output of `make release`; it runs only through
// `make release-check` (the release build tag), after the binaries exist.

package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"debug/buildinfo"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

var (
	distDir   = flag.String("dist", "", "directory that make release wrote")
	version   = flag.String("version", "", "VERSION given to make release")
	platforms = flag.String("platforms", "", "space-separated GOOS/GOARCH list given to make release")
)

// target is one platform's release binary.
type target struct{ goos, goarch string }

func (t target) file() string {
	name := fmt.Sprintf("roost-%s-%s-%s", *version, t.goos, t.goarch)
	if t.goos == "windows" {
		name += ".exe"
	}
	return name
}

func targets(t *testing.T) []target {
	if *distDir == "" || *version == "" || *platforms == "" {
		t.Fatal("run through make release-check: -dist, -version and -platforms are required")
	}
	var out []target
	for _, p := range strings.Fields(*platforms) {
		goos, goarch, ok := strings.Cut(p, "/")
		if !ok {
			t.Fatalf("bad platform %q", p)
		}
		out = append(out, target{goos, goarch})
	}
	return out
}

// TestReleaseChecksums checks that SHA256SUMS lists exactly the expected
// binaries and that every hash matches.
func TestReleaseChecksums(t *testing.T) {
	var want []string
	for _, tg := range targets(t) {
		want = append(want, tg.file())
	}
	sums := readSums(t, filepath.Join(*distDir, "SHA256SUMS"))
	var got []string
	for name, sum := range sums {
		got = append(got, name)
		if h := fileSHA256(t, filepath.Join(*distDir, name)); h != sum {
			t.Errorf("%s: sha256 %s, SHA256SUMS says %s", name, h, sum)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("SHA256SUMS lists %v, want %v", got, want)
	}
}

// TestReleaseBinaries checks each binary's executable format, architecture,
// static linking and build stamps; whatever GOOS it is for, the Go build
// information is readable from it.
func TestReleaseBinaries(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.goos+"-"+tg.goarch, func(t *testing.T) {
			path := filepath.Join(*distDir, tg.file())
			if err := checkFormat(path, tg); err != nil {
				t.Fatal(err)
			}
			checkStamps(t, path, tg)
		})
	}
}

// TestReleaseRunsHere runs the binary built for this machine, if any.
func TestReleaseRunsHere(t *testing.T) {
	out, err := runHostVersion(t)
	if err != nil {
		t.Fatal(err)
	}
	if out == nil {
		t.Skipf("no release binary for this host (%s/%s) in -platforms", runtime.GOOS, runtime.GOARCH)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	wantGo := "go: " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
	if len(lines) != 4 || lines[0] != "roost "+*version || lines[3] != wantGo {
		t.Fatalf("roost version printed\n%s\nwant lines \"roost %s\" ... %q", out, *version, wantGo)
	}
	for _, l := range lines[1:3] {
		if strings.HasSuffix(l, ": unknown") {
			t.Errorf("release binary reports %q: the commit and date stamps are missing", l)
		}
	}
}

// checkStamps checks the settings the Go toolchain recorded in the binary
// and that the release stamps are in it. (With -trimpath the toolchain does
// not record -ldflags, so the stamps are looked for in the file itself: the
// version, and the commit and date that the host's binary reports.)
func checkStamps(t *testing.T, path string, tg target) {
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: no Go build information: %v", path, err)
	}
	settings := make(map[string]string)
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	want := map[string]string{"GOOS": tg.goos, "GOARCH": tg.goarch, "CGO_ENABLED": "0", "-trimpath": "true"}
	for k, v := range want {
		if settings[k] != v {
			t.Errorf("build setting %s = %q, want %q", k, settings[k], v)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, stamp := range append(hostStamps(t), *version) {
		if !bytes.Contains(data, []byte(stamp)) {
			t.Errorf("%s does not contain the stamp %q", path, stamp)
		}
	}
}

// hostStamps returns the commit and build date that the host's release
// binary reports, or nothing when there is no binary for this host.
func hostStamps(t *testing.T) []string {
	out, err := runHostVersion(t)
	if err != nil || out == nil {
		return nil
	}
	var stamps []string
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(l, "commit: "); ok {
			stamps = append(stamps, v)
		}
		if v, ok := strings.CutPrefix(l, "built: "); ok {
			stamps = append(stamps, v)
		}
	}
	return stamps
}

// runHostVersion runs `version` with the binary for this host; nil output
// when there is none.
func runHostVersion(t *testing.T) ([]byte, error) {
	host := target{runtime.GOOS, runtime.GOARCH}
	if !slices.Contains(targets(t), host) {
		return nil, nil
	}
	path := filepath.Join(*distDir, host.file())
	out, err := exec.Command(path, "version").CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("%s version: %v\n%s", path, err, out)
	}
	return out, nil
}

// checkFormat opens path with the debug package of its target's format and
// checks the architecture, and for ELF that no dynamic loader is needed.
func checkFormat(path string, tg target) error {
	switch tg.goos {
	case "linux", "freebsd":
		return checkELF(path, tg)
	case "darwin":
		return checkMachO(path, tg)
	case "windows":
		return checkPE(path, tg)
	}
	return fmt.Errorf("no format check for GOOS %s", tg.goos)
}

func checkELF(path string, tg target) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("%s is not ELF: %w", path, err)
	}
	defer f.Close()
	machines := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}
	if f.Machine != machines[tg.goarch] {
		return fmt.Errorf("%s: ELF machine %v, want %v", path, f.Machine, machines[tg.goarch])
	}
	abi := map[string]elf.OSABI{"linux": elf.ELFOSABI_NONE, "freebsd": elf.ELFOSABI_FREEBSD}
	if f.OSABI != abi[tg.goos] {
		return fmt.Errorf("%s: ELF OS ABI %v, want %v", path, f.OSABI, abi[tg.goos])
	}
	if f.Type != elf.ET_EXEC {
		return fmt.Errorf("%s: ELF type %v, want ET_EXEC (a static executable)", path, f.Type)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			return fmt.Errorf("%s: dynamically linked (%v), want static", path, p.Type)
		}
	}
	return nil
}

func checkMachO(path string, tg target) error {
	f, err := macho.Open(path)
	if err != nil {
		return fmt.Errorf("%s is not Mach-O: %w", path, err)
	}
	defer f.Close()
	cpus := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}
	if f.Cpu != cpus[tg.goarch] || f.Type != macho.TypeExec {
		return fmt.Errorf("%s: Mach-O cpu %v type %v, want %v executable", path, f.Cpu, f.Type, cpus[tg.goarch])
	}
	return nil
}

func checkPE(path string, tg target) error {
	f, err := pe.Open(path)
	if err != nil {
		return fmt.Errorf("%s is not PE: %w", path, err)
	}
	defer f.Close()
	machines := map[string]uint16{"amd64": pe.IMAGE_FILE_MACHINE_AMD64, "arm64": pe.IMAGE_FILE_MACHINE_ARM64}
	if f.Machine != machines[tg.goarch] || f.Characteristics&pe.IMAGE_FILE_EXECUTABLE_IMAGE == 0 {
		return fmt.Errorf("%s: PE machine %#x characteristics %#x, want %#x executable", path, f.Machine, f.Characteristics, machines[tg.goarch])
	}
	return nil
}

// readSums parses sha256sum output: "HEX  NAME" per line.
func readSums(t *testing.T, path string) map[string]string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sums := make(map[string]string)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != 64 {
			t.Fatalf("%s: bad line %q", path, sc.Text())
		}
		sums[strings.TrimPrefix(name, "*")] = sum
	}
	return sums
}

func fileSHA256(t *testing.T, path string) string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}
