//go:build !linux && !darwin

package proc

// Supported reports whether this system's process table can be read.
const Supported = false

// Read cannot read the process table here.
func Read(pid int) (Info, error) { return Info{}, ErrUnsupported }

// Self cannot read the process table here.
func Self() (Info, error) { return Info{}, ErrUnsupported }

func hidden(pid int) bool { return false }

// PidNS cannot be read here.
func PidNS() uint64 { return 0 }

// NSBelow cannot be told here.
func NSBelow(ns uint64) (below, known bool) { return false, false }

// Environ cannot be read here.
func Environ(pid int) ([]string, error) { return nil, ErrUnsupported }

// ReadStdin cannot tell here.
func ReadStdin() Stdin { return Stdin{Kind: "other"} }

// LockHolders cannot be read here.
func LockHolders(dev, ino uint64) ([]int, error) { return nil, ErrUnsupported }

func fd0(pid int) string { return "" }
