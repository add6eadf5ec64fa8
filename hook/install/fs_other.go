//go:build !unix

package install

const oNonBlock = 0
