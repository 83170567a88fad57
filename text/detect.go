package text

import "unicode/utf8"

// DetectLanguage guesses whether s is Czech or English from cheap cues:
// letters with Czech diacritics (ěščřžýáíéůúňťď), Czech and English function
// words (matched folded, so Czech typed without diacritics still counts) and
// endings, the letter pair "th" and "w" (frequent in English, rare in
// Czech) and a letter-frequency log-likelihood ratio.
// Text with no cue at all is reported as English. It does not allocate.
func DetectLanguage(s string) Language {
	cs, en := 0, 0
	llr := 0.0
	var buf [2*MaxTokenBytes + utf8.UTFMax]byte
	for i := 0; i < len(s); {
		start, end := nextWord(s, i)
		if start < 0 {
			break
		}
		i = end
		w := s[start:end]
		if len(w) > MaxTokenBytes {
			continue
		}
		for _, r := range w {
			switch r {
			case 'ě', 'š', 'č', 'ř', 'ž', 'ů', 'ň', 'ť', 'ď', 'Ě', 'Š', 'Č', 'Ř', 'Ž', 'Ů', 'Ň', 'Ť', 'Ď':
				cs += 3
			case 'á', 'í', 'é', 'ý', 'ú', 'Á', 'Í', 'É', 'Ý', 'Ú':
				cs++
			}
		}
		b := appendFold(buf[:0], w)
		if _, ok := detectCzech[string(b)]; ok {
			cs += 2
		}
		if _, ok := detectEnglish[string(b)]; ok {
			en += 2
		}
		if len(b) == 1 && (b[0] == 'v' || b[0] == 'k' || b[0] == 's' || b[0] == 'z') {
			cs += 2
		}
		for _, e := range czechEndings {
			if len(b) > len(e)+1 && string(b[len(b)-len(e):]) == e {
				cs++
				break
			}
		}
		for _, e := range englishEndings {
			if len(b) > len(e)+1 && string(b[len(b)-len(e):]) == e {
				en++
				break
			}
		}
		for j := 0; j+1 < len(b); j++ {
			if b[j] == 't' && b[j+1] == 'h' {
				en++
			}
		}
		for _, c := range b {
			if c == 'w' {
				en++
			}
			if 'a' <= c && c <= 'z' {
				llr += letterLLR[c-'a']
			}
		}
	}
	if float64(cs-en)+letterWeight*llr > 0 {
		return Czech
	}
	return English
}

// czechEndings and englishEndings are frequent inflectional and
// derivational endings (folded) of one language that are rare in the other.
var (
	czechEndings   = []string{"ovy", "ova", "ove", "ych", "ymi", "eho", "emu", "ich", "nich", "ni", "ost", "osti", "ami", "ach", "ou", "em", "ky", "ku", "vat", "ovat", "it", "ne", "ho"}
	englishEndings = []string{"ing", "tion", "ed", "ly", "ies", "ness", "ment", "ous", "ity", "al", "ive", "ble", "er", "ers"}
)

// detectCzech and detectEnglish are frequent function words of one language
// that are not words of the other (folded); shared forms such as "a", "to",
// "on", "by" and "i" are left out.
var (
	detectCzech = wordSet(`je se na v ve z ze do o s k pro jako ale jsou jsem jsme jste
byl byla bylo byli byly ktere ktery ktera kteri az uz pri od po jak ani nebo
neni tento teto tomto tak take jeho jejich jen jiz tedy mezi podle pod nad pred
pres bez kde kdyz aby jsou bude budou mu mi ho si tim ta tu ty vsak coz`)
	detectEnglish = wordSet(`the of and in is that for it with as was are be this which
from at an or have not were we these our their has been its can but they than
also other may more such into between both only after who when there would
should could about each how what will using used our were had he she you`)
)

// letterLLR is log(P(letter | folded Czech) / P(letter | English)) for a..z,
// from published letter frequency tables of both languages (rounded);
// letterWeight scales its sum against the word cues above.
var letterLLR = [26]float64{0.06, 0.18, -0.07, -0.18, -0.24, -1.99, -2.3, -1.55, 0.07, 2.64, 1.53, -0.05, 0.32, -0.03, 0.15, 0.58, -2.3, -0.18, -0.14, -0.47, 0.33, 1.55, -4.79, -1.1, 0.3, 3.82}

const letterWeight = 0.5
