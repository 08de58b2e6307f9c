package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/agnivade/levenshtein"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// queryFlagAliases are the query tool's argument names (and near spellings)
// that adsmcp query accepts for its shorter flags, so an argument object
// copied from a model's tool call works as flags: --metrics for --metric,
// --date_preset for --preset. They are not separate flags, so --help lists
// each flag once; the command's help text names them.
var queryFlagAliases = map[string]string{
	"metrics":          "metric",
	"dimensions":       "dimension",
	"date-preset":      "preset",
	"account-ids":      "account",
	"account-id":       "account",
	"accounts":         "account",
	"platforms":        "platform",
	"time-granularity": "granularity",
	"filters":          "filter",
	"sorts":            "sort",
	"date-range-start": "start",
	"date-range-end":   "end",
	"compare-to":       "compare",
	"comparison":       "compare",
}

// dashes makes --a_b the same flag as --a-b in every command: the tool's
// arguments and the config file's keys are written with underscores.
func dashes(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	return pflag.NormalizedName(strings.ReplaceAll(name, "_", "-"))
}

// queryFlagNames is dashes, then the query tool's argument names.
func queryFlagNames(f *pflag.FlagSet, name string) pflag.NormalizedName {
	n := string(dashes(f, name))
	if canonical, ok := queryFlagAliases[n]; ok {
		return pflag.NormalizedName(canonical)
	}
	return pflag.NormalizedName(n)
}

// setFlagNames applies the flag spellings: call it after every command is
// added (cobra's global normalization overwrites each command's own).
func setFlagNames(root, query *cobra.Command) {
	root.SetGlobalNormalizationFunc(dashes)
	query.Flags().SetNormalizeFunc(queryFlagNames)
	root.SetFlagErrorFunc(flagError)
}

// flagError rewrites pflag's errors for people: an unknown flag names the
// closest one, a duration without its unit says how to write it, and every
// other flag error points at --help.
func flagError(cmd *cobra.Command, err error) error {
	help := cmd.CommandPath() + " --help lists the flags"
	var unknown *pflag.NotExistError
	if errors.As(err, &unknown) {
		name := unknown.GetSpecifiedName()
		if name == "" {
			return &messageError{err: err, msg: fmt.Sprintf("unknown flag -%s (%s)", unknown.GetSpecifiedShortnames(), help)}
		}
		if near := closestFlag(cmd, name); near != "" {
			return &messageError{err: err, msg: fmt.Sprintf("unknown flag --%s; did you mean --%s? (%s)", name, near, help)}
		}
		return &messageError{err: err, msg: fmt.Sprintf("unknown flag --%s (%s)", name, help)}
	}
	var invalid *pflag.InvalidValueError
	if errors.As(err, &invalid) && invalid.GetFlag().Value.Type() == "duration" {
		name, v := invalid.GetFlag().Name, invalid.GetValue()
		if _, nerr := strconv.ParseFloat(v, 64); nerr == nil {
			return &messageError{err: err, msg: fmt.Sprintf("--%s %s: write %ss — a duration needs its unit (s, m or h: 55s, 2m, 1h30m)", name, v, v)}
		}
		return &messageError{err: err, msg: fmt.Sprintf("--%s %s: want a duration such as 55s, 2m or 1h30m", name, v)}
	}
	return &messageError{err: err, msg: fmt.Sprintf("%v (%s)", err, help)}
}

// closestFlag is the command's flag nearest to name: the only one it begins,
// or the one fewest edits away when that is close enough to be a typo.
func closestFlag(cmd *cobra.Command, name string) string {
	typed := string(dashes(nil, name))
	names := map[string]string{} // a spelling → the flag it means
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names[f.Name] = f.Name
		}
	})
	if cmd.Name() == "query" {
		for alias, flag := range queryFlagAliases {
			names[alias] = flag
		}
	}
	var prefixed []string
	best, bestDist := "", -1
	for spelling, flag := range names {
		if len(typed) >= 3 && strings.HasPrefix(spelling, typed) && !contains(prefixed, flag) {
			prefixed = append(prefixed, flag)
		}
		d := levenshtein.ComputeDistance(typed, spelling)
		if bestDist < 0 || d < bestDist || d == bestDist && flag < best {
			best, bestDist = flag, d
		}
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	if bestDist >= 0 && bestDist <= max(2, len(typed)/3) {
		return best
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
