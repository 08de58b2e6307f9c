package fit

// JoinWords joins names as "a", "a and b", "a, b and c" (conj "and"; "or"
// for alternatives): the way fit's own details name dimensions, for the
// notices other packages write about the same rows.
func JoinWords(names []string, conj string) string { return joinWords(names, conj) }
