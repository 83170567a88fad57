package evaldata

import (
	"math/rand/v2"
	"strings"
)

// gibberishTyped are texts a person types when testing a chatbot: keyboard
// rows, lorem ipsum and the like.
var gibberishTyped = []string{"asdf qwerty", "lorem ipsum dolor sit amet", "qwertyuiop", "asdfghjkl", "zxcvbnm asdf", "jkjkjk lololol", "sdfsdf sdf sdf", "aaaaaaa", "xyz abc def", "lorem ipsum", "dolor sit amet consectetur adipiscing elit", "sed do eiusmod tempor incididunt ut labore", "blah blah blah", "hjkl hjkl", "qwe rty uio", "fdsa rewq", "mnbvcxz lkjhg"}

// Gibberish returns texts that an intent classifier must put out of scope:
// the typed ones above, then n random letter strings of one to four words
// of 2–9 letters, drawn from a fixed seed so every caller gets the same n.
func Gibberish(n int) []string {
	out := append([]string(nil), gibberishTyped...)
	rng := rand.New(rand.NewPCG(7, 7))
	for range n {
		words := make([]string, 1+rng.IntN(4))
		for i := range words {
			b := make([]byte, 2+rng.IntN(8))
			for j := range b {
				b[j] = byte('a' + rng.IntN(26))
			}
			words[i] = string(b)
		}
		out = append(out, strings.Join(words, " "))
	}
	return out
}
