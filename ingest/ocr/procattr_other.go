//go:build !linux

package ocr

import "os/exec"

func setProcAttr(*exec.Cmd) {}
