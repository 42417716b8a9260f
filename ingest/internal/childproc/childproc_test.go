package childproc

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestOutput(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh here")
	}
	ctx := context.Background()
	out, err := Output(ctx, exec.CommandContext(ctx, "sh", "-c", "echo page; echo noise >&2"), "drawer", 2)
	if err != nil || string(out) != "page\n" {
		t.Errorf("Output = %q, %v; want the child's stdout", out, err)
	}
	_, err = Output(ctx, exec.CommandContext(ctx, "sh", "-c", "printf 'one\\ntwo  \\nthree\\n' >&2; exit 3"), "drawer", 2)
	if err == nil || err.Error() != "drawer failed: exit status 3: two; three" {
		t.Errorf("a failing child: %v; want its name, status and last two lines of stderr", err)
	}
	cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, err = Output(cctx, exec.CommandContext(cctx, "sh", "-c", "exec sleep 5"), "drawer", 2)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a child past its context: %v; want the context's error", err)
	}
	long := strings.Repeat("x", 10<<10)
	_, err = Output(ctx, exec.CommandContext(ctx, "sh", "-c", "printf '"+long+"\\nlast' >&2; exit 1"), "drawer", 1)
	if err == nil || !strings.HasSuffix(err.Error(), ": last") || len(err.Error()) > 5<<10 {
		t.Errorf("a child that says much: %d bytes of error; want the tail only", len(err.Error()))
	}
}
