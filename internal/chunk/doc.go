// Package chunk provides List, an append-only sequence stored in fixed-size
// chunks. Unlike a slice it never copies its elements when it grows, so a
// nursery with a million children neither moves its per-child records nor
// touches fresh pages twice.
//
//	var l chunk.List[int]
//	i := l.Append(7)
//	*l.At(i) = 8
package chunk
