package evaldata

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// SnipsIntents are the seven intents of the SNIPS benchmark, one directory
// each under shared/data/intents/snips.
var SnipsIntents = []string{"AddToPlaylist", "BookRestaurant", "GetWeather", "PlayMusic", "RateBook", "SearchCreativeWork", "SearchScreeningEvent"}

// SnipsUtterance is one SNIPS utterance: its text and the slot types it
// fills, in order of first appearance.
type SnipsUtterance struct {
	Text  string
	Slots []string
}

// SnipsPath returns the path of one SNIPS file of intent under dataDir
// (shared/data): file is e.g. "train_GetWeather_full.json" or
// "validate_GetWeather.json".
func SnipsPath(dataDir, intent, file string) string {
	return filepath.Join(dataDir, "intents", "snips", intent, file)
}

// SnipsTrain names an intent's full training file.
func SnipsTrain(intent string) string { return "train_" + intent + "_full.json" }

// SnipsValid names an intent's validation file (see SnipsTrain).
func SnipsValid(intent string) string { return "validate_" + intent + ".json" }

// ReadSnips reads up to limit utterances of intent from the SNIPS file at
// path (limit <= 0: all). Files that are not valid UTF-8 (PlayMusic's
// training file is Latin-1) are decoded as Latin-1.
func ReadSnips(path, intent string, limit int) ([]SnipsUtterance, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("snips: %w", err)
	}
	if !utf8.Valid(raw) {
		rs := make([]rune, len(raw))
		for i, b := range raw {
			rs[i] = rune(b)
		}
		raw = []byte(string(rs))
	}
	var doc map[string][]struct {
		Data []struct {
			Text   string `json:"text"`
			Entity string `json:"entity"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("snips: %s: %w", path, err)
	}
	var out []SnipsUtterance
	for _, u := range doc[intent] {
		var b strings.Builder
		var slots []string
		for _, d := range u.Data {
			b.WriteString(d.Text)
			if d.Entity != "" && !slices.Contains(slots, d.Entity) {
				slots = append(slots, d.Entity)
			}
		}
		out = append(out, SnipsUtterance{Text: b.String(), Slots: slots})
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out, nil
}

// ReadSnipsTexts is ReadSnips keeping the texts only.
func ReadSnipsTexts(path, intent string, limit int) ([]string, error) {
	us, err := ReadSnips(path, intent, limit)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(us))
	for i, u := range us {
		out[i] = u.Text
	}
	return out, nil
}
