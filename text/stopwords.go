package text

import "strings"

// englishStopwords is Lucene's default English stop set
// (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET), which keeps content words such as
// "about" or "between" searchable.
const englishStopwords = `a an and are as at be but by for if in into is it
no not of on or such that the their then there these they this to was will with`

// czechStopwords is based on the Czech list Lucene ships (Dolamic & Savoy),
// minus its web-forum content words (článku, strana, téma, zprávy...) and
// minus "být", whose folded form "byt" (flat) is a content word. Entries are
// folded (no diacritics) because the Czech pipeline matches folded forms.
const czechStopwords = `a aby aj ale ani asi atd atp az bez bude budem budes budete
budou by byl byla byli bylo byly ci co coz do ho i jak jake jakmile jako jakoz
jde je jeho jehoz jej jeji jejich jelikoz jemu jen jenz jeste jez ji jiz jsem jses
jsi jsme jsou jste k kam kde kdo kdyz ke kterou ktera ktere kteri kterou ktery ma
mate me mezi mi mit mne mnou muj muze my na nad nam nas nacez ne nebo nebot
nejsou neni nez nic nim nemu nemuz o od on ona oni ono ony po pod podle pokud
potom pouze pri pricemz pro proc proto protoze pred pres s se si sve svuj svych
svym svymi ta tak take takze tato tedy teto tem temu ten tento teto ti tim timto
to toho tohle tohoto tom tomto tomu tomuto tu tuto ty tyto u uz v vam vas vase
ve vice vsak vy z za zda zde ze zpet`

func wordSet(list string) map[string]struct{} {
	m := make(map[string]struct{})
	for _, w := range strings.Fields(list) {
		m[w] = struct{}{}
	}
	return m
}
