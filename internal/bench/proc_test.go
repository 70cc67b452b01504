package bench

import (
	"net"
	"os"
	"testing"
)

func TestStatCPU(t *testing.T) {
	// A real line, with a command name that holds a space and a ')'.
	line := []byte("4242 (roo st) x) S 1 4242 4242 0 -1 4194560 2890 0 0 0 150 75 0 0 20 0 9 0 1000 123 456 18446744073709551615")
	user, sys, err := statCPU(line)
	if err != nil || user != 1.5 || sys != 0.75 {
		t.Fatalf("statCPU = %v, %v, %v; want 1.5, 0.75", user, sys, err)
	}
	if _, _, err := statCPU([]byte("4242 (x) S 1")); err == nil {
		t.Fatal("short line: no error")
	}
}

func TestReadProcSelf(t *testing.T) {
	ps, err := ReadProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if ps.RSS < 1<<20 || ps.CPUSeconds < 0 {
		t.Fatalf("implausible self stats %+v", ps)
	}
	slab, err := ReadSlab()
	if err != nil || slab.Total <= 0 || slab.Unreclaimed <= 0 || slab.Unreclaimed > slab.Total {
		t.Fatalf("ReadSlab = %+v, %v", slab, err)
	}
}

func TestFindPIDSelf(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	pid, err := FindPID(ln.Addr().(*net.TCPAddr).Port)
	if err != nil || pid != os.Getpid() {
		t.Fatalf("FindPID = %d, %v; want %d", pid, err, os.Getpid())
	}
}

func TestTCPPages(t *testing.T) {
	text := "sockets: used 49\nTCP: inuse 29 orphan 0 tw 883 alloc 32 mem 5717\nUDP: inuse 0 mem 3\n"
	if got, err := tcpPages([]byte(text)); err != nil || got != 5717 {
		t.Errorf("tcpPages = %v, %v; want 5717", got, err)
	}
	if _, err := tcpPages([]byte("UDP: inuse 0 mem 3\n")); err == nil {
		t.Error("tcpPages of a text without a TCP line: no error")
	}
}
