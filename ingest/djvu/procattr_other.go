//go:build !linux

package djvu

import "os/exec"

func setProcAttr(*exec.Cmd) {}
