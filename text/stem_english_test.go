package text

import (
	"strings"
	"testing"
)

// englishStemCases are word → Porter2 stem pairs taken from the algorithm
// description's worked examples and its sample vocabulary (the "consign..."
// and "knack..." blocks), plus classic examples whose stems follow directly
// from the rules (each was checked by hand against the step definitions).
const englishStemCases = `
consign consign consigned consign consigning consign consignment consign
consist consist consisted consist consistency consist consistent consist
consistently consist consisting consist consists consist consolation consol
consolations consol consolatory consolatori console consol consoled consol
consoles consol consolidate consolid consolidated consolid consolidating consolid
consoling consol consolingly consol consols consol consonant conson consort consort
consorted consort consorting consort conspicuous conspicu conspicuously conspicu
conspiracy conspiraci conspirator conspir conspirators conspir conspire conspir
conspired conspir conspiring conspir constable constabl constables constabl
constance constanc constancy constanc constant constant
knack knack knackeries knackeri knacks knack knag knag knave knave knaves knave
knavish knavish kneaded knead kneading knead knee knee kneel kneel kneeled kneel
kneeling kneel kneels kneel knees knee knell knell knelt knelt knew knew knick knick
knif knif knife knife knight knight knightly knight knights knight knit knit
knits knit knitted knit knitting knit knives knive knob knob knobs knob knock knock
knocked knock knocker knocker knockers knocker knocking knock knocks knock
knopp knopp knot knot knots knot
caresses caress ponies poni ties tie cries cri caress caress cats cat gas gas
this this gaps gap kiwis kiwi feed feed agreed agre plastered plaster bled bled
motoring motor sing sing conflated conflat troubled troubl sized size hopping hop
tanned tan falling fall hissing hiss fizzed fizz failing fail filing file
happy happi sky sky cry cri by by say say
generously generous generous generous generate generat generation generat
running run runs run dogs dog happily happili dying die lying lie tying tie
news news skies sky skis ski idly idl gently gentl ugly ugli early earli only onli
singly singl atlas atlas cosmos cosmos bias bias andes andes howe howe
inning inning innings inning outing outing outings outing canning canning
herring herring earring earring proceed proceed exceed exceed succeed succeed
proceeding proceed exceeded exceed
relational relat conditional condit rational ration digitizer digit
operator oper feudalism feudal decisiveness decis hopefulness hope
callousness callous sensibility sensibl triplicate triplic formative format
formalize formal electricity electr electrical electr hopeful hope goodness good
revival reviv allowance allow inference infer airliner airlin gyroscopic gyroscop
adjustable adjust defensible defens irritant irrit replacement replac
adjustment adjust dependent depend adoption adopt communism communism
activate activ angularity angular effective effect bowdlerize bowdler
controll control roll roll
cat's cat dog's dog dogs' dog 'tis tis
a a is is at at be be
luxuriated luxuri hoped hope hopes hope hope hope
abilities abil ability abil
arsenal arsenal community communiti communities communiti
recognized recogn universities univers university univers
searching search searched search searches search
connection connect connections connect connective connect connected connect connecting connect
computer comput computers comput computing comput computation comput computational comput
classification classif classified classifi classify classifi
beautiful beauti beauty beauti
argued argu argument argument arguing argu
national nation nationally nation nationality nation
organization organ organizations organ organize organ organized organ
`

func TestStemEnglish(t *testing.T) {
	f := strings.Fields(englishStemCases)
	if len(f)%2 != 0 {
		t.Fatalf("odd number of fields")
	}
	for i := 0; i < len(f); i += 2 {
		word, want := f[i], f[i+1]
		if got := string(stemEnglish([]byte(word))); got != want {
			t.Errorf("stemEnglish(%q) = %q, want %q", word, got, want)
		}
	}
}
