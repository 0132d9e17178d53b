package main

import (
	"math/rand"
	"testing"
)

// Trees learn what no weighted sum can: here the answer is the file whose
// two features are both high or both low (an exclusive or), among
// candidates where one of them is high.
func TestTreesLearnAnInteraction(t *testing.T) {
	const seed = 7
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	byRepo := map[string][]query{}
	for r := 0; r < 4; r++ {
		repo := string(rune('a' + r))
		for k := 0; k < 60; k++ {
			q := query{Repo: repo}
			ans := rng.Intn(6)
			for i := 0; i < 6; i++ {
				a, b := rng.Float64(), rng.Float64()
				hi := (a > 0.5) == (b > 0.5)
				if i == ans && !hi || i != ans && hi {
					b = 1 - b
				}
				q.Files = append(q.Files, file{Answer: i == ans, X: []float64{a, b, 1}})
			}
			byRepo[repo] = append(byRepo[repo], q)
		}
	}
	repos := []string{"a", "b", "c", "d"}
	mask := []bool{true, true, false}
	lin := model{w: fit(byRepo, repos, 3, mask)}
	trees := model{w: lin.w, trees: boost(byRepo, repos, lin.w, mask, treeOpts{n: 30, depth: 2, shrink: 0.3, lambda: 1, minH: 1})}
	var sl, st stats
	for _, r := range repos {
		for _, q := range byRepo[r] {
			sl.add(firstAnswer(q, &lin))
			st.add(firstAnswer(q, &trees))
		}
	}
	t.Logf("linear %v, trees %v", sl, st)
	if st.hit1/float64(st.n) < 0.9 || st.hit1 <= sl.hit1 {
		t.Fatalf("trees did not learn the interaction: linear %v, trees %v", sl, st)
	}
}
