// Package childproc runs the commands grimoire's readers call on a page
// (tesseract, djvulibre's ddjvu) as children bound to it: ended with the
// context, killed with grimoire where the system allows, and named in
// their errors with the last lines they wrote on stderr.
package childproc

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// Output runs cmd, made with exec.CommandContext(ctx, …) and given its
// stdin and environment by the caller, and returns what it wrote on
// stdout. A failure names the command as name, with the last lines of its
// stderr (at most lines); once ctx has ended, it is ctx's error.
func Output(ctx context.Context, cmd *exec.Cmd, name string, lines int) ([]byte, error) {
	var stdout bytes.Buffer
	stderr := &tailBuffer{max: 4 << 10}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	setProcAttr(cmd)
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		msg := strings.TrimSpace(string(stderr.b))
		if msg == "" {
			return nil, fmt.Errorf("%s failed: %w", name, err)
		}
		return nil, fmt.Errorf("%s failed: %w: %s", name, err, lastLines(msg, lines))
	}
	return stdout.Bytes(), nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

// lastLines returns the last n lines of s, joined by "; ", each trimmed.
func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, "; ")
}
