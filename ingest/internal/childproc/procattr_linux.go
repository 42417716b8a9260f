package childproc

import (
	"os/exec"
	"syscall"
)

// setProcAttr has the kernel kill the child when grimoire dies: a killed
// sync leaves no orphan working on a page nobody will store.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
