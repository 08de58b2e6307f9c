package answer

// FitRows renders the first n of total rows for the largest n whose rendering
// counts at most limit tokens: lists that must fit a budget without a silent
// cut (the renderer says how many rows were left out). It starts from every
// row and shrinks in proportion to the excess, at least one row at a time.
func FitRows[T any](total, limit int, render func(n int) T, tokens func(T) int) T {
	n := total
	out := render(n)
	for n > 0 {
		t := tokens(out)
		if t <= limit {
			break
		}
		n = max(0, min(n-1, n*limit/t))
		out = render(n)
	}
	return out
}
