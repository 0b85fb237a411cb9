package anthropic

import (
	sdk "github.com/anthropics/anthropic-sdk-go"
)

// markCacheBreakpoints puts cache_control breakpoints where a multi-turn
// agent gets the most prompt-cache hits, within the API's limit of four:
//
//   - the last tool and the system prompt, which rarely change, so a new
//     conversation with the same profile reuses them;
//   - the last block of the last message, which writes the whole
//     conversation so far to the cache;
//   - the last block of the user message before it, which is where the
//     previous request put its last breakpoint. Keeping the marker there
//     keeps the previous request's bytes identical up to it, and reads
//     the cache even when more than the ~20 blocks the API looks back
//     over (a turn with many tool calls) were added since.
//
// A request therefore shares a byte-identical prefix with the one before
// it up to that earlier breakpoint.
func markCacheBreakpoints(p *sdk.MessageNewParams) {
	if n := len(p.Tools); n > 0 {
		if cc := p.Tools[n-1].GetCacheControl(); cc != nil {
			*cc = sdk.NewCacheControlEphemeralParam()
		}
	}
	if n := len(p.System); n > 0 {
		p.System[n-1].CacheControl = sdk.NewCacheControlEphemeralParam()
	}
	last := lastWithContent(p.Messages, len(p.Messages))
	if last < 0 {
		return
	}
	markLastBlock(p.Messages[last])
	for i := last - 1; i >= 0; i-- {
		if p.Messages[i].Role == sdk.MessageParamRoleUser && len(p.Messages[i].Content) > 0 {
			markLastBlock(p.Messages[i])
			return
		}
	}
}

// lastWithContent is the index of the last message before end that has a
// block, or -1.
func lastWithContent(msgs []sdk.MessageParam, end int) int {
	for i := end - 1; i >= 0; i-- {
		if len(msgs[i].Content) > 0 {
			return i
		}
	}
	return -1
}

func markLastBlock(m sdk.MessageParam) {
	if cc := m.Content[len(m.Content)-1].GetCacheControl(); cc != nil {
		*cc = sdk.NewCacheControlEphemeralParam()
	}
}
