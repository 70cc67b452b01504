package apps

import (
	"context"
	"log/slog"
	"runtime"
	"strconv"
	"testing"

	"github.com/roostproject/roost/internal/config"
)

// cachedApps is how many apps the memory benchmark caches: a hosting
// provider's table.
const cachedApps = 10_000

// BenchmarkCachedAppMemory reports the heap one cached app costs: the app,
// its id, key and secret strings, and its entries in both maps. Each
// iteration caches cachedApps apps with 20-character ids, keys and secrets,
// like a generated id and key and a 20-byte secret.
func BenchmarkCachedAppMemory(b *testing.B) {
	b.ReportAllocs()
	var perApp float64
	for b.Loop() {
		before := heapInUse()
		s := newDB(config.AppStore{}, slog.New(slog.DiscardHandler), Hooks{})
		for i := range cachedApps {
			n := strconv.Itoa(1_000_000_000_000 + i)
			a := config.App{ID: "id-" + n + "-xxxx", Key: "key-" + n + "-xxx", Secret: "secret-" + n + "-x"}
			if err := config.CheckApp(&a); err != nil {
				b.Fatal(err)
			}
			s.put(a, nil)
		}
		perApp = float64(heapInUse()-before) / cachedApps
		runtime.KeepAlive(s)
	}
	b.ReportMetric(perApp, "B/app")
}

// heapInUse returns the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkCachedLookup is a handshake's lookup of a cached app: it must
// not allocate.
func BenchmarkCachedLookup(b *testing.B) {
	b.ReportAllocs()
	s := newDB(config.AppStore{}, slog.New(slog.DiscardHandler), Hooks{})
	for i := range cachedApps {
		n := strconv.Itoa(i)
		s.put(config.App{ID: "id-" + n, Key: "key-" + n, Secret: "s"}, nil)
	}
	ctx := context.Background()
	for b.Loop() {
		if a, err := s.ByKey(ctx, "key-4242"); a == nil || err != nil {
			b.Fatal(a, err)
		}
	}
}

// BenchmarkConfigLookup is the same lookup from the configuration, for
// comparison in the same run.
func BenchmarkConfigLookup(b *testing.B) {
	b.ReportAllocs()
	cfg, err := config.Parse([]byte("apps:\n  - {id: id-1, key: key-4242, secret: s}\n"), nil)
	if err != nil {
		b.Fatal(err)
	}
	s := NewFile(&cfg)
	ctx := context.Background()
	for b.Loop() {
		if a, _ := s.ByKey(ctx, "key-4242"); a == nil {
			b.Fatal("not found")
		}
	}
}
