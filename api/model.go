package api

import "encoding/json"

// Model is an NLU model configuration as the API shows it. Exactly one of
// Annotator and Pipeline is set, matching Type. Built-in entity models carry
// Language; closed-entity models carry PhraseSetIDs.
type Model struct {
	ModelID      string     `json:"model_id"`
	Owner        string     `json:"owner"`
	Name         string     `json:"name"`
	Description  string     `json:"description"`
	Type         string     `json:"type"`
	Mode         string     `json:"mode,omitempty"`
	Language     string     `json:"language,omitempty"`
	PhraseSetIDs []string   `json:"phrase_set_ids,omitempty"`
	Annotator    *Annotator `json:"annotator,omitempty"`
	Pipeline     *Pipeline  `json:"pipeline,omitempty"`
}

// Annotator is the type-specific object of annotator models. Service is
// "builtin" (Model names the in-process model) or the base URL of an
// annotation microservice (Model and Config are passed through to it).
type Annotator struct {
	Service  string          `json:"service"`
	Model    string          `json:"model,omitempty"`
	Language string          `json:"language,omitempty"`
	Config   json.RawMessage `json:"config,omitempty"`
}

// Pipeline is the type-specific object of pipeline models: the model ids of
// its members, in order. Inline built-in and closed-entity members of a
// request are replaced by the ids of the models created for them.
type Pipeline struct {
	Models []string `json:"models"`
}
