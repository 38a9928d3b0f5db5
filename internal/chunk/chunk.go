package chunk

// size is the number of elements in one chunk.
const size = 256

// List is an append-only sequence indexed from 0. The first size elements
// live in an ordinary slice that grows as slices do, so a short list costs
// what a slice costs; past that, elements go in fixed chunks that are never
// moved, kept behind a pointer so that a short list is only a slice header
// and a pointer. The zero value is an empty list. It is not safe for
// concurrent use.
type List[T any] struct {
	head []T
	rest *rest[T] // nil until the list outgrows head
}

// rest holds the elements past the first size.
type rest[T any] struct {
	chunks []*[size]T
	n      int
}

// Len is the number of elements.
func (l *List[T]) Len() int {
	if l.rest == nil {
		return len(l.head)
	}
	return size + l.rest.n
}

// Append adds v at the end and returns its index.
func (l *List[T]) Append(v T) int {
	if l.rest == nil && len(l.head) < size {
		l.head = append(l.head, v)
		return len(l.head) - 1
	}
	if l.rest == nil {
		l.rest = &rest[T]{}
	}
	r := l.rest
	j := r.n
	if j%size == 0 && j/size == len(r.chunks) {
		r.chunks = append(r.chunks, new([size]T))
	}
	r.chunks[j/size][j%size] = v
	r.n++
	return size + j
}

// At returns a pointer to element i, which must be in [0, Len).
func (l *List[T]) At(i int) *T {
	if i < 0 || i >= l.Len() {
		panic("chunk: At: index out of range")
	}
	if i < size {
		return &l.head[i]
	}
	j := i - size
	return &l.rest.chunks[j/size][j%size]
}

// Reset empties the list, keeping the memory of its head for reuse.
func (l *List[T]) Reset() {
	clear(l.head)
	l.head = l.head[:0]
	l.rest = nil
}

// AppendTo appends every element, in order, to dst.
func (l *List[T]) AppendTo(dst []T) []T {
	dst = append(dst, l.head...)
	if r := l.rest; r != nil {
		for i, c := range r.chunks {
			end := min(size, r.n-i*size)
			dst = append(dst, c[:end]...)
		}
	}
	return dst
}
