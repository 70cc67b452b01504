package natsstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Kept lists the buckets of BucketNames that exist in the NATS at url: what
// a cluster under prefix keeps there.
func Kept(ctx context.Context, url, prefix string) ([]string, error) {
	var kept []string
	err := withJetStream(url, func(js jetstream.JetStream) error {
		for _, name := range BucketNames(prefix) {
			_, err := js.KeyValue(ctx, name)
			switch {
			case err == nil:
				kept = append(kept, name)
			case !errors.Is(err, jetstream.ErrBucketNotFound):
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("natsstore: buckets of %s: %w", prefix, err)
	}
	return kept, nil
}

// Purge deletes the buckets of a cluster under prefix, which outlive its
// nodes. Deleting them under running nodes would take the cluster's shared
// state away from it.
func Purge(ctx context.Context, url, prefix string) error {
	err := withJetStream(url, func(js jetstream.JetStream) error {
		for _, name := range BucketNames(prefix) {
			if err := js.DeleteKeyValue(ctx, name); err != nil && !errors.Is(err, jetstream.ErrBucketNotFound) {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("natsstore: purge %s: %w", prefix, err)
	}
	return nil
}

// withJetStream runs f on a connection of its own to the NATS at url.
func withJetStream(url string, f func(jetstream.JetStream) error) error {
	nc, err := nats.Connect(url, nats.Name("roost purge"), nats.Timeout(time.Second))
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	return f(js)
}
