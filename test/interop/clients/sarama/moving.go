package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/Shopify/sarama"
)

type moved struct {
	Acked         []record `json:"acked"`
	Read          []record `json:"read"`
	ProduceErrors []string `json:"produceErrors"`
	ConsumeErrors []string `json:"consumeErrors"`
}

// moving creates topic with replication factor 3, says so, and while the test moves its leaders
// sends values one at a time through an idempotent SyncProducer until stdin closes, and reads them
// as a ConsumerGroup's one member, until every acknowledged value is read or the deadline passes.
func moving(bootstrap []string, topic, groupID string, partitions int) (*moved, error) {
	ca, err := sarama.NewClusterAdmin(bootstrap, config())
	if err != nil {
		return nil, err
	}
	if err := ca.CreateTopic(topic, &sarama.TopicDetail{NumPartitions: int32(partitions), ReplicationFactor: 3}, false); err != nil {
		return nil, err
	}
	ca.Close()
	if err := json.NewEncoder(os.Stdout).Encode(map[string]string{"created": topic}); err != nil {
		return nil, err
	}
	stdinClosed := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(stdinClosed)
	}()

	out := &moved{Acked: []record{}, Read: []record{}, ProduceErrors: []string{}, ConsumeErrors: []string{}}
	var mu sync.Mutex
	seen := map[string]bool{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	consumed := make(chan struct{})
	go func() {
		defer close(consumed)
		consumeMoving(ctx, bootstrap, groupID, topic, func(r record) {
			mu.Lock()
			out.Read = append(out.Read, r)
			seen[r[2].(string)] = true
			mu.Unlock()
		}, func(err error) {
			mu.Lock()
			out.ConsumeErrors = append(out.ConsumeErrors, err.Error())
			mu.Unlock()
		})
	}()

	cfg := idempotentConfig()
	// Enough retries to outlast a stopped node's leaderships moving.
	cfg.Producer.Retry.Max = 50
	cfg.Producer.Partitioner = sarama.NewManualPartitioner
	p, err := sarama.NewSyncProducer(bootstrap, cfg)
	if err != nil {
		return nil, err
	}
	for i := 0; !closed(stdinClosed); i++ {
		m := &sarama.ProducerMessage{Topic: topic, Partition: int32(i % partitions), Value: sarama.StringEncoder(fmt.Sprint("s", i))}
		if partition, offset, err := p.SendMessage(m); err != nil {
			out.ProduceErrors = append(out.ProduceErrors, err.Error())
		} else {
			out.Acked = append(out.Acked, record{partition, offset, fmt.Sprint("s", i)})
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := p.Close(); err != nil {
		return nil, err
	}

	timeout := time.After(deadline)
	for {
		mu.Lock()
		all := true
		for _, a := range out.Acked {
			all = all && seen[a[2].(string)]
		}
		mu.Unlock()
		if all {
			break
		}
		select {
		case <-timeout:
			return nil, fmt.Errorf("read %d of %d acknowledged values in %v", len(seen), len(out.Acked), deadline)
		case <-time.After(100 * time.Millisecond):
		}
	}
	cancel()
	<-consumed
	return out, nil
}

// consumeMoving consumes topic as a member of groupID until ctx ends, starting over after any
// error, which it reports.
func consumeMoving(ctx context.Context, bootstrap []string, groupID, topic string, each func(record), failed func(error)) {
	cfg := config()
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	cfg.Consumer.Return.Errors = true
	cfg.Consumer.Offsets.CommitInterval = 200 * time.Millisecond
	for ctx.Err() == nil {
		group, err := sarama.NewConsumerGroup(bootstrap, groupID, cfg)
		if err != nil {
			failed(err)
			time.Sleep(200 * time.Millisecond)
			continue
		}
		go func() {
			for err := range group.Errors() {
				failed(err)
			}
		}()
		m := &member{records: make(chan record), ready: make(chan struct{})}
		go func() {
			for r := range m.records {
				each(r)
			}
		}()
		for ctx.Err() == nil {
			if err := group.Consume(ctx, []string{topic}, m); err != nil {
				failed(err)
				break
			}
		}
		group.Close()
		close(m.records)
	}
}

func closed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
