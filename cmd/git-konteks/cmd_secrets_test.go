package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/secret"
)

// padding is ordinary text around a planted credential, so the file is
// ordinary code or config with a credential in it, not a key file.
var padding = strings.Repeat("The service reads its settings at start and logs what it loaded.\n", 12)

// needles are the parts of a sample that must never reach memory: its
// random fragments and the values the detector finds in it.
func needles(t *testing.T, s secret.Sample) []string {
	var out []string
	for _, p := range s.Parts {
		if len(p) >= 10 {
			out = append(out, p)
		}
	}
	ms := secret.Find([]byte(s.Text))
	if len(ms) == 0 {
		t.Fatalf("sample of %s not found by the detector: %q", s.Kind, s.Text)
	}
	for _, m := range ms {
		// A value that is a plain word (the default password postgres)
		// also occurs as ordinary text (postgres:// URLs): not a needle.
		if v := s.Text[m.Start:m.End]; len(v) >= 6 && strings.Trim(v, "abcdefghijklmnopqrstuvwxyz") != "" {
			out = append(out, v)
		}
	}
	return out
}

// TestNoCredentialReachesMemory plants every sample credential (more than
// 60 kinds) in ordinary files, in texts the portrait copies (README,
// package.json scripts) and in commit messages, extracts, and scans every
// object reachable from the memory refs, zstd frames decoded.
func TestNoCredentialReachesMemory(t *testing.T) {
	t.Parallel()
	r := testgit.New(t)
	samples := secret.Samples()
	kinds := map[string]bool{}
	var all []string
	files := map[string]string{}
	for i, s := range samples {
		kinds[s.Kind] = true
		all = append(all, needles(t, s)...)
		var p string
		switch i % 4 {
		case 0:
			p = fmt.Sprintf("config/service_%d.yaml", i)
		case 1:
			p = fmt.Sprintf("docs/note_%d.md", i)
		case 2:
			p = fmt.Sprintf("etc/app_%d.conf", i)
		default:
			p = fmt.Sprintf("notes/log_%d.txt", i)
		}
		files[p] = "# settings " + strconv.Itoa(i) + "\n" + padding + s.Text + "\n" + padding
	}
	if len(kinds) < 60 {
		t.Fatalf("only %d kinds planted", len(kinds))
	}
	pick := func(kind string) secret.Sample {
		for _, s := range samples {
			if s.Kind == kind {
				return s
			}
		}
		t.Fatalf("no sample of %s", kind)
		return secret.Sample{}
	}
	gh, url, npm, jwt := pick("github-pat"), pick("credential-url"), pick("npm-access-token"), pick("jwt")
	files["README.md"] = "Deploys the shop with " + url.Text + " and " + gh.Text + " for the registry.\n\n## Usage\n\nRun it.\n"
	files["package.json"] = `{"name": "shop", "description": "shop ` + gh.Text + `", "scripts": {"publish": "NPM_TOKEN=` + npm.Text[strings.Index(npm.Text, "npm_"):] + ` npm publish", "seed": "psql ` + url.Text + `"}}` + "\n"
	files["pyproject.toml"] = "[project]\nname = \"shop\"\ndescription = \"uses " + url.Text + "\"\n\n[project.scripts]\nshop = \"shop:main\"\n"
	// Go source: an escaped key block in a literal and a glued key id.
	pem := pick("private-key")
	esc := strings.ReplaceAll(pem.Text, "\n", `\n`)
	aws := pick("aws-access-token")
	files["internal/keys/keys.go"] = "package keys\n\n// Service account for tests.\nconst sa = `" + strings.ReplaceAll(esc, "`", "") + "`\n\nvar id = \"key" + aws.Text[strings.Index(aws.Text, "AKIA"):] + "\"\n\nfunc Load() string { return sa }\n"
	// Files that are credentials by nature.
	for _, n := range []string{"app.env", ".env-production", ".envrc", "deploy/kubeconfig", ".kube/config"} {
		files[n] = "PASSWORD=" + gh.Text + "\n"
	}
	files["secrets.yaml"] = "db:\n  host: db.internal\n  password: Pl4in-" + strconv.Itoa(len(samples)) + "-Secret\n" + padding
	all = append(all, "Pl4in-"+strconv.Itoa(len(samples))+"-Secret")
	files["docker-compose.yml"] = "services:\n  db:\n    image: postgres\n    environment:\n      POSTGRES_PASSWORD: c0mp0se-Pa55\n" + padding
	all = append(all, "c0mp0se-Pa55")
	files["deploy/cluster.yaml"] = "apiVersion: v1\nkind: Config\nusers:\n- name: admin\n  user:\n    token: kub3-t0ken-9f8e7d6c5b4a\n"
	all = append(all, "kub3-t0ken-9f8e7d6c5b4a")
	// Paths with control characters.
	files["odd\tname.txt"] = "tab in the name\n"
	files["odd\nline.txt"] = "newline in the name\n"
	r.WriteFiles(files)
	r.Git("add", "-A")
	r.Commit("plant credentials in ordinary files")
	for i, kind := range []string{"jwt", "credential-url", "labelled-secret", "github-pat", "aws-access-token", "slack-webhook-url", "stripe-access-token"} {
		s := pick(kind)
		r.Write(fmt.Sprintf("log/%d.txt", i), "entry\n")
		r.Git("add", "-A")
		r.Commit(fmt.Sprintf("Rotate deploy settings\n\nuse %s for the job", s.Text))
	}
	_ = jwt

	rep := extractJSON(t, r.Dir)
	if rep.Manifest.Totals.Redacted == 0 {
		t.Errorf("no record counted as redacted: %+v", rep.Manifest.Totals)
	}
	if n := rep.Manifest.Totals.Skipped["unsafe-path"]; n != 2 {
		t.Errorf("unsafe paths skipped: %d, want 2", n)
	}
	// A second run over the same memory reads it back (no "corrupt").
	r.Write("more.txt", "more\n")
	r.Git("add", "-A")
	r.Commit("more")
	extractJSON(t, r.Dir)

	if hits := memoryHits(t, r, all); len(hits) > 0 {
		t.Errorf("%d credentials reached memory:\n%s", len(hits), strings.Join(hits, "\n"))
	}
	// The scan sees what memory holds: ordinary text of the same files.
	if hits := memoryHits(t, r, []string{"db.internal", "Deploys the shop with"}); len(hits) < 2 {
		t.Errorf("the scan misses ordinary text: %v", hits)
	}

	// The record of an ordinary file is kept, with markers.
	show := run(t, r.Dir, "show", "--content", "secrets.yaml")
	if !strings.Contains(show, "«redacted:password»") || !strings.Contains(show, "db.internal") {
		t.Errorf("secrets.yaml record:\n%s", show)
	}
	// status --skipped lists the gated paths with reasons.
	var st statusJSON
	if err := json.Unmarshal([]byte(run(t, r.Dir, "status", "--skipped", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, s := range st.SkippedPaths {
		reasons[s.Path] = s.Reason
	}
	for p, want := range map[string]string{"app.env": "secret-file", ".envrc": "secret-file", ".kube/config": "secret-file", "odd\tname.txt": "unsafe-path", "deploy/cluster.yaml": "secret"} {
		if reasons[p] != want {
			t.Errorf("status --skipped: %q is %q, want %q", p, reasons[p], want)
		}
	}
	if txt := run(t, r.Dir, "status", "--skipped"); !strings.Contains(txt, `"odd\tname.txt"`) || !strings.Contains(txt, "secret-file  app.env") {
		t.Errorf("status --skipped:\n%s", txt)
	}
	// status --redacted lists the records with markers, by line.
	if err := json.Unmarshal([]byte(run(t, r.Dir, "status", "--redacted", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.RedactedPaths) != rep.Manifest.Totals.Redacted {
		t.Errorf("status --redacted lists %d records, the manifest counts %d", len(st.RedactedPaths), rep.Manifest.Totals.Redacted)
	}
	var secrets *redactedPath
	for i, p := range st.RedactedPaths {
		if p.Path == "secrets.yaml" {
			secrets = &st.RedactedPaths[i]
		}
	}
	if secrets == nil || len(secrets.Markers) != 1 || secrets.Markers[0] != (redactedMarker{Anchor: secrets.Markers[0].Anchor, Line: 3, Kind: "password"}) {
		t.Errorf("status --redacted: secrets.yaml is %+v", secrets)
	}
	if txt := run(t, r.Dir, "status", "--redacted"); !strings.Contains(txt, "secrets.yaml: password") || !strings.Contains(txt, "line 3 (") {
		t.Errorf("status --redacted:\n%s", txt)
	}

	// remember refuses every kind, in text, tags and reasons.
	for _, s := range samples {
		_, errOut, err := tryRun(r.Dir, nil, "remember", "deploy note: "+s.Text)
		if err == nil || !strings.Contains(errOut, "credential") {
			t.Errorf("remember accepted %s: %q (%v %s)", s.Kind, s.Text, err, errOut)
		}
	}
	if _, errOut, err := tryRun(r.Dir, nil, "remember", "--tag", gh.Text, "the deploy job needs the registry token"); err == nil || !strings.Contains(errOut, "github-pat") {
		t.Errorf("remember with a token tag: %v %s", err, errOut)
	}
	if hits := memoryHits(t, r, all); len(hits) > 0 {
		t.Errorf("after remember: %d credentials in memory:\n%s", len(hits), strings.Join(hits, "\n"))
	}
}

// memoryHits reads every object reachable from the memory refs (blobs
// decoded when they are zstd frames) and reports each needle found.
func memoryHits(t *testing.T, r *testgit.Repo, needles []string) []string {
	t.Helper()
	refs := strings.Fields(r.Git("for-each-ref", "--format=%(refname)", "refs/konteks", "refs/konteks-wip", "refs/konteks-remotes"))
	if len(refs) == 0 {
		t.Fatal("no memory ref")
	}
	dec, _ := zstd.NewReader(nil)
	defer dec.Close()
	var forms [][]byte
	for _, n := range needles {
		forms = append(forms, []byte(n))
		if j, _ := json.Marshal(n); string(j[1:len(j)-1]) != n {
			forms = append(forms, j[1:len(j)-1])
		}
	}
	objs := r.Objects(refs...)
	objects := len(objs)
	var hits []string
	for _, o := range objs {
		texts := [][]byte{o.Data}
		if bytes.HasPrefix(o.Data, []byte{0x28, 0xb5, 0x2f, 0xfd}) {
			raw, err := dec.DecodeAll(o.Data, nil)
			if err != nil {
				t.Fatalf("object %s: zstd: %v", o.ID, err)
			}
			texts = append(texts, raw)
		}
		for _, txt := range texts {
			for _, n := range forms {
				if bytes.Contains(txt, n) {
					i := bytes.Index(txt, n)
					hits = append(hits, fmt.Sprintf("%q in %s %s: …%s…", n, o.Type, o.ID, txt[max(0, i-80):min(len(txt), i+len(n)+40)]))
				}
			}
		}
	}
	if objects < 20 {
		t.Fatalf("only %d objects scanned", objects)
	}
	return hits
}
