package apps

import (
	"context"
	"log/slog"
	"slices"
	"testing"

	"github.com/roostproject/roost/internal/config"
)

// TestReconfigureTellsWhatChanged swaps the configured apps and checks the
// lookups follow and the hooks hear of each app that changed, was
// switched off or went away, and of nothing else.
func TestReconfigureTellsWhatChanged(t *testing.T) {
	var disabled, changed []string
	hooks := Hooks{
		OnDisable: func(id string) { disabled = append(disabled, id) },
		OnChange: func(id string, a *config.App) {
			if a == nil {
				id = "-" + id
			}
			changed = append(changed, id)
		},
	}
	s, err := New(parse(t, `apps:
  - {id: kept, key: kept-key, secret: s1}
  - {id: off, key: off-key, secret: s2}
  - {id: gone, key: gone-key, secret: s3}
`), slog.New(slog.DiscardHandler), hooks)
	if err != nil {
		t.Fatal(err)
	}
	s.Reconfigure(parse(t, `apps:
  - {id: kept, key: kept-key, secret: new-secret}
  - {id: off, key: off-key, secret: s2, enabled: false}
  - {id: added, key: added-key, secret: s4}
`))
	if !slices.Equal(disabled, []string{"off", "gone"}) {
		t.Errorf("disabled %v, want [off gone]", disabled)
	}
	if !slices.Equal(changed, []string{"-gone", "kept", "off", "added"}) {
		t.Errorf("changed %v, want [-gone kept off added]", changed)
	}
	ctx := context.Background()
	if a, _ := s.ByKey(ctx, "kept-key"); a == nil || a.Secret != "new-secret" {
		t.Errorf("kept-key = %+v, want the new secret", a)
	}
	if a, _ := s.ByKey(ctx, "gone-key"); a != nil {
		t.Errorf("a removed app is still served: %+v", a)
	}
	if a, _ := s.ByID(ctx, "added"); a == nil {
		t.Error("an added app is not served")
	}
}

func parse(t *testing.T, yaml string) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]byte(yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	return &cfg
}
