package ripgrep

import (
	"bufio"
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/secrets"
)

// dropSecretFiles removes from res the files pkg/secrets calls secret that
// rg's exclusion globs let through (the globs are a fast first cut;
// secrets.InPath is the authority), and counts them as skipped. Paths are
// checked relative to the searched tree, so a workspace that itself lies
// under a directory such as "credentials" can still be searched.
func dropSecretFiles(res *capabilities.SearchResult) {
	kept := res.Files[:0]
	for _, f := range res.Files {
		if secrets.InPath(f.Path) != "" {
			res.Matches -= f.Matches
			res.SecretsSkipped++
			continue
		}
		kept = append(kept, f)
	}
	res.Files = kept
}

// countSecretFiles counts the secret files under root (.gitignore'd files
// excluded; hidden ones included, since rg's positive globs override its
// hidden-file rule; include applied when it is a plain name glob),
// without reading them: rg only lists names. Counting matches instead would let the model probe a secret's
// content one guess at a time. On any failure it returns 0.
func countSecretFiles(ctx context.Context, timeout time.Duration, start Starter, root, include string) int {
	if timeout <= 0 {
		return 0
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	args := []string{"--files", "--no-config", "--no-require-git", "--glob", "!.git"}
	for _, g := range secrets.Globs() {
		// A name matches the file itself; name/** the files below a
		// directory of that name.
		args = append(args, "--iglob", g, "--iglob", "**/"+g+"/**")
	}
	cmd := start(ctx, root, append(args, "--", root))
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0
	}
	if err := cmd.Start(); err != nil {
		return 0
	}
	n := 0
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		rel, err := filepath.Rel(root, sc.Text())
		if err != nil || strings.HasPrefix(rel, "..") || secrets.InPath(rel) == "" {
			continue
		}
		if include != "" && !strings.Contains(include, "/") {
			if ok, _ := filepath.Match(include, filepath.Base(rel)); !ok {
				continue
			}
		}
		n++
	}
	cancel() // a listing cut short must not leave rg blocked on the pipe
	_ = cmd.Wait()
	return n
}
