package notebook

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/extract/section/sectiontest"
	"github.com/konteks/git-konteks/memory"
)

const fixtures = "../../../testdata/sections/notebook"

type want struct {
	kind, symbol, name, qname, anchor string
	start, end                        int
}

func split(t testing.TB, content []byte) (section.Result, error) {
	t.Helper()
	return sectiontest.SplitOrRefuse(t, Split, section.Input{Path: "analysis/sales.ipynb", Language: "Jupyter Notebook", Content: content})
}

func check(t *testing.T, res section.Result, wants []want) {
	t.Helper()
	sectiontest.Check(t, res, wants, func(s memory.Section) want {
		return want{s.Kind, s.Symbol, s.Name, s.QName, s.Anchor, s.StartLine, s.EndLine}
	})
}

func TestSales(t *testing.T) {
	res, err := split(t, sectiontest.Read(t, fixtures, "sales.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != Kind || res.Parser != Parser {
		t.Fatalf("kind %q parser %q", res.Kind, res.Parser)
	}
	check(t, res, []want{
		// Cells 1-2: one Markdown run (cell 2 has no heading).
		{"markdown", "heading", "Sales analysis", "Sales analysis", "cell:1:Sales analysis", 3, 18},
		{"code", "cell", "cell 3", "Sales analysis > cell 3", "cell:3", 19, 28},
		// The "# not a heading" line is in a fenced block.
		{"markdown", "heading", "Cleaning", "Sales analysis > Cleaning", "cell:4:Sales analysis > Cleaning", 29, 40},
		{"code", "cell", "cell 5", "Sales analysis > Cleaning > cell 5", "cell:5", 41, 65},
		// Cell 6 is an empty code cell; cell 8 (raw) joins the run of cell 7.
		{"markdown", "heading", "Totals", "Sales analysis > Totals", "cell:7:Sales analysis > Totals", 73, 86},
		{"code", "cell", "cell 9", "Sales analysis > Totals > cell 9", "cell:9", 87, 106},
		{"markdown", "heading", "Appendix", "Appendix", "cell:10:Appendix", 107, 115},
	})
	all := ""
	for _, s := range res.Sections {
		all += s.Content + "\n"
		if s.Kind == "code" && s.Language != "Python" {
			t.Errorf("%s language %q", s.Anchor, s.Language)
		}
	}
	for _, gone := range []string{"iVBORw0KGgo", "dropped 3 rows\n", "<Figure>", "1234", "execution_count"} {
		if strings.Contains(all, gone) {
			t.Errorf("output %q kept", gone)
		}
	}
	if got := res.Sections[3].Content; got != "rows = [r for r in rows if r['region']]\nprint('dropped', 3, 'rows')" {
		t.Errorf("cell 5 = %q", got)
	}
}

func TestNBFormat3(t *testing.T) {
	res, err := split(t, sectiontest.Read(t, fixtures, "v3.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	check(t, res, []want{
		{"markdown", "heading", "Old notebook", "Old notebook", "cell:1:Old notebook", 11, 18},
		{"markdown", "heading", "Intro", "Intro", "cell:2:Intro", 19, 26},
		{"code", "cell", "cell 3", "Intro > cell 3", "cell:3", 27, 36},
	})
	if l := res.Sections[2].Language; l != "Julia" {
		t.Errorf("language %q", l)
	}
}

func TestNotNotebook(t *testing.T) {
	for _, in := range []string{"", "{", "[1,2]", `{"a": 1}`, `{"cells": 3}`, `{"cells": [1]}`, "not json", `{"cells": []} trailing`} {
		_, err := split(t, []byte(in))
		if err == nil && !strings.HasPrefix(in, `{"cells": []}`) {
			t.Errorf("%q: no error", in)
		}
	}
	if _, err := split(t, []byte(`{"a": 1}`)); !errors.Is(err, ErrNotNotebook) {
		t.Errorf("err = %v", err)
	}
	res, err := split(t, []byte(`{"cells": [], "nbformat": 4}`))
	if err != nil || len(res.Sections) != 0 {
		t.Errorf("empty notebook: %v, %d sections", err, len(res.Sections))
	}
}

// TestHugeOutputs is the notebook of the issue: megabytes of outputs are
// skipped quickly and never reach a section.
func TestHugeOutputs(t *testing.T) {
	blob := strings.Repeat("QUJDRA", 1<<20) // 6 MB of base64 per output
	var cells []map[string]any
	for i := 0; i < 4; i++ {
		cells = append(cells,
			map[string]any{"cell_type": "markdown", "source": "## Plot " + string(rune('A'+i)), "metadata": map[string]any{}},
			map[string]any{"cell_type": "code", "source": []string{"plot(", "x)"}, "metadata": map[string]any{},
				"outputs": []any{map[string]any{"output_type": "display_data", "data": map[string]any{"image/png": blob}},
					map[string]any{"output_type": "stream", "text": strings.Split(strings.Repeat("log line\n", 100000), "\n")}}})
	}
	b, _ := json.Marshal(map[string]any{"cells": cells, "metadata": map[string]any{}, "nbformat": 4})
	start := time.Now()
	res, err := split(t, b)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second*slow {
		t.Fatalf("%d MB took %v", len(b)>>20, d)
	}
	if len(res.Sections) != 8 {
		t.Fatalf("%d sections", len(res.Sections))
	}
	for _, s := range res.Sections {
		if len(s.Content) > 100 {
			t.Errorf("%s holds %d bytes: outputs kept", s.Anchor, len(s.Content))
		}
	}
}

func FuzzNotebook(f *testing.F) {
	sectiontest.Seed(f, filepath.Join(fixtures, "*.ipynb"),
		`{"cells":[{"cell_type":"markdown","source":"# a\n## b"},{"cell_type":"code","source":["x"]}]}`,
		`{"worksheets":[{"cells":[{"cell_type":"heading","level":9,"source":"x"}]}]}`)
	f.Fuzz(func(t *testing.T, content []byte) {
		split(t, content)
	})
}
