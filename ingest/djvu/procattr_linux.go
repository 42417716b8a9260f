package djvu

import (
	"os/exec"
	"syscall"
)

// setProcAttr has the kernel kill ddjvu when grimoire dies: a killed sync
// leaves no orphan drawing a page nobody will read.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
