// Package mcptest is an MCP server for tests, written with the same SDK
// the client uses. A test binary becomes the server when its TestMain
// calls ServeIfAsked and it was started with Command's environment.
package mcptest

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// envVar makes a test binary serve MCP over stdio instead of testing.
const envVar = "MAGENTA_MCPTEST_SERVE"

// BigChars is the length of the text the "big" tool returns.
const BigChars = 50000

// PNG is the image the "image" tool returns: a real 3×2 PNG, since the
// client checks what it passes on (pkg/imagefile).
var PNG = tinyPNG()

// CorruptPNG is what the "broken_image" tool returns: PNG's magic bytes
// and nothing of an image.
var CorruptPNG = []byte("\x89PNG\r\n\x1a\nfake")

func tinyPNG() []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewNRGBA(image.Rect(0, 0, 3, 2))); err != nil {
		panic(err) // encoding a fixed in-memory image cannot fail
	}
	return b.Bytes()
}

// Env is the environment entry that makes a test binary serve.
func Env() string { return envVar + "=stdio" }

// ServeIfAsked serves MCP on stdin/stdout and exits when the environment
// asks for it; otherwise it returns.
func ServeIfAsked() {
	if os.Getenv(envVar) != "stdio" {
		return
	}
	if err := NewServer().Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

type echoArgs struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type none struct{}

// NewServer returns the test server: echo (text), image, big (a long
// text), structured (structured content only), fail (isError), crash
// (the process exits mid-call), hang (never answers), pid (its process
// id), grow (adds the tool grown), spawn (a child that outlives the call: a grandchild of the
// client), and two to be skipped: bad_schema (an invalid input schema)
// and bad.name (a name providers refuse).
func NewServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "mcptest", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echoes the text."}, func(_ context.Context, _ *sdk.CallToolRequest, a echoArgs) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + a.Text}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "image", Description: "Returns an image and a resource link."}, func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{
			&sdk.ImageContent{Data: PNG, MIMEType: "image/png"},
			&sdk.ResourceLink{URI: "file:///tmp/x.txt", Name: "x.txt"},
		}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "broken_image", Description: "Returns a corrupt image."}, func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{Data: CorruptPNG, MIMEType: "image/png"}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "big", Description: "Returns a long text."}, func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Repeat("x", BigChars-3) + "END"}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "structured", Description: "Returns structured content."}, func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, map[string]any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{}}, map[string]any{"answer": 42}, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Fails."}, func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "it broke"}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "crash", Description: "Exits the server."}, func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
		os.Exit(3)
		return nil, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "hang", Description: "Never answers."}, func(ctx context.Context, _ *sdk.CallToolRequest, _ none) (*sdk.CallToolResult, any, error) {
		<-ctx.Done()
		select {} // ignore the cancellation too
	})
	sdk.AddTool(s, &sdk.Tool{Name: "pid", Description: "Returns its process id."}, func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprint(os.Getpid())}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "spawn", Description: "Starts a long sleep and returns its process id."}, func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
		cmd := exec.Command("sleep", "300")
		if err := cmd.Start(); err != nil {
			return nil, nil, err
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprint(cmd.Process.Pid)}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "grow", Description: "Adds the tool grown (the server then sends tools/list_changed)."}, func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
		sdk.AddTool(s, &sdk.Tool{Name: "grown", Description: "Added at run time."}, func(context.Context, *sdk.CallToolRequest, none) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "grown"}}}, nil, nil
		})
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil, nil
	})
	s.AddTool(&sdk.Tool{Name: "bad.name", Description: "Has a name models refuse.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{}, nil
		})
	s.AddTool(&sdk.Tool{Name: "bad_schema", Description: "Has an invalid schema.", InputSchema: map[string]any{
		"type": "object", "properties": map[string]any{"x": map[string]any{"type": "number", "minimum": "zero"}},
	}}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{}, nil
	})
	return s
}
