//go:build unix

package install

import "syscall"

const oNonBlock = syscall.O_NONBLOCK
