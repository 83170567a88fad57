package peers

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/najdi/najdi/embed"
)

// Static makes cheap "static" embeddings for the large collection, where
// running the transformer over a million chunks on two shared cores is not
// feasible: the vector of a text is the mean of the bge-small-en-v1.5
// model's own input-token embedding rows (embeddings.word_embeddings, read
// from model.onnx) over the text's WordPiece ids (without [CLS] and [SEP]),
// L2-normalised. The rows are the quantized uint8 initializer minus its zero
// point (the per-tensor scale does not change the direction). These vectors
// have the model's vocabulary geometry but none of its contextual layers:
// retrieval quality on them says nothing about the model; they serve the
// speed, memory and recall-vs-exact measurements.
type Static struct {
	tok  *embed.Tokenizer
	rows []float32 // vocab × dims, zero point removed
	dims int
}

// LoadStatic reads the tokenizer and the word embedding matrix of the model
// in dir (manifest.json, tokenizer.json, model.onnx).
func LoadStatic(dir string) (*Static, error) {
	var man struct {
		Model     string `json:"model"`
		Tokenizer string `json:"tokenizer"`
		Dims      int    `json:"dims"`
		Lower     bool   `json:"do_lower_case"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, fmt.Errorf("static embeddings: %w", err)
	}
	if err := json.Unmarshal(data, &man); err != nil {
		return nil, fmt.Errorf("static embeddings: manifest: %w", err)
	}
	tok, err := embed.LoadTokenizer(filepath.Join(dir, man.Tokenizer), man.Lower)
	if err != nil {
		return nil, fmt.Errorf("static embeddings: %w", err)
	}
	model, err := os.ReadFile(filepath.Join(dir, man.Model))
	if err != nil {
		return nil, fmt.Errorf("static embeddings: %w", err)
	}
	rows, dims, err := wordEmbeddings(model)
	if err != nil {
		return nil, fmt.Errorf("static embeddings: %s: %w", man.Model, err)
	}
	if dims != man.Dims {
		return nil, fmt.Errorf("static embeddings: word embeddings have %d dims, the manifest says %d", dims, man.Dims)
	}
	return &Static{tok: tok, rows: rows, dims: dims}, nil
}

// Dims returns the vector size.
func (s *Static) Dims() int { return s.dims }

// Embed returns the static embedding of text.
func (s *Static) Embed(text string) []float32 {
	ids := s.tok.Encode(text, 0)
	if len(ids) > 2 {
		ids = ids[1 : len(ids)-1]
	}
	v := make([]float32, s.dims)
	vocab := len(s.rows) / s.dims
	for _, id := range ids {
		if int(id) >= vocab || id < 0 {
			continue
		}
		row := s.rows[int(id)*s.dims : int(id+1)*s.dims]
		for j, x := range row {
			v[j] += x
		}
	}
	normalize(v)
	return v
}

func normalize(v []float32) {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		v[0] = 1
		return
	}
	inv := float32(1 / math.Sqrt(n))
	for j := range v {
		v[j] *= inv
	}
}

// onnxTensor is the part of an ONNX TensorProto the reader needs.
type onnxTensor struct {
	name     string
	dims     []int64
	dataType int64
	raw      []byte
	floats   []float32
	int32s   []int64
}

// wordEmbeddings finds the word embedding initializer of a BERT ONNX model
// (float32, or uint8/int8 with a zero point initializer) and returns it as
// float32 rows.
func wordEmbeddings(model []byte) ([]float32, int, error) {
	graph, err := protoField(model, 7)
	if err != nil {
		return nil, 0, err
	}
	tensors := map[string]onnxTensor{}
	err = protoEach(graph, func(num protowire.Number, b []byte) error {
		if num != 5 {
			return nil
		}
		t, err := parseTensor(b)
		if err != nil {
			return err
		}
		tensors[t.name] = t
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	const base = "embeddings.word_embeddings.weight"
	if t, ok := tensors[base]; ok && t.dataType == 1 && len(t.dims) == 2 {
		return rawFloats(t), int(t.dims[1]), nil
	}
	t, ok := tensors[base+"_quantized"]
	if !ok || len(t.dims) != 2 {
		return nil, 0, fmt.Errorf("no %s initializer", base)
	}
	zp := 0.0
	if z, ok := tensors[base+"_zero_point"]; ok {
		switch {
		case len(z.raw) > 0 && z.dataType == 3:
			zp = float64(int8(z.raw[0]))
		case len(z.raw) > 0:
			zp = float64(z.raw[0])
		case len(z.int32s) > 0:
			zp = float64(z.int32s[0])
		}
	}
	n := int(t.dims[0] * t.dims[1])
	if len(t.raw) != n {
		return nil, 0, fmt.Errorf("%s: %d bytes for %v", t.name, len(t.raw), t.dims)
	}
	out := make([]float32, n)
	for i, b := range t.raw {
		x := float64(b)
		if t.dataType == 3 {
			x = float64(int8(b))
		}
		out[i] = float32(x - zp)
	}
	return out, int(t.dims[1]), nil
}

func rawFloats(t onnxTensor) []float32 {
	if len(t.floats) > 0 {
		return t.floats
	}
	out := make([]float32, len(t.raw)/4)
	for i := range out {
		out[i] = math.Float32frombits(uint32(t.raw[4*i]) | uint32(t.raw[4*i+1])<<8 | uint32(t.raw[4*i+2])<<16 | uint32(t.raw[4*i+3])<<24)
	}
	return out
}

func parseTensor(b []byte) (onnxTensor, error) {
	var t onnxTensor
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return t, protowire.ParseError(n)
		}
		b = b[n:]
		switch {
		case (num == 1 || num == 5) && typ == protowire.BytesType: // packed int64 dims / int32_data
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return t, protowire.ParseError(n)
			}
			for len(v) > 0 {
				x, m := protowire.ConsumeVarint(v)
				if m < 0 {
					return t, protowire.ParseError(m)
				}
				if num == 1 {
					t.dims = append(t.dims, int64(x))
				} else {
					t.int32s = append(t.int32s, int64(int32(x)))
				}
				v = v[m:]
			}
			b = b[n:]
		case (num == 1 || num == 2 || num == 5) && typ == protowire.VarintType:
			x, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return t, protowire.ParseError(n)
			}
			switch num {
			case 1:
				t.dims = append(t.dims, int64(x))
			case 2:
				t.dataType = int64(x)
			case 5:
				t.int32s = append(t.int32s, int64(int32(x)))
			}
			b = b[n:]
		case num == 4 && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return t, protowire.ParseError(n)
			}
			for i := 0; i+4 <= len(v); i += 4 {
				t.floats = append(t.floats, math.Float32frombits(uint32(v[i])|uint32(v[i+1])<<8|uint32(v[i+2])<<16|uint32(v[i+3])<<24))
			}
			b = b[n:]
		case num == 8 && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return t, protowire.ParseError(n)
			}
			t.name = string(v)
			b = b[n:]
		case num == 9 && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return t, protowire.ParseError(n)
			}
			t.raw = v
			b = b[n:]
		default:
			n := protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return t, protowire.ParseError(n)
			}
			b = b[n:]
		}
	}
	return t, nil
}

// protoField returns the bytes of the first length-delimited field num of a
// message.
func protoField(msg []byte, num protowire.Number) ([]byte, error) {
	var out []byte
	err := protoEach(msg, func(n protowire.Number, b []byte) error {
		if n == num && out == nil {
			out = b
		}
		return nil
	})
	if err == nil && out == nil {
		err = fmt.Errorf("no field %d", num)
	}
	return out, err
}

// protoEach calls fn for every length-delimited field of a message.
func protoEach(msg []byte, fn func(protowire.Number, []byte) error) error {
	for len(msg) > 0 {
		num, typ, n := protowire.ConsumeTag(msg)
		if n < 0 {
			return protowire.ParseError(n)
		}
		msg = msg[n:]
		if typ == protowire.BytesType {
			v, n := protowire.ConsumeBytes(msg)
			if n < 0 {
				return protowire.ParseError(n)
			}
			if err := fn(num, v); err != nil {
				return err
			}
			msg = msg[n:]
			continue
		}
		n = protowire.ConsumeFieldValue(num, typ, msg)
		if n < 0 {
			return protowire.ParseError(n)
		}
		msg = msg[n:]
	}
	return nil
}
