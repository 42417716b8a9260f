package ocr

import (
	"os/exec"
	"syscall"
)

// setProcAttr has the kernel kill tesseract when grimoire dies: a killed
// sync leaves no orphan reading a page nobody will store.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
