package client_test

import (
	"context"
	"fmt"
	"os"

	"github.com/najdi/najdi/client"
)

// Ingest a file, then page through a search. (Compiled, not run: it needs
// a server; cmd/najdi's tests run the same calls against one.)
func ExampleClient() {
	ctx := context.Background()
	c := client.New("http://127.0.0.1:8080")
	c.User, c.Password = os.Getenv("NAJDI_USER"), os.Getenv("NAJDI_PASSWORD")
	if _, _, err := c.PutCollection(ctx, "demo", nil); err != nil {
		fmt.Println(err)
		return
	}
	data, err := os.ReadFile("examples/countries.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := c.Ingest(ctx, "demo", data, client.IngestOptions{FileName: "countries.csv"}); err != nil {
		fmt.Println(err)
		return
	}
	req := client.SearchRequest{Query: "island nation", MaxResults: 10}
	for {
		res, err := c.Search(ctx, []string{"demo"}, req)
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, d := range res.Documents {
			fmt.Println(d.DocumentID, d.Score)
		}
		if res.Metadata.NextOffset == nil {
			break
		}
		req.Offset = *res.Metadata.NextOffset
	}
}
