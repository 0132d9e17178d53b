package main

import (
	"math/rand"
	"sort"
)

// bootSeed and bootRounds fix the bootstrap: the same queries give the
// same intervals on every run.
const (
	bootSeed   = 1
	bootRounds = 2000
)

// interval is a mean over queries and its bootstrap 95% interval.
type interval struct{ Mean, Lo, Hi float64 }

// bootstrap resamples the queries (with replacement, as many as there are)
// bootRounds times and returns the mean of each statistic and the 2.5th
// and 97.5th percentiles of its resampled means. vals[i] holds query i's
// value of every statistic; the same resample serves them all.
func bootstrap(vals [][]float64) []interval {
	if len(vals) == 0 {
		return nil
	}
	k := len(vals[0])
	out := make([]interval, k)
	for j := 0; j < k; j++ {
		var s float64
		for _, v := range vals {
			s += v[j]
		}
		out[j].Mean = s / float64(len(vals))
	}
	rng := rand.New(rand.NewSource(bootSeed))
	means := make([][]float64, k)
	sum := make([]float64, k)
	for r := 0; r < bootRounds; r++ {
		clear(sum)
		for range vals {
			v := vals[rng.Intn(len(vals))]
			for j := range sum {
				sum[j] += v[j]
			}
		}
		for j := range sum {
			means[j] = append(means[j], sum[j]/float64(len(vals)))
		}
	}
	for j := range means {
		sort.Float64s(means[j])
		out[j].Lo = means[j][int(0.025*float64(bootRounds))]
		out[j].Hi = means[j][int(0.975*float64(bootRounds))-1]
	}
	return out
}
