package peers

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/structpb"
)

// weaviateAlpha is the hybrid weight of the vector side: GraphQL's default
// (https://docs.weaviate.io/weaviate/search/hybrid), sent explicitly over
// gRPC, where the server takes the field as given.
const weaviateAlpha = 0.75

// dialWeaviate opens the gRPC connection to Weaviate's port (plaintext on
// loopback, as the clients do for a local node).
func dialWeaviate(addr string) (*grpc.ClientConn, pb.WeaviateClient, error) {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20), grpc.MaxCallSendMsgSize(64<<20)))
	if err != nil {
		return nil, nil, fmt.Errorf("weaviate grpc dial %s: %w", addr, err)
	}
	return conn, pb.NewWeaviateClient(conn), nil
}

// vectorBytes encodes v as Weaviate's gRPC vector_bytes: little-endian
// float32s.
func vectorBytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// weaviateVectors wraps v as the single unnamed vector of a search.
func weaviateVectors(v []float32) []*pb.Vectors {
	return []*pb.Vectors{{VectorBytes: vectorBytes(v), Type: pb.Vectors_VECTOR_TYPE_SINGLE_FP32}}
}

// weaviateSearchRequest builds the gRPC search of one query: BM25 on title
// and body, nearVector, or hybrid (relative-score fusion, alpha 0.75), with
// the bucket filter of a filtered kind; it asks for the object UUIDs only
// (no properties), which the caller maps back to document ids.
func weaviateSearchRequest(cls string, kind Kind, q Query, k int) *pb.SearchRequest {
	req := &pb.SearchRequest{
		Collection: cls,
		Limit:      uint32(k),
		Metadata:   &pb.MetadataRequest{Uuid: true},
		Properties: &pb.PropertiesRequest{},
		// The request shape TestWeaviateGRPCMatchesREST validated against a
		// real v1.35.2 node (same ids as GraphQL): all three API flags.
		Uses_123Api: true, //lint:ignore SA1019 kept with the validated request shape
		Uses_125Api: true, //lint:ignore SA1019 kept with the validated request shape
		Uses_127Api: true,
	}
	props := []string{"title", "body"}
	switch kind {
	case Keyword:
		req.Bm25Search = &pb.BM25{Query: q.Text, Properties: props}
	case Vector:
		req.NearVector = &pb.NearVector{Vectors: weaviateVectors(q.Vector)}
	default:
		req.HybridSearch = &pb.Hybrid{Query: q.Text, Properties: props, Vectors: weaviateVectors(q.Vector),
			Alpha: weaviateAlpha, FusionType: pb.Hybrid_FUSION_TYPE_RELATIVE_SCORE}
	}
	if m := filterMax(kind); m > 0 {
		req.Filters = &pb.Filters{
			Operator:  pb.Filters_OPERATOR_LESS_THAN,
			Target:    &pb.FilterTarget{Target: &pb.FilterTarget_Property{Property: "bucket"}},
			TestValue: &pb.Filters_ValueInt{ValueInt: int64(m)},
		}
	}
	return req
}

// grpcSearch runs one search over gRPC and maps the UUIDs back to ids.
func (w *weaviate) grpcSearch(ctx context.Context, index string, kind Kind, q Query, k int) (Result, error) {
	req, err := w.reqs.get(queryKey{index, kind, q.ID, k}, func() (any, error) {
		return weaviateSearchRequest(className(index), kind, q, k), nil
	})
	if err != nil {
		return Result{}, err
	}
	reply, err := w.client.Search(ctx, req.(*pb.SearchRequest))
	if err != nil {
		return Result{}, fmt.Errorf("weaviate grpc search: %w", err)
	}
	ids := w.idsOf(index)
	res := Result{IDs: make([]string, len(reply.Results))}
	for i, r := range reply.Results {
		id, ok := ids[r.GetMetadata().GetId()]
		if !ok {
			return Result{}, fmt.Errorf("weaviate grpc search: unknown object %q", r.GetMetadata().GetId())
		}
		res.IDs[i] = id
	}
	return res, nil
}

// grpcIngest imports docs with gRPC BatchObjects in batches of
// weaviateBatch, the import path of Weaviate's v4 Python and v5 Go clients.
func (w *weaviate) grpcIngest(ctx context.Context, index string, docs []Doc) error {
	cls := className(index)
	for lo := 0; lo < len(docs); lo += weaviateBatch {
		part := docs[lo:min(lo+weaviateBatch, len(docs))]
		objs := make([]*pb.BatchObject, len(part))
		for i, d := range part {
			props, err := structpb.NewStruct(map[string]any{"docid": d.ID, "title": d.Title, "body": d.Text, "bucket": d.Bucket})
			if err != nil {
				return fmt.Errorf("weaviate grpc ingest %s: %w", d.ID, err)
			}
			objs[i] = &pb.BatchObject{Uuid: uuidOf(d.ID), Collection: cls, VectorBytes: vectorBytes(d.Vector),
				Properties: &pb.BatchObject_Properties{NonRefProperties: props}}
		}
		reply, err := w.client.BatchObjects(ctx, &pb.BatchObjectsRequest{Objects: objs})
		if err != nil {
			return fmt.Errorf("weaviate grpc ingest: %w", err)
		}
		if len(reply.Errors) > 0 {
			e := reply.Errors[0]
			return fmt.Errorf("weaviate grpc ingest: %d errors, object %s: %s", len(reply.Errors), part[e.Index].ID, e.Error)
		}
	}
	return nil
}
