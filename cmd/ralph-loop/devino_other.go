//go:build !unix

package main

import "os"

func devIno(os.FileInfo) (dev, ino uint64, ok bool) { return 0, 0, false }
