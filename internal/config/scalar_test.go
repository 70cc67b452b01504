package config

import (
	"errors"
	"math"
	"strconv"
	"testing"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"0", 0}, {"65536", 65536}, {"64B", 64}, {"64KB", 64000}, {"64kb", 64000},
		{"64KiB", 65536}, {"64kib", 65536}, {"1MB", 1e6}, {"1MiB", 1 << 20},
		{"2GB", 2e9}, {"1GiB", 1 << 30}, {" 64 KiB ", 65536},
		{strconv.Itoa(math.MaxInt), math.MaxInt},
	}
	for _, tt := range tests {
		if got, err := parseSize(tt.in); err != nil || got != tt.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestParseSizeRejects(t *testing.T) {
	for _, in := range []string{"", "KB", "-1", "+1", "1.5MB", "1 K", "1TB", "64 KiB x", "0x10",
		"9223372036854775808", "9223372036854775807KB"} {
		if got, err := parseSize(in); !errors.Is(err, errSize) || got != 0 {
			t.Errorf("parseSize(%q) = %d, %v; want errSize", in, got, err)
		}
	}
}
