package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestReadResourceErrors: a resource that cannot be read is answered
// with the protocol's resource-not-found error (the SDK's
// CodeResourceNotFound) naming the URI, whether no template matches it
// or one does and memory has nothing there, and the message still says
// why and what to do. A plain Go error would go out with code 0.
func TestReadResourceErrors(t *testing.T) {
	t.Parallel()
	check := func(t *testing.T, cs *sdk.ClientSession, uri, want string) {
		t.Helper()
		_, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: uri})
		var we *jsonrpc.Error
		if !errors.As(err, &we) {
			t.Fatalf("%s: %v (%T), want a JSON-RPC error", uri, err, err)
		}
		var data struct{ URI string }
		json.Unmarshal(we.Data, &data)
		if we.Code != sdk.CodeResourceNotFound || data.URI != uri || !strings.Contains(we.Message, want) {
			t.Errorf("%s: code %d, message %q, data %s; want code %d, a message with %q, data naming the URI",
				uri, we.Code, we.Message, we.Data, sdk.CodeResourceNotFound, want)
		}
	}
	_, cs := served(t)
	for uri, want := range map[string]string{
		"konteks://nothing":                      "Resource not found",
		FileURI("internal/store/nope.go"):        "not in memory",
		FileURI("internal/store"):                "is a directory",
		FileURI("internal/store") + "/%zz":       "Resource not found", // the SDK answers it: no template matches
		DirURI("nope"):                           "no summary",
		SkillURI("nope"):                         "nope",
		"konteks://skill/":                       "name a skill",
		FileURI("internal/store/store.go") + "x": "not in memory",
	} {
		check(t, cs, uri, want)
	}
	// Before the first extraction: the project is listed, and reading it
	// says how to make memory.
	s, err := New(context.Background(), Options{Dir: fixture(t).Dir, ToolVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	check(t, connect(t, s), ResourceProject, "extract")
}
