//go:build unix

package transcript

import "syscall"

const oNonBlock = syscall.O_NONBLOCK
