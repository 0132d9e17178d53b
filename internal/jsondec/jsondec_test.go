package jsondec

import (
	"encoding/json"
	"math/rand"
	"os"
	"strconv"
	"testing"
	"time"
)

// Str decodes every string as encoding/json does: escapes of every kind,
// surrogate pairs and lone halves, invalid UTF-8, long runs between
// escapes; and a string is its own memory, whatever the input buffer.
func TestStrAsEncodingJSON(t *testing.T) {
	seed := time.Now().UnixNano()
	if s := os.Getenv("JSONDEC_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	pieces := []string{`a`, `héllo`, `\n`, `\t`, `\"`, `\\`, `\/`, `\b`, `\f`, `\r`, `\u00e9`, `\u4e16`,
		`\ud83d\ude00`, `\ud83d`, `\ude00`, `\ud83dx`, `\u0000`, "\xff", "\xc3", `plain text of some length `, `{\"k\": 1}`}
	for i := 0; i < 5000; i++ {
		raw := `"`
		for k := rng.Intn(12); k > 0; k-- {
			raw += pieces[rng.Intn(len(pieces))]
		}
		raw += `"`
		var want string
		werr := json.Unmarshal([]byte(raw), &want)
		p := &Parser{S: raw}
		got := p.Str()
		if (werr != nil) != (p.Err != nil) {
			t.Fatalf("%q: error %v, encoding/json %v", raw, p.Err, werr)
		}
		if werr == nil && got != want {
			t.Fatalf("%q: %q, encoding/json %q", raw, got, want)
		}
	}
	for _, bad := range []string{`"abc`, `"a\`, `"a\q"`, "\"a\x01\"", `"\u12"`, `"a\u12`} {
		p := &Parser{S: bad}
		if p.Str(); p.Err == nil {
			t.Fatalf("%q decoded", bad)
		}
	}
}
