package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/recall"
)

// Memory as MCP resources, for clients that let people (or agents) browse
// and attach context rather than call tools:
//
//	konteks://project          the portrait and the areas (modules)
//	konteks://dir/{+path}      a directory's overview (konteks://dir/ for the root)
//	konteks://file/{+path}     a file's record: its sections with lines and anchors
//	konteks://skill/{name}     a skill's SKILL.md
//
// The project, every directory with a summary (up to maxListedDirs) and
// every skill are listed by resources/list; file records, which can be
// hundreds of thousands, only through their template. When refs/konteks
// moves, the list is brought up to date (the SDK then sends
// notifications/resources/list_changed) and each subscribed resource gets
// notifications/resources/updated.

// Resource URIs.
const (
	ResourceProject = "konteks://project"
	dirPrefix       = "konteks://dir/"
	filePrefix      = "konteks://file/"
	skillPrefix     = "konteks://skill/"
	// Templates (RFC 6570: {+path} keeps the slashes of a path).
	TemplateDir   = dirPrefix + "{+path}"
	TemplateFile  = filePrefix + "{+path}"
	TemplateSkill = skillPrefix + "{name}"
)

// maxListedDirs bounds the directories resources/list offers.
const maxListedDirs = 2000

// watchEvery is how often the server looks whether refs/konteks moved
// (one small file read).
const watchEvery = time.Second

func (s *Server) addResources() {
	s.srv.AddResource(&sdk.Resource{
		URI: ResourceProject, Name: "project", Title: "The project in brief",
		Description: "What the repository is: description, languages, tech, entry points, scripts, and its areas with a line each.",
		MIMEType:    "text/markdown",
	}, s.readResource)
	s.srv.AddResourceTemplate(&sdk.ResourceTemplate{
		URITemplate: TemplateDir, Name: "directory", Title: "Directory overview",
		Description: "A directory's summary and each child's abstract (path from the repository root; empty for the root).",
		MIMEType:    "text/markdown",
	}, s.readResource)
	s.srv.AddResourceTemplate(&sdk.ResourceTemplate{
		URITemplate: TemplateFile, Name: "file", Title: "File record",
		Description: "A file's memory record: kind, language, parser and its sections with line ranges and anchors.",
		MIMEType:    "text/plain",
	}, s.readResource)
	s.srv.AddResourceTemplate(&sdk.ResourceTemplate{
		URITemplate: TemplateSkill, Name: "skill", Title: "Skill",
		Description: "A saved skill (SKILL.md: instructions for a recurring task).",
		MIMEType:    "text/markdown",
	}, s.readResource)
}

// DirURI and FileURI name a directory's and a file's resource.
func DirURI(dir string) string   { return dirPrefix + escapePath(dir) }
func FileURI(path string) string { return filePrefix + escapePath(path) }

// SkillURI names a skill's resource.
func SkillURI(name string) string { return skillPrefix + url.PathEscape(name) }

func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, x := range parts {
		parts[i] = url.PathEscape(x)
	}
	return strings.Join(parts, "/")
}

func (s *Server) readResource(ctx context.Context, req *sdk.ReadResourceRequest) (res *sdk.ReadResourceResult, err error) {
	defer guard("resources/read", &err)
	uri := req.Params.URI
	text, mime, err := s.resourceText(ctx, uri)
	if err != nil {
		return nil, resourceError(uri, err)
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: mime, Text: text}}}, nil
}

// resourceError is the answer to a resources/read that has nothing to
// give: the protocol's resource-not-found error (the SDK's
// CodeResourceNotFound) with the URI in its data, as the specification
// asks, and err's message, which says why (no such file in memory, no
// memory yet) and what to do. A plain error would go out with code 0.
func resourceError(uri string, err error) error {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return err
	}
	data, _ := json.Marshal(struct {
		URI string `json:"uri"`
	}{uri})
	return &jsonrpc.Error{Code: sdk.CodeResourceNotFound, Message: err.Error(), Data: data}
}

// resourceText renders the resource named by uri.
func (s *Server) resourceText(ctx context.Context, uri string) (string, string, error) {
	if uri == ResourceProject {
		snap, err := s.derived()
		if err != nil {
			return "", "", err
		}
		var b strings.Builder
		writeProject(&b, snap)
		b.WriteString(s.snapFreshness(snap).Line())
		b.WriteString("\n")
		return b.String(), "text/markdown", nil
	}
	// The resources named by a path or a name after their prefix render
	// as the tool they stand for.
	for _, r := range []struct {
		prefix, mime string
		read         func(name string) (*sdk.CallToolResult, error)
	}{
		{dirPrefix, "text/markdown", func(p string) (*sdk.CallToolResult, error) {
			r, _, err := s.overview(ctx, nil, OverviewInput{Path: p})
			return r, err
		}},
		{filePrefix, "text/plain", func(p string) (*sdk.CallToolResult, error) {
			r, _, err := s.show(ctx, nil, ShowInput{Path: p})
			return r, err
		}},
		{skillPrefix, "text/markdown", func(name string) (*sdk.CallToolResult, error) {
			if name == "" {
				return nil, fmt.Errorf("%s: name a skill (konteks://skill/NAME; resources/list lists them)", uri)
			}
			r, _, err := s.skills(ctx, nil, SkillsInput{Name: name})
			return r, err
		}},
	} {
		if !strings.HasPrefix(uri, r.prefix) {
			continue
		}
		name, err := url.PathUnescape(strings.TrimPrefix(uri, r.prefix))
		if err != nil {
			return "", "", fmt.Errorf("%s: bad escape in the path: %v", uri, err)
		}
		res, err := r.read(name)
		return resultText(res), r.mime, err
	}
	return "", "", sdk.ResourceNotFoundError(uri)
}

// resultText is the text of a tool result.
func resultText(r *sdk.CallToolResult) string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range r.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// subscribe and unsubscribe count the subscriptions to each resource:
// resources/subscribe (protocol 2025-11-25) and the resources a
// subscriptions/listen names (2026-07-28) both come here, and one client
// ending its subscription leaves another's in place.
func (s *Server) subscribe(_ context.Context, req *sdk.SubscribeRequest) error {
	s.submu.Lock()
	s.subs[req.Params.URI]++
	s.submu.Unlock()
	return nil
}

func (s *Server) unsubscribe(_ context.Context, req *sdk.UnsubscribeRequest) error {
	s.submu.Lock()
	if s.subs[req.Params.URI]--; s.subs[req.Params.URI] <= 0 {
		delete(s.subs, req.Params.URI)
	}
	s.submu.Unlock()
	return nil
}

// listMiddleware brings the listed resources up to date before
// resources/list answers, so a client that lists resources right after
// connecting sees every directory summary and skill rather than only what
// the background warm-up has registered so far.
func (s *Server) listMiddleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method == "resources/list" {
			s.syncResources(ctx)
		}
		return next(ctx, method, req)
	}
}

// watch follows refs/konteks while the server runs: when it moves, the
// resource list is synced and subscribers are told their resources
// changed.
func (s *Server) watch(ctx context.Context) {
	t := time.NewTicker(watchEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.syncResources(ctx)
	}
}

// syncResources registers the resources of the current memory (when it
// moved since the last sync) and notifies subscribers.
func (s *Server) syncResources(ctx context.Context) {
	// One sync at a time: a second caller waits for the first to have
	// registered everything instead of seeing a half-built list.
	s.syncmu.Lock()
	defer s.syncmu.Unlock()
	snap, err := s.current()
	var ref gitstore.Hash
	if err == nil {
		ref = snap.ref
	}
	s.submu.Lock()
	if ref == s.watched && s.listed != nil {
		s.submu.Unlock()
		return
	}
	first := s.listed == nil
	s.watched = ref
	s.submu.Unlock()

	want := map[string]*sdk.Resource{}
	if err == nil && snap.mem != nil {
		if snap.mem.Derived() {
			for _, d := range listDirs(snap.repo, snap.mem.Tree) {
				name := d
				if name == "" {
					name = "(repository root)"
				}
				want[DirURI(d)] = &sdk.Resource{URI: DirURI(d), Name: name, Title: "Overview of " + name, MIMEType: "text/markdown"}
			}
		}
		if list, _, err := durable.LoadSkills(snap.repo, snap.mem.Tree, false); err == nil {
			for _, k := range list {
				want[SkillURI(k.Name)] = &sdk.Resource{URI: SkillURI(k.Name), Name: k.Name, Title: "Skill " + k.Name,
					Description: recall.OneLine(k.Description, 300), MIMEType: "text/markdown"}
			}
		}
	}
	s.submu.Lock()
	old := s.listed
	s.listed = map[string]bool{}
	for u := range want {
		s.listed[u] = true
	}
	var gone []string
	for u := range old {
		if !s.listed[u] {
			gone = append(gone, u)
		}
	}
	var subs []string
	for u := range s.subs {
		subs = append(subs, u)
	}
	s.submu.Unlock()
	if len(gone) > 0 {
		s.srv.RemoveResources(gone...)
	}
	uris := make([]string, 0, len(want))
	for u := range want {
		if !old[u] {
			uris = append(uris, u)
		}
	}
	sort.Strings(uris)
	for _, u := range uris {
		s.srv.AddResource(want[u], s.readResource)
	}
	if first {
		return
	}
	for _, u := range subs {
		_ = s.srv.ResourceUpdated(ctx, &sdk.ResourceUpdatedNotificationParams{URI: u})
	}
}

// listDirs lists the source directories with a summary ("" is the root),
// in path order, at most maxListedDirs.
func listDirs(repo *gitstore.Repo, tree gitstore.Hash) []string {
	h, err := repo.Subtree(tree, memory.DirsDir)
	if err != nil || h.IsZero() {
		return nil
	}
	var out []string
	_ = repo.WalkTree(h, nil, func(e gitstore.Entry) error {
		if len(out) >= maxListedDirs {
			return nil
		}
		d, ok := strings.CutSuffix(e.Path, memory.DirFile)
		if !ok {
			return nil
		}
		d = strings.TrimSuffix(d, "/")
		if d != "" && memory.ValidSourcePath(d) != nil {
			return nil
		}
		out = append(out, d)
		return nil
	})
	sort.Strings(out)
	return out
}
