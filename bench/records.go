package bench

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"time"

	"github.com/najdi/najdi/engine"
)

// RecordsConfig configures RunRecords.
type RecordsConfig struct {
	// File is a CSV file to ingest; "" generates Rows × Cols.
	File string
	// Rows and Cols size the generated CSV (default 25 × 120).
	Rows, Cols int
	// Seed seeds the generator.
	Seed uint64
	// Models and ORTLib locate the embedding models and ONNX Runtime.
	Models, ORTLib string
	// Model is the collection's embedding model ("" for the default).
	Model string
}

// RunRecords ingests one CSV file through the whole engine (parsing,
// typing, analysis, chunking, embedding, indexing, durable commit) into a
// new collection in a temporary directory and reports records per second.
func RunRecords(cfg RecordsConfig, w io.Writer) error {
	var data []byte
	name := cfg.File
	if cfg.File != "" {
		var err error
		if data, err = os.ReadFile(cfg.File); err != nil {
			return err
		}
	} else {
		cfg.Rows = max(cfg.Rows, 1)
		if cfg.Cols == 0 {
			cfg.Cols = 120
		}
		data = GenerateWideCSV(cfg.Rows, cfg.Cols, cfg.Seed)
		name = fmt.Sprintf("generated %d rows × %d columns (seed %d)", cfg.Rows, cfg.Cols, cfg.Seed)
	}
	dir, err := os.MkdirTemp("", "najdi-bench-records")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	prov, err := engine.NewModelProvider(cfg.Models, cfg.ORTLib)
	if err != nil {
		return err
	}
	defer prov.Close()
	e, err := engine.Open(engine.Options{Dir: dir, Embedders: prov})
	if err != nil {
		return err
	}
	defer e.Close()
	ctx := context.Background()
	info, _, err := e.PutCollection(ctx, "", "wide", engine.CollectionConfig{EmbeddingConfig: engine.EmbeddingConfig{Model: cfg.Model}})
	if err != nil {
		return err
	}
	// Load the model before the clock starts.
	if _, err := e.Search(ctx, "", []string{"wide"}, engine.SearchRequest{Query: "warm up"}); err != nil {
		return err
	}
	cpu0, _ := ingestCPUTime()
	start := time.Now()
	res, err := e.Ingest(ctx, "", "wide", engine.IngestRequest{Format: "csv", Data: data})
	if err != nil {
		return err
	}
	el := time.Since(start)
	cpu1, _ := ingestCPUTime()
	cpu := cpu1 - cpu0
	n := float64(len(res.Documents))
	fmt.Fprintf(w, "%s: %d bytes, model %s: %d records in %s: %.1f records/s; process CPU %s: %.1f records per CPU-second (%d errors)\n",
		name, len(data), info.Config.EmbeddingConfig.Key(), len(res.Documents), el.Round(time.Millisecond), n/el.Seconds(), cpu.Round(10*time.Millisecond), n/max(cpu.Seconds(), 0.01), len(res.Errors))
	return nil
}

// GenerateWideCSV returns a deterministic CSV of rows records and cols
// columns of mixed kinds, as exported from a business system: short text
// (names, descriptions), integers, decimals, enumerations, dates, codes and
// yes/no flags.
func GenerateWideCSV(rows, cols int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	words := []string{"river", "station", "invoice", "customer", "delivery", "mountain", "service", "contract",
		"payment", "warehouse", "product", "order", "region", "account", "supplier", "quality", "north",
		"south", "energy", "transport", "medical", "software", "garden", "school", "harbour", "bridge"}
	enums := []string{"active", "pending", "closed", "archived", "draft"}
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	head := make([]string, cols)
	for c := range cols {
		head[c] = fmt.Sprintf("%s_%s_%d", words[c%len(words)], []string{"name", "count", "amount", "status", "date", "code", "flag"}[c%7], c)
	}
	cw.Write(head)
	row := make([]string, cols)
	for range rows {
		for c := range cols {
			switch c % 7 {
			case 0:
				n := 2 + r.IntN(6)
				s := ""
				for i := range n {
					if i > 0 {
						s += " "
					}
					s += words[r.IntN(len(words))]
				}
				row[c] = s
			case 1:
				row[c] = strconv.Itoa(r.IntN(100000))
			case 2:
				row[c] = strconv.FormatFloat(r.Float64()*10000, 'f', 2, 64)
			case 3:
				row[c] = enums[r.IntN(len(enums))]
			case 4:
				row[c] = fmt.Sprintf("20%02d-%02d-%02d", 10+r.IntN(15), 1+r.IntN(12), 1+r.IntN(28))
			case 5:
				row[c] = fmt.Sprintf("%c%c-%04d", 'A'+r.IntN(26), 'A'+r.IntN(26), r.IntN(10000))
			case 6:
				row[c] = []string{"yes", "no"}[r.IntN(2)]
			}
		}
		cw.Write(row)
	}
	cw.Flush()
	return buf.Bytes()
}
