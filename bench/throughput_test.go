package bench

import (
	"bytes"
	"os"
	"testing"
)

// The Explore row embeds a copy of a bundled scenario (go:embed cannot
// reach ../scenarios); the copy must not drift from the original.
func TestRendezvousSourceIsTheBundledScenario(t *testing.T) {
	t.Parallel()
	want, err := os.ReadFile("../scenarios/channel_rendezvous.toml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(rendezvousSource, want) {
		t.Fatal("bench/testdata/channel_rendezvous.toml differs from scenarios/channel_rendezvous.toml: copy it again")
	}
}
