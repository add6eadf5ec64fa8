// Package lazy holds values made when they are first used.
package lazy

import "sync"

// Value is a value that Make makes when Get is first called. A package-level Value written
// as a composite literal (lazy.Value[T]{Make: f}) is data the linker lays out, where
// sync.OnceValue(f) is a call that runs at every start of the program: every hook process
// would pay for the code and memory it touches.
type Value[T any] struct {
	Make func() T
	once sync.Once
	v    T
}

// Get returns the value, made by the first call.
func (l *Value[T]) Get() T {
	l.once.Do(func() { l.v = l.Make() })
	return l.v
}
