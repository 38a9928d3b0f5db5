package chunk

// size is the number of elements in one chunk.
const size = 256

// List is an append-only sequence indexed from 0. The first size elements
// live in an ordinary slice that grows as slices do, so a short list costs
// what a slice costs; past that, elements go in fixed chunks that are never
// moved. The zero value is an empty list. It is not safe for concurrent use.
type List[T any] struct {
	head   []T
	chunks []*[size]T
	n      int
}

// Len is the number of elements.
func (l *List[T]) Len() int { return l.n }

// Append adds v at the end and returns its index.
func (l *List[T]) Append(v T) int {
	i := l.n
	l.n++
	if i < size {
		l.head = append(l.head, v)
		return i
	}
	j := i - size
	if j%size == 0 && j/size == len(l.chunks) {
		l.chunks = append(l.chunks, new([size]T))
	}
	l.chunks[j/size][j%size] = v
	return i
}

// At returns a pointer to element i, which must be in [0, Len).
func (l *List[T]) At(i int) *T {
	if i < 0 || i >= l.n {
		panic("chunk: At: index out of range")
	}
	if i < size {
		return &l.head[i]
	}
	j := i - size
	return &l.chunks[j/size][j%size]
}

// Reset empties the list, keeping the memory of its head for reuse.
func (l *List[T]) Reset() {
	clear(l.head)
	l.head = l.head[:0]
	clear(l.chunks)
	l.chunks = l.chunks[:0]
	l.n = 0
}

// AppendTo appends every element, in order, to dst.
func (l *List[T]) AppendTo(dst []T) []T {
	dst = append(dst, l.head...)
	for i, c := range l.chunks {
		end := min(size, l.n-size-i*size)
		dst = append(dst, c[:end]...)
	}
	return dst
}
