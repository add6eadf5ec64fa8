//go:build !unix

package transcript

const oNonBlock = 0
