package bench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat
// (proc(5)); it is 100 on every Linux architecture Go supports.
const clockTicks = 100

// ProcStat is a process's memory and CPU as /proc reports them, the
// cross-check of what its /metrics says.
type ProcStat struct {
	RSS        float64 // bytes, VmRSS from /proc/PID/status
	CPUSeconds float64 // utime + stime from /proc/PID/stat
	// UserSeconds and SystemSeconds split CPUSeconds: time in roost's own
	// code and time in the kernel on its behalf (system calls, TCP).
	UserSeconds   float64
	SystemSeconds float64
}

// ReadProc reads pid's RSS and CPU time from /proc.
func ReadProc(pid int) (ProcStat, error) {
	var ps ProcStat
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return ps, fmt.Errorf("bench: %w", err)
	}
	kb, err := fieldKB(status, "VmRSS:")
	if err != nil {
		return ps, fmt.Errorf("bench: /proc/%d/status: %w", pid, err)
	}
	ps.RSS = kb * 1024
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ps, fmt.Errorf("bench: %w", err)
	}
	ps.UserSeconds, ps.SystemSeconds, err = statCPU(stat)
	if err != nil {
		return ps, fmt.Errorf("bench: /proc/%d/stat: %w", pid, err)
	}
	ps.CPUSeconds = ps.UserSeconds + ps.SystemSeconds
	return ps, nil
}

// statCPU returns utime and stime in seconds from the text of
// /proc/PID/stat. The command name (field 2) may hold spaces and
// parentheses, so fields are counted from the last ')'.
func statCPU(stat []byte) (user, system float64, err error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, errors.New("no command name")
	}
	f := strings.Fields(string(stat[i+1:]))
	// After the name: state is field 3, utime field 14, stime field 15.
	if len(f) < 13 {
		return 0, 0, errors.New("too few fields")
	}
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, 0, err
	}
	return float64(ut) / clockTicks, float64(st) / clockTicks, nil
}

// fieldKB returns the value of a "Name:   1234 kB" line.
func fieldKB(text []byte, name string) (float64, error) {
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, name); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				break
			}
			return strconv.ParseFloat(f[0], 64)
		}
	}
	return 0, fmt.Errorf("no %s line", name)
}

// Slab is the kernel's slab memory from /proc/meminfo, in bytes: where the
// kernel keeps each socket's structures (tcp_sock, inode, dentry, file,
// epoll item), outside every process's RSS.
type Slab struct {
	Total       float64 `json:"slab"`
	Unreclaimed float64 `json:"sunreclaim"`
}

// ReadSlab reads Slab and SUnreclaim from /proc/meminfo.
func ReadSlab() (Slab, error) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return Slab{}, fmt.Errorf("bench: %w", err)
	}
	total, err1 := fieldKB(b, "Slab:")
	unrec, err2 := fieldKB(b, "SUnreclaim:")
	if err := errors.Join(err1, err2); err != nil {
		return Slab{}, fmt.Errorf("bench: /proc/meminfo: %w", err)
	}
	return Slab{Total: total * 1024, Unreclaimed: unrec * 1024}, nil
}

// FindPID returns the pid of the local process listening on TCP port, by
// matching the socket's inode from /proc/net/tcp{,6} against every
// process's open files. It finds only processes this user may inspect.
func FindPID(port int) (int, error) {
	inode, err := listenInode(port)
	if err != nil {
		return 0, err
	}
	link := "socket:[" + inode + "]"
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		fds, _ := filepath.Glob(p + "/fd/*")
		for _, fd := range fds {
			if target, err := os.Readlink(fd); err == nil && target == link {
				return strconv.Atoi(filepath.Base(p))
			}
		}
	}
	return 0, fmt.Errorf("bench: no visible process owns the listener on port %d", port)
}

// listenInode finds the inode of the socket listening on port.
func listenInode(port int) (string, error) {
	hexPort := fmt.Sprintf(":%04X", port)
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		if inode := findListener(b, hexPort); inode != "" {
			return inode, nil
		}
	}
	return "", fmt.Errorf("bench: nothing listens on TCP port %d here", port)
}

// findListener scans a /proc/net/tcp table for a LISTEN (0A) socket whose
// local address ends in hexPort and returns its inode.
func findListener(table []byte, hexPort string) string {
	sc := bufio.NewScanner(bytes.NewReader(table))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
		if len(f) >= 10 && strings.HasSuffix(f[1], hexPort) && f[3] == "0A" {
			return f[9]
		}
	}
	return ""
}

// loadAverage returns the one-minute load average, or 0 when unknown.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// ReadTCPMemory returns the memory this machine's kernel holds for TCP
// sockets, in bytes: the "mem" pages of /proc/net/sockstat, which count
// every socket's send and receive buffers (both ends of a loopback
// connection).
func ReadTCPMemory() (float64, error) {
	b, err := os.ReadFile("/proc/net/sockstat")
	if err != nil {
		return 0, fmt.Errorf("bench: %w", err)
	}
	pages, err := tcpPages(b)
	if err != nil {
		return 0, fmt.Errorf("bench: /proc/net/sockstat: %w", err)
	}
	return pages * float64(os.Getpagesize()), nil
}

// tcpPages returns the "mem" field of the "TCP:" line of a sockstat text.
func tcpPages(sockstat []byte) (float64, error) {
	for line := range strings.SplitSeq(string(sockstat), "\n") {
		rest, ok := strings.CutPrefix(line, "TCP:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		for i := 0; i+1 < len(f); i += 2 {
			if f[i] == "mem" {
				return strconv.ParseFloat(f[i+1], 64)
			}
		}
	}
	return 0, errors.New("no TCP mem")
}
