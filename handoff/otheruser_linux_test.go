//go:build linux

package handoff

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/index"
)

// intruderEnv names the folder of the index that TestIntruder, run as
// another user, tries to hand work to.
const intruderEnv = "GRIMOIRE_TEST_INTRUDER"

// otherUser makes a user for the test and returns its ids; the test skips
// where it cannot (not root, no useradd).
func otherUser(t *testing.T) (uid, gid uint32) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a second user")
	}
	useradd, err := exec.LookPath("useradd")
	if err != nil {
		t.Skip("no useradd")
	}
	name := fmt.Sprintf("grimtest%06d", rand.IntN(1e6))
	if out, err := exec.Command(useradd, "--system", "--no-create-home", "--shell", "/bin/false", name).CombinedOutput(); err != nil {
		t.Skipf("cannot make a user: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("userdel", name).Run() })
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	uid64, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid64, _ := strconv.ParseUint(u.Gid, 10, 32)
	return uint32(uid64), uint32(gid64)
}

// sharedDir is a folder every user may reach and write in, as a library
// shared on a multi-user machine can be.
func sharedDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// asUser starts this test binary as the user uid, running only
// TestIntruder against the index in dir.
func asUser(t *testing.T, uid, gid uint32, dir string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The build's folder is private to root: the other user runs a copy.
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "intruder.test")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestIntruder$", "-test.v")
	cmd.Env = append(os.Environ(), intruderEnv+"="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: gid}}
	return cmd
}

// TestOtherUserRacesTheSocket: under umask 000, another user who keeps
// connecting while the watcher starts again and again never gets a
// request run, not even one made while the socket was being set up.
func TestOtherUserRacesTheSocket(t *testing.T) {
	uid, gid := otherUser(t)
	dir := sharedDir(t)
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	w := openWriter(t, dir)

	intruder := asUser(t, uid, gid, dir)
	var out strings.Builder
	intruder.Stdout, intruder.Stderr = &out, &out
	if err := intruder.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- intruder.Wait() }()

	var ran, refused atomic.Int64
	h := func(_ context.Context, req Request, _ *Reporter) (any, error) {
		if req.Op == "intrude" {
			ran.Add(1)
		}
		return "done", nil
	}
	log := slog.New(slog.NewTextHandler(countingWriter{&refused}, nil))
	// Give the intruder time to start spinning before the first start.
	time.Sleep(200 * time.Millisecond)
	starts := 0
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end) && ran.Load() == 0; starts++ {
		s, err := Listen(w, log)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			s.Serve(ctx, h)
			close(done)
		}()
		if starts%50 == 0 {
			// The watcher's own user is still served.
			holder, _ := index.ReadLockHolder(w.Path())
			if res, err := Ask(ctx, holder, Request{Version: Version, Op: "ping"}, nil); err != nil || string(res) != `"done"` {
				t.Errorf("the owner's request: %s, %v", res, err)
			}
		}
		time.Sleep(2 * time.Millisecond)
		cancel()
		<-done
	}
	os.WriteFile(filepath.Join(dir, "stop"), nil, 0o644)
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("intruder: %v\n%s", err, out.String())
		}
	case <-time.After(30 * time.Second):
		intruder.Process.Kill()
		t.Error("the intruder did not stop")
	}
	if n := ran.Load(); n > 0 {
		t.Errorf("%d requests of another user were run in %d starts\n%s", n, starts, out.String())
	}
	// A folder of the other user's where the socket would go is not used.
	theirs := w.Path() + ".requests"
	if err := os.Mkdir(theirs, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chown(theirs, int(uid), int(gid))
	s, err := Listen(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(s.path, theirs) {
		t.Errorf("the socket went into the other user's folder: %s", s.path)
	}
	s.close()
	t.Logf("%d starts, %d connections refused; intruder: %s", starts, refused.Load(), strings.TrimSpace(out.String()))
}

// TestOtherUserIsRefused: were the socket reachable by another user (its
// folder opened up by hand), a connection of that user is refused before
// its request is read, with an error that says why, and logged.
func TestOtherUserIsRefused(t *testing.T) {
	uid, gid := otherUser(t)
	dir := sharedDir(t)
	w := openWriter(t, dir)
	var refused atomic.Int64
	s, err := Listen(w, slog.New(slog.NewTextHandler(countingWriter{&refused}, nil)))
	if err != nil {
		t.Fatal(err)
	}
	var ran atomic.Int64
	serving(t, s, func(context.Context, Request, *Reporter) (any, error) {
		ran.Add(1)
		return "done", nil
	})
	for p := s.path; p != dir; p = filepath.Dir(p) {
		os.Chmod(p, 0o777)
	}
	intruder := asUser(t, uid, gid, dir)
	intruder.Env = append(intruder.Env, intruderEnv+"_ONCE=1")
	out, err := intruder.CombinedOutput()
	if err != nil {
		t.Fatalf("intruder: %v\n%s", err, out)
	}
	if ran.Load() != 0 {
		t.Errorf("the other user's request was run")
	}
	if !strings.Contains(string(out), "another user") || !strings.Contains(string(out), `"final":true`) {
		t.Errorf("the other user was told:\n%s", out)
	}
	if refused.Load() == 0 {
		t.Errorf("the refusal was not logged")
	}
}

// countingWriter counts the log lines that tell of a refused connection.
type countingWriter struct{ n *atomic.Int64 }

func (c countingWriter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), "refused") {
		c.n.Add(1)
	}
	return len(p), nil
}

// TestIntruder is the other user's side of the tests above; it runs only
// when they start it. It connects to every socket it can find for the
// index in its folder, sends a request, and prints what it was answered,
// until the folder holds a file named stop (or, once, after one answer).
func TestIntruder(t *testing.T) {
	dir := os.Getenv(intruderEnv)
	if dir == "" {
		t.Skip("run by TestOtherUserRacesTheSocket")
	}
	once := os.Getenv(intruderEnv+"_ONCE") != ""
	db := filepath.Join(dir, "g.db")
	paths := []string{db + ".sock", filepath.Join(db+".requests", "socket")}
	connected := 0
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		if i%64 == 0 {
			if _, err := os.Stat(filepath.Join(dir, "stop")); err == nil {
				break
			}
			if h, _ := index.ReadLockHolder(db); h.Requests != "" && !slices.Contains(paths, h.Requests) {
				paths = append(paths, h.Requests)
			}
		}
		for _, p := range paths {
			c, err := net.Dial("unix", p)
			if err != nil {
				continue
			}
			connected++
			fmt.Fprintf(c, `{"v":%d,"op":"intrude"}`+"\n", Version)
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			line, _ := bufio.NewReader(c).ReadString('\n')
			c.Close()
			fmt.Printf("connected to %s: %s\n", p, strings.TrimSpace(line))
			if once {
				return
			}
		}
	}
	fmt.Printf("%d connections\n", connected)
}
