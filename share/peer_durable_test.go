package share

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/internal/testgit"
)

// status returns the status of entry id in c's memory.
func status(t *testing.T, c *clone, id string) string {
	t.Helper()
	items, err := durable.LoadRef(c.repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.ID == id {
			return it.Status
		}
	}
	return "missing"
}

// shared sets up a victim with one memory, published, and a peer that has
// fetched it.
func shared(t *testing.T) (victim, peer *clone, it durable.Item) {
	remote, _ := bareRemote(t)
	victim = newClone(t, remote, "victim")
	peer = newClone(t, remote, "peer")
	it = mustSave(t, victim, "the victim's decision: deploys go through the staging cluster")
	if _, err := Push(victim.repo, "origin"); err != nil {
		t.Fatal(err)
	}
	if _, err := Fetch(peer.repo, "origin"); err != nil {
		t.Fatal(err)
	}
	return victim, peer, it
}

func fetchBothWays(t *testing.T, c *clone, path string) (Outcome, error) {
	t.Helper()
	if path == "konteks fetch" {
		return konteksFetch(t, c)
	}
	outs, err := plainFetch(t, c)
	if len(outs) == 1 {
		return outs[0], err
	}
	return Outcome{}, err
}

// TestTwinsRefused: a peer entry with our id in another shard, or with
// our id and other content at its place, is refused: our entry stays
// showable and forgettable.
func TestTwinsRefused(t *testing.T) {
	testgit.Setenv(t)
	for _, path := range []string{"konteks fetch", "git fetch"} {
		for _, twin := range []string{"other shard", "same place, other text"} {
			t.Run(path+", "+twin, func(t *testing.T) {
				victim, peer, it := shared(t)
				e := it.Entry
				e.Text = forged
				b, _ := json.Marshal(e)
				p := it.Path
				if twin == "other shard" {
					p = strings.Replace(p, "/"+it.ID[:2]+"/", "/zz/", 1)
				}
				publishBlob(t, peer, p, b)
				_, err := fetchBothWays(t, victim, path)
				if err == nil || !strings.Contains(err.Error(), it.ID) {
					t.Fatalf("twin accepted: %v", err)
				}
				if status(t, victim, it.ID) != durable.StatusLive {
					t.Fatal("our entry is no longer live")
				}
				if _, err := durable.Forget(victim.repo, it.ID[:8], "testing that it can still be forgotten"); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestSpoofedTombstonesNotApplied: a peer's tombstone for our memory is not
// applied when its author is not the memory's author, nor, when it claims
// to be us, without a trusted signature by us; the outcome says so and a
// local `memories forget` agrees. A tombstone signed by a trusted signer
// as its author is applied.
func TestSpoofedTombstonesNotApplied(t *testing.T) {
	testgit.Setenv(t)
	for _, path := range []string{"konteks fetch", "git fetch"} {
		for _, author := range []string{"Mallory <mallory@evil.example>", ""} {
			name := path + ", as " + map[bool]string{true: "us", false: "another author"}[author == ""]
			t.Run(name, func(t *testing.T) {
				victim, peer, it := shared(t)
				if _, _, err := durable.Save(peer.repo, durable.Entry{Type: durable.TypeTombstone, Kind: durable.TypeMemory, Forgets: it.ID, Reason: "obsolete", Author: author}); err != nil {
					t.Fatal(err)
				}
				if _, err := Push(peer.repo, "origin"); err != nil {
					t.Fatal(err)
				}
				out, err := fetchBothWays(t, victim, path)
				if err != nil {
					t.Fatal(err)
				}
				if status(t, victim, it.ID) != durable.StatusLive {
					t.Fatalf("a peer's tombstone forgot our memory: %+v", out)
				}
				notes := strings.Join(out.Notes, "\n")
				want := "only an entry's author can forget it"
				if author == "" {
					want = "memories forget " + it.ID[:10]
				}
				if !strings.Contains(notes, want) || !strings.Contains(notes, "origin") {
					t.Fatalf("notes %q do not say %q", notes, want)
				}
				if _, err := durable.Forget(victim.repo, it.ID, "I agree"); err != nil {
					t.Fatal(err)
				}
				if status(t, victim, it.ID) != durable.StatusForgotten {
					t.Fatal("local forget did not apply")
				}
			})
		}
	}
	t.Run("signed by its author", func(t *testing.T) {
		victim, peer, it := shared(t)
		s := newSigner(t, "author@example.invalid")
		s.signs(peer)
		s.trustedBy(victim)
		if _, err := durable.Forget(peer.repo, it.ID, "obsolete since the migration"); err != nil {
			t.Fatal(err)
		}
		if _, err := Push(peer.repo, "origin"); err != nil {
			t.Fatal(err)
		}
		out, err := konteksFetch(t, victim)
		if err != nil {
			t.Fatal(err)
		}
		if status(t, victim, it.ID) != durable.StatusForgotten {
			t.Fatalf("a tombstone signed by the memory's author was not applied: %+v", out)
		}
	})
}

// TestLegacyEntriesLoad: entries saved with the old random ids still load,
// marked, and take part in merges.
func TestLegacyEntriesLoad(t *testing.T) {
	testgit.Setenv(t)
	victim, peer, _ := shared(t)
	legacy := durable.Entry{ID: "0123abcd" + "00000190a1b2", Type: durable.TypeMemory, Kind: "note",
		Text: "an old memory saved before ids were bound to content", Author: "Test Author <author@example.invalid>",
		Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	b, _ := json.MarshalIndent(legacy, "", "  ")
	publishBlob(t, peer, "durable/memories/01/"+legacy.ID, b)
	if _, err := konteksFetch(t, victim); err != nil {
		t.Fatal(err)
	}
	items, err := durable.LoadRef(victim.repo)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, it := range items {
		if it.ID == legacy.ID {
			found = it.Legacy && it.Status == durable.StatusLive
		} else if it.Legacy {
			t.Fatalf("a new entry is marked legacy: %+v", it)
		}
	}
	if !found {
		t.Fatal("legacy entry not loaded (or not marked)")
	}
}
