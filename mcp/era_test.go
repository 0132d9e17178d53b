package mcp

import (
	"context"
	"io"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/gitstore"
)

// Protocol versions of the two eras the server speaks.
const (
	eraStateless = "2026-07-28"
	eraSessions  = "2025-11-25"
)

// transports connect a client to s over stdio's framing (newline-delimited
// JSON on a pair of pipes, what `git konteks mcp` serves) and over
// streamable HTTP (the handler `git konteks mcp --http` serves).
var transports = map[string]func(t *testing.T, s *Server) sdk.Transport{
	"stdio": func(t *testing.T, s *Server) sdk.Transport {
		sr, cw := io.Pipe()
		cr, sw := io.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = s.Run(ctx, &sdk.IOTransport{Reader: sr, Writer: sw})
		}()
		t.Cleanup(func() {
			cancel()
			cw.Close()
			sw.Close()
			<-done
		})
		return &sdk.IOTransport{Reader: cr, Writer: cw}
	},
	"http": func(t *testing.T, s *Server) sdk.Transport {
		hs := httptest.NewServer(s.Handler(""))
		t.Cleanup(hs.Close)
		return &sdk.StreamableClientTransport{Endpoint: hs.URL, DisableStandaloneSSE: true}
	},
}

// TestProtocolEras is the conformance test: the official Go SDK client
// speaking each protocol version over each transport negotiates that
// version, lists every tool, resource and template, calls recall, reads a
// resource, and is told when a resource it subscribed to changes
// (resources/subscribe in 2025-11-25, subscriptions/listen in 2026-07-28).
func TestProtocolEras(t *testing.T) {
	r := fixture(t)
	extractIn(t, r.Dir)
	repo, err := gitstore.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := durable.AddSkill(repo, durable.Skill{Name: "deploy", Description: "Deploy the service to staging. Use when asked to ship.",
		Body: "# Deploy\n\nRun `make release`.\n"}); err != nil {
		t.Fatal(err)
	}
	for _, tr := range []string{"stdio", "http"} {
		for _, version := range []string{eraStateless, eraSessions} {
			t.Run(tr+"/"+version, func(t *testing.T) {
				s, err := New(context.Background(), Options{Dir: r.Dir, ToolVersion: "test"})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s.Close() })
				updated := make(chan string, 16)
				client := sdk.NewClient(&sdk.Implementation{Name: "conformance", Version: "1"}, &sdk.ClientOptions{
					ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
						select {
						case updated <- req.Params.URI:
						default:
						}
					},
				})
				ctx := context.Background()
				cs, err := client.Connect(ctx, transports[tr](t, s), &sdk.ClientSessionOptions{ProtocolVersion: version})
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				init := cs.InitializeResult()
				if init == nil || init.ProtocolVersion != version {
					t.Fatalf("negotiated %+v, want protocol %s", init, version)
				}
				if init.ServerInfo == nil || init.ServerInfo.Name != Name {
					t.Errorf("server info %+v, want %s", init.ServerInfo, Name)
				}
				if tr == "http" {
					// The stateless era has no session id; the other has one.
					if got := cs.ID(); (version == eraStateless) != (got == "") {
						t.Errorf("session id %q under %s", got, version)
					}
				}

				// Every resource is listed at once: the project, every
				// directory summary and every skill.
				res, err := cs.ListResources(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				var uris []string
				for _, x := range res.Resources {
					uris = append(uris, x.URI)
				}
				for _, want := range []string{ResourceProject, DirURI(""), SkillURI("deploy")} {
					if !slices.Contains(uris, want) {
						t.Errorf("resources/list right after connecting lacks %s: %v", want, uris)
					}
				}
				if !slices.ContainsFunc(uris, func(u string) bool { return strings.HasPrefix(u, dirPrefix) && u != DirURI("") }) {
					t.Errorf("resources/list has no directory below the root: %v", uris)
				}
				tpl, err := cs.ListResourceTemplates(ctx, nil)
				if err != nil || len(tpl.ResourceTemplates) != 3 {
					t.Errorf("resource templates: %v %v", tpl, err)
				}

				tools, err := cs.ListTools(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, x := range tools.Tools {
					names = append(names, x.Name)
				}
				for _, want := range []string{ToolRecall, ToolContext, ToolOverview, ToolRemember} {
					if !slices.Contains(names, want) {
						t.Errorf("tools/list lacks %s: %v", want, names)
					}
				}
				text, err := call(t, cs, ToolRecall, map[string]any{"task": "parse the configuration"}, nil)
				if err != nil || !strings.Contains(text, "memory describes") && !strings.Contains(text, "memory") {
					t.Errorf("recall: %v\n%s", err, text)
				}
				rr, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: SkillURI("deploy")})
				if err != nil || len(rr.Contents) != 1 || !strings.Contains(rr.Contents[0].Text, "make release") {
					t.Errorf("read %s: %v %+v", SkillURI("deploy"), err, rr)
				}
				prompts, err := cs.ListPrompts(ctx, nil)
				if err != nil || len(prompts.Prompts) == 0 {
					t.Errorf("prompts/list: %v %v", prompts, err)
				}

				if tr == "http" && version == eraSessions {
					// Notifications of a 2025-11-25 session over HTTP
					// travel on the GET stream this client left closed.
					return
				}
				if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: ResourceProject}); err != nil {
					t.Fatal(err)
				}
				if _, err := call(t, cs, ToolRemember, map[string]any{"text": "The " + tr + " " + version + " client subscribed to the project."}, nil); err != nil {
					t.Fatal(err)
				}
				select {
				case u := <-updated:
					if u != ResourceProject {
						t.Errorf("updated %s, want %s", u, ResourceProject)
					}
				case <-time.After(30 * watchEvery):
					t.Fatal("no notifications/resources/updated after memory moved")
				}
			})
		}
	}
}
