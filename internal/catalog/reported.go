package catalog

import "slices"

// What each platform reports is said once, in its row of the platform table
// (Platform.Sets, Platform.NotReported); the fields' and the sets' Platforms
// are derived from it, so a new platform is one row.

// setsReportedBy fills in each set's Platforms: those whose row lists it.
func setsReportedBy(sets []BreakdownSet) []BreakdownSet {
	for i := range sets {
		sets[i].Platforms = nil
		for _, p := range platforms {
			if slices.Contains(p.Sets, sets[i].Key) {
				sets[i].Platforms = append(sets[i].Platforms, p.Name)
			}
		}
	}
	return sets
}

// reportedBy fills in each field's Platforms, in the table's order: a
// breakdown dimension, the platforms with a set that holds it; another
// dimension, every platform; a stored metric (or reach), those that do not
// list it as NotReported; a computed metric, those that report all its
// parts.
func reportedBy(fields []Field) []Field {
	byName := map[string]int{}
	for i, f := range fields {
		byName[f.Name] = i
	}
	var platformsOf func(f Field) []string
	platformsOf = func(f Field) []string {
		var out []string
		for _, p := range platforms {
			ok := true
			switch {
			case f.Kind == Dimension && f.Level == LevelBreakdown:
				ok = slices.ContainsFunc(breakdownSets, func(s BreakdownSet) bool {
					return slices.Contains(p.Sets, s.Key) && slices.Contains(p.narrow(s).Dimensions, f.Name)
				})
			case f.Kind == Dimension:
			case f.Aggregation == Sum || f.Distinct != "":
				ok = !slices.Contains(p.NotReported, f.Name)
			default:
				for _, part := range []string{f.Numerator, f.Denominator} {
					ok = ok && slices.Contains(platformsOf(fields[byName[part]]), p.Name)
				}
			}
			if ok {
				out = append(out, p.Name)
			}
		}
		return out
	}
	for i := range fields {
		fields[i].Platforms = platformsOf(fields[i])
	}
	return fields
}
